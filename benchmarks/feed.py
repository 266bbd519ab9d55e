"""``manage.py bench feed``: the feed beside raw happybase on the same HBase server.

Measured in one run:

* fanout: one new pin to the followers of a board (10,000 by default), end to end through the
  queue with real worker processes (``dramatiq pinsite.worker``), timed from the pin's
  creation (its event): deliveries per second until every follower has it on the primary, and
  on both clusters, and when the writes were counted for trimming; beside a raw happybase
  batch put of the same number of rows (one ``mutateRowsTs`` per ``FANOUT_CHUNK`` rows) to a
  scratch table on the primary. Fanouts and raw puts alternate, ``rounds`` of each after one
  uncounted warm-up round (the workers idle during a raw put), each once the machine is quiet
  (:func:`benchmarks.measure.wait_until_quiet`), and the medians are compared;
* a 50-pin feed page, hydrated (object cache warm), p50/p99; beside a raw ``row()`` of the
  same feed row plus a raw multi-get of its 50 pins (one ``UNION ALL`` per MySQL host);
* celebrity (pulled) boards: see :mod:`benchmarks.feed_pulled`;
* an unfollow applied to a full row: see :mod:`benchmarks.feed_unfollow`.

``--parts`` runs some of the four (``fanout``, ``page``, ``pulled``, ``unfollow``).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from io import BytesIO
from typing import Any

import dramatiq
from django.core.management.base import CommandParser
from django.db import connections
from PIL import Image

from benchmarks import feed_pulled, feed_unfollow
from benchmarks.feed_scratch import bench_pin, fill_feed, raw_batch_put, scratch_table
from benchmarks.measure import latency, ratio, wait_until_quiet
from feed import fanout, queues, storage
from feed.conf import feed_settings
from feed.schema import FEED, Entry, row_key
from feed.selectors import feed_page
from feed.store.pools import CLUSTERS, Cluster, table
from graph.actions import follow_board
from pins.actions import create_board, create_pin, create_pinner
from pins.domain import User, timestamp_text
from pins.selectors import get_pin
from pins.types import USER
from sharding import objects
from sharding.hosts import cursor
from sharding.topology import current_map
from toolkit.clock import now_us
from toolkit.commands import Bounded

SETUP_THREADS = 16
POLL_SECONDS = 0.002
COUNT_POLL_SECONDS = 0.01
COUNT_SAMPLE = 200
PAGE = 50


PARTS = ("fanout", "page", "pulled", "unfollow")


NAME = "feed"
HELP = "feed fanout and pages vs raw happybase"
MAX_CELEBRITY_FOLLOWERS = 5_000_000


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--followers", type=int, action=Bounded, default=10_000)
    parser.add_argument("--samples", type=int, action=Bounded, default=300)
    parser.add_argument("--processes", type=int, action=Bounded, default=2,
                        help="worker processes")
    parser.add_argument("--threads", type=int, action=Bounded, default=2,
                        help="threads per worker process")
    parser.add_argument("--rounds", type=int, action=Bounded, default=3,
                        help="fanouts (each followed by a raw put) whose medians are quoted")
    parser.add_argument("--parts", nargs="+", metavar="PART", choices=PARTS, default=PARTS,
                        help="what to measure: fanout, page, pulled, unfollow (default: all)")
    parser.add_argument("--celebrity-followers", type=int, nargs="+", metavar="N",
                        action=Bounded, maximum=MAX_CELEBRITY_FOLLOWERS,
                        help="follower counts of the pulled boards whose pins are planned "
                             "(default 200000 1000000)")


def run(followers: int = 10_000, samples: int = 300, processes: int = 2,
        threads: int = 2, rounds: int = 3, parts: Sequence[str] = PARTS,
        celebrity_followers: Sequence[int] | None = None,
        progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Run the feed benchmark (the ``parts`` asked for) and return its figures (``--json``
    prints them)."""
    figures: dict[str, Any] = {}
    if "fanout" in parts or "page" in parts:
        progress(f"creating {followers} followers")
        started = time.perf_counter()
        owner = create_pinner(f"bench{uuid.uuid4().hex[:12]}", None).user_id
        board = create_board(owner, "Benchmark").id
        fans = _followers(board, followers) if "fanout" in parts else []
        figures["setup_seconds"] = round(time.perf_counter() - started, 1)
    if "fanout" in parts:
        figures.update(_fanouts(owner, board, fans, processes, threads, rounds, progress))
    if "page" in parts:
        progress("feed pages")
        figures["page_50"] = _page(owner, board, samples)
    if "pulled" in parts:
        figures["pulled"] = feed_pulled.run(
            followers=tuple(celebrity_followers or feed_pulled.CELEBRITY_FOLLOWERS),
            samples=samples, progress=progress)
    if "unfollow" in parts:
        figures["unfollow"] = feed_unfollow.run(min(samples, 100), _image(), progress)
    return figures


