"""Sorting and freeing in steps gives what one call would: the same order, nothing left."""

from __future__ import annotations

import random

import pytest

from pos_app.catalog.steps import STEP, empty_in_steps, release_in_steps, sorted_in_steps


@pytest.mark.parametrize("count", [0, 1, STEP - 1, STEP, STEP + 1, 5 * STEP + 17])
def test_sorted_in_steps_is_sorted_and_release_empties(count):
    rng = random.Random(count)
    rows = [(rng.choice(["eggs ", "milk ", "crème "]), f"id{n}", rng.randrange(100)) for n in range(count)]
    ordered = sorted_in_steps(rows)
    assert ordered == sorted(rows)
    release_in_steps(ordered)
    assert ordered == []


def test_empty_in_steps_empties_the_mapping():
    mapping = {f"id{n}": ("name", n) for n in range(STEP + 3)}
    empty_in_steps(mapping)
    assert mapping == {}
