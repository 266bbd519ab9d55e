"""The celebrity part of ``manage.py bench feed``: pulled boards cost O(1) writes per pin and
little per read.

Measured in one run:

* **a pin of a pulled board**: for boards whose owners have 200,000 and 1,000,000 followers
  (seeded straight into the graph's Redis: bench-only follower IDs in the owner's follower
  set, deleted afterwards), the fanout planner (``feed_fan_out_pin``) is run on new pins of
  the board, timed, with every message it sends counted: it sends no delivery, so no feed
  cell is written, whatever the follower count. Beside it, what pushing the pin would write
  (a cell per follower and cluster, in a message per ``FANOUT_CHUNK`` followers and cluster)
  and the time a raw happybase batch put of that many rows takes on the primary,
  extrapolated from a measured put of ``raw_rows`` rows to a scratch table;
* **a page past the cap**: a reader following 20 pinners with 3 boards each, whose row holds
  the newest ``CAP`` of their pins: 50-pin pages at the top and past the row's end
  (the followed boards found, then a k-way merge of their lists), beside the raw row read
  plus the raw ``UNION ALL`` of the 60 boards' lists;
* **reading a feed that follows 20 pulled boards**: two readers with the same full pushed
  feed (``CAP`` entries); one of them also follows 20 pulled boards whose newest pins
  interleave with the pushed ones. 50-pin pages of both, interleaved, p50/p99; beside the raw
  ``UNION ALL`` of the 20 boards' heads on their MySQL hosts.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import dramatiq

from benchmarks.feed_scratch import bench_pin, fill_feed, raw_batch_put, scratch_table
from benchmarks.measure import Latency, latency, ratio
from feed import pulled, sources, storage, tasks
from feed.conf import feed_settings
from feed.schema import Entry, row_key
from feed.selectors import feed_page
from feed.store.pools import CLUSTERS, table
from graph import topology
from graph.actions import follow_board, follow_user
from graph.keys import FOLLOWERS, user_key
from graph.store import admin
from graph.vshards import vshard_count, vshard_of
from pins.actions import create_board, create_pinner
from pins.types import BOARD_HAS_PINS, USER
from sharding import mappings
from sharding.hosts import cursor
from sharding.ids import compose
from toolkit.clock import now_us

SEED_BATCH = 50_000
PAGE = 50
PULLED_BOARDS = 20
PINS_PER_BOARD = 10


CELEBRITY_FOLLOWERS = (200_000, 1_000_000)


def run(followers: tuple[int, ...] = CELEBRITY_FOLLOWERS, pins: int = 50, samples: int = 300,
        raw_rows: int = 100_000, progress: Callable[[str], None] = lambda _: None,
        ) -> dict[str, Any]:
    """The celebrity figures (the ``pulled`` part of ``bench feed --json``)."""
    pulled.init()
    figures: dict[str, Any] = {"pull_above": feed_settings.PULL_ABOVE}
    progress(f"raw batch put of {raw_rows} rows")
    raw_rows_per_s = _raw_put_rate(raw_rows)
    figures["raw_batch_put_rows_per_s"] = round(raw_rows_per_s)
    figures["pin_of_pulled_board"] = []
    for count in followers:
        progress(f"a board with {count:,} followers: {pins} pins planned")
        figures["pin_of_pulled_board"].append(_planning(count, pins, raw_rows_per_s))
    progress("feed pages with and without 20 pulled boards")
    figures["page_with_pulled_boards"] = _pages(samples)
    progress("a page past the cap")
    figures["page_past_the_cap"] = _deep(samples)
    return figures


# --- A pin of a pulled board ---------------------------------------------------------------

def _planning(followers: int, pins: int, raw_rows_per_s: float) -> dict[str, Any]:
    owner = create_pinner(f"benchstar{uuid.uuid4().hex[:12]}", None).user_id
    board = create_board(owner, "Celebrity").id
    with _seeded_followers(owner, followers):
        pulled_count = _board_follower_count(board)
        timings, messages = [], []
        try:
            for index in range(pins + 1):
                created = now_us()
                pin = _pin(board, owner, created, index)
                with _counted() as sent:
                    started = time.perf_counter()
                    tasks.fan_out_pin.fn(pin, board, created)
                    elapsed = time.perf_counter() - started
                if index:  # the first pin switches the board to pull (one ZooKeeper write)
                    timings.append(elapsed * 1e6)
                    messages.append(sent)
        finally:
            pulled.switch(board, None)
    chunk = feed_settings.number("FANOUT_CHUNK")
    planned = Latency.of(timings)
    push_cells = followers * len(CLUSTERS)
    deliveries = max(sum(1 for name in sent if name.startswith("feed_deliver_pin"))
                     for sent in messages)
    return {
        "followers": pulled_count, "pins": pins,
        "messages_sent_per_pin": max(len(sent) for sent in messages),
        "delivery_messages_per_pin": deliveries,
        "feed_cells_written_at_most_per_pin": deliveries * chunk,
        "planning": planned.to_json(),
        "if_pushed": {"delivery_messages": len(CLUSTERS) * math.ceil(followers / chunk),
                      "feed_cells": push_cells,
                      "raw_batch_put_seconds": round(push_cells / raw_rows_per_s, 1)},
        "raw_push_over_planning_p50": round(push_cells / raw_rows_per_s / (planned.p50_us / 1e6)),
    }


def _board_follower_count(board: int) -> int:
    return int(sources.board_follower_count(board) or 0)


@contextmanager
def _seeded_followers(owner: int, count: int) -> Iterator[None]:
    """``count`` bench-only users (on shards above every real one, as the graph bench's) in
    the owner's follower set, written straight into Redis and deleted afterwards."""
    instance = topology.master_for(vshard_of(owner))
    key = user_key(owner, FOLLOWERS)
    now = now_us()
    try:
        for start in range(0, count, SEED_BATCH):
            admin.write_values(instance, {key: {
                compose(vshard_count() + index % 64, USER.type_id, 1 + index // 64): now - index
                for index in range(start, min(count, start + SEED_BATCH))}})
        yield
    finally:
        admin.delete_keys(instance, [key])


@contextmanager
def _counted() -> Iterator[list[str]]:
    """The actor names of every message sent in the block (kept, not published)."""
    sent: list[str] = []
    broker = dramatiq.get_broker()

    def enqueue(message: Any, *, delay: int | None = None) -> Any:
        sent.append(message.actor_name)
        return message

    def enqueue_all(messages: list[Any]) -> list[Any]:
        sent.extend(message.actor_name for message in messages)
        return messages

    with mock.patch.object(broker, "enqueue", enqueue), \
            mock.patch.object(broker, "enqueue_all", enqueue_all):
        yield sent


def _pin(board: int, owner: int, created_us: int, index: int) -> int:
    """A pin object and its board list entry (no image, no events)."""
    pin = bench_pin(board, owner, created_us, index)
    mappings.add(BOARD_HAS_PINS, board, pin, sequence=created_us)
    return pin


def _raw_put_rate(rows: int) -> float:
    """Rows per second of raw happybase batch puts to a scratch table on the primary."""
    with scratch_table() as name:
        return float(raw_batch_put(name, list(range(1, rows + 1)))["rows_per_s"])


# --- Reading a feed with pulled boards -----------------------------------------------------

def _pages(samples: int) -> dict[str, Any]:
    owner = create_pinner(f"benchpulled{uuid.uuid4().hex[:12]}", None).user_id
    plain = create_pinner(f"benchplain{uuid.uuid4().hex[:12]}", None).user_id
    fan = create_pinner(f"benchfan{uuid.uuid4().hex[:12]}", None).user_id
    pushed_board = create_board(owner, "Pushed").id
    boards = [create_board(owner, f"Pulled {index}").id for index in range(PULLED_BOARDS)]
    now = now_us()
    # Pushed entries every 10 µs, pulled pins in between, so a page mixes both.
    pushed = [_pin(pushed_board, owner, now - 10 * i, i) for i in range(PAGE)]
    fill_feed([plain, fan], pushed, now, spacing=10)
    for index, board in enumerate(boards):
        for number in range(PINS_PER_BOARD):
            _pin(board, owner, now - 5 - 10 * (number * PULLED_BOARDS + index), number)
        follow_board(fan, board)
        pulled.switch(board, pulled.Pulled(pulled.PULL, now))
    try:
        mixed = [pin.id for pin in feed_page(fan, limit=PAGE).items]
        pulled_shown = len(set(mixed) - set(pushed))
        with_pulled: list[float] = []
        without: list[float] = []
        for index in range(samples):  # interleaved, so drift hits both alike
            for reader, into in ((fan, with_pulled), (plain, without)) if index % 2 else (
                    (plain, without), (fan, with_pulled)):
                started = time.perf_counter()
                feed_page(reader, limit=PAGE)
                into.append((time.perf_counter() - started) * 1e6)
        raw = latency(lambda _: _raw_heads(boards), samples)
    finally:
        for board in boards:
            pulled.switch(board, None)
    store, base = Latency.of(with_pulled), Latency.of(without)
    return {
        "pulled_boards": len(boards), "pulled_pins_on_first_page": pulled_shown,
        "page_following_20_pulled": store.to_json(), "page_following_none": base.to_json(),
        "p99_added_ms": round((store.p99_us - base.p99_us) / 1000, 2),
        "p50_added_ms": round((store.p50_us - base.p50_us) / 1000, 2),
        "raw_union_all_of_20_heads": raw.to_json(),
    }


def _raw_heads(boards: list[int]) -> None:
    """The boards' newest pins: one raw ``UNION ALL`` per MySQL host."""
    for alias, lists in mappings.by_host(BOARD_HAS_PINS, boards).items():
        sql, params = mappings.heads_sql(lists, PAGE + 2, None)
        with cursor(alias) as c:
            c.execute(sql, params)
            c.fetchall()


# --- A page past the cap -------------------------------------------------------------------

DEEP_FOLLOWEES = 20
DEEP_BOARDS = 3


def _deep(samples: int) -> dict[str, Any]:
    cap = feed_settings.number("CAP")
    reader = create_pinner(f"benchdeep{uuid.uuid4().hex[:12]}", None).user_id
    now = now_us()
    per_board = (cap + 2 * PAGE) // (DEEP_FOLLOWEES * DEEP_BOARDS) + 1
    boards: list[tuple[int, int]] = []
    for _ in range(DEEP_FOLLOWEES):
        followee = create_pinner(f"benchdeepf{uuid.uuid4().hex[:10]}", None).user_id
        boards += [(create_board(followee, f"Deep {index}").id, followee)
                   for index in range(DEEP_BOARDS)]
        follow_user(reader, followee)
    made: list[Entry] = []
    for number in range(per_board):  # newest first, round robin over the boards
        for board, followee in boards:
            created = now - 10 * (len(made) + 1)
            made.append(Entry(created, _pin(board, followee, created, number)))
    served = sorted(made, key=lambda entry: entry.qualifier)
    for cluster in CLUSTERS:
        storage.change_feed(cluster, reader, now, add=served[:cap],
                            horizons=[served[cap].qualifier])
    top = feed_page(reader, limit=PAGE)
    cursor = top.next_cursor
    for _ in range(cap // PAGE - 1):
        cursor = feed_page(reader, limit=PAGE, after=cursor).next_cursor
    deep = feed_page(reader, limit=PAGE, after=cursor)
    expected = [entry.pin_id for entry in served[cap:cap + PAGE]]
    first = latency(lambda _: feed_page(reader, limit=PAGE), samples)
    past = latency(lambda _: feed_page(reader, limit=PAGE, after=cursor), samples)

    def raw(_: int) -> None:
        with table("primary") as hbase:
            hbase.row(row_key(reader))
        _raw_heads([board for board, _ in boards])

    ceiling = latency(raw, samples)
    return {"followees": DEEP_FOLLOWEES, "boards": len(boards), "pins": len(made),
            "past_the_cap_as_expected": [pin.id for pin in deep.items] == expected,
            "first_page": first.to_json(), "page_past_the_cap": past.to_json(),
            "raw_row_plus_union_all_of_boards": ceiling.to_json(),
            "p50_ratio_past_the_cap_vs_raw": ratio(past.p50_us, ceiling.p50_us)}
