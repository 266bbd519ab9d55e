"""Speculative reads across the clusters (pure logic: the reads here are plain functions; a
slow read is one held on an event, so no assertion depends on how fast this machine is)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pytest_django import Settings

from feed.exceptions import FeedUnavailable
from feed.speculative import speculative as read_speculatively

pytestmark = pytest.mark.usefixtures("failures_remembered")


@pytest.fixture(autouse=True)
def _fast_cutoff(settings: Settings) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "SPECULATIVE_CUTOFF_MS": 30,
                             "STANDBY_READ_SHARE": 0.0}


def answering(failing: tuple[str, ...] = (), hold: threading.Event | None = None) -> Any:
    """A read that answers with the cluster's name, or fails for the clusters in ``failing``;
    the primary's read waits for ``hold`` (at most 30 s) first. ``asked`` and ``answered`` list
    the clusters it was called for and those it returned for."""
    asked: list[str] = []
    answered: list[str] = []

    def read(cluster: str) -> str:
        asked.append(cluster)
        if cluster == "primary" and hold is not None:
            hold.wait(30)
        if cluster in failing:
            raise FeedUnavailable(f"{cluster} is down")
        answered.append(cluster)
        return cluster

    read.asked = asked  # type: ignore[attr-defined]
    read.answered = answered  # type: ignore[attr-defined]
    return read


def test_a_fast_primary_answers_alone() -> None:
    read = answering()
    assert read_speculatively(read) == "primary"
    assert read.asked == ["primary"]


def test_a_slow_primary_is_overtaken_by_the_standby_after_the_cutoff() -> None:
    release = threading.Event()
    read = answering(hold=release)  # the primary held far past the 30 ms cutoff
    try:
        assert read_speculatively(read) == "standby"
        assert read.asked == ["primary", "standby"]
        assert "primary" not in read.answered  # the answer did not wait for the primary
    finally:
        release.set()


def test_a_primary_that_fails_at_once_moves_to_the_standby_without_waiting(
        settings: Settings) -> None:
    """With a cutoff of ten minutes, only a move made at the primary's failure (not at the
    cutoff) answers before the generous deadline below."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "SPECULATIVE_CUTOFF_MS": 600_000}
    read = answering(failing=("primary",))
    answered: list[str] = []
    caller = threading.Thread(target=lambda: answered.append(read_speculatively(read)),
                              daemon=True)
    caller.start()
    caller.join(timeout=60)
    assert answered == ["standby"]
    assert read.asked == ["primary", "standby"]


def test_after_a_failure_the_standby_is_asked_first_for_a_while() -> None:
    read_speculatively(answering(failing=("primary",)))
    read = answering()
    assert read_speculatively(read) == "standby"
    assert read.asked == ["standby"]


def test_when_both_clusters_fail_the_read_fails() -> None:
    with pytest.raises(FeedUnavailable):
        read_speculatively(answering(failing=("primary", "standby")))


def test_a_bug_in_the_read_is_not_hidden_by_the_standby() -> None:
    def broken(cluster: str) -> str:
        raise KeyError(cluster)

    with pytest.raises(KeyError):
        read_speculatively(broken)


def test_a_share_of_reads_goes_to_the_standby_first(settings: Settings) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "STANDBY_READ_SHARE": 1.0}
    read = answering()
    assert read_speculatively(read) == "standby"
