"""Sharded objects: JSON blobs in ``db%05d.<table>``, keyed by the shard table's auto-increment.

>>> from pins.types import PIN
>>> pin_id = create(PIN, shard=3429, data={"title": "Quiche"})
>>> get(pin_id)["title"]
'Quiche'

Reads go through the object cache (:mod:`sharding.cache`); writes invalidate it after commit, and
reads inside a transaction do not fill it. ``get_many`` groups IDs by host and table and makes
one query for each (a ``UNION ALL`` over that host's shards).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from sharding import cache
from sharding.exceptions import ObjectNotFound
from sharding.hosts import (
    after_commit,
    alias_for_shard,
    cursor,
    in_transaction,
    quoted,
    read_answers,
    schema_name,
    send_unanswered,
)
from sharding.ids import ObjectType, compose, decompose, types

JSONObject = dict[str, Any]


def _encode(data: JSONObject) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _decode(raw: str | bytes) -> JSONObject:
    value: JSONObject = json.loads(raw)
    return value


def _table(shard: int, table: str) -> str:
    return f"{schema_name(shard)}.{table}"


def create(object_type: ObjectType, shard: int, data: JSONObject) -> int:
    """Store a new object on ``shard`` and return its ID."""
    alias = alias_for_shard(shard)
    with cursor(alias, shard) as c:
        c.execute(f"INSERT INTO {_table(shard, object_type.table)} (data) VALUES (%s)",
                  [_encode(data)])
        local_id = int(c.lastrowid)
    return compose(shard, object_type.type_id, local_id)


def create_many(object_type: ObjectType, shard: int, datas: Sequence[JSONObject]) -> list[int]:
    """Store new objects on ``shard`` with one multi-row ``INSERT``; their IDs, in order."""
    if not datas:
        return []
    alias = alias_for_shard(shard)
    with cursor(alias, shard) as c:
        c.execute(_insert(shard, object_type, ["(%s)"] * len(datas)),
                  [_encode(data) for data in datas])
        local_ids = sorted(int(row[0]) for row in c.fetchall())  # one statement: ascending
    return [compose(shard, object_type.type_id, local_id) for local_id in local_ids]


def create_on_host(object_type: ObjectType, datas: Mapping[int, Sequence[JSONObject]],
                   ) -> dict[int, list[int]]:
    """:func:`create_many` on every shard of ``datas`` (shard → objects): their IDs by shard.
    When the shards share a host whose transaction this thread has open (a bulk write's
    :func:`~sharding.hosts.atomic_on_host`), the inserts are sent back to back and their
    answers read together: the host waits once, not once a shard. Otherwise each shard's
    insert waits for its own answer."""
    shards = [shard for shard, rows in datas.items() if rows]
    aliases = {alias_for_shard(shard) for shard in shards}
    alias = aliases.pop() if len(aliases) == 1 else None
    if alias is None or not in_transaction(alias):
        return {shard: create_many(object_type, shard, rows) for shard, rows in datas.items()}
    local_ids: dict[int, list[int]] = {}
    for shard in shards:
        values = quoted(alias, [_encode(data) for data in datas[shard]])
        send_unanswered(alias, _insert(shard, object_type, [f"({value})" for value in values]),
                        check=partial(_keep_local_ids, local_ids, shard))
    read_answers(alias)
    return {shard: [compose(shard, object_type.type_id, local_id)
                    for local_id in local_ids.get(shard, [])] for shard in datas}


def _insert(shard: int, object_type: ObjectType, rows: list[str]) -> str:
    """The multi-row insert of new objects, answering their local IDs."""
    return (f"INSERT INTO {_table(shard, object_type.table)} (data) VALUES {','.join(rows)} "
            "RETURNING local_id")


def _keep_local_ids(found: dict[int, list[int]], shard: int, result: Any) -> None:
    found[shard] = sorted(int(row[0]) for row in result.fetch_row(maxrows=0))  # ascending


def get(object_id: int) -> JSONObject | None:
    """The object stored under ``object_id``, or ``None``."""
    return get_many([object_id]).get(object_id)


def get_existing(object_id: int) -> JSONObject:
    """Like :func:`get`, but raise :class:`ObjectNotFound` for a missing object."""
    data = get(object_id)
    if data is None:
        raise ObjectNotFound(f"no object {object_id}")
    return data


def get_many(ids: Iterable[int], cached: bool = True) -> dict[int, JSONObject]:
    """The stored objects among ``ids`` (missing ones are absent): cache first, then one query
    per host and table for the misses. ``cached=False`` reads the shards only."""
    wanted = list(dict.fromkeys(ids))
    found, misses = cache.get_objects(wanted) if cached else ({}, None)
    missing = [object_id for object_id in wanted if object_id not in found]
    fills: dict[int, JSONObject] = {}
    for (alias, table), parts in group_by_host_and_table(missing).items():
        loaded = _select(alias, table, parts)
        found.update(loaded)
        if not in_transaction(alias):
            fills.update(loaded)
    if misses is not None:
        cache.put_objects(misses, fills)
    return {object_id: found[object_id] for object_id in wanted if object_id in found}


ShardGroups = dict[tuple[int, int], list[int]]
"""``(shard, type_id) → local IDs`` of one host and table."""


def group_by_host_and_table(ids: list[int]) -> dict[tuple[str, str], ShardGroups]:
    groups: dict[tuple[str, str], ShardGroups] = defaultdict(lambda: defaultdict(list))
    aliases: dict[int, str] = {}
    for object_id in ids:
        parts = decompose(object_id)
        if parts.shard not in aliases:
            aliases[parts.shard] = alias_for_shard(parts.shard)
        table = types.by_id(parts.type_id).table
        groups[(aliases[parts.shard], table)][(parts.shard, parts.type_id)].append(parts.local_id)
    return groups


def union_sql(table: str, groups: ShardGroups) -> str:
    """One ``UNION ALL`` query over a host's shards returning ``(id, data)``; the server
    composes the IDs. Every number in it is an integer that :func:`decompose` produced."""
    return " UNION ALL ".join(
        f"SELECT {compose(shard, type_id, 1) - 1} + local_id, data FROM {_table(shard, table)} "
        f"WHERE local_id IN ({','.join(map(str, local_ids))})"
        for (shard, type_id), local_ids in groups.items()
    )


def _select(alias: str, table: str, groups: ShardGroups) -> dict[int, JSONObject]:
    with cursor(alias) as c:
        c.execute(union_sql(table, groups))
        rows = c.fetchall()
    return {int(object_id): _decode(data) for object_id, data in rows}


def update(object_id: int, data: JSONObject) -> None:
    """Replace the stored JSON of an object; raise :class:`ObjectNotFound` if it is gone."""
    parts = decompose(object_id)
    alias = alias_for_shard(parts.shard)
    table = _table(parts.shard, types.by_id(parts.type_id).table)
    with cursor(alias, parts.shard) as c:
        c.execute(f"UPDATE {table} SET data = %s WHERE local_id = %s",
                  [_encode(data), parts.local_id])
        matched = c.rowcount
    after_commit(alias, lambda: cache.forget_object(object_id))
    if not matched:
        raise ObjectNotFound(f"no object {object_id}")


def delete(object_id: int) -> bool:
    """Delete an object; True if it existed."""
    parts = decompose(object_id)
    alias = alias_for_shard(parts.shard)
    table = _table(parts.shard, types.by_id(parts.type_id).table)
    with cursor(alias, parts.shard) as c:
        c.execute(f"DELETE FROM {table} WHERE local_id = %s", [parts.local_id])
        deleted = c.rowcount > 0
    after_commit(alias, lambda: cache.forget_object(object_id))
    return deleted
