"""``bench graph``'s concurrent follows: real follows from many clients at once, beside the raw
writes a follow is made of, from the same clients in the same run.

Clients are threads spread over ``processes`` processes (as the site's gunicorn workers hold
threads; one process by default, each further process pays its own connections and its own
publisher thread), started together. Each client follows with pinners of its own, as
different users do, so no client waits on another's lock. A client's raw operation, the
ceiling, is what a follow writes at the least: one autocommitted ``INSERT`` into a bench table
on its follower's shard master (a semi-synchronous commit, as the edge log's) and two
``ZADD``s on the graph's Redis master that holds its follower.

Each side also reports its CPU per operation, from the first client's start to the last one's
end: the machine's, the clients' processes' (their own ``process_time``, the publisher and
marker threads included) and each store's (:func:`benchmarks.cpu.store_of`), ``other`` being
what is left of the machine's (the kernel's threads, a process that ended in between).

This module imports only the standard library at the top: each process sets Django up first.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any

Pairs = list[tuple[int, int]]
CEILING_TABLE = "pinsite_events.bench_follow_ceiling"


def measure(clients: int, processes: int, per_client: int,
            pairs_of: Callable[[int], Pairs]) -> dict[str, Any]:
    """Follows per second and latency of ``clients`` concurrent clients (``per_client``
    follows each), beside the raw ceiling with the same layout; ``pairs_of(client)`` gives a
    client's (follower, target) pairs."""
    from benchmarks.measure import Latency, ratio

    work = [pairs_of(client)[:per_client + 1] for client in range(clients)]
    results = {}
    for mode in ("follow", "raw"):
        seconds, timings, cpu_ms = _run(mode, work, processes)
        done = sum(len(client) - 1 for client in work)
        results[mode] = {"per_s": round(done / seconds), **Latency.of(timings).to_json(),
                         "cpu_ms_per_op": {name: round(ms / done, 3)
                                           for name, ms in cpu_ms.items()}}
    return {"clients": clients, "processes": processes, "follows": results["follow"],
            "raw_insert_and_two_zadds": results["raw"],
            "ratio": ratio(results["follow"]["per_s"], results["raw"]["per_s"]),
            "machine_cpu_ratio": ratio(results["raw"]["cpu_ms_per_op"]["machine"],
                                       results["follow"]["cpu_ms_per_op"]["machine"])}


def drop_ceiling(pinners: list[list[int]]) -> None:
    """Remove what the raw ceiling wrote: its table on every master, its Redis keys."""
    from sharding.hosts import cursor
    from sharding.topology import current_map as shard_map

    for alias in shard_map().masters():
        with cursor(alias) as c:
            c.execute(f"DROP TABLE IF EXISTS {CEILING_TABLE}")
    for own in pinners:
        for follower in own:
            redis, key = _ceiling_keys(follower)
            redis.delete(f"{key}:fwe", f"{key}:fre")


def _ceiling_keys(follower: int) -> tuple[Any, str]:
    """The graph Redis master holding ``follower`` and the prefix of its ceiling keys."""
    from graph.keys import FOLLOWING, user_key, vshard_of_key
    from graph.store import admin
    from graph.topology import current_map

    name = user_key(follower, FOLLOWING)
    vshard = vshard_of_key(name)
    assert vshard is not None
    return admin.raw_client(current_map().range_for(vshard).master), f"bench:{name}"


