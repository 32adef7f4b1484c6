"""Staff fixtures: a cheap hash cost (the real one is tested on its own) and a settable clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pos_app.staff import ScryptParams, Staff

FAST = ScryptParams(n=16, r=1, p=1)
"""A trivially cheap scrypt cost so that the behaviour tests take milliseconds."""


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def staff_file(tmp_path):
    return tmp_path / "data" / "staff.sqlite3"


@pytest.fixture
def open_staff(staff_file, clock):
    """``open_staff()`` opens the test's staff file (again) with the fast cost and the test clock."""
    opened: list[Staff] = []

    def factory(**kwargs) -> Staff:
        kwargs.setdefault("params", FAST)
        kwargs.setdefault("clock", clock)
        staff = Staff.open(staff_file, **kwargs)
        opened.append(staff)
        return staff

    yield factory
    for staff in opened:
        staff.close()
