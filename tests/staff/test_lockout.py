"""The lockout's rules on their own (no file): how long each wrong PIN locks, the window, the levels."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pos_app.staff.lockout import (
    CLOSED_AT,
    LOCKOUT,
    LOCKOUT_CAP,
    MAX_WRONG_PINS,
    WINDOW,
    LockLevel,
    LockState,
    in_window,
    lock_length,
)

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_the_fifth_wrong_pin_locks_for_5_minutes_then_each_one_doubles_up_to_an_hour():
    assert [lock_length(n) for n in range(1, MAX_WRONG_PINS)] == [None] * 4
    minutes = [lock_length(n) // timedelta(minutes=1) for n in range(MAX_WRONG_PINS, MAX_WRONG_PINS + 7)]
    assert minutes == [5, 10, 20, 40, 60, 60, 60]
    assert lock_length(10**6) == LOCKOUT_CAP == timedelta(hours=1) and LOCKOUT == timedelta(minutes=5)


def test_the_window_is_a_rolling_15_minutes():
    assert WINDOW == timedelta(minutes=15)
    times = [NOW - timedelta(minutes=15), NOW - timedelta(minutes=14, seconds=59), NOW, NOW + timedelta(minutes=1)]
    assert in_window(NOW, times) == 3  # one after a clock set back counts too


def test_a_lock_never_gets_shorter_and_closes_at_ten_wrong_pins():
    state = LockState(3, None)
    assert state.level is LockLevel.OPEN and state.tries_left == 2
    after = state.after_wrong_pin(NOW)
    assert after == LockState(4, None) and after.tries_left == 1
    locked = after.after_wrong_pin(NOW)
    assert locked == LockState(5, NOW + LOCKOUT) and locked.level is LockLevel.LOCKED
    long_lock = LockState(2, NOW + timedelta(minutes=50))  # the window slid under a long lock
    assert long_lock.after_wrong_pin(NOW).until == NOW + timedelta(minutes=50)
    closed = LockState(CLOSED_AT - 1, NOW + LOCKOUT_CAP).after_wrong_pin(NOW)
    assert closed.level is LockLevel.CLOSED and closed.tries_left == 0
    assert closed.to_json() == {"level": "closed", "wrong_pins": CLOSED_AT,
                                "locked_until": (NOW + LOCKOUT_CAP).isoformat()}