def _run(mode: str, work: list[Pairs], processes: int,
         ) -> tuple[float, list[float], dict[str, float]]:
    """Start the processes, release every client at once; the wall time from the first
    start to the last finish, every operation's microseconds, and the CPU milliseconds spent
    meanwhile (``machine``, ``clients``, each store's, ``other``)."""
    from benchmarks import cpu

    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    start = context.Event()
    shares = [work[index::processes] for index in range(processes)]
    workers = [context.Process(target=_process, args=(mode, share, start, results),
                               daemon=True) for share in shares if share]
    for worker in workers:
        worker.start()
    for _ in workers:
        ready = results.get(timeout=120)
        if ready != "ready":
            raise RuntimeError(f"a bench process failed to start: {ready}")
    before = cpu.snapshot()
    start.set()
    reports = [results.get(timeout=600) for _ in workers]
    spent = cpu.used(before, cpu.snapshot(), cpu.store_of)
    for worker in workers:
        worker.join(timeout=60)
    failed = [report for report in reports if isinstance(report, str)]
    if failed:
        raise RuntimeError(f"a bench process failed: {failed[0]}")
    began = min(report[0] for report in reports)
    ended = max(report[1] for report in reports)
    stores = {name: spent.by_group.get(name, 0.0) for name, _ in cpu.STORES}
    clients_ms = sum(report[3] for report in reports) * 1000
    return ended - began, [t for report in reports for t in report[2]], {
        "machine": spent.machine_ms, "clients": clients_ms, **stores,
        "other": max(0.0, spent.machine_ms - clients_ms - sum(stores.values()))}


def _process(mode: str, clients: list[Pairs], start: Any, results: Any) -> None:
    """One bench process: set Django up, warm its connections with each client's first
    pair, wait for the start, run the rest of its clients' pairs as threads and report
    (start, end, timings, CPU seconds of the process meanwhile)."""
    try:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.settings")
        django.setup()
        operation = _operation(mode)
        if mode == "raw":
            _ensure_ceiling_tables(clients)
        for pairs in clients:  # connections, scripts and queues ready before the clock starts
            operation(*pairs[0])
        from events import publisher

        publisher.flush()
    except Exception as exc:  # reported to the parent, which raises
        results.put(f"{type(exc).__name__}: {exc}")
        return
    results.put("ready")
    start.wait()
    cpu_began = time.process_time()
    timings: list[float] = []
    lock = threading.Lock()
    errors: list[str] = []

    def client(pairs: Pairs) -> None:
        from django.db import connections

        mine = []
        try:
            for follower, target in pairs[1:]:
                began = time.perf_counter_ns()
                operation(follower, target)
                mine.append((time.perf_counter_ns() - began) / 1000)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            connections.close_all()
        with lock:
            timings.extend(mine)

    threads = [threading.Thread(target=client, args=(pairs,)) for pairs in clients]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ended = time.perf_counter()
    from events import publisher

    publisher.flush()
    cpu_seconds = time.process_time() - cpu_began
    results.put(errors[0] if errors else (began, ended, timings, cpu_seconds))


def _operation(mode: str) -> Callable[[int, int], object]:
    if mode == "follow":
        from graph import actions

        return actions.follow_user
    return _raw_write


def _ensure_ceiling_tables(clients: list[Pairs]) -> None:
    """The raw ceiling's table on every host that one of ``clients``' followers lives on (a
    client's followers can live on several)."""
    from sharding.hosts import alias_for_shard, cursor
    from sharding.ids import shard_of

    hosts = {alias_for_shard(shard_of(follower)) for pairs in clients for follower, _ in pairs}
    for alias in sorted(hosts):
        with cursor(alias) as c:
            c.execute(f"CREATE TABLE IF NOT EXISTS {CEILING_TABLE} (follower BIGINT NOT NULL, "
                      "target BIGINT NOT NULL, PRIMARY KEY (follower, target)) ENGINE=InnoDB")


_raw = threading.local()


def _raw_write(follower: int, target: int) -> None:
    """What a follow writes at the least, straight through the drivers (a MySQLdb connection
    per client thread and host, as the shard benchmark's ceiling has)."""
    from benchmarks.shards import raw_connection
    from sharding.hosts import alias_for_shard
    from sharding.ids import shard_of

    alias = alias_for_shard(shard_of(follower))
    connections = _raw.__dict__.setdefault("connections", {})
    if alias not in connections:
        connections[alias] = raw_connection(alias)
    with connections[alias].cursor() as c:
        c.execute(f"INSERT IGNORE INTO {CEILING_TABLE} VALUES (%s, %s)", (follower, target))
    redis, key = _ceiling_keys(follower)
    redis.zadd(f"{key}:fwe", {target: time.time_ns()})
    redis.zadd(f"{key}:fre", {follower: time.time_ns()})
