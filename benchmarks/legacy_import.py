"""``manage.py bench import``: how fast a pass copies a legacy site, beside raw multi-row
``INSERT`` statements on a shard master in the same run.

A legacy database of its own is made on the stack's MariaDB (``users`` users, twice as many
boards, four times as many pins, a user follow and a board follow per user), once per mode,
and one pass copies it: in this process (``--inline``: one worker's pace); through the queue
to ``--workers`` worker threads in this process; and through the queue to ``--processes``
``dramatiq pinsite.worker`` processes sharing ``--workers`` threads, as production runs them.
Through the queue the pass cuts jobs of ``--batch`` rows, so that every worker has some. A
mode's time starts once its workers consume and ends once the events the pass handed to this
process's publisher thread are published. The ceiling: rows (as many, and at least
``CEILING_ROWS`` for a steady rate), each a small JSON document as pinsite's objects are,
written with multi-row ``INSERT`` statements of 200 into a table on a shard master, before
the first mode and after each (one such write varies by half from one to the next); the
ratios are to the median of those.

The legacy databases and the ceiling's table are dropped at the end; the imported pinners
stay, as every bench's pinners do.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dramatiq
from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from benchmarks.shards import raw_connection
from events import publisher
from legacy import passes, source, tasks
from legacy.source import SCHEMA
from sharding.conf import sharding_settings
from sharding.replication import admin_cursor
from sharding.topology import current_map
from toolkit import queue
from toolkit.commands import Bounded
from toolkit.waiting import until

CEILING_TABLE = "pinsite_events.bench_import_ceiling"
INSERT_BATCH = 200
CEILING_ROWS = 20_000  # enough statements for a steady rate (a few are noise)
ROWS_PER_USER = 9  # a legacy user, its 2 boards, 4 pins, a user follow and a board follow
REPO = Path(__file__).resolve().parents[1]


NAME = "import"
HELP = "a legacy site copied by one pass, beside raw multi-row INSERTs"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--users", type=int, action=Bounded, default=100,
                        help="legacy users (with 2x boards, 4x pins, 2x follows)")
    parser.add_argument("--workers", type=int, action=Bounded, default=4,
                        help="queue worker threads (in this process, and in all the processes)")
    parser.add_argument("--processes", type=int, action=Bounded, default=2,
                        help="queue worker processes of the last mode")
    parser.add_argument("--batch", type=int, action=Bounded, default=QUEUE_BATCH,
                        help="legacy rows per job through the queue")


MODES = ("inline", "queue", "worker_processes")
"""In this process; through the queue to worker threads in this process; through the queue
to ``dramatiq pinsite.worker`` processes, as production runs them."""
QUEUE_BATCH = 50  # jobs enough for every worker of a small legacy site
STARTUP_SECONDS = 120.0


def run(users: int = 100, workers: int = 4, processes: int = 2, batch: int = QUEUE_BATCH,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    figures: dict[str, Any] = {"users": users}
    ceiling_rows = max(CEILING_ROWS, ROWS_PER_USER * users)
    ceilings = [_ceiling(ceiling_rows)]
    for mode in MODES:
        name, url, rows = _legacy_site(users)
        try:
            with _workers(mode, workers, processes):
                progress(f"{mode}: copying {rows} legacy rows\n")
                started = time.perf_counter()
                report = (passes.run_pass(url, inline=True) if mode == "inline"
                          else passes.run_pass(url, batch_size=batch))
                publisher.flush(60)  # the events handed over here are part of the work
                seconds = time.perf_counter() - started
        finally:
            _drop(name)
        copied = sum(report.copied.values())
        figures[mode] = {"rows": rows, "copied": copied, "seconds": round(seconds, 2),
                         "rows_per_s": round(copied / seconds, 1), "per_table": report.copied,
                         "feeds_rebuilt": report.rebuilt}
        ceilings.append(_ceiling(ceiling_rows))
    raw = statistics.median(ceilings)
    figures["raw_multi_row_insert"] = {"rows": ceiling_rows, "rows_per_s": round(raw, 1),
                                       "runs": [round(rate, 1) for rate in ceilings]}
    for mode in MODES:
        figures[f"ratio_{mode}"] = round(figures[mode]["rows_per_s"] / raw, 5)
    figures["workers"], figures["processes"], figures["queue_batch"] = workers, processes, batch
    return figures


@contextmanager
def _workers(mode: str, threads: int, processes: int) -> Iterator[None]:
    """The mode's queue workers, started before and stopped after the timed pass."""
    broker: Any = dramatiq.get_broker()
    broker.declare_queue(tasks.QUEUE, ensure=True)
    if mode == "inline":
        yield
    elif mode == "queue":
        worker = dramatiq.Worker(broker, queues={tasks.QUEUE}, worker_threads=threads)
        worker.start()
        try:
            yield
        finally:
            worker.stop()
    else:
        command = [sys.executable, "-m", "dramatiq", "pinsite.worker", "--processes",
                   str(processes), "--threads", str(max(1, threads // processes)),
                   "--queues", tasks.QUEUE]
        process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            if not until(lambda: queue.consumers(tasks.QUEUE) >= processes, STARTUP_SECONDS,
                         every=0.2):
                raise CommandError(f"the worker processes did not start consuming within "
                                   f"{STARTUP_SECONDS:.0f}s")
            yield
        finally:
            process.terminate()
            process.wait(timeout=60)


def _legacy_site(users: int) -> tuple[str, str, int]:
    """A new legacy database filled for the bench: its name, URL and row count."""
    database = settings.DATABASES["default"]
    name, tag = f"legacy_bench_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex[:6]
    with admin_cursor("default") as admin:
        admin.execute(f"CREATE DATABASE {name}")
    url = (f"mysql://{sharding_settings.ADMIN_USER}:{sharding_settings.ADMIN_PASSWORD}"
           f"@{database['HOST']}:{database['PORT']}/{name}")
    connection = source.connect(url)
    try:
        cursor = connection.cursor()
        for statement in filter(str.strip, SCHEMA.split(";")):
            cursor.execute(statement)
        cursor.executemany("INSERT INTO users (username, display_name) VALUES (%s, %s)",
                           [(f"b{tag}{n}", f"Bench {n}") for n in range(users)])
        cursor.executemany("INSERT INTO boards (user_id, name, description) VALUES "
                           "(%s, %s, '')", [(1 + n % users, f"Board {n}")
                                            for n in range(2 * users)])
        cursor.executemany("INSERT INTO pins (board_id, title, description, link) VALUES "
                           "(%s, %s, '', '')", [(1 + n % (2 * users), f"Pin {n}")
                                                for n in range(4 * users)])
        cursor.executemany("INSERT INTO user_follows (follower_id, followee_id) VALUES "
                           "(%s, %s)", [(1 + n, 1 + (n + 1) % users) for n in range(users)])
        cursor.executemany("INSERT INTO board_follows (user_id, board_id) VALUES (%s, %s)",
                           [(1 + n, 1 + (n + 1) % users)
                            for n in range(users)])  # not their own
    finally:
        connection.close()
    return name, url, ROWS_PER_USER * users


def _drop(name: str) -> None:
    with admin_cursor("default") as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")


def _ceiling(rows: int) -> float:
    """Rows per second of multi-row ``INSERT``s of small JSON documents on a shard master."""
    connection = raw_connection(current_map().masters()[0])
    cursor = connection.cursor()
    cursor.execute(f"CREATE TABLE IF NOT EXISTS {CEILING_TABLE} (local_id BIGINT PRIMARY KEY "
                   "AUTO_INCREMENT, data JSON NOT NULL)")
    document = json.dumps({"title": "Pin", "description": "", "link": "", "owner_id": 1})
    try:
        started = time.perf_counter()
        for first in range(0, rows, INSERT_BATCH):
            count = min(INSERT_BATCH, rows - first)
            cursor.execute(f"INSERT INTO {CEILING_TABLE} (data) VALUES "
                           + ",".join(["(%s)"] * count), [document] * count)
        return rows / (time.perf_counter() - started)
    finally:
        cursor.execute(f"DROP TABLE IF EXISTS {CEILING_TABLE}")
        connection.close()
