"""``manage.py bench events``: what the outbox costs an action, and how fast the relay goes.

Measured in one run, on the configured stack:

* **pin creation** and **follow** latency (p50/p99) and rate, with the outbox (the row in the
  action's transaction, the fast-path publish, the batched mark) and without it (the same
  messages published after the commit with no row: the old, lossy path), in alternating
  rounds so both see the same machine;
* **relay throughput**: ``events`` rows of a bench event relayed (read in order, published in
  AMQP transactions, marked sent) beside a raw pika loop publishing the same number of
  messages, in the same batches, to the same RabbitMQ.

Bench rows carry a creation time far in the future, so the relays of running workers leave
them alone; they are deleted at the end, and the bench queue is purged.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import dramatiq
from django.core.management.base import CommandParser

from benchmarks.measure import Latency, ratio
from events import publisher, registry
from events.conf import events_settings
from events.record import without_outbox
from events.relay import Relay
from graph.actions import follow_user
from pins.actions import create_board, create_pin, create_pinner
from pins.demo import demo_pictures
from sharding import outbox
from sharding.hosts import atomic, cursor
from sharding.topology import current_map
from toolkit.clock import now_us
from toolkit.commands import Bounded
from toolkit.queue import raw_publish

BENCH_EVENT = "bench_event"
BENCH_QUEUE = "events_bench"
FUTURE_US = 2**62
ROUNDS = 10


@dramatiq.actor(queue_name=BENCH_QUEUE, actor_name="events_bench_noop")
def bench_noop(index: int) -> None:
    """The bench event's message (never consumed: the bench purges its queue)."""


NAME = "events"
HELP = "the outbox's cost to pins and follows, relay vs raw pika"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--samples", type=int, action=Bounded, default=1000,
                        help="actions timed per mode (with and without the outbox)")
    parser.add_argument("--events", type=int, action=Bounded, default=5000,
                        help="events relayed")


def run(samples: int = 1000, events: int = 5000,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    """Measure and clean up; returns the figures ``--json`` prints."""
    progress("pin creation")
    pins = _pin_creation(samples)
    progress("follows")
    follows = _follows(samples)
    progress("relay")
    relay = _relay_throughput(events)
    return {"pin_create": pins, "follow": follows, "relay": relay}


def _pin_creation(samples: int) -> dict[str, Any]:
    owner = _pinner()
    board = create_board(owner, "Outbox bench").id
    picture = demo_pictures(1)[0]
    return _compare(lambda index: create_pin(owner, board, f"Bench {index}", "", "", picture),
                    samples)


def _follows(samples: int) -> dict[str, Any]:
    pinners = [_pinner() for _ in range(int((2 * samples) ** 0.5) + 2)]
    pairs = iter([(a, b) for a in pinners for b in pinners if a != b])
    return _compare(lambda _: follow_user(*next(pairs)), samples)


def _compare(action: Callable[[int], object], samples: int) -> dict[str, Any]:
    """``action`` with and without the outbox, in alternating rounds."""
    timings: dict[str, list[float]] = {"outbox": [], "no_outbox": []}
    per_round = max(1, samples // ROUNDS)
    index = 0
    for _ in range(ROUNDS):
        for mode, context in (("outbox", nullcontext), ("no_outbox", without_outbox)):
            for _ in range(per_round):
                timings[mode].append(_timed(action, index, context()))
                index += 1
    publisher.flush_and_mark()
    figures: dict[str, Any] = {mode: _summary(values) for mode, values in timings.items()}
    outbox_rate, plain_rate = (figures[m]["per_s"] for m in ("outbox", "no_outbox"))
    figures["throughput_ratio"] = ratio(outbox_rate, plain_rate)
    figures["p50_added_us"] = round(figures["outbox"]["p50_us"]
                                    - figures["no_outbox"]["p50_us"], 1)
    return figures


def _timed(action: Callable[[int], object], index: int,
           context: AbstractContextManager[Any]) -> float:
    with context:
        start = time.perf_counter_ns()
        action(index)
        return (time.perf_counter_ns() - start) / 1000


def _summary(timings: list[float]) -> dict[str, Any]:
    latency = Latency.of(timings)
    return {**latency.to_json(), "per_s": round(1e6 / latency.mean_us, 1)}


def _pinner() -> int:
    return create_pinner(f"bench{uuid.uuid4().hex[:12]}", None).user_id


def _relay_throughput(count: int) -> dict[str, Any]:
    alias = current_map().masters()[0]
    shard = next(s for s in current_map().shards_of(alias))
    registry.subscribe(BENCH_EVENT, lambda p: [bench_noop.message(p["index"])],
                       uid="benchmarks.events")
    broker: Any = dramatiq.get_broker()
    broker.declare_queue(BENCH_QUEUE, ensure=True)
    try:
        publisher.flush_and_mark()  # this process's events, then any other process's left over
        leftover, cutoff = Relay(), now_us()
        while leftover.relay_host(alias, created_before_us=cutoff):
            pass  # (a follow whose Redis write failed leaves its event to the relay)
        _write_rows(shard, count)
        relay, start = Relay(), time.perf_counter()
        while relay.relay_host(alias, created_before_us=FUTURE_US + 1):
            pass
        relayed = time.perf_counter() - start
        bodies = [bench_noop.message(index).encode() for index in range(count)]
        start = time.perf_counter()
        raw_publish(BENCH_QUEUE, bodies)
        raw = time.perf_counter() - start
    finally:
        registry.unsubscribe(BENCH_EVENT, "benchmarks.events")
        _delete_rows(alias)
        broker.flush(BENCH_QUEUE)
    return {"host": alias, "events": relay.sent, "batch": events_settings.RELAY_BATCH,
            "relay_events_per_s": round(relay.sent / relayed),
            "raw_publish_per_s": round(count / raw),
            "ratio": ratio(relay.sent / relayed, count / raw)}


def _write_rows(shard: int, count: int) -> None:
    for chunk in _chunks(count, 500):
        with atomic(shard) as alias:
            for index in chunk:
                outbox.insert(alias, shard, BENCH_EVENT, {"index": index}, FUTURE_US)


def _chunks(count: int, size: int) -> Iterator[range]:
    for start in range(0, count, size):
        yield range(start, min(count, start + size))


def _delete_rows(alias: str) -> None:
    with cursor(alias) as c:
        c.execute(f"DELETE FROM {outbox.TABLE} WHERE name = %s", [BENCH_EVENT])

