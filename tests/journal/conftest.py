"""Fixtures: a journal in a fresh folder under tmp_path, closed after the test."""

from __future__ import annotations

import pytest

from pos_app.journal import Journal


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / "journal.db"


@pytest.fixture
def journal(path):
    opened = Journal.open(path)
    yield opened
    opened.close()