def _fanouts(owner: int, board: int, fans: list[int], processes: int, threads: int,
             rounds: int, progress: Callable[[str], None]) -> dict[str, Any]:
    figures: dict[str, Any] = {"followers": len(fans), "workers": {
        "processes": processes, "threads": threads}}
    fanouts, puts, waited = [], [], 0.0
    with feed_workers(processes, threads), scratch_table() as scratch:
        drain_feed_queues()
        progress("warm-up round (not counted)")
        _fanout(owner, board, fans)
        raw_batch_put(scratch, fans)
        for number in range(1, rounds + 1):
            progress(f"round {number}/{rounds}: fanning out one pin, then a raw batch put")
            waited += wait_until_quiet()
            fanouts.append(_fanout(owner, board, fans))
            waited += wait_until_quiet()
            puts.append(raw_batch_put(scratch, fans))
    figures["waited_for_quiet_seconds"] = round(waited, 1)
    figures["fanout"] = _medians(fanouts)
    figures["raw_batch_put"] = _medians(puts)
    figures["fanout"]["ratio_primary_vs_raw_put"] = ratio(
        figures["fanout"]["primary_deliveries_per_s"], figures["raw_batch_put"]["rows_per_s"])
    return figures


# --- Followers -----------------------------------------------------------------------------

def _followers(board: int, count: int) -> list[int]:
    shards = current_map().open_shards()
    slices = [range(start, min(count, start + 500)) for start in range(0, count, 500)]

    def make(part: range) -> list[int]:
        try:
            made = []
            for index in part:
                user = objects.create(USER, random.choice(shards), {
                    "username": f"benchfan{index}", "display_name": "", "about": "",
                    "created": timestamp_text(now_us())})
                follow_board(user, board)
                made.append(user)
            return made
        finally:
            connections.close_all()

    with ThreadPoolExecutor(SETUP_THREADS) as pool:
        return [user for part in pool.map(make, slices) for user in part]


# --- Fanout through real workers -----------------------------------------------------------

