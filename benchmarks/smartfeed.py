"""``manage.py bench smartfeed``: the smart feed's figures beside the raw ceiling of the HBase
servers underneath, measured in the same run on the configured stack.

* **pool inserts**: a fanout chunk's pool writes (``pools.insert`` with the sizes counted
  before: one batch put of the entries and the pools' new sizes) and the worker's whole chunk
  (plus the read of the affinities and sizes), as entries per second, beside a raw happybase
  batch put of as many rows to the same pools table;
* **generator chunk** p50/p99 beside one raw prefix scan of a pool, and beside the same five
  calls (the state's row read and four scans) made raw; and on small pools (30 entries, one
  pool), where it reads every pool by one scan, beside the meta row and one scan made raw
  and beside the meta row and a scan a pool; then the same on the readers' rows once they are
  in stored files (the pools table flushed, as a long-lived cluster holds most rows), with
  the HBase JVMs' CPU per call and whether the table's families have the block cache on;
* **home-feed page** p50/p99 with the generator healthy and with it stalled (sleeping past the
  budget), beside a raw read of the materialized feed's row;
* **availability**: home-feed reads while the pools cluster (``hbase3`` stopped), the generator
  (raising) and the primary cluster (``hbase1`` stopped) are failed in turn; the share answered
  with content.

The bench's users are synthetic IDs in a reserved range; their rows are deleted at the start and
the end. Their visits' queue messages are built and published as usual, but to a bench queue
that nothing consumes and that is purged at the end, so running workers never see them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import dramatiq
from django.conf import settings
from django.core.management.base import CommandParser

from benchmarks import cpu
from benchmarks.measure import latency as _latency
from benchmarks.measure import rate as _rate
from benchmarks.measure import ratio, wait_until_quiet
from feed.smart import generator, materialized, pools, service
from feed.smart.conf import budget_seconds
from feed.smart.pools import Insert, pools_table
from feed.smart.schema import SOURCES, Shown, affinity_column, meta_row, pool_prefix, user_row
from feed.store.pools import CLUSTERS, POOLS
from feed.store.pools import run as run_on
from feed.store.tables import block_cache
from pins.actions import create_board, create_pin, create_pinner
from pins.demo import demo_pictures
from pins.types import USER
from sharding import ids
from toolkit.clock import now_us
from toolkit.commands import Bounded

BENCH_LOCAL = 1 << 34
BENCH_QUEUE = "smartfeed_bench"
CHUNK = 1000
STALL_SECONDS = 1.0


def bench_user(index: int) -> int:
    return ids.compose(index % 64, USER.type_id, BENCH_LOCAL + index)


NAME = "smartfeed"
HELP = "smart feed pools, generator, pages and availability vs raw happybase"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--inserts", type=int, action=Bounded, default=20_000,
                        help="pool entries written")
    parser.add_argument("--samples", type=int, action=Bounded, default=300,
                        help="timed calls per figure")
    parser.add_argument("--reads", type=int, action=Bounded, default=20_000,
                        help="home-feed reads of the availability run (three phases)")


def run(inserts: int = 20_000, samples: int = 300, reads: int = 20_000,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    """Measure and clean up; returns the figures ``--json`` prints."""
    users = [bench_user(index) for index in range(max(CHUNK, 200))]
    _forget(users)
    original_send = service._send
    service._send = _to_bench_queue(original_send)  # type: ignore[assignment]
    try:
        pins = _content()
        progress("pool inserts")
        figures: dict[str, Any] = {"pool_inserts": _inserts(users, pins, inserts)}
        readers = users[:200]
        _fill(readers, pins)
        progress("generator")
        figures["generator_chunk"] = _generator(readers, samples)
        small = users[200:400]
        _fill_small(small, pins)
        figures["generator_small_pools"] = _generator_small(small, samples)
        progress("generator on stored rows")
        figures["generator_stored"] = _generator_stored(readers, samples)
        progress("home-feed pages")
        figures["home_page"] = _pages(readers, samples)
        progress("availability")
        figures["availability"] = _availability(readers, pins, reads, progress)
        figures["budget_ms"] = round(budget_seconds() * 1000)
        return figures
    finally:
        service._send = original_send  # type: ignore[assignment]
        dramatiq.get_broker().flush(BENCH_QUEUE)
        _forget(users)


def _to_bench_queue(send: Callable[[list[Any]], None]) -> Callable[[list[Any]], None]:
    """``send`` with every message redirected to the bench queue."""
    def redirected(messages: list[Any]) -> None:
        send([message.copy(queue_name=BENCH_QUEUE) for message in messages])
    dramatiq.get_broker().declare_queue(BENCH_QUEUE)
    return redirected


def _content() -> list[int]:
    """Sixty real pins (pages hydrate them from the shards)."""
    owner = create_pinner(f"smartbench{now_us() % 10**9}", None).user_id
    board = create_board(owner, "Smart feed bench").id
    pictures = demo_pictures(7)
    return [create_pin(owner, board, f"bench pin {n}", "", "", pictures[n % len(pictures)]).id
            for n in range(60)]


def _inserts(users: list[int], pins: list[int], total: int) -> dict[str, Any]:
    rounds = max(1, total // CHUNK)
    chunk = users[:CHUNK]
    now = now_us()
    columns = [affinity_column("p", 1), affinity_column("b", 2), affinity_column("i", 3)]

    read_once = pools.counts(chunk, columns, ["following"])

    def pool_writes(n: int, counted: dict[int, pools.Counts] = read_once) -> None:
        pools.insert([Insert(user, "following", pins[n % len(pins)], 1.0, now - n)
                      for user in chunk],
                     {user: found.sizes for user, found in counted.items()})

    def worker_chunk(n: int) -> None:
        pool_writes(n, pools.counts(chunk, columns, ["following"]))

    def raw(n: int) -> None:
        def put(hbase: Any) -> None:
            with hbase.batch() as batch:
                for user in chunk:
                    batch.put(pool_prefix(user, "related") + n.to_bytes(16, "big"),
                              {b"p:e": b"\x00" * 16})
        run_on(POOLS, put, table=pools_table())

    wait_until_quiet()
    raw_rate = _rate(raw, rounds) * CHUNK
    insert_rate = _rate(pool_writes, rounds) * CHUNK
    chunk_rate = _rate(worker_chunk, rounds) * CHUNK
    return {"entries": rounds * CHUNK, "pools_insert_per_s": round(insert_rate),
            "worker_chunk_per_s": round(chunk_rate), "raw_batch_put_per_s": round(raw_rate),
            "ratio_insert": ratio(insert_rate, raw_rate),
            "ratio_worker_chunk": ratio(chunk_rate, raw_rate)}


def _fill(readers: list[int], pins: list[int]) -> None:
    """Pools of 150 entries per source and a materialized feed of 50 pins per reader."""
    for user in readers:
        pools.clear(user)
    now = now_us()
    batch: list[Insert] = []
    for user in readers:
        for source in SOURCES:
            batch += [Insert(user, source, pins[n % len(pins)],
                             0.5 + (n % 7) / 7, now - n * 1000) for n in range(150)]
        if len(batch) >= 5000:
            pools.insert(batch)
            batch = []
    pools.insert(batch)
    shown = [Shown(now - 1, n, pin, "following") for n, pin in enumerate(pins[:50])]
    for cluster in CLUSTERS:
        for user in readers:
            materialized.write(cluster, user, shown)


def _raw_scan(prefix: bytes, limit: int | None = None) -> None:
    """A prefix scan of the pools table made with happybase (batches of 90 rows)."""
    run_on(POOLS, lambda hbase: list(hbase.scan(row_prefix=prefix, limit=limit, batch_size=90)),
           table=pools_table())


def _raw_reads(user: int, prefixes: list[bytes], limit: int | None = None) -> None:
    """A user's meta row, then a raw scan of each of ``prefixes``: a chunk's reads, raw."""
    run_on(POOLS, lambda hbase: hbase.row(meta_row(user)), table=pools_table())
    for prefix in prefixes:
        _raw_scan(prefix, limit)


def _generator(readers: list[int], samples: int) -> dict[str, Any]:
    def raw_scan(n: int) -> None:
        _raw_scan(pool_prefix(readers[n % len(readers)], "following"), 90)

    def raw_same_calls(n: int) -> None:
        user = readers[n % len(readers)]
        _raw_reads(user, [pool_prefix(user, source) for source in SOURCES], 90)

    wait_until_quiet()
    chunk = _latency(lambda n: generator.generate(readers[n % len(readers)]), samples)
    scan = _latency(raw_scan, samples)
    same = _latency(raw_same_calls, samples)
    return {"generator": chunk.to_json(), "raw_prefix_scan": scan.to_json(),
            "raw_same_calls": same.to_json(),
            "ratio_p50_vs_scan": ratio(scan.p50_us, chunk.p50_us),
            "ratio_p50_vs_same_calls": ratio(same.p50_us, chunk.p50_us)}


def _generator_stored(readers: list[int], samples: int) -> dict[str, Any]:
    """:func:`_generator`'s figures once the pools table is flushed: the rows read from stored
    files, through the block cache when the families have it on (``feed init`` asks for it;
    tables made before may not have it). Each figure with the HBase JVMs' CPU per call."""
    from devstack import Stack
    from devstack.hbase import admin

    admin.run(Stack(settings.PROFILE).service("hbase3"), "flush", pools_table())
    cached = block_cache(POOLS, pools_table())

    def measured(call: Callable[[int], object]) -> dict[str, Any]:
        before = cpu.snapshot()
        timing = _latency(call, samples)
        spent = cpu.used(before, cpu.snapshot(), cpu.store_of)
        return {**timing.to_json(), "hbase_cpu_ms": round(spent.by_group["hbase"] / samples, 3)}

    def raw_same_calls(n: int) -> None:
        user = readers[n % len(readers)]
        _raw_reads(user, [pool_prefix(user, source) for source in SOURCES], 90)

    wait_until_quiet()
    chunk = measured(lambda n: generator.generate(readers[n % len(readers)]))
    same = measured(raw_same_calls)
    return {"block_cache": cached, "generator": chunk, "raw_same_calls": same,
            "ratio_p50_vs_same_calls": ratio(same["p50_us"], chunk["p50_us"])}


