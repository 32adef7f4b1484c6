"""While a PIN is checked, the background threads' imports wait for it; other threads' do not."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import time

import pytest

from pos_app import give_way


class Made:
    """A finder last on ``sys.meta_path`` that makes the modules named ``give_way_probe_*``:
    each import is one ``give_way`` looked at."""

    def find_spec(self, fullname, path, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname.startswith("give_way_probe_") else None

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        module.imported_at = time.monotonic()


@pytest.fixture
def probes():
    made = Made()
    sys.meta_path.append(made)
    yield
    sys.meta_path.remove(made)
    for name in [name for name in sys.modules if name.startswith("give_way_probe_")]:
        del sys.modules[name]


def imported_at(name: str, *, background: bool) -> tuple[threading.Thread, list[float]]:
    """A thread importing ``name`` (started): when it was imported."""
    times: list[float] = []

    def run() -> None:
        if background:
            give_way.background()
        times.append(importlib.import_module(name).imported_at)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, times


def test_a_background_import_waits_for_the_pin_check_under_way(probes):
    with give_way.urgent():
        thread, times = imported_at("give_way_probe_a", background=True)
        time.sleep(0.2)
        assert times == []  # still waiting
        done = time.monotonic()
    thread.join(5)
    assert times and times[0] >= done


def test_other_threads_import_at_once(probes):
    with give_way.urgent():
        thread, times = imported_at("give_way_probe_b", background=False)
        thread.join(5)
        assert len(times) == 1


def test_a_background_import_waits_for_no_check_for_ever(probes, monkeypatch):
    monkeypatch.setattr(give_way, "WAIT_LIMIT_S", 0.1)
    with give_way.urgent():
        thread, times = imported_at("give_way_probe_c", background=True)
        thread.join(5)
        assert len(times) == 1


def test_nested_checks_hold_the_imports_until_the_last_ends(probes):
    with give_way.urgent():
        with give_way.urgent():
            pass
        thread, times = imported_at("give_way_probe_d", background=True)
        time.sleep(0.1)
        assert times == []
    thread.join(5)
    assert len(times) == 1
