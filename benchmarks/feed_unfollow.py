"""The unfollow part of ``manage.py bench feed``: an unfollow applied to a full feed row.

A reader follows ``FOLLOWEES`` pinners with one board of ``PINS_PER_BOARD`` pins each (made
through the ordinary action, so each pin lies on its board's shard), and its row on the
primary holds all of their pins: ``FOLLOWEES * PINS_PER_BOARD`` entries, the feed's cap by
default. Each sample unfollows one of them in the graph and times the feed's side of it
(:func:`feed.follows.unfollow` on the primary, in process: wall time and this process's CPU),
then follows again, untimed, to refill the row. Beside it, the raw work an unfollow needs from
HBase: a raw ``row()`` of the same row and a raw delete of the followee's cells (put back,
untimed). What the set-up and the samples queued (pin fan-outs, both clusters' follow
changes) is worked off at the end, so no site worker finds it later.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from benchmarks.measure import Latency, ratio
from feed import follows
from feed.schema import FEED, Entry, row_key
from feed.store.pools import table
from graph.actions import follow_user, unfollow_user
from pins.actions import create_board, create_pinner, create_pins
from pins.actions.pins import NewPin
from pinsite.backlog import work_off

FOLLOWEES = 50
PINS_PER_BOARD = 20


def run(samples: int, image: bytes, progress: Callable[[str], None]) -> dict[str, Any]:
    progress(f"unfollows: {FOLLOWEES} followees of {PINS_PER_BOARD} pins each")
    reader = create_pinner(f"benchfan{uuid.uuid4().hex[:12]}", None).user_id
    followees: dict[int, list[int]] = {}
    for index in range(FOLLOWEES):
        owner = create_pinner(f"benchowner{uuid.uuid4().hex[:12]}", None).user_id
        board = create_board(owner, f"Unfollowed {index}").id
        made = create_pins([NewPin(board, f"Pin {n}") for n in range(PINS_PER_BOARD)], image)
        followees[owner] = [pin.id for pin in made if not isinstance(pin, Exception)]
        _follow(reader, owner)
    owners = list(followees)
    entries = len(_row(reader))
    wall, cpu = [], []
    for index in range(samples):
        owner = owners[index % len(owners)]
        unfollowed = unfollow_user(reader, owner)
        started, started_cpu = time.perf_counter_ns(), time.process_time_ns()
        follows.unfollow("primary", reader, "user", owner, unfollowed.action_time_us)
        cpu.append((time.process_time_ns() - started_cpu) / 1000)
        wall.append((time.perf_counter_ns() - started) / 1000)
        _follow(reader, owner)
    raw_wall, raw_cpu = _raw(reader, followees, samples)
    progress("unfollows: working off the messages they queued")
    work_off()
    unfollow, raw = Latency.of(wall), Latency.of(raw_wall)
    return {"followees": FOLLOWEES, "row_entries": entries, "unfollow": unfollow.to_json(),
            "unfollow_cpu_us_p50": round(statistics.median(cpu)),
            "raw_row_plus_delete": raw.to_json(),
            "raw_cpu_us_p50": round(statistics.median(raw_cpu)),
            "p50_ratio_vs_raw": ratio(unfollow.p50_us, raw.p50_us),
            "cpu_ratio_vs_raw": ratio(statistics.median(cpu), statistics.median(raw_cpu))}


def _follow(reader: int, owner: int) -> None:
    followed = follow_user(reader, owner)
    follows.follow("primary", reader, "user", owner, followed.action_time_us)


def _row(reader: int) -> dict[bytes, bytes]:
    with table("primary") as hbase:
        return dict(hbase.row(row_key(reader), columns=[FEED]))


def _raw(reader: int, followees: dict[int, list[int]], samples: int,
         ) -> tuple[list[float], list[float]]:
    """A raw row read and a raw delete of one followee's cells, timed; the cells put back."""
    owners = list(followees)
    wall, cpu = [], []
    for index in range(samples):
        theirs = set(followees[owners[index % len(owners)]])
        started, started_cpu = time.perf_counter_ns(), time.process_time_ns()
        with table("primary") as hbase:
            found = hbase.row(row_key(reader), columns=[FEED])
            columns = [column for column in found
                       if Entry.from_column(column).pin_id in theirs]
            hbase.delete(row_key(reader), columns=columns)
        cpu.append((time.process_time_ns() - started_cpu) / 1000)
        wall.append((time.perf_counter_ns() - started) / 1000)
        with table("primary") as hbase:
            hbase.put(row_key(reader), {column: b"" for column in columns})
    return wall, cpu
