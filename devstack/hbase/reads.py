"""Point reads: rows, cell versions and the row at or before a key."""

from __future__ import annotations

from devstack.hbase.columns import selection_for, split_column
from devstack.hbase.errors import NoSuchColumnFamilyError
from devstack.hbase.records import LATEST_TIMESTAMP
from devstack.hbase.row import Cell, ColumnCells, RowResult
from devstack.hbase.store import Store


def read_before(timestamp: int | None) -> int | None:
    """The exclusive upper time bound of a ``...Ts`` read (HBase: ``setTimeRange(0, ts)``)."""
    return None if timestamp is None or timestamp == LATEST_TIMESTAMP else timestamp


def get_rows(store: Store, name: bytes, keys: list[bytes], columns: list[bytes] | None,
             timestamp: int | None = None) -> list[RowResult]:
    """The newest cell of each chosen column of each row, in request order; rows without any
    matching cell are left out."""
    before = read_before(timestamp)
    with store.lock:
        table = store.enabled_table(name)
        selection = selection_for(name, table.families, columns)
        results = []
        for key in keys:
            row = table.rows.get(key)
            found = row.read(selection, before, 1) if row is not None else []
            if found:
                results.append((key, found))
        return results


def get_versions(store: Store, name: bytes, key: bytes, column: bytes, versions: int,
                 timestamp: int | None = None) -> list[Cell]:
    """Up to ``versions`` cells of one column (or of each column of a family), newest first."""
    before = read_before(timestamp)
    with store.lock:
        table = store.enabled_table(name)
        selection = selection_for(name, table.families, [column])
        row = table.rows.get(key)
        found = row.read(selection, before, max(versions, 1)) if row is not None else []
        return [cell for _, cells in found for cell in cells]


def row_or_before(store: Store, name: bytes, key: bytes, family: bytes) -> list[ColumnCells]:
    """The newest cells of ``family`` in the last row whose key is at or before ``key``."""
    family = split_column(family)[0]
    with store.lock:
        table = store.enabled_table(name)
        if family not in table.families:
            raise NoSuchColumnFamilyError(name, family)
        selection = selection_for(name, table.families, [family])
        keys = table.rows.sorted_keys()
        for index in range(keys.bisect_right(key) - 1, -1, -1):
            row = table.rows.get(keys[index])
            found = row.read(selection, None, 1) if row is not None else []
            if found:
                return found
        return []

