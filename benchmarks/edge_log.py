"""The edge log's size, and growing it for benchmarks that must show a cost does not follow it.

``grow(rows)`` adds follows among bench-only user IDs until the log holds ``rows`` rows: each
follows the next ``per_user`` others, written to the log in bulk
(:func:`sharding.mappings.add_many`; no events: nobody's feed changes), and then into the
site's Redis by a rebuild of their vshards, so ``graph verify`` stays clean. The IDs sit on
the open shards at local IDs far above any the shards hand out (a block chosen at random per
call), with no user object: the log and the graph hold them, no page, pool or pinner list
does. What it adds stays, as demo data does; a call whose target is reached adds nothing.

>>> grow(800_000, progress=print)
790112
"""

from __future__ import annotations

import random
from collections.abc import Callable

from graph import repair
from graph.logscan import TABLES, open_shards
from graph.tables import USER_FOLLOWS_USER
from graph.vshards import vshard_of
from pins.types import USER
from sharding import mappings
from sharding.hosts import alias_for_shard, cursor, schema_name
from sharding.ids import MAX_LOCAL, compose

PER_USER = 500
BATCH = 5000


def row_count() -> int:
    """Rows in the three edge-log tables of every open shard (one query per shard)."""
    total = 0
    for shard in open_shards():
        with cursor(alias_for_shard(shard)) as c:
            c.execute(" UNION ALL ".join(f"SELECT COUNT(*) FROM {schema_name(shard)}.{t.name}"
                                         for t in TABLES.values()))
            total += sum(int(row[0]) for row in c.fetchall())
    return total


def grow(rows: int, per_user: int = PER_USER,
         progress: Callable[[str], object] = lambda _: None) -> int:
    """Add follows among new bench-only users until the log holds ``rows`` rows; returns the
    log's size afterwards."""
    have = row_count()
    missing = rows - have
    if missing <= 0:
        return have
    count = max(per_user + 1, -(-missing // per_user))
    progress(f"edge log: {have} rows; adding {missing} follows among {count} bench users\n")
    users = _bench_users(count)
    follows = [(users[n], users[(n + step) % count])
               for n in range(count) for step in range(1, per_user + 1)][:missing]
    mappings.add_many(USER_FOLLOWS_USER, follows, BATCH)
    progress(f"edge log: {len(follows)} rows written; rebuilding their vshards\n")
    repair.rebuild({vshard_of(user) for user in users})
    return row_count()


def _bench_users(count: int) -> list[int]:
    """``count`` user IDs spread over the open shards, in a block of local IDs near the top of
    their range (a shard's own auto-increment starts at 1)."""
    shards = open_shards()
    top = MAX_LOCAL - random.randrange(1 << 30)
    return [compose(shards[n % len(shards)], USER.type_id, top - n // len(shards))
            for n in range(count)]
