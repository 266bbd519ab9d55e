"""The home feed service keeps answering: a generator that raises or runs past its budget, the
pools cluster down and the primary HBase cluster down each still give the materialized feed,
without waiting for the generator past the budget; a visit that showed no chunk makes the next
one no smaller."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import dramatiq
import pytest
from django.conf import settings
from prometheus_client import REGISTRY
from pytest_django import Settings

from devstack import Stack
from feed.smart import generator, health, materialized, pools, service
from feed.smart.generator import chunk_size
from feed.smart.pools import Insert
from feed.smart.schema import Shown
from feed.smart.service import home_page
from tests.feed.helpers import new_board, new_pin, new_user
from tests.outages import stopped
from tests.polling import wait_until
from toolkit.clock import now_us

BUDGET_MS = 100


def reader_with_history(count: int = 5) -> tuple[int, list[int]]:
    """A reader whose materialized feed holds ``count`` pins, and whose pools hold more."""
    owner, reader = new_user("sfs"), new_user("sfr")
    board = new_board(owner)
    pins = [new_pin(owner, board, f"shown {n}") for n in range(count)]
    now = now_us()
    shown = [Shown(now, n, pin, "following") for n, pin in enumerate(pins)]
    for cluster in ("primary", "standby"):
        materialized.write(cluster, reader, shown)  # type: ignore[arg-type]
    extra = new_pin(owner, board, "in the pool")
    pools.insert([Insert(reader, "following", extra, 1.0, now)])
    return reader, pins


class Held:
    """The generator, held until the test releases it (or a minute, far past any budget).
    Then it answers with its chunk, as a cold one answers late after a restart; or, with
    ``answers=False``, it stands for a stalled one, whose chunk must never be used."""

    def __init__(self, answers: bool = True) -> None:
        self.release = threading.Event()
        self.answers = answers
        self.generate = generator.generate

    def __call__(self, user_id: int, now_us: int | None = None,
                 limit: int | None = None) -> generator.Chunk:
        self.release.wait(60)
        if not self.answers:
            raise AssertionError("a stalled generator's chunk must never be used")
        return self.generate(user_id, now_us, limit)


def failing(user_id: int, now_us: int | None = None,
            limit: int | None = None) -> generator.Chunk:
    raise RuntimeError("generator bug")


@pytest.mark.parametrize("outcome", ["failed", "timeout"])
def test_a_failing_or_stalled_generator_gives_the_materialized_feed(
        outcome: str, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.PINSITE_SMARTFEED = {"BUDGET_MS": BUDGET_MS}
    reader, pins = reader_with_history()
    home_page(reader, limit=3, after=None)  # warm connections and pools
    stalled = Held(answers=False)
    stand_in: Callable[..., generator.Chunk] = failing if outcome == "failed" else stalled
    monkeypatch.setattr(generator, "generate", stand_in)
    before = health.summary()
    try:
        page = home_page(reader, limit=50)
    finally:
        stalled.release.set()
    assert page.outcome == outcome and page.new == 0
    assert [pin.id for pin in page.items][-5:] == pins
    after = health.summary()
    assert after["outcomes"][outcome] == before["outcomes"][outcome] + 1
    if outcome == "timeout":  # a stall counts in the generator's times as the budget waited
        assert after["generator_ms"]["max"] >= BUDGET_MS


def test_a_first_visit_waits_longer_for_a_late_chunk_than_a_visit_with_history(
        settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A generator later than the budget: a pinner with pins shown before gets them at once
    (``timeout``); one shown nothing yet would get an empty page, so it waits for the chunk
    (``FIRST_BUDGET_MS``). The generator is released once the newcomer's page waits for it,
    past a budget of nothing."""
    settings.PINSITE_SMARTFEED = {"BUDGET_MS": 0, "FIRST_BUDGET_MS": 10_000}
    seasoned, shown_before = reader_with_history()
    newcomer, _ = reader_with_history(0)
    home_page(seasoned, limit=3, after=None)  # warm connections
    held = Held()
    monkeypatch.setattr(generator, "generate", held)
    with_history = home_page(seasoned, limit=50)
    held.release.set()
    assert with_history.outcome == "timeout" and with_history.new == 0
    assert [pin.id for pin in with_history.items][-5:] == shown_before
    held = Held()
    monkeypatch.setattr(generator, "generate", held)
    waiting = threading.Event()
    chunk_of = service._chunk

    def waited(pending: Any, wait: float) -> Any:
        waiting.set()
        return chunk_of(pending, wait)

    monkeypatch.setattr(service, "_chunk", waited)
    pages: list[Any] = []
    visit = threading.Thread(target=lambda: pages.append(home_page(newcomer, limit=50)))
    visit.start()
    assert wait_until(waiting.is_set, timeout=30)
    held.release.set()
    visit.join(60)
    [first] = pages
    assert first.outcome == "chunk" and first.new == 1
    assert [pin.title for pin in first.items] == ["in the pool"]


