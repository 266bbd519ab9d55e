"""Sliced lists: one list spread over many shards, a slice on each member's own shard.

A hot list (the followers of a popular interest, millions of them) must not live whole on one
shard. A sliced list keeps its rows ``(from_id, to_id, sequence)`` in a mapping table on the
shard of each *member* (``to_id``), the slides' ``board_followedby_user_shard`` fix: a member's
row lives with the member's other rows, so adding it joins that member's own transaction, and
no host holds more than its members' share. Which shards hold a slice of a list is kept in a
small :class:`SliceMap` (a Django model in ``default``); reading walks those slices, one query
per host and chunk of shards, the hosts in parallel.

>>> FOLLOWER_SLICES = SliceMap(InterestSlice, "interest_id")
>>> FOLLOWER_SLICES.ensure(interest_id, shard_of(user))      # before the transaction
>>> with atomic(shard_of(user)):
...     add(INTEREST_FOLLOWED_BY_USER, interest_id, user, now_us)
>>> count(INTEREST_FOLLOWED_BY_USER, interest_id, FOLLOWER_SLICES.shards(interest_id))
2
>>> newest(INTEREST_HAS_PIN, interest_id, PIN_SLICES.shards(interest_id), limit=2)
[(pin_id, created_us), (older_pin_id, older_created_us)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.db import connections, models

from sharding.hosts import alias_for_shard, cursor, schema_name
from sharding.ids import expect_type
from sharding.mappings import MappingTable

SHARDS_PER_QUERY = 64
T = TypeVar("T")


class SliceMap:
    """Which shards hold slices of each list: rows ``(<list_field>, shard)`` of ``model``.

    A shard is named before its first row is written there (:meth:`ensure`, outside the
    row's transaction) and never removed: an empty slice costs one indexed look. Shards already
    named are remembered in the process, so a write usually costs no query here.
    """

    def __init__(self, model: type[models.Model], list_field: str) -> None:
        self.model = model
        self.list_field = list_field
        self._known: set[tuple[int, int]] = set()

    def ensure(self, list_id: int, shard: int) -> None:
        """Name ``shard`` in the map of ``list_id`` (idempotent)."""
        if (list_id, shard) in self._known:
            return
        fields: dict[str, Any] = {self.list_field: list_id, "shard": shard}
        self.model._default_manager.get_or_create(**fields)
        self._known.add((list_id, shard))

    def shards(self, list_id: int) -> list[int]:
        """The shards holding slices of ``list_id``, in order."""
        return sorted(self.model._default_manager.filter(**{self.list_field: list_id})
                      .values_list("shard", flat=True))


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


def newest(table: MappingTable, from_id: int, shards: Iterable[int], limit: int,
           before: int | None = None, before_id: int | None = None) -> list[tuple[int, int]]:
    """``(to_id, sequence)`` of the ``limit`` entries of ``from_id``'s list with the highest
    sequence over the slices on ``shards``, newest first (ties: highest ``to_id`` first).

    ``before`` pages on: only entries with a lower sequence, or, given ``before_id`` too, those
    after the entry ``(before_id, before)`` in this order. Each host answers one ``UNION ALL``
    of per-shard index scans (``by_sequence``) per group of shards, all hosts in parallel; the
    answers are merged here, keeping at most ``limit`` entries between rounds.
    """
    if limit < 1:
        return []
    start = None if before is None else (before, before_id)
    best: list[tuple[int, int]] = []
    for found in _rounds(_by_host(shards),
                         lambda alias, group: _newest(alias, table, from_id, group, limit,
                                                      start)):
        best = _top([*best, *(entry for part in found for entry in part)], limit)
    return best


def _top(entries: list[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    return sorted(entries, key=lambda entry: (entry[1], entry[0]), reverse=True)[:limit]


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


def _newest(alias: str, table: MappingTable, from_id: int, shards: Sequence[int], limit: int,
            start: tuple[int, int | None] | None) -> list[tuple[int, int]]:
    where, params = "from_id = %s", [from_id]
    if start is not None:
        sequence, to_id = start
        if to_id is None:
            where += " AND sequence < %s"
            params += [sequence]
        else:
            where += " AND (sequence < %s OR (sequence = %s AND to_id < %s))"
            params += [sequence, sequence, to_id]
    sql = " UNION ALL ".join(f"(SELECT to_id, sequence FROM {schema_name(s)}.{table.name} "
                             f"WHERE {where} ORDER BY sequence DESC, to_id DESC LIMIT %s)"
                             for s in shards)
    with cursor(alias) as c:
        c.execute(f"{sql} ORDER BY sequence DESC, to_id DESC LIMIT %s",
                  [*([*params, limit] * len(shards)), limit])
        return [(int(to_id), int(sequence)) for to_id, sequence in c.fetchall()]
