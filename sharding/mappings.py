"""Sharded mappings: noun_verb_noun tables of ``(from_id, to_id, sequence)`` on ``from_id``'s shard.

One direction per table (the reverse is its own table). ``sequence`` is a time in microseconds,
so newest-first pages are index scans on ``(from_id, sequence, to_id)``. Adding an edge twice
keeps the first one and its sequence.

>>> BOARD_HAS_PINS = register(MappingTable("board_has_pins", BOARD, PIN))
>>> add(BOARD_HAS_PINS, board_id, pin_id)
True
>>> page(BOARD_HAS_PINS, board_id, limit=50).ids
[pin_id]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.db import connections

from sharding import cache
from sharding.conf import sharding_settings
from sharding.exceptions import ShardingError
from sharding.hosts import (
    Answer,
    after_commit,
    alias_for_shard,
    cursor,
    in_transaction,
    schema_name,
    send_for_answer,
    send_unanswered,
)
from sharding.ids import SHARD_SHIFT, ObjectType, expect_type
from toolkit import paging
from toolkit.clock import now_us

MAX_PAGE = 1000


@dataclass(frozen=True)
class MappingTable:
    """A mapping ``<from>_<verb>_<to>`` from objects of one type to objects of another."""

    name: str
    from_type: ObjectType
    to_type: ObjectType
    cached: bool = True
    """Pages and counts through the list cache, dropped on every change. A table only ever
    read whole or by point lookups (the graph's edge log) sets it False and spares each write
    a cache round trip."""


class MappingRegistry:
    """The mapping tables known to this process (every shard has all of them)."""

    def __init__(self) -> None:
        self._tables: dict[str, MappingTable] = {}

    def register(self, table: MappingTable) -> MappingTable:
        known = self._tables.get(table.name)
        if known is not None and known != table:
            raise ValueError(f"mapping table {table} clashes with {known}")
        self._tables[table.name] = table
        return table

    def all(self) -> list[MappingTable]:
        return sorted(self._tables.values(), key=lambda t: t.name)

    def by_name(self, name: str) -> MappingTable:
        return self._tables[name]


registry = MappingRegistry()
register = registry.register


@dataclass(frozen=True)
class Entry:
    """One edge of a mapping list."""

    to_id: int
    sequence: int

    @property
    def id(self) -> int:
        return self.to_id


def encode_cursor(entry: Entry) -> str:
    return paging.encode_cursor(f"{entry.sequence}.{entry.to_id}".encode())


def decode_cursor(text: str) -> Entry:
    """Parse a cursor from :func:`encode_cursor`; bad input raises ``InvalidCursor``."""
    try:
        sequence, to_id = (int(part) for part in paging.decode_cursor(text).decode().split("."))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidCursor(f"{text!r} is not a valid cursor") from exc
    return Entry(to_id=to_id, sequence=sequence)


class InvalidCursor(ShardingError, ValueError):
    """A page cursor that this module did not produce."""


def _location(table: MappingTable, from_id: int) -> tuple[str, str, int]:
    """The host alias, the qualified table name and the shard of ``from_id``'s list."""
    shard = expect_type(from_id, table.from_type).shard
    return alias_for_shard(shard), f"{schema_name(shard)}.{table.name}", shard


def _forget_on_commit(alias: str, table: MappingTable, *from_ids: int) -> None:
    """Drop the cached list heads and counts of ``from_ids`` once the change commits: the
    lists a transaction changed are forgotten together (one cache call per table)."""
    if not table.cached:
        return
    connection = connections[alias]
    if not connection.in_atomic_block or connection.savepoint_ids:
        # now, or with this savepoint's callbacks (a rollback to it drops them)
        after_commit(alias, lambda: cache.forget_lists(table.name, from_ids))
        return
    block = connection.atomic_blocks[0]
    changed: dict[str, set[int]] | None = getattr(block, _CHANGED, None)
    if changed is None:
        changed = {}
        setattr(block, _CHANGED, changed)
        after_commit(alias, lambda: _forget_all(changed))
    changed.setdefault(table.name, set()).update(from_ids)


_CHANGED = "_pinsite_changed_lists"
"""The lists a transaction changed, by table: kept on its outermost atomic block, so a
rollback takes them with it."""


def _forget_all(changed: dict[str, set[int]]) -> None:
    for name, from_ids in changed.items():
        cache.forget_lists(name, from_ids)


def add(table: MappingTable, from_id: int, to_id: int, sequence: int | None = None) -> bool:
    """Add the edge ``from_id → to_id``; False if it was already there (kept unchanged)."""
    expect_type(to_id, table.to_type)
    alias, name, shard = _location(table, from_id)
    with cursor(alias, shard) as c:
        c.execute(f"INSERT IGNORE INTO {name} (from_id, to_id, sequence) VALUES (%s, %s, %s)",
                  [from_id, to_id, now_us() if sequence is None else sequence])
        added = c.rowcount > 0
    _forget_on_commit(alias, table, from_id)
    return added


def add_ahead(table: MappingTable, from_id: int, to_id: int, sequence: int) -> Answer:
    """:func:`add` inside this thread's transaction on the list's host, sent without waiting
    for its answer: the transaction's next statement reads it, and the answer's ``changed``
    is 1 if the edge was added, 0 if it was there."""
    expect_type(to_id, table.to_type)
    alias, name, _ = _location(table, from_id)
    answer = send_for_answer(alias, f"INSERT IGNORE INTO {name} (from_id, to_id, sequence) "
                                    "VALUES (%s, %s, %s)", [from_id, to_id, sequence])
    _forget_on_commit(alias, table, from_id)
    return answer


def add_many(table: MappingTable, edges: Sequence[tuple[int, int]] | Sequence[tuple[int, int, int]],
             batch: int = 5000) -> None:
    """Add many edges ``(from_id, to_id)`` at the current time, or ``(from_id, to_id,
    sequence)``, edges already there kept unchanged: one multi-row ``INSERT`` per shard and
    ``batch`` edges (bulk loading, and a bulk write's edges in its transaction, where each
    is sent without waiting for its answer: an error is raised by the next statement, or the
    commit)."""
    for shard, found in _by_shard(table, edges).items():
        alias, name, _ = _location(table, found[0][0])  # routed once per shard
        for start in range(0, len(found), batch):
            now = now_us()
            sql = (f"INSERT IGNORE INTO {name} (from_id, to_id, sequence) VALUES "
                   + ",".join(f"({int(edge[0])},{int(edge[1])},"
                              f"{int(edge[2] if len(edge) > 2 else now)})"
                              for edge in found[start:start + batch]))
            _write_shard(alias, shard, sql)
        _forget_on_commit(alias, table, *{edge[0] for edge in found})


def remove_many(table: MappingTable, edges: Sequence[tuple[int, int]]) -> None:
    """Remove many edges ``(from_id, to_id)``, those not there ignored: one ``DELETE`` per
    shard, sent as :func:`add_many` sends its inserts (unanswered inside a transaction)."""
    for shard, found in _by_shard(table, edges).items():
        alias, name, _ = _location(table, found[0][0])
        pairs = ",".join(f"({int(from_id)},{int(to_id)})" for from_id, to_id in found)
        _write_shard(alias, shard, f"DELETE FROM {name} WHERE (from_id, to_id) IN ({pairs})")
        _forget_on_commit(alias, table, *{from_id for from_id, _ in found})


def _by_shard(table: MappingTable, edges: Iterable[tuple[int, ...]],
              ) -> dict[int, list[tuple[int, ...]]]:
    """``edges`` (each ``(from_id, to_id, ...)``) by the shard of their list, their IDs
    checked against the table's types."""
    by_shard: dict[int, list[tuple[int, ...]]] = defaultdict(list)
    for edge in edges:
        expect_type(edge[1], table.to_type)
        by_shard[expect_type(edge[0], table.from_type).shard].append(edge)
    return by_shard


def _write_shard(alias: str, shard: int, sql: str) -> None:
    """Run a bulk write on ``shard``: inside a transaction without waiting for its answer (the
    next statement, or the commit, reads it and raises its error), else at once."""
    if in_transaction(alias):
        send_unanswered(alias, sql)
        return
    with cursor(alias, shard) as c:
        c.execute(sql)


def add_to_sequence(table: MappingTable, from_id: int, to_id: int, amount: int) -> bool:
    """Add ``amount`` to an edge's sequence, making the edge with ``amount`` if it is new: for
    weighted lists, whose sequence is a weight (pages then come heaviest first). True if the
    edge is new (MySQL counts an inserted row once, an updated one twice)."""
    expect_type(to_id, table.to_type)
    alias, name, shard = _location(table, from_id)
    with cursor(alias, shard) as c:
        c.execute(f"INSERT INTO {name} (from_id, to_id, sequence) VALUES (%s, %s, %s) "
                  "ON DUPLICATE KEY UPDATE sequence = sequence + VALUES(sequence)",
                  [from_id, to_id, amount])
        added = c.rowcount == 1
    _forget_on_commit(alias, table, from_id)
    return added


def keep_top(table: MappingTable, from_id: int, keep: int) -> int:
    """Delete every edge of ``from_id`` but the ``keep`` with the highest sequence (ties: the
    highest ``to_id``); returns how many went."""
    alias, name, shard = _location(table, from_id)
    with cursor(alias, shard) as c:
        c.execute(f"SELECT sequence, to_id FROM {name} WHERE from_id = %s "
                  "ORDER BY sequence DESC, to_id DESC LIMIT 1 OFFSET %s", [from_id, keep - 1])
        last = c.fetchone()
        if last is None:
            return 0
        c.execute(f"DELETE FROM {name} WHERE from_id = %s AND "
                  "(sequence < %s OR (sequence = %s AND to_id < %s))",
                  [from_id, last[0], last[0], last[1]])
        removed = int(c.rowcount)
    if removed:
        _forget_on_commit(alias, table, from_id)
    return removed


def remove(table: MappingTable, from_id: int, to_id: int) -> bool:
    """Remove the edge; False if it was not there."""
    alias, name, shard = _location(table, from_id)
    with cursor(alias, shard) as c:
        c.execute(f"DELETE FROM {name} WHERE from_id = %s AND to_id = %s", [from_id, to_id])
        removed = c.rowcount > 0
    _forget_on_commit(alias, table, from_id)
    return removed


def clear(table: MappingTable, from_id: int) -> int:
    """Remove every edge of ``from_id``'s list; returns how many there were."""
    alias, name, shard = _location(table, from_id)
    with cursor(alias, shard) as c:
        c.execute(f"DELETE FROM {name} WHERE from_id = %s", [from_id])
        removed = int(c.rowcount)
    _forget_on_commit(alias, table, from_id)
    return removed


def contains(table: MappingTable, from_id: int, to_id: int) -> bool:
    alias, name, _ = _location(table, from_id)
    with cursor(alias) as c:
        c.execute(f"SELECT 1 FROM {name} WHERE from_id = %s AND to_id = %s", [from_id, to_id])
        return c.fetchone() is not None


def sequence_of(table: MappingTable, from_id: int, to_id: int) -> int | None:
    """The sequence (time) of an edge, or ``None`` when absent."""
    alias, name, _ = _location(table, from_id)
    with cursor(alias) as c:
        c.execute(f"SELECT sequence FROM {name} WHERE from_id = %s AND to_id = %s",
                  [from_id, to_id])
        row = c.fetchone()
    return None if row is None else int(row[0])


def page(table: MappingTable, from_id: int, limit: int = 50, after: str | None = None,
         ) -> paging.Page[Entry]:
    """Newest-first entries of ``from_id``'s list, ``limit`` at a time, after cursor ``after``.

    The first page of a list comes from the list cache when it holds enough entries.
    """
    _check_limit(limit)
    start = None if after is None else decode_cursor(after)
    if start is None and _cacheable(table, limit):
        entries = _heads(table, [from_id], _head_size(), None, True)[from_id]
    else:
        entries = _select_page(table, from_id, limit + 1, start)
    more = len(entries) > limit
    entries = entries[:limit]
    return paging.Page(entries, encode_cursor(entries[-1]) if more and entries else None)


def _check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidCursor(f"page size must be 1..{MAX_PAGE}, got {limit}")


def _head_size() -> int:
    return sharding_settings.number("LIST_CACHE_SIZE")


def _cacheable(table: MappingTable, limit: int) -> bool:
    """Whether a first page of ``limit`` entries comes from the list cache."""
    return table.cached and limit < _head_size()


def _select_page(table: MappingTable, from_id: int, limit: int, start: Entry | None) -> list[Entry]:
    alias, name, _ = _location(table, from_id)
    sql = f"SELECT to_id, sequence FROM {name} WHERE from_id = %s"
    params: list[int] = [from_id]
    if start is not None:
        sql += " AND (sequence < %s OR (sequence = %s AND to_id < %s))"
        params += [start.sequence, start.sequence, start.to_id]
    sql += " ORDER BY sequence DESC, to_id DESC LIMIT %s"
    with cursor(alias) as c:
        c.execute(sql, [*params, limit])
        return [Entry(int(to_id), int(sequence)) for to_id, sequence in c.fetchall()]


def heads(table: MappingTable, from_ids: Iterable[int], limit: int,
          at_or_before: int | None = None) -> dict[int, list[Entry]]:
    """The newest ``limit`` entries of each of several lists (newest first), only those with
    ``sequence <= at_or_before`` when given: the list cache first for first pages, then one
    query per host for the rest, whatever the number of lists."""
    _check_limit(limit)
    if at_or_before is None and _cacheable(table, limit):
        return {from_id: entries[:limit]
                for from_id, entries in _heads(table, from_ids, _head_size(), None, True).items()}
    return _heads(table, from_ids, limit, at_or_before, False)


def _heads(table: MappingTable, from_ids: Iterable[int], size: int, at_or_before: int | None,
           cached: bool) -> dict[int, list[Entry]]:
    """The newest ``size`` entries of each list; with ``cached``, ``size`` is the cached head
    size, the list cache is read first and the misses fill it (unless read in a
    transaction)."""
    wanted = list(dict.fromkeys(from_ids))
    found: dict[int, list[Entry]] = {}
    misses = None
    if cached:
        heads_found, misses = cache.get_list_heads(table.name, wanted)
        for from_id, head in heads_found.items():
            found[from_id] = [Entry(to_id, sequence) for to_id, sequence in head]
    missing = [from_id for from_id in wanted if from_id not in found]
    fills: dict[int, cache.ListHead] = {}
    for alias, lists in by_host(table, missing).items():
        sql, params = heads_sql(lists, size, at_or_before)
        selected: dict[int, list[Entry]] = {}
        with cursor(alias) as c:
            c.execute(sql, params)
            for from_id, to_id, sequence in c.fetchall():
                selected.setdefault(int(from_id), []).append(Entry(int(to_id), int(sequence)))
        fill = misses is not None and not in_transaction(alias)
        for from_id, _ in lists:
            entries = sorted(selected.get(from_id, []),
                             key=lambda entry: (-entry.sequence, -entry.to_id))
            if fill:
                fills[from_id] = [(entry.to_id, entry.sequence) for entry in entries]
            found[from_id] = entries
    if misses is not None:
        cache.put_list_heads(misses, table.name, fills)
    return found


def by_host(table: MappingTable, from_ids: Iterable[int]) -> dict[str, list[tuple[int, str]]]:
    """``from_ids`` grouped by the host alias of their lists, with each list's table."""
    grouped: dict[str, list[tuple[int, str]]] = {}
    for from_id in from_ids:
        alias, name, _ = _location(table, from_id)
        grouped.setdefault(alias, []).append((from_id, name))
    return grouped


def heads_sql(lists: list[tuple[int, str]], limit: int, at_or_before: int | None,
              ) -> tuple[str, list[int]]:
    """One ``UNION ALL`` of per-list index scans (lists on one host, from :func:`by_host`):
    rows of ``from_id, to_id, sequence``."""
    bound = "" if at_or_before is None else " AND sequence <= %s"
    parts, params = [], []
    for from_id, name in lists:
        parts.append(f"(SELECT from_id, to_id, sequence FROM {name} WHERE from_id = %s{bound} "
                     "ORDER BY sequence DESC, to_id DESC LIMIT %s)")
        params += [from_id, *([] if at_or_before is None else [at_or_before]), limit]
    return " UNION ALL ".join(parts), params


def held(from_id: int, wanted: Sequence[tuple[MappingTable, Iterable[int]]],
         ) -> list[set[int]]:
    """For each ``(table, to_ids)`` of ``wanted``, which of ``to_ids`` ``from_id``'s list in
    ``table`` holds: one query on ``from_id``'s shard for all of them."""
    return [set(found) for found in
            find_edges([Edges(table, from_id, to_ids=tuple(to_ids)) for table, to_ids in wanted])]


@dataclass(frozen=True)
class Edges:
    """Edges of one list to look for (:func:`find_edges`): those pointing at ``to_ids``, or
    with ``low <= to_id <= high`` when ``between`` is given (a range scan on the primary key)."""

    table: MappingTable
    from_id: int
    to_ids: tuple[int, ...] = ()
    between: tuple[int, int] | None = None


def find_edges(wanted: Sequence[Edges]) -> list[dict[int, int]]:
    """For each of ``wanted``, ``to_id → sequence`` of the edges found: one query per host for
    all of them (the lists of many users on one host, say, in a bulk write's transaction)."""
    found: list[dict[int, int]] = [{} for _ in wanted]
    by_alias: dict[str, tuple[list[str], list[int]]] = {}
    for tag, edges in enumerate(wanted):
        if edges.between is None and not edges.to_ids:
            continue
        alias, name, _ = _location(edges.table, edges.from_id)
        parts, params = by_alias.setdefault(alias, ([], []))
        if edges.between is None:
            targets = sorted(set(edges.to_ids))
            condition = f"to_id IN ({','.join(['%s'] * len(targets))})"
        else:
            targets = list(edges.between)
            condition = "to_id BETWEEN %s AND %s"
        parts.append(f"SELECT {tag}, to_id, sequence FROM {name} "
                     f"WHERE from_id = %s AND {condition}")
        params += [edges.from_id, *targets]
    for alias, (parts, params) in by_alias.items():
        with cursor(alias) as c:
            c.execute(" UNION ALL ".join(parts), params)
            for tag, to_id, sequence in c.fetchall():
                found[int(tag)][int(to_id)] = int(sequence)
    return found


def scan(table: MappingTable, shard: int, *, to_ids: Sequence[int] = (),
         to_shards: Sequence[int] = (), chunk: int = 5000) -> Iterator[tuple[int, int, int]]:
    """Every edge ``(from_id, to_id, sequence)`` of ``table`` on ``shard``, in primary-key
    order, ``chunk`` per query; only those pointing at ``to_ids`` or at objects on
    ``to_shards`` when given. A whole-table read, for operator work (verify, rebuild)."""
    name, alias = f"{schema_name(shard)}.{table.name}", alias_for_shard(shard)
    conditions, params = [], []
    for expression, values in (("to_id", to_ids), (f"(to_id >> {SHARD_SHIFT})", to_shards)):
        if values:
            conditions.append(f" AND {expression} IN ({','.join(['%s'] * len(values))})")
            params += [int(value) for value in values]
    last: tuple[int, int] = (-1, -1)
    while True:
        with cursor(alias) as c:
            c.execute(f"SELECT from_id, to_id, sequence FROM {name} "
                      f"WHERE (from_id, to_id) > (%s, %s){''.join(conditions)} "
                      "ORDER BY from_id, to_id LIMIT %s", [*last, *params, chunk])
            rows = [(int(a), int(b), int(s)) for a, b, s in c.fetchall()]
        yield from rows
        if len(rows) < chunk:
            return
        last = rows[-1][:2]


def iterate(table: MappingTable, from_id: int, chunk: int = MAX_PAGE) -> Iterator[Entry]:
    """Every entry of a list, newest first, read in chunks (for deletes, rebuilds, fanout)."""
    start: Entry | None = None
    while True:
        entries = _select_page(table, from_id, chunk, start)
        yield from entries
        if len(entries) < chunk:
            return
        start = entries[-1]


def count(table: MappingTable, from_id: int) -> int:
    """The exact length of ``from_id``'s list (cached until the list changes)."""
    return counts(table, [from_id])[from_id]


def counts(table: MappingTable, from_ids: Iterable[int]) -> dict[int, int]:
    """The exact length of each of several lists (cached until the list changes): one cache
    read, then one query per host for the lists it did not hold."""
    wanted = list(dict.fromkeys(from_ids))
    found, misses = cache.get_counts(table.name, wanted) if table.cached else ({}, None)
    for alias, lists in by_host(table, [f for f in wanted if f not in found]).items():
        sql = " UNION ALL ".join(f"(SELECT %s, COUNT(*) FROM {name} WHERE from_id = %s)"
                                 for _, name in lists)
        with cursor(alias) as c:
            c.execute(sql, [value for from_id, _ in lists for value in (from_id, from_id)])
            selected = {int(from_id): int(total) for from_id, total in c.fetchall()}
        found.update(selected)
        if misses is not None and not in_transaction(alias):
            cache.put_counts(misses, table.name, selected)
    return found