def test_after_a_missed_visit_the_next_chunk_is_no_smaller(settings: Settings) -> None:
    settings.PINSITE_SMARTFEED = {"CHUNK_MIN": 5, "CHUNK_MAX": 40, "CHUNK_PER_HOUR": 4}
    hour = 3_600_000_000
    now = now_us()
    state = generator.delivered({}, now - 5 * hour, 25, {"following": 25})
    assert chunk_size(state, now) == 25  # 5 + 4 per hour for 5 hours
    later = generator.delivered(state, now, 5, {"following": 5})
    assert chunk_size(later, now) == 5
    assert chunk_size(generator.missed(later, now + 1), now) == 5
    assert chunk_size(generator.missed(state, now - hour), now - 5 * hour) == 25
    assert chunk_size({}, now) == 40


def test_late_queue_messages_do_not_turn_the_state_back() -> None:
    hour = 3_600_000_000
    now = now_us()
    state = generator.delivered({}, now, 12, {"following": 12})
    assert generator.missed(state, now - hour) == state  # a retry of an older fallback
    older = generator.delivered(state, now - hour, 30, {"interests": 30})
    assert older["last_at_us"] == now and older["last_size"] == 12
    assert [item["at_us"] for item in older["history"]] == [now, now - hour]
    assert generator.delivered(older, now - hour, 30, {"interests": 30}) == older  # again


def test_a_missed_visit_is_recorded_and_leaves_the_pools_as_they_were(
        worker: dramatiq.Worker, monkeypatch: pytest.MonkeyPatch) -> None:
    reader, _ = reader_with_history()
    monkeypatch.setattr(generator, "generate", failing)
    home_page(reader)
    assert wait_until(lambda: pools.read_state(reader).get("missed") == 1)
    assert len(pools.best(reader, "following", 10)) == 1
    monkeypatch.undo()
    page = home_page(reader)
    assert page.outcome == "chunk" and page.new == 1
    assert wait_until(lambda: pools.read_state(reader).get("missed") == 0)


@contextmanager
def down(gateway: str, killed: bool) -> Iterator[None]:
    """The HBase cluster behind ``gateway`` down for the block: its gateway stopped, or with
    ``killed`` both its JVMs (gateway and server) SIGKILLed; started again after."""
    if not killed:
        with stopped(gateway):
            yield
        return
    stack = Stack(settings.PROFILE)
    stack.kill(gateway, signal.SIGKILL)
    stack.kill(f"{gateway}-server", signal.SIGKILL)
    try:
        yield
    finally:
        stack.up([gateway])


def _reads(cluster: str, asked: str) -> float:
    return REGISTRY.get_sample_value("pinsite_feed_reads_total",
                                     {"cluster": cluster, "asked": asked}) or 0.0


@pytest.mark.alone
@pytest.mark.slow
@pytest.mark.usefixtures("failures_remembered")  # the outage outlasts any stall
@pytest.mark.parametrize("server, killed, outcome", [("hbase3", True, "failed"),
                                                     ("hbase1", False, "chunk")])
def test_the_home_feed_answers_with_a_cluster_down(
        server: str, killed: bool, outcome: str, settings: Settings) -> None:
    """Every page comes without waiting on the dead cluster: with the pools cluster's
    processes killed, the generator ``failed``, not one waited for until the budget ran out
    (``timeout``, with a budget here a hundred times the default, far beyond a refused
    connection), and the materialized feed answers; with the primary's gateway down, only the
    first page asks it, and the standby answers every page."""
    settings.PINSITE_SMARTFEED = {**settings.PINSITE_SMARTFEED, "BUDGET_MS": 10_000}
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "STANDBY_READ_SHARE": 0.0}
    reader, pins = reader_with_history()
    answering = "standby" if server == "hbase1" else "primary"
    before = {asked: _reads(answering, asked) for asked in ("first", "second")}
    with down(server, killed):
        for _ in range(20):
            page = home_page(reader, limit=50)
            assert page.outcome == outcome
            assert [pin.id for pin in page.items][-5:] == pins
    answered = {asked: _reads(answering, asked) - before[asked] for asked in before}
    assert answered == ({"first": 19, "second": 1} if server == "hbase1"
                        else {"first": 20, "second": 0})
