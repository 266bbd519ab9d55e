"""The pools: per-user, per-source priority queues on the pools cluster (``hbase3``).

Rows sort best first (:mod:`feed.smart.schema`), so taking the best ``n`` is one prefix scan.
Each user's pool per source keeps its best ``POOL_CAP`` entries: each pool's size is counted
in the user's meta row, and a pool that reached ``POOL_CAP + POOL_SLACK`` is trimmed (by the
worker, off the insert path). An insert writes the size it read plus its entries with the
entries themselves, in one batch: HBase runs an ``incrementRows`` as one increment a cell,
each a read and a write of its own, about ten times the cost of putting the cell. The
counters are therefore approximate (an entry put twice counts twice; inserts into one pool at
the same time may count one another short); a trim sets them right, and a counter that counts
short costs the generator a scan, never an entry. Removals subtract by increment. Affinities
and the generator's state live in the same meta row; affinity points are exact (increments).
Every driver error is :class:`~feed.exceptions.FeedUnavailable`.

>>> insert([Insert(alice, "interests", pin_id, quality=1.2, created_us=now)])
[]
>>> [c.pin_id for c in best(alice, "interests", 10)]
[pin_id]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from feed.schema import COUNT, decode_count
from feed.smart import schema
from feed.smart.conf import pool_cap, pool_slack, smart_settings, table
from feed.smart.schema import (
    ENTRY,
    ENTRY_VALUE,
    SOURCES,
    STATE,
    Affinity,
    Source,
    affinity_column,
    decode_pool_key,
    meta_row,
    pool_key,
    pool_prefix,
    size_column,
)
from feed.smart.scoring import Candidate, rank_key
from feed.store import rows
from feed.store.pools import POOLS

SCAN_BATCH = 1000
_SIZE_COLUMNS = [size_column(source) for source in SOURCES]
TOGETHER_SLACK = 32
""":func:`best_of_each` scans a pool together with the next one when the pool is counted at
most this many entries beyond the ones asked for: the scan reads it whole. An empty or small
pool then costs no scan of its own (three Thrift calls), and no pool is read far past what
a visit asks of it."""


@dataclass(frozen=True)
class Insert:
    """A pin to put into a user's pool for ``source``, with its quality."""

    user_id: int
    source: Source
    pin_id: int
    quality: float
    created_us: int

    def key(self) -> bytes:
        half_life = smart_settings.decimal("HALF_LIFE_HOURS")
        return pool_key(self.user_id, self.source,
                        rank_key(self.quality, self.created_us, half_life), self.pin_id)


def pools_table() -> str:
    return table("pools")


def insert(entries: Sequence[Insert],
           counted: Mapping[int, Mapping[Source, int]] | None = None,
           points: Mapping[int, Mapping[tuple[Affinity, int], int]] | None = None,
           ) -> list[tuple[int, Source]]:
    """Put entries into pools with their pools' new sizes (one batch): the sizes ``counted``
    before (:func:`counts`, read with the affinities the entries were scored by; those it
    lacks are read here, one more call) plus the entries. Then add ``points``
    (user → affinity → points) to the users' affinities (one ``incrementRows``, after the
    put: a message retried because the put failed counts nothing twice). Returns the
    ``(user, source)`` pools now due a trim."""
    added = Counter((entry.user_id, entry.source) for entry in entries)
    counted = dict(counted or {})
    unread = list(dict.fromkeys(user for user, source in added
                                if source not in counted.get(user, {})))
    if unread:
        counted.update((user, found.sizes) for user, found in
                       counts(unread, [], {source for _, source in added}).items())
    sizes = {(user, source): counted[user][source] + amount
             for (user, source), amount in added.items()}
    puts: dict[bytes, dict[bytes, bytes]] = {
        entry.key(): {ENTRY: ENTRY_VALUE.pack(entry.quality, entry.created_us)}
        for entry in entries}
    for (user, source), size in sizes.items():
        puts.setdefault(meta_row(user), {})[size_column(source)] = COUNT.pack(size)
    rows.write(POOLS, pools_table(), puts=puts)
    _count({}, points)
    limit = pool_cap() + pool_slack()
    return [pool for pool, size in sizes.items() if size >= limit]


def best(user_id: int, source: Source, limit: int) -> list[Candidate]:
    """The best ``limit`` entries of a user's pool for ``source``, best first (one scan)."""
    prefix = pool_prefix(user_id, source)
    found = rows.scan(POOLS, pools_table(), prefix, [ENTRY], limit=limit)
    return [_candidate(key, data.get(ENTRY, b"")) for key, data in found]