@contextmanager
def feed_workers(processes: int, threads: int) -> Iterator[None]:
    command = [sys.executable, "-m", "dramatiq", "pinsite.worker", "--processes",
               str(processes), "--threads", str(threads), "--queues", *queues.names()]
    worker = subprocess.Popen(command, env=dict(os.environ), start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        worker.terminate()
        worker.wait(timeout=60)


def drain_feed_queues(timeout_ms: int = 600_000) -> None:
    """Wait until the feed's queues stay empty (the follows made by the set-up are applied)."""
    broker = dramatiq.get_broker()
    for name in queues.names():
        broker.join(name, min_successes=20, idle_time=50, timeout=timeout_ms)  # type: ignore[call-arg]


def _fanout(owner: int, board: int, fans: list[int]) -> dict[str, Any]:
    """Fan out one new pin to ``fans``, the board's followers, and time it."""
    probes = [chunk[-1] for chunk in fanout.follower_chunks(board)]
    sample = random.Random(7).sample(fans, min(len(fans), COUNT_SAMPLE))
    counts = {cluster: _counters(cluster, sample) for cluster in CLUSTERS}
    pin = create_pin(owner, board, "Benchmark pin", "", "", _image()).id
    started = time.perf_counter()
    entry = Entry(_created_us(pin), pin)
    primary = _wait_for(entry, fans, probes, "primary") - started
    both = _wait_for(entry, fans, probes, "standby") - started
    counted = _wait_counted(counts) - started
    return {"chunk": feed_settings.number("FANOUT_CHUNK"),
            "primary_seconds": round(primary, 3),
            "primary_deliveries_per_s": round(len(fans) / primary),
            "both_clusters_seconds": round(both, 3),
            "both_clusters_deliveries_per_s": round(2 * len(fans) / both),
            "writes_counted_seconds": round(counted, 3)}


def _wait_for(entry: Entry, users: list[int], probes: list[int], cluster: Cluster,
              timeout: float = 600) -> float:
    """When every one of ``users`` had ``entry`` on ``cluster``.

    A delivery writes its whole chunk in one batch, so polling one follower of each chunk
    (``probes``: one small read per poll, little load on the server being measured) tells when
    every chunk landed; a full check then confirms it, and polls the stragglers if it does not."""
    deadline = time.monotonic() + timeout
    finished = _poll(entry, probes, cluster, deadline)
    holding = storage.users_holding(cluster, users, entry)
    missing = [user for user in users if user not in holding]
    return _poll(entry, missing, cluster, deadline) if missing else finished


def _wait_counted(before: dict[Cluster, dict[int, int]], timeout: float = 600) -> float:
    """When a sample of the feeds had this write counted on both clusters (trim accounting):
    ``before`` holds their write counters (by cluster) from before the pin."""
    deadline = time.monotonic() + timeout
    for cluster, counts in before.items():
        waiting = list(counts)
        while waiting:
            if time.monotonic() > deadline:
                raise TimeoutError(f"writes on {cluster} were never counted")
            time.sleep(COUNT_POLL_SECONDS)
            now = _counters(cluster, waiting)
            waiting = [user for user in waiting if now[user] == counts[user]]
    return time.perf_counter()


def _counters(cluster: Cluster, users: list[int]) -> dict[int, int]:
    """The write counters of ``users`` on ``cluster`` (0 for a feed without one)."""
    found = storage.writes_counted(cluster, users)
    return {user: found.get(user, 0) for user in users}


def _poll(entry: Entry, users: list[int], cluster: Cluster, deadline: float) -> float:
    missing = list(users)
    while missing:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(missing)} feeds on {cluster} never got pin {entry.pin_id}")
        time.sleep(POLL_SECONDS)
        have = storage.users_holding(cluster, missing, entry)
        missing = [user for user in missing if user not in have]
    return time.perf_counter()


def _created_us(pin: int) -> int:
    return get_pin(pin).created_us


def _image() -> bytes:
    out = BytesIO()
    Image.new("RGB", (8, 8), (30, 120, 200)).save(out, "PNG")
    return out.getvalue()


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds (figures that do not vary are kept as they are),
    and the number of rounds."""
    merged: dict[str, Any] = {"rounds": len(runs)}
    for name in runs[0]:
        merged[name] = statistics.median_low(run[name] for run in runs)
    return merged


# --- Feed pages ----------------------------------------------------------------------------

def _page(owner: int, board: int, samples: int) -> dict[str, Any]:
    reader = create_pinner(f"benchreader{uuid.uuid4().hex[:12]}", None).user_id
    pins = _page_pins(board, owner)
    fill_feed([reader], pins, now_us())
    feed_page(reader, limit=PAGE)

    def raw(_: int) -> None:
        with table("primary") as hbase:
            found = hbase.row(row_key(reader), columns=[FEED])
        newest = sorted(found)[:PAGE]
        _raw_multi_get([Entry.from_column(column).pin_id for column in newest])

    store = latency(lambda _: feed_page(reader, limit=PAGE), samples)
    profile = User.objects.get(reader)
    manager = latency(lambda _: profile.feed.page(limit=PAGE), samples)
    ceiling = latency(raw, samples)
    hosts = len({host for host, _ in objects.group_by_host_and_table(pins)})
    return {"pins": PAGE, "feed_entries": len(storage.read_entries("primary", reader)),
            "mysql_hosts": hosts, "feed_page": store.to_json(),
            "raw_row_plus_multi_get": ceiling.to_json(),
            "p50_ratio_vs_raw": ratio(store.p50_us, ceiling.p50_us),
            "pinner_feed_page": manager.to_json(),
            "manager_vs_selector_p50_ratio": ratio(manager.p50_us, store.p50_us)}


def _page_pins(board: int, owner: int) -> list[int]:
    """50 pin objects on random shards, so hydration spans hosts as real feeds do."""
    now = now_us()
    return [bench_pin(board, owner, now, i) for i in range(PAGE)]


def _raw_multi_get(pin_ids: list[int]) -> None:
    for (alias, name), groups in objects.group_by_host_and_table(pin_ids).items():
        with cursor(alias) as c:
            c.execute(objects.union_sql(name, groups))
            c.fetchall()

