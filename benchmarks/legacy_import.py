"""``manage.py bench import``: how fast a pass copies a legacy site, beside a raw multi-row
``INSERT`` of as many rows on a shard master in the same run.

A legacy database of its own is made on the stack's MariaDB (``users`` users, twice as many
boards, four times as many pins, a user follow and a board follow per user). One pass copies
it, in this process (``--inline``: one worker's pace) and then again through the queue
(``--workers`` queue worker threads in this process) onto a second legacy database of the
same shape. The ceiling: the same number of rows, each a small JSON document as pinsite's
objects are, written with multi-row ``INSERT``\\s of 200 into a table on a shard master.

The legacy databases and the ceiling's table are dropped at the end; the imported pinners
stay, as every bench's pinners do.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import dramatiq
from django.conf import settings
from django.core.management.base import CommandParser

from benchmarks.shards import raw_connection
from legacy import passes, source, tasks
from legacy.source import SCHEMA
from sharding.conf import sharding_settings
from sharding.replication import admin_cursor
from sharding.topology import current_map
from toolkit.commands import Bounded

CEILING_TABLE = "pinsite_events.bench_import_ceiling"
INSERT_BATCH = 200


NAME = "import"
HELP = "a legacy site copied by one pass, beside raw multi-row INSERTs"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--users", type=int, action=Bounded, default=100,
                        help="legacy users (with 2x boards, 4x pins, 2x follows)")
    parser.add_argument("--workers", type=int, action=Bounded, default=4,
                        help="queue worker threads")


def run(users: int = 100, workers: int = 4,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    figures: dict[str, Any] = {"users": users}
    for mode in ("inline", "queue"):
        name, url, rows = _legacy_site(users)
        try:
            progress(f"{mode}: copying {rows} legacy rows\n")
            started = time.perf_counter()
            if mode == "inline":
                report = passes.run_pass(url, inline=True)
            else:
                report = _through_queue(url, workers)
            seconds = time.perf_counter() - started
        finally:
            _drop(name)
        copied = sum(report.copied.values())
        figures[mode] = {"rows": rows, "copied": copied, "seconds": round(seconds, 2),
                         "rows_per_s": round(copied / seconds, 1), "per_table": report.copied}
    raw = _ceiling(figures["inline"]["rows"])
    figures["raw_multi_row_insert"] = {"rows": figures["inline"]["rows"],
                                       "rows_per_s": round(raw, 1)}
    figures["ratio_inline"] = round(figures["inline"]["rows_per_s"] / raw, 5)
    figures["ratio_queue"] = round(figures["queue"]["rows_per_s"] / raw, 5)
    figures["workers"] = workers
    return figures


def _through_queue(url: str, threads: int) -> passes.PassReport:
    broker: Any = dramatiq.get_broker()
    broker.declare_queue(tasks.QUEUE, ensure=True)
    worker = dramatiq.Worker(broker, queues={tasks.QUEUE}, worker_threads=threads)
    worker.start()
    try:
        return passes.run_pass(url)
    finally:
        worker.stop()


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
    return name, url, 9 * users


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
