"""Sliced lists: one list spread over many shards, a slice on each member's own shard.

A hot list (the followers of a popular interest, millions of them) must not live whole on one
shard. A sliced list keeps its rows ``(from_id, to_id, sequence)`` in a mapping table on the
shard of each *member* (``to_id``), the slides' ``board_followedby_user_shard`` fix: a member's
row lives with the member's other rows, so adding it joins that member's own transaction, and
no host holds more than its members' share. Which shards hold a slice of a list is kept by the
caller (a small map); reading walks those slices, one query per host and chunk of shards, the
hosts in parallel.

>>> with atomic(shard_of(user)):
...     add(INTEREST_FOLLOWED_BY_USER, interest_id, user, now_us)
>>> count(INTEREST_FOLLOWED_BY_USER, interest_id, shards=[12, 40, 311])
2
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.db import connections

from sharding.hosts import alias_for_shard, cursor, schema_name
from sharding.ids import expect_type
from sharding.mappings import MappingTable

SHARDS_PER_QUERY = 64
T = TypeVar("T")


def _location(table: MappingTable, to_id: int) -> tuple[str, str]:
    shard = expect_type(to_id, table.to_type).shard
    return alias_for_shard(shard), f"{schema_name(shard)}.{table.name}"


def add(table: MappingTable, from_id: int, to_id: int, sequence: int) -> bool:
    """Add ``to_id`` to ``from_id``'s list, in ``to_id``'s slice; False if it was there."""
    expect_type(from_id, table.from_type)
    alias, name = _location(table, to_id)
    with cursor(alias) as c:
        c.execute(f"INSERT IGNORE INTO {name} (from_id, to_id, sequence) VALUES (%s, %s, %s)",
                  [from_id, to_id, sequence])
        return bool(c.rowcount > 0)


def remove(table: MappingTable, from_id: int, to_id: int) -> bool:
    """Take ``to_id`` out of ``from_id``'s list; False if it was not there."""
    alias, name = _location(table, to_id)
    with cursor(alias) as c:
        c.execute(f"DELETE FROM {name} WHERE from_id = %s AND to_id = %s", [from_id, to_id])
        return bool(c.rowcount > 0)


def contains(table: MappingTable, from_id: int, to_id: int) -> bool:
    alias, name = _location(table, to_id)
    with cursor(alias) as c:
        c.execute(f"SELECT 1 FROM {name} WHERE from_id = %s AND to_id = %s", [from_id, to_id])
        return c.fetchone() is not None


def count(table: MappingTable, from_id: int, shards: Iterable[int]) -> int:
    """How many members ``from_id``'s list has in the slices on ``shards``."""
    return sum(sum(found) for found in _rounds(
        _by_host(shards), lambda alias, group: _count(alias, table, from_id, group)))


def members(table: MappingTable, from_id: int, shards: Iterable[int],
            chunk: int = 1000) -> Iterator[list[int]]:
    """Every member of ``from_id``'s list in the slices on ``shards``, ``chunk`` IDs at a time
    (in no particular order). Each host is read a group of shards at a time, all hosts in
    parallel, so memory holds one group's members per host."""
    buffer: list[int] = []
    for found in _rounds(_by_host(shards),
                         lambda alias, group: _members(alias, table, from_id, group)):
        buffer.extend(member for part in found for member in part)
        while len(buffer) >= chunk:
            yield buffer[:chunk]
            buffer = buffer[chunk:]
    if buffer:
        yield buffer


def _by_host(shards: Iterable[int]) -> dict[str, list[list[int]]]:
    """``alias → groups of at most SHARDS_PER_QUERY shards`` it serves."""
    hosts: dict[str, list[int]] = defaultdict(list)
    for shard in sorted(set(shards)):
        hosts[alias_for_shard(shard)].append(shard)
    return {alias: [found[i:i + SHARDS_PER_QUERY] for i in range(0, len(found), SHARDS_PER_QUERY)]
            for alias, found in hosts.items()}


def _rounds(per_host: dict[str, list[list[int]]],
            read: Callable[[str, list[int]], T]) -> Iterator[list[T]]:
    """``read(alias, group)`` for the i-th group of every host in parallel, round after round."""
    rounds = max((len(groups) for groups in per_host.values()), default=0)
    with ThreadPoolExecutor(max_workers=max(1, len(per_host))) as pool:
        for index in range(rounds):
            jobs = [(alias, groups[index]) for alias, groups in per_host.items()
                    if index < len(groups)]
            yield list(pool.map(lambda job: _closing(read, *job), jobs))


def _closing(read: Callable[[str, list[int]], T], alias: str, group: list[int]) -> T:
    """Run a read on a pool thread and close that thread's connection after it."""
    try:
        return read(alias, group)
    finally:
        connections[alias].close()


def _count(alias: str, table: MappingTable, from_id: int, shards: Sequence[int]) -> int:
    sql = " UNION ALL ".join(f"SELECT COUNT(*) FROM {schema_name(s)}.{table.name} "
                             "WHERE from_id = %s" for s in shards)
    with cursor(alias) as c:
        c.execute(sql, [from_id] * len(shards))
        return sum(int(row[0]) for row in c.fetchall())


def _members(alias: str, table: MappingTable, from_id: int, shards: Sequence[int]) -> list[int]:
    sql = " UNION ALL ".join(f"SELECT to_id FROM {schema_name(s)}.{table.name} "
                             "WHERE from_id = %s" for s in shards)
    with cursor(alias) as c:
        c.execute(sql, [from_id] * len(shards))
        return [int(row[0]) for row in c.fetchall()]
