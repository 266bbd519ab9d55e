"""The in-memory store: every table under one lock, changed only through logged records.

Usage::

    store = Store(log)                  # log: a WriteAheadLog, or None (tests, replay)
    with store.lock:
        store.commit((CREATE, b"t", now_ms(), [(b"cf", 3, {})]))
        table = store.enabled_table(b"t")

One lock serialises every read and write, so each Thrift call, including a whole
``mutateRows`` batch, is atomic (HBase itself guarantees atomicity per row only).
"""

from __future__ import annotations

import threading

from devstack.hbase.errors import StorageError, TableNotFoundError, TableStateError
from devstack.hbase.records import (
    COMPACT,
    CREATE,
    DELETE_COLUMN,
    DELETE_FAMILY,
    DROP,
    ENABLE,
    MUTATE,
    PUT,
    Record,
    RowOps,
)
from devstack.hbase.table import Family, Table
from devstack.hbase.wal import WriteAheadLog


class Store:
    """Tables by name; :meth:`commit` logs a record, then applies it.

    Without a log the store lives in memory only; once :attr:`closed`, it refuses writes.
    """

    def __init__(self, log: WriteAheadLog | None = None) -> None:
        self.tables: dict[bytes, Table] = {}
        self.lock = threading.Lock()
        self.log = log
        self.closed = False

    def table(self, name: bytes) -> Table:
        """The table ``name`` (enabled or not)."""
        table = self.tables.get(name)
        if table is None:
            raise TableNotFoundError(name)
        return table

    def enabled_table(self, name: bytes) -> Table:
        """The table ``name``, which must be enabled for data access."""
        table = self.table(name)
        if not table.enabled:
            raise TableStateError(f"TableNotEnabledException: {name.decode(errors='replace')} "
                                  "is disabled")
        return table

    def commit(self, record: Record) -> None:
        """Make ``record`` durable in the log, then apply it (the caller holds the lock)."""
        if self.closed:
            raise StorageError("the server is shutting down")
        if self.log is not None:
            self.log.append(record)
        self.apply(record)

    def apply(self, record: Record) -> None:
        """Apply one record to the tables (no logging: also used by replay)."""
        kind, name = record[0], record[1]
        if kind == MUTATE:
            _apply_mutations(self.tables[name], record[2])
        elif kind == CREATE:
            families = [Family(*family) for family in record[3]]
            self.tables[name] = Table(name, families, record[2])
        elif kind == DROP:
            del self.tables[name]
        elif kind == ENABLE:
            self.tables[name].enabled = record[2]
        elif kind == COMPACT:
            self.tables[name].compact()
        else:
            raise ValueError(f"unknown record kind {kind!r}")


def _apply_mutations(table: Table, rows: list[RowOps]) -> None:
    families = table.families
    for key, ops in rows:
        row = table.row_for_write(key)
        for kind, family, qualifier, timestamp, value in ops:
            if kind == PUT:
                row.put(family, qualifier, timestamp, value, families[family].max_versions)
            elif kind == DELETE_COLUMN:
                row.delete_column(family, qualifier, timestamp)
            elif kind == DELETE_FAMILY:
                row.delete_family(family, timestamp)
