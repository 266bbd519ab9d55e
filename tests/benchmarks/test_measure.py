"""Shared benchmark tools: waiting for a quiet machine."""

from __future__ import annotations

from benchmarks.measure import wait_until_quiet


def test_waiting_for_a_quiet_machine_stops_once_it_is_idle_enough() -> None:
    assert 0.1 <= wait_until_quiet(idle=0.0, window=0.1, longest=5) < 5


def test_waiting_for_a_quiet_machine_gives_up_after_the_longest_wait() -> None:
    assert 0.3 <= wait_until_quiet(idle=1.01, window=0.1, longest=0.3) < 2
