"""The edge log's size, and growing it for benchmarks that must show a cost does not follow it.

``grow(rows)`` adds follows among bench pinners until the log holds ``rows`` rows: each pinner
follows the next ``per_pinner`` others, written to the log in bulk (one multi-row ``INSERT``
per shard and batch, no events: nobody's feed changes) and then into the site's Redis by a
rebuild of the pinners' vshards, so ``graph verify`` stays clean. What it adds stays, as any
demo data does; a second call with the same target adds nothing.

>>> grow(800_000, progress=print)
790112
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable

from graph import repair
from graph.logscan import TABLES, open_shards
from graph.tables import USER_FOLLOWS_USER
from graph.vshards import vshard_of
from pins.actions import create_pinner
from sharding.hosts import alias_for_shard, cursor, schema_name
from sharding.ids import shard_of
from sharding.mappings import now_sequence

PER_PINNER = 500
BATCH = 5000


def row_count() -> int:
    """Rows in the three edge-log tables of every open shard."""
    total = 0
    for shard in open_shards():
        with cursor(alias_for_shard(shard)) as c:
            for table in TABLES.values():
                c.execute(f"SELECT COUNT(*) FROM {schema_name(shard)}.{table.name}")
                total += int(c.fetchone()[0])
    return total


def grow(rows: int, per_pinner: int = PER_PINNER,
         progress: Callable[[str], object] = lambda _: None) -> int:
    """Add follows among new bench pinners until the log holds ``rows`` rows; returns the
    log's size afterwards."""
    have = row_count()
    missing = rows - have
    if missing <= 0:
        return have
    count = max(per_pinner + 1, -(-missing // per_pinner))
    progress(f"edge log: {have} rows; adding {missing} follows among {count} bench pinners\n")
    tag = uuid.uuid4().hex[:6]
    pinners = [create_pinner(f"logbench{tag}{n}", None).user_id for n in range(count)]
    follows = [(pinners[n], pinners[(n + step) % count])
               for n in range(count) for step in range(1, per_pinner + 1)][:missing]
    _insert(follows)
    progress(f"edge log: {len(follows)} rows written; rebuilding the pinners' vshards\n")
    repair.rebuild({vshard_of(pinner) for pinner in pinners})
    return row_count()


def _insert(follows: list[tuple[int, int]]) -> None:
    by_shard: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for follower, target in follows:
        by_shard[shard_of(follower)].append((follower, target))
    for shard, pairs in by_shard.items():
        name = f"{schema_name(shard)}.{USER_FOLLOWS_USER.name}"
        for start in range(0, len(pairs), BATCH):
            batch = pairs[start:start + BATCH]
            now = now_sequence()
            with cursor(alias_for_shard(shard)) as c:
                c.execute(f"INSERT IGNORE INTO {name} (from_id, to_id, sequence) VALUES "
                          + ",".join(["(%s, %s, %s)"] * len(batch)),
                          [value for follower, target in batch
                           for value in (follower, target, now)])
