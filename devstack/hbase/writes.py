"""Writes: Thrift mutations turned into logged records with resolved timestamps.

Follows HBase's Thrift1 server: a delete mutation of ``cf:q`` deletes every version of that
column at or below the timestamp (``deleteColumns``), of ``cf`` the whole family
(``deleteFamily``); a call without a timestamp uses the server's current time in milliseconds,
resolved once per call. A put needs ``family:qualifier``.
"""

from __future__ import annotations

import struct
from typing import Protocol

from devstack.hbase.columns import split_column
from devstack.hbase.errors import HBaseError, IllegalArgumentError, NoSuchColumnFamilyError
from devstack.hbase.records import (
    DELETE_COLUMN,
    DELETE_FAMILY,
    LATEST_TIMESTAMP,
    MUTATE,
    PUT,
    Op,
    RowOps,
    now_ms,
)
from devstack.hbase.row import Cell
from devstack.hbase.store import Store
from devstack.hbase.table import Table

COUNTER = struct.Struct(">q")
MAX_ROW_LENGTH = 32767


class MutationLike(Protocol):
    """The fields of the IDL's ``Mutation`` struct."""

    isDelete: bool
    column: bytes | None
    value: bytes | None


def resolve_timestamp(timestamp: int | None) -> int:
    """The cell timestamp of a write: the given one, or now for None / ``LATEST_TIMESTAMP``."""
    if timestamp is None or timestamp == LATEST_TIMESTAMP:
        return now_ms()
    if timestamp < 0:
        raise IllegalArgumentError(f"Timestamp cannot be negative: {timestamp}")
    return timestamp


def mutate_rows(store: Store, name: bytes, batches: list[tuple[bytes, list[MutationLike]]],
                timestamp: int | None = None) -> None:
    """Apply every row's mutations in one logged, atomic step."""
    with store.lock:
        table = store.enabled_table(name)
        resolved = resolve_timestamp(timestamp)
        rows: list[RowOps] = [(_checked_row(key), [_op(table, item, resolved) for item in items])
                              for key, items in batches if items]
        if rows:
            store.commit((MUTATE, name, rows))


def delete_all(store: Store, name: bytes, key: bytes, column: bytes | None,
               timestamp: int | None = None) -> None:
    """Delete one column (``cf:q``), one family (``cf``) or, for None, the whole row."""
    with store.lock:
        table = store.enabled_table(name)
        resolved = resolve_timestamp(timestamp)
        if column is None:
            ops: list[Op] = [(DELETE_FAMILY, family, b"", resolved, b"")
                             for family in table.families]
        else:
            ops = [_delete_op(table, column, resolved)]
        store.commit((MUTATE, name, [(_checked_row(key), ops)]))


def increment(store: Store, name: bytes, key: bytes, column: bytes, amount: int) -> int:
    """Add ``amount`` to a 64-bit big-endian counter (missing: 0) and return the new value."""
    with store.lock:
        table = store.enabled_table(name)
        family, qualifier = _family_column(table, column)
        latest = _latest(table, key, family, qualifier)
        value = _wrap_int64(_counter(latest) + amount)
        _put_one(store, name, key, family, qualifier, COUNTER.pack(value), latest)
        return value


Increment = tuple[bytes, bytes, bytes, int]
"""``(table, row, column, amount)`` of one counter increment."""


def increment_rows(store: Store, increments: list[Increment]) -> None:
    """Apply many counter increments atomically, with one log record per table (a batch of
    1,000 rows costs one fsync, not 1,000). Increments of one cell add up."""
    with store.lock:
        counters: dict[bytes, dict[tuple[bytes, bytes, bytes], Cell]] = {}
        now = now_ms()
        for name, key, column, amount in increments:
            table = store.enabled_table(name)
            family, qualifier = _family_column(table, column)
            cells = counters.setdefault(name, {})
            where = (_checked_row(key), family, qualifier)
            if where not in cells:
                latest = _latest(table, key, family, qualifier)
                cells[where] = (max(now, latest[0]) if latest else now,
                                COUNTER.pack(_counter(latest)))
            timestamp, packed = cells[where]
            cells[where] = (timestamp, COUNTER.pack(_wrap_int64(_counter((0, packed)) + amount)))
        for name, cells in counters.items():
            rows: dict[bytes, list[Op]] = {}
            for (key, family, qualifier), (timestamp, packed) in cells.items():
                rows.setdefault(key, []).append((PUT, family, qualifier, timestamp, packed))
            store.commit((MUTATE, name, list(rows.items())))


