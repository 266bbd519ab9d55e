"""``manage.py bench shards``: the sharded store beside raw MySQLdb on the same hosts.

Measured in one run: object create rate (store vs a raw ``INSERT``), single get p50/p99 (store
from cache, store from the shard, raw ``SELECT``) and a 50-object cross-shard ``get_many``
(store uncached vs the same ``UNION ALL`` per host sent through raw MySQLdb).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from contextlib import closing
from typing import Any

import MySQLdb
from django.conf import settings
from django.core.management.base import CommandParser

from benchmarks.measure import latency, rate, ratio
from sharding import objects
from sharding.hosts import require_alias, schema_name
from sharding.ids import ObjectType, decompose, types
from sharding.topology import current_map
from toolkit.commands import Bounded

PAYLOAD = {"title": "A benchmark pin", "description": "x" * 200, "link": "https://example.org/"}


def raw_connection(alias: str) -> Any:
    """A MySQLdb connection of its own to ``alias``'s host, in autocommit: the benchmarks'
    ceiling, with no Django and no pinsite code in the way."""
    database = settings.DATABASES[require_alias(alias)]
    return MySQLdb.connect(host=database["HOST"], port=int(database["PORT"]),
                           user=database["USER"], password=database["PASSWORD"],
                           charset="utf8mb4", autocommit=True)


NAME = "shards"
HELP = "sharded MySQL store vs raw MySQLdb"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--creates", type=int, action=Bounded, default=2000)
    parser.add_argument("--gets", type=int, action=Bounded, default=2000)
    parser.add_argument("--batches", type=int, action=Bounded, default=300)


def run(object_type_name: str = "pin", creates: int = 2000, gets: int = 2000,
        batches: int = 300, seed: int = 7,
        progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    """Run the shard benchmark and return its figures (``--json`` prints them)."""
    object_type = types.by_name(object_type_name)
    shard_map = current_map()
    randomly = random.Random(seed)
    shards = shard_map.open_shards()
    master = shard_map.masters()[0]
    master_shards = shard_map.shards_of(master)
    raw = {alias: raw_connection(alias) for alias in shard_map.masters()}
    try:
        progress(f"{creates} creates")
        figures = {
            "hosts": shard_map.masters(),
            "shards": len(shards),
            "create": _creates(object_type, master, master_shards, raw[master], creates, randomly),
        }
        created = [objects.create(object_type, randomly.choice(shards), PAYLOAD)
                   for _ in range(max(gets, 500))]
        progress(f"{gets} gets, {batches} batches of 50")
        figures["get"] = _gets(object_type, created, raw, gets, randomly)
        figures["get_many_50"] = _get_many(object_type, created, raw, batches, randomly)
    finally:
        for connection in raw.values():
            connection.close()
    return figures


def _creates(object_type: ObjectType, master: str, shards: list[int], raw: Any, count: int,
             randomly: random.Random) -> dict[str, Any]:
    encoded = json.dumps(PAYLOAD)
    cursor = raw.cursor()

    def raw_insert(_: int) -> None:
        table = f"{schema_name(randomly.choice(shards))}.{object_type.table}"
        cursor.execute(f"INSERT INTO {table} (data) VALUES (%s)", [encoded])

    store = rate(lambda _: objects.create(object_type, randomly.choice(shards), PAYLOAD), count)
    ceiling = rate(raw_insert, count)
    return {"host": master, "objects": count, "store_per_s": round(store),
            "raw_insert_per_s": round(ceiling), "ratio": ratio(store, ceiling)}


def _gets(object_type: ObjectType, created: list[int], raw: dict[str, Any], samples: int,
          randomly: random.Random) -> dict[str, Any]:
    picks = [randomly.choice(created) for _ in range(samples)]
    objects.get_many(picks)
    shard_map = current_map()

    def raw_select(index: int) -> None:
        parts = decompose(picks[index])
        with closing(raw[shard_map.master_for(parts.shard)].cursor()) as c:
            c.execute(f"SELECT data FROM {schema_name(parts.shard)}.{object_type.table} "
                      "WHERE local_id = %s", [parts.local_id])
            c.fetchall()

    cached = latency(lambda i: objects.get(picks[i]), samples)
    uncached = latency(lambda i: objects.get_many([picks[i]], cached=False), samples)
    ceiling = latency(raw_select, samples)
    return {"store_cached": cached.to_json(), "store_uncached": uncached.to_json(),
            "raw_select": ceiling.to_json(),
            "p50_ratio_uncached_vs_raw": ratio(uncached.p50_us, ceiling.p50_us)}


def _get_many(object_type: ObjectType, created: list[int], raw: dict[str, Any], samples: int,
              randomly: random.Random) -> dict[str, Any]:
    batches = [randomly.sample(created, 50) for _ in range(samples)]
    queries = [[(alias, objects.union_sql(table, groups))
                for (alias, table), groups in objects.group_by_host_and_table(batch).items()]
               for batch in batches]

    def raw_union(index: int) -> None:
        for alias, sql in queries[index]:
            with closing(raw[alias].cursor()) as c:
                c.execute(sql)
                c.fetchall()

    uncached = latency(lambda i: objects.get_many(batches[i], cached=False), samples)
    cached = latency(lambda i: objects.get_many(batches[i]), samples)
    ceiling = latency(raw_union, samples)
    hosts = sum(len(q) for q in queries) / len(queries)
    return {"objects": 50, "hosts_per_batch": round(hosts, 2),
            "store_uncached": uncached.to_json(), "store_cached": cached.to_json(),
            "raw_union_per_host": ceiling.to_json(),
            "p50_ratio_uncached_vs_raw": ratio(uncached.p50_us, ceiling.p50_us)}
