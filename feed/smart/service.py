"""The home feed service: a visit's page of the smart feed, answered within the budget.

For a first page it asks the generator for a chunk *and* reads the materialized feed at the
same time (speculatively, primary then standby). It waits for the chunk only until the budget
(``BUDGET_MS``, 100 ms) is spent; then it prepends the chunk, in the generator's order, to what
was shown before, and leaves the materialized feed's write and the pools' removals to the queue.
If the generator fails or is late, the page is the materialized feed alone (and the pools keep
their pins for the next visit): a pinner never sees an error because the pools cluster or the
generator is down. When earlier visits showed nothing (a pinner's first visit), there is no
such page to give, and the chunk is waited for longer (``FIRST_BUDGET_MS``, 1 s). Later pages
(a cursor) read the materialized feed only.

A visit's messages are handed to the process's visits thread, which sends those of the visits
made within ``VISIT_LINGER_MS`` together (:class:`toolkit.threads.Batcher`), each visit's in
one transaction: the page does not wait for RabbitMQ's disk sync. What a process had not sent
when it died is lost, as when the broker is down: the chunk's pins stay in the pools and come
again.

>>> page = home_page(alice)
>>> [pin.title for pin in page.items], page.outcome, page.new
(['Leek quiche', ...], 'chunk', 12)
"""

from __future__ import annotations

import atexit
import bisect
import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from dramatiq import Message

from feed.exceptions import FeedUnavailable
from feed.schema import decode_cursor, encode_cursor
from feed.selectors import hydrate_ids, page_size
from feed.smart import generator, health, materialized, tasks
from feed.smart.conf import budget_seconds, smart_settings
from feed.smart.schema import Shown
from feed.smart.scoring import score
from feed.speculative import speculative
from pins.domain import Pin
from pins.types import USER
from sharding.ids import parse_id
from toolkit.clock import now_us
from toolkit.paging import Page
from toolkit.processes import ProcessLocal
from toolkit.queue import BROKER_ERRORS, send_groups
from toolkit.threads import Batcher

log = logging.getLogger("pinsite.smartfeed")

_executor = ProcessLocal(lambda: ThreadPoolExecutor(
    max_workers=smart_settings.number("GENERATOR_THREADS"),
    thread_name_prefix="smartfeed-generator"))


@dataclass(frozen=True)
class HomePage(Page[Pin]):
    """A page of the home feed; ``outcome`` says how its first page was made (``chunk``,
    ``failed``, ``timeout``; ``page`` for a later page) and ``new`` how many of its pins the
    generator just chose."""

    outcome: str
    new: int


def home_page(user_id: int | str, limit: int | None = None, after: str | None = None,
              ) -> HomePage:
    """A page of the user's smart feed: new pins first, then what was shown before."""
    user = parse_id(user_id, USER)
    size = page_size(limit)
    if after:
        start = decode_cursor(after)
        shown = _shown(user)
        index = bisect.bisect_right([entry.qualifier for entry in shown], start)
        return _page(shown[index:], size, "page", 0)
    return _first_page(user, size)


def shown_count(user_id: int | str) -> int:
    """How many pins the user's home feed holds: what earlier visits showed (one speculative
    read of the materialized feed)."""
    user = parse_id(user_id, USER)
    return len(_shown(user))


def _shown(user: int) -> list[Shown]:
    """What earlier visits showed the user: the materialized feed, read speculatively."""
    return speculative(lambda cluster: materialized.read(cluster, user))


def _first_page(user: int, size: int) -> HomePage:
    started = time.perf_counter()
    now = now_us()
    pending = _generators().submit(generator.generate, user, now, size)
    try:
        row: list[Shown] | None = speculative(
            lambda cluster: materialized.read_all(cluster, user))
        read_error: FeedUnavailable | None = None
    except FeedUnavailable as exc:
        row, read_error = None, exc
    shown = None if row is None else materialized.unique(row)
    chunk, outcome = _chunk(pending, budget_seconds(bool(shown))
                            - (time.perf_counter() - started))
    fresh: list[Shown] = []
    if chunk is not None:
        seen = {entry.pin_id for entry in shown or ()}
        picks = [pick for pick in chunk.picks if pick.pin_id not in seen]
        half_life = smart_settings.decimal("HALF_LIFE_HOURS")
        fresh = [Shown(now, position, pick.pin_id, pick.source,
                       score(pick.quality, pick.created_us, chunk.at_us, half_life))
                 for position, pick in enumerate(picks)]
        if fresh or chunk.removals() or chunk.pulled_mark_us is not None:
            trimmed = None if row is None else materialized.excess(fresh + row)
            _send(tasks.visit_messages(user, chunk, fresh, trimmed))
    else:
        _send([tasks.missed.message(user, now)])
    if shown is None and not fresh:
        health.record("unavailable", None)
        assert read_error is not None
        raise read_error
    health.record(outcome, _generator_ms(chunk, outcome, started))
    return _page(fresh + (shown or []), size, outcome, len(fresh))


def _chunk(pending: Future[generator.Chunk], wait: float,
           ) -> tuple[generator.Chunk | None, str]:
    """The generator's chunk if it came within ``wait`` seconds, and the outcome."""
    try:
        return pending.result(timeout=max(0.0, wait)), "chunk"
    except FutureTimeout:
        pending.cancel()
        return None, "timeout"
    except Exception as exc:  # a failing generator must never fail the page
        log.warning("smart feed generator failed: %s", exc, exc_info=not isinstance(
            exc, FeedUnavailable))
        return None, "failed"


def _generator_ms(chunk: generator.Chunk | None, outcome: str, started: float,
                  ) -> float | None:
    """The generator's time for the health figures: a late generator counts as the time it
    was waited for (at least the budget), so stalls show in the percentiles."""
    if chunk is not None:
        return chunk.elapsed_ms
    return (time.perf_counter() - started) * 1000 if outcome == "timeout" else None


def _page(entries: list[Shown], size: int, outcome: str, new: int) -> HomePage:
    window = entries[:size]
    more = len(entries) > size
    cursor = encode_cursor(window[-1].qualifier) if more and window else None
    return HomePage(hydrate_ids([entry.pin_id for entry in window]), cursor, outcome,
                    min(new, len(window)))


Visit = list[Message[Any]]
"""The messages of one visit: they are sent in one transaction."""
VISITS_AT_ONCE = 100
"""Visits the visits thread takes at once."""


def _send(messages: Visit) -> None:
    """Hand a visit's writes to the visits thread (:func:`_send_visits`)."""
    _visits.submit([messages])


def _send_visits(visits: list[Visit]) -> None:
    """Queue visits' writes, each visit's in one transaction; if the broker is down the visits
    were still answered (their chunks' pins stay in the pools and come again)."""
    try:
        send_groups(visits)
    except BROKER_ERRORS as exc:
        log.warning("smart feed: the writes of %d visit(s) not queued: %s", len(visits), exc)


_visits: Batcher[Visit] = Batcher(
    _send_visits, "smartfeed-visits",
    linger=lambda: smart_settings.number("VISIT_LINGER_MS") / 1000, limit=lambda: VISITS_AT_ONCE)


def flush_visits(timeout: float = 5.0) -> bool:
    """Wait until this process's visits are queued (or failed and logged); False on timeout
    (tests, benchmarks and exit)."""
    return _visits.flush(timeout)


atexit.register(flush_visits)


def _generators() -> ThreadPoolExecutor:
    return _executor.get()
