"""The home feed service: a visit's page of the smart feed, answered within the budget.

For a first page it asks the generator for a chunk *and* reads the materialized feed at the
same time (speculatively, primary then standby). It waits for the chunk only until the budget
(``BUDGET_MS``, 100 ms) is spent; then it prepends the chunk, in the generator's order, to what
was shown before, and leaves the materialized feed's write and the pools' removals to the queue.
If the generator fails or is late, the page is the materialized feed alone (and the pools keep
their pins for the next visit): a pinner never sees an error because the pools cluster or the
generator is down. Later pages (a cursor) read the materialized feed only.

>>> page = home_page(alice)
>>> [pin.title for pin in page.items], page.outcome, page.new
(['Leek quiche', ...], 'chunk', 12)
"""

from __future__ import annotations

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
from toolkit.queue import BROKER_ERRORS, send_all

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
        shown: list[Shown] | None = _shown(user)
        read_error: FeedUnavailable | None = None
    except FeedUnavailable as exc:
        shown, read_error = None, exc
    chunk, outcome = _chunk(pending, budget_seconds() - (time.perf_counter() - started))
    fresh: list[Shown] = []
    if chunk is not None:
        seen = {entry.pin_id for entry in shown or ()}
        picks = [pick for pick in chunk.picks if pick.pin_id not in seen]
        half_life = smart_settings.decimal("HALF_LIFE_HOURS")
        fresh = [Shown(now, position, pick.pin_id, pick.source,
                       score(pick.quality, pick.created_us, chunk.at_us, half_life))
                 for position, pick in enumerate(picks)]
        if fresh or chunk.removals() or chunk.pulled_mark_us is not None:
            _send(tasks.visit_messages(user, chunk, fresh))
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


def _send(messages: list[Message[Any]]) -> None:
    """Queue a visit's writes; if the broker is down the visit is still answered (its chunk's
    pins stay in the pools and come again)."""
    try:
        send_all(messages)
    except BROKER_ERRORS as exc:
        log.warning("smart feed visit not queued: %s", exc)


def _generators() -> ThreadPoolExecutor:
    return _executor.get()
