"""What the feed benchmarks share: a scratch table for the raw puts beside the feed's, the
raw batch put itself, and bench pins and full feeds written straight to the stores."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from feed import storage
from feed.conf import feed_settings
from feed.schema import Entry, families, row_key
from feed.store.pools import CLUSTERS, connection, feed_table
from feed.store.tables import drop_table, ensure_table
from pins.domain import timestamp_text
from pins.types import PIN
from sharding import objects
from sharding.ids import MAX_LOCAL, compose
from sharding.topology import current_map
from toolkit.clock import now_us


@contextmanager
def scratch_table() -> Iterator[str]:
    """A table beside the feed's on the primary, for the raw puts; dropped afterwards."""
    name = f"{feed_table()}_bench"
    ensure_table("primary", name, families())
    try:
        yield name
    finally:
        drop_table("primary", name)


def raw_batch_put(name: str, fans: list[int]) -> dict[str, Any]:
    """The same rows written straight through happybase, a batch per ``FANOUT_CHUNK``."""
    chunk = feed_settings.number("FANOUT_CHUNK")
    rows = [row_key(user) for user in fans]
    with connection("primary") as conn:
        hbase = conn.table(name)
        column = Entry(now_us(), 0).column
        start = time.perf_counter()
        for offset in range(0, len(rows), chunk):
            batch = hbase.batch(timestamp=now_us())
            for row in rows[offset:offset + chunk]:
                batch.put(row, {column: b""})
            batch.send()
        seconds = time.perf_counter() - start
    return {"rows": len(rows), "batch_rows": chunk, "seconds": round(seconds, 3),
            "rows_per_s": round(len(rows) / seconds)}


def bench_pin(board: int, owner: int, created_us: int, index: int) -> int:
    """A pin object on a random open shard (no image, no list entry, no events)."""
    return objects.create(PIN, random.choice(current_map().open_shards()), {
        "board_id": board, "pinner_id": owner, "title": f"Bench pin {index}",
        "description": "", "link": "", "image": "bench.png", "thumbnail": "bench.png",
        "width": 8, "height": 8, "created": timestamp_text(created_us), "source_pin_id": None})


def fill_feed(readers: list[int], pins: list[int], now: int, spacing: int = 1) -> None:
    """Full feeds: ``pins`` newest (``spacing`` µs apart), then older entries up to the
    cap, on both clusters."""
    newest = [Entry(now - spacing * i, pin) for i, pin in enumerate(pins)]
    older = [Entry(now - spacing * len(pins) - i, missing_pin(i))
             for i in range(feed_settings.number("CAP") - len(pins))]
    for cluster in CLUSTERS:
        storage.add_entries(cluster, dict.fromkeys(readers, newest + older), timestamp=now)


def missing_pin(index: int) -> int:
    """A well-formed pin ID that no pin has (older entries are never hydrated)."""
    return compose(index % 64, PIN.type_id, MAX_LOCAL - index)