def _counter(latest: Cell | None) -> int:
    """The value of a counter cell (0 when absent); other widths are an error, as in HBase."""
    if latest is None:
        return 0
    if len(latest[1]) != COUNTER.size:
        raise HBaseError("Attempted to increment field that isn't 64 bits wide")
    return int(COUNTER.unpack(latest[1])[0])


def append(store: Store, name: bytes, key: bytes, columns: list[bytes],
           values: list[bytes]) -> list[tuple[bytes, Cell]]:
    """Append each value to its column's newest value; returns the new cells."""
    if len(columns) != len(values):
        raise IllegalArgumentError("append needs as many values as columns")
    with store.lock:
        table = store.enabled_table(name)
        written = []
        for column, suffix in zip(columns, values, strict=True):
            family, qualifier = _family_column(table, column)
            latest = _latest(table, key, family, qualifier)
            value = (latest[1] if latest is not None else b"") + suffix
            written.append((column, _put_one(store, name, key, family, qualifier, value, latest)))
        return written


def check_and_put(store: Store, name: bytes, key: bytes, column: bytes, expected: bytes | None,
                  mutation: MutationLike) -> bool:
    """Apply the put ``mutation`` if the newest value of ``column`` equals ``expected``
    (None or empty: if the column has no value); True if it was applied."""
    with store.lock:
        table = store.enabled_table(name)
        family, qualifier = _family_column(table, column)
        latest = _latest(table, key, family, qualifier)
        if (latest[1] if latest is not None else b"") != (expected or b""):
            return False
        op = _op(table, mutation, now_ms())
        store.commit((MUTATE, name, [(_checked_row(key), [op])]))
        return True


def _op(table: Table, mutation: MutationLike, timestamp: int) -> Op:
    if mutation.column is None:
        raise IllegalArgumentError("a mutation needs a column")
    if mutation.isDelete:
        return _delete_op(table, mutation.column, timestamp)
    family, qualifier = split_column(mutation.column)
    _check_family(table, family)
    if qualifier is None:
        raise IllegalArgumentError(f"Invalid famAndQf provided: a put needs family:qualifier, "
                                   f"got {mutation.column!r}")
    return PUT, family, qualifier, timestamp, mutation.value or b""


def _delete_op(table: Table, column: bytes, timestamp: int) -> Op:
    family, qualifier = split_column(column)
    _check_family(table, family)
    if qualifier is None:
        return DELETE_FAMILY, family, b"", timestamp, b""
    return DELETE_COLUMN, family, qualifier, timestamp, b""


def _family_column(table: Table, column: bytes) -> tuple[bytes, bytes]:
    family, qualifier = split_column(column)
    _check_family(table, family)
    return family, qualifier or b""


def _check_family(table: Table, family: bytes) -> None:
    if family not in table.families:
        raise NoSuchColumnFamilyError(table.name, family)


def _checked_row(key: bytes | None) -> bytes:
    if not key:
        raise IllegalArgumentError("Row length is 0")
    if len(key) > MAX_ROW_LENGTH:
        raise IllegalArgumentError(f"Row length {len(key)} is > {MAX_ROW_LENGTH}")
    return key


def _latest(table: Table, key: bytes, family: bytes, qualifier: bytes) -> Cell | None:
    row = table.rows.get(key)
    return row.latest(family, qualifier) if row is not None else None


def _put_one(store: Store, name: bytes, key: bytes, family: bytes, qualifier: bytes,
             value: bytes, latest: Cell | None) -> Cell:
    """Write one cell at now (or at the newest cell's time if that is later, as HBase does)."""
    timestamp = max(now_ms(), latest[0]) if latest is not None else now_ms()
    store.commit((MUTATE, name, [(_checked_row(key), [(PUT, family, qualifier, timestamp,
                                                        value)])]))
    return timestamp, value


def _wrap_int64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63