def best_of_each(user_id: int, limit: int, sizes: dict[Source, int],
                 ) -> dict[Source, list[Candidate]]:
    """:func:`best` of every source, the pools read in key order by as few scans as their
    counted ``sizes`` (:func:`read_meta`) allow: a pool counted at most ``limit +``
    :data:`TOGETHER_SLACK` entries shares its scan with the next pool. A counter that counts
    short cannot cut a pool: each scan stops at the counted entries of its pools but the last,
    plus ``limit``, and a pool it may have cut before ``limit`` entries is scanned again
    alone."""
    counted = {source: max(0, sizes.get(source, 0)) for source in SOURCES}
    groups = [[SOURCES[0]]]
    for source in SOURCES[1:]:
        if counted[groups[-1][-1]] <= limit + TOGETHER_SLACK:
            groups[-1].append(source)
        else:
            groups.append([source])
    found: dict[Source, list[Candidate]] = {}
    for group in groups:
        found.update(_best_of_group(user_id, group, limit, counted))
    return found


def _best_of_group(user_id: int, group: list[Source], limit: int, counted: dict[Source, int],
                   ) -> dict[Source, list[Candidate]]:
    """:func:`best` of consecutive sources by one scan (see :func:`best_of_each`)."""
    most = sum(counted[source] for source in group[:-1]) + limit
    found = rows.scan_range(POOLS, pools_table(), pool_prefix(user_id, group[0]),
                            rows.prefix_end(pool_prefix(user_id, group[-1])), [ENTRY],
                            limit=most)
    scanned: dict[Source, list[Candidate]] = {source: [] for source in group}
    for key, data in found:
        candidate = _candidate(key, data.get(ENTRY, b""))
        scanned[candidate.source].append(candidate)
    if found and len(found) == most:  # it may have stopped inside the last pool it reached
        reached = group.index(decode_pool_key(found[-1][0])[1])
        for source in group[reached:]:
            if len(scanned[source]) < limit:
                scanned[source] = best(user_id, source, limit)
    return {source: candidates[:limit] for source, candidates in scanned.items()}


def remove(keys: Iterable[bytes]) -> int:
    """Delete pool entries by key (dropped by the generator, purged); counts them out."""
    return _remove(keys, {})


def take(user_id: int, keys: Iterable[bytes], state: dict[str, Any]) -> int:
    """After a visit: delete the entries it took and write the user's new generator ``state``
    in one batch, then count the entries out; returns how many went."""
    return _remove(keys, {meta_row(user_id): {STATE: _state_value(state)}})


def _remove(keys: Iterable[bytes], puts: dict[bytes, dict[bytes, bytes]]) -> int:
    removed = list(dict.fromkeys(keys))
    rows.write(POOLS, pools_table(), puts=puts, deletes=dict.fromkeys(removed, (ENTRY,)))
    gone = Counter(decode_pool_key(row)[:2] for row in removed)
    _count({pool: -amount for pool, amount in gone.items()})
    return len(removed)


def trim(user_id: int, source: Source) -> int:
    """Keep the best ``POOL_CAP`` entries of one pool; returns how many went. The size counter
    is set to what the scan found (less what went)."""
    prefix = pool_prefix(user_id, source)
    keys = _keys(prefix)
    excess = keys[pool_cap():]
    _delete_entries(excess)
    counted = sizes(user_id).get(source, 0)
    kept = len(keys) - len(excess)
    if counted != kept:
        _count({(user_id, source): kept - counted})
    return len(excess)


def sizes(user_id: int) -> dict[Source, int]:
    """The counted size of each of a user's pools."""
    return _sizes_in(_meta(user_id, _SIZE_COLUMNS))


def clear(user_id: int) -> int:
    """Delete every pool entry of a user and zero the size counters (a rebuild's start)."""
    keys = _keys(pool_prefix(user_id))
    remove(keys)
    for source, size in sizes(user_id).items():
        if size:
            _count({(user_id, source): -size})
    return len(keys)


def forget(user_id: int) -> None:
    """Delete every row of a deleted user: pool entries (one batch), then the meta row
    (sizes, affinities, state)."""
    _delete_entries(_keys(pool_prefix(user_id)))
    rows.delete_row(POOLS, pools_table(), meta_row(user_id))


@dataclass(frozen=True)
class Counts:
    """What an insert reads of a user's meta row before it scores: the points of the
    affinity columns it asked for, and the counted sizes of the pools it asked for."""

    points: dict[bytes, int]
    sizes: dict[Source, int]

    def total(self, columns: Iterable[bytes]) -> int:
        """The points summed over ``columns``."""
        return sum(self.points.get(column, 0) for column in columns)


def counts(user_ids: Sequence[int], columns: Sequence[bytes],
           sources: Iterable[Source] = SOURCES) -> dict[int, Counts]:
    """Each user's points of the affinity ``columns`` and counted sizes of the pools of
    ``sources`` (one multi-row read; nothing for no users). A column that a row lacks costs
    the region server more than one it holds, so only the columns needed are asked for."""
    chosen = set(sources)
    wanted = [source for source in SOURCES if source in chosen]
    found = _meta_rows(user_ids, [*columns, *(size_column(source) for source in wanted)])
    return {user: Counts({column: decode_count(cells.get(column)) for column in columns},
                         {source: decode_count(cells.get(size_column(source)))
                          for source in wanted})
            for user, cells in found.items()}