SMALL_POOL = 30


def _fill_small(readers: list[int], pins: list[int]) -> None:
    """A ``following`` pool of :data:`SMALL_POOL` entries per reader, the other pools empty:
    a pinner of few follows, or a new one."""
    for user in readers:
        pools.clear(user)
    now = now_us()
    pools.insert([Insert(user, "following", pins[n % len(pins)], 0.5 + (n % 7) / 7,
                         now - n * 1000) for user in readers for n in range(SMALL_POOL)])


def _generator_small(readers: list[int], samples: int) -> dict[str, Any]:
    """The generator on small pools, beside the least it must read raw (the meta row and one
    scan of the user's pools) and beside one scan a pool (how it read them before)."""
    def least(n: int) -> None:
        user = readers[n % len(readers)]
        _raw_reads(user, [pool_prefix(user)])

    def a_scan_a_pool(n: int) -> None:
        user = readers[n % len(readers)]
        _raw_reads(user, [pool_prefix(user, source) for source in SOURCES])

    wait_until_quiet()
    chunk = _latency(lambda n: generator.generate(readers[n % len(readers)]), samples)
    raw_least = _latency(least, samples)
    raw_each = _latency(a_scan_a_pool, samples)
    return {"pool_entries": SMALL_POOL, "generator": chunk.to_json(),
            "raw_meta_and_one_scan": raw_least.to_json(),
            "raw_meta_and_a_scan_a_pool": raw_each.to_json(),
            "ratio_p50_vs_one_scan": ratio(raw_least.p50_us, chunk.p50_us),
            "ratio_p50_vs_a_scan_a_pool": ratio(raw_each.p50_us, chunk.p50_us)}


