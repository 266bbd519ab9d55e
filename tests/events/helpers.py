"""Helpers for event tests: payloads seen by a subscriber, outbox rows read back."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from events import publisher
from events.record import Event
from events.registry import Payload, subscribe, unsubscribe
from sharding import outbox
from sharding.hosts import atomic, cursor
from sharding.topology import current_map
from toolkit.clock import now_us


@contextmanager
def recorded(event: str, check: Callable[[Payload], Any] | None = None
             ) -> Iterator[list[Payload]]:
    """Every payload of ``event`` published during the block (by the fast path or a relay);
    ``check`` runs on each too, when it is published."""
    received: list[Payload] = []
    uid = f"tests.recorded.{event}"

    def recorder(payload: Payload) -> list[Any]:
        received.append(dict(payload))
        if check is not None:
            check(payload)
        return []

    subscribe(event, recorder, uid=uid)
    try:
        yield received
        publisher.flush()  # what the block handed to the publisher thread is published
    finally:
        unsubscribe(event, uid)


def is_sent(event: Event) -> bool:
    """Whether ``event``'s outbox row is marked sent (after the fast path's publishes and
    marks land)."""
    publisher.flush_and_mark()
    with cursor(event.alias) as c:
        c.execute(f"SELECT sent_us FROM {outbox.TABLE} WHERE id = %s", [event.id])
        row = c.fetchone()
    assert row is not None, f"outbox row {event.id} on {event.alias} is missing"
    return row[0] is not None


@contextmanager
def stale_row(age_seconds: float, name: str = "tests_stale") -> Iterator[tuple[str, int]]:
    """An unsent outbox row written ``age_seconds`` ago on the first master, deleted after."""
    alias = current_map().masters()[0]
    shard = current_map().shards_of(alias)[0]
    with atomic(shard):
        row_id = outbox.insert(alias, shard, name, {}, now_us() - int(age_seconds * 1e6))
    try:
        yield alias, row_id
    finally:
        with cursor(alias) as c:
            c.execute(f"DELETE FROM {outbox.TABLE} WHERE id = %s", [row_id])