def affinity_points(user_id: int, columns: Sequence[bytes]) -> dict[bytes, int]:
    """One user's points per affinity column (one row read)."""
    found = _meta(user_id, list(columns)) if columns else {}
    return {column: decode_count(value) for column, value in found.items()}


def add_affinity(user_id: int, points: dict[tuple[Affinity, int], int]) -> None:
    """Add points to a user's affinities (one ``incrementRows``)."""
    _count({}, {user_id: points})


def all_affinities(user_id: int) -> dict[str, int]:
    """Every affinity of a user, as ``"p:<id>"`` / ``"b:<id>"`` / ``"i:<id>"`` → points."""
    found = _meta(user_id, [b"a"])
    return {f"{column[2:3].decode()}:{schema.USER.unpack(column[3:])[0]}": decode_count(value)
            for column, value in found.items()}


def read_state(user_id: int) -> dict[str, Any]:
    """The generator's state of a user (``{}`` before the first delivered chunk)."""
    return _state_in(_meta(user_id, [STATE]))


@dataclass(frozen=True)
class Meta:
    """What a visit reads of a user's meta row: the generator's state and the pools' counted
    sizes."""

    state: dict[str, Any]
    sizes: dict[Source, int]


def read_meta(user_id: int) -> Meta:
    """The generator's state (``{}`` before the first delivered chunk) and the counted size
    of each pool, in one row read."""
    found = _meta(user_id, [STATE, *_SIZE_COLUMNS])
    return Meta(_state_in(found), _sizes_in(found))


def _state_in(meta: dict[bytes, bytes]) -> dict[str, Any]:
    raw = meta.get(STATE)
    return dict(json.loads(raw)) if raw else {}


def _sizes_in(meta: dict[bytes, bytes]) -> dict[Source, int]:
    return {source: decode_count(meta.get(size_column(source))) for source in SOURCES}


def pulled_mark(user_id: int) -> int | None:
    """The creation time of the newest celebrity pin pulled into the user's pools, if any."""
    raw = _meta(user_id, [schema.PULLED]).get(schema.PULLED)
    return int(raw) if raw else None


def set_pulled_mark(user_id: int, created_us: int) -> None:
    rows.write(POOLS, pools_table(),
               puts={meta_row(user_id): {schema.PULLED: str(created_us).encode()}})


def never_filled(user_id: int) -> bool:
    """Whether every pool of the user is empty and was never rebuilt (one read of the meta
    row): a pinner a rebuild has left empty, having nothing to pool, is not."""
    found = _meta(user_id, [schema.REBUILT, *_SIZE_COLUMNS])
    return schema.REBUILT not in found and not any(_sizes_in(found).values())


def mark_rebuilt(user_id: int, at_us: int) -> None:
    """Record that the user's pools were rebuilt at ``at_us``."""
    rows.write(POOLS, pools_table(),
               puts={meta_row(user_id): {schema.REBUILT: str(at_us).encode()}})


def write_state(user_id: int, state: dict[str, Any]) -> None:
    rows.write(POOLS, pools_table(), puts={meta_row(user_id): {STATE: _state_value(state)}})


def _state_value(state: dict[str, Any]) -> bytes:
    return json.dumps(state, separators=(",", ":")).encode()


def _candidate(key: bytes, value: bytes) -> Candidate:
    _, source, _, pin_id = decode_pool_key(key)
    quality, created_us = ENTRY_VALUE.unpack(value)
    return Candidate(source, pin_id, quality, created_us, key)


def _keys(prefix: bytes) -> list[bytes]:
    """Every row key under ``prefix``, in order."""
    return [key for key, _ in rows.scan(POOLS, pools_table(), prefix, [ENTRY],
                                        batch_size=SCAN_BATCH)]


def _delete_entries(keys: Sequence[bytes]) -> None:
    rows.write(POOLS, pools_table(), deletes=dict.fromkeys(keys, (ENTRY,)))


def _meta(user_id: int, columns: list[bytes]) -> dict[bytes, bytes]:
    return rows.read_row(POOLS, pools_table(), meta_row(user_id), columns)


def _count(sizes: Mapping[tuple[int, Source], int],
           points: Mapping[int, Mapping[tuple[Affinity, int], int]] | None = None) -> None:
    """Add to pool size counters and to affinities (one ``incrementRows``)."""
    amounts = {(meta_row(user), size_column(source)): amount
               for (user, source), amount in sizes.items()}
    for user, points_of in (points or {}).items():
        amounts.update({(meta_row(user), affinity_column(kind, object_id)): amount
                        for (kind, object_id), amount in points_of.items()})
    rows.increment(POOLS, pools_table(), amounts)


def _meta_rows(user_ids: Sequence[int], columns: list[bytes]) -> dict[int, dict[bytes, bytes]]:
    """Several users' meta row cells of ``columns`` (one multi-row read; none for no users)."""
    if not user_ids:
        return {}
    meta_rows = [meta_row(user) for user in user_ids]
    found = rows.read_rows(POOLS, pools_table(), meta_rows, columns)
    return {user: found.get(row, {}) for user, row in zip(user_ids, meta_rows, strict=True)}