def _pages(readers: list[int], samples: int) -> dict[str, Any]:
    def raw_row(n: int) -> None:
        row = user_row(readers[n % len(readers)])
        run_on("primary", lambda hbase: hbase.row(row), table=materialized.home_table())

    outcomes: Counter[str] = Counter()

    def page(n: int) -> None:
        outcomes[service.home_page(readers[n % len(readers)], limit=50).outcome] += 1

    wait_until_quiet()
    raw = _latency(raw_row, samples)
    healthy = _latency(page, samples)
    healthy_outcomes, outcomes = dict(outcomes), Counter()
    with _generator_replaced(_stalled):
        stalled = _latency(page, samples)
    budget_ms = budget_seconds() * 1000
    return {"healthy": healthy.to_json(), "healthy_outcomes": healthy_outcomes,
            "stalled": stalled.to_json(), "stalled_outcomes": dict(outcomes),
            "raw_row_read": raw.to_json(),
            "stalled_p99_ms": round(stalled.p99_us / 1000, 1),
            "stalled_goal_ms": round(budget_ms + 20, 1),
            "stalled_goal_met": (stalled.p99_us / 1000 <= budget_ms + 20
                                 and outcomes["timeout"] == sum(outcomes.values()))}


def _availability(readers: list[int], pins: list[int], reads: int,
                  progress: Callable[[str], object]) -> dict[str, Any]:
    results: dict[str, dict[str, int]] = {}
    from devstack import Stack

    stack = Stack(settings.PROFILE)
    phases = (("pools_cluster_down", _server_down(stack, "hbase3")),
              ("generator_failed", _generator_replaced(_failing)),
              ("primary_cluster_down", _server_down(stack, "hbase1")))
    quiet = logging.getLogger("pinsite.smartfeed")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # one warning per failed generator call otherwise
    try:
        for index, (name, failure) in enumerate(phases):
            progress(f"availability: {name}")
            with failure:
                results[name] = _read_many(readers, reads // 3 + (index < reads % 3))
    finally:
        quiet.setLevel(level)
    answered = sum(r["with_content"] for r in results.values())
    total = sum(r["reads"] for r in results.values())
    return {"phases": results, "reads": total, "answered_with_content": answered,
            "share": round(answered / total, 6), "goal": 0.9999,
            "goal_met": answered / total >= 0.9999}


def _read_many(readers: list[int], count: int) -> dict[str, int]:
    content = errors = 0
    for n in range(count):
        try:
            page = service.home_page(readers[n % len(readers)], limit=50)
        except Exception:  # an error page counts as not answered
            errors += 1
            continue
        content += bool(page.items)
    return {"reads": count, "with_content": content, "errors": errors}


@contextmanager
def _server_down(stack: Any, name: str) -> Iterator[None]:
    stack.stop(name)
    try:
        yield
    finally:
        stack.start(name)
        stack.wait_healthy(name, 60)


@contextmanager
def _generator_replaced(stand_in: Callable[..., generator.Chunk]) -> Iterator[None]:
    original = generator.generate
    generator.generate = stand_in  # type: ignore[assignment]
    try:
        yield
    finally:
        generator.generate = original  # type: ignore[assignment]


def _stalled(user_id: int, now_us: int | None = None, limit: int | None = None,
             ) -> generator.Chunk:
    time.sleep(STALL_SECONDS)
    raise TimeoutError("stalled generator")


def _failing(user_id: int, now_us: int | None = None, limit: int | None = None,
             ) -> generator.Chunk:
    raise RuntimeError("generator failed")


def _forget(users: list[int]) -> None:
    for user in users:
        pools.forget(user)
        for cluster in CLUSTERS:
            materialized.forget(cluster, user)
