"""Scanners: a cursor over a table's rows in byte order (or reverse), opened, paged, closed.

A scanner remembers the last row it returned and, on every ``scannerGetList``, finds its place
again by bisection in the table's sorted keys, so it sees writes made between calls (HBase
scanners give no snapshot across rows either). ``batch`` (``TScan.batchSize``, happybase's
``scan_batching``) cuts a wide row into parts of at most that many columns.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, replace

from sortedcontainers import SortedList

from devstack.hbase.columns import Selection, selection_for
from devstack.hbase.errors import ScannerNotFoundError
from devstack.hbase.filters import RowFilter, parse_filter
from devstack.hbase.reads import read_before
from devstack.hbase.row import RowResult
from devstack.hbase.store import Store
from devstack.hbase.table import Table

IDLE_TIMEOUT = 600.0


@dataclass(frozen=True)
class ScanSpec:
    """What to scan: ``start`` inclusive, ``stop`` exclusive (empty: open), newest version only.

    As in HBase, a scan whose start and stop rows are equal is a get: it returns that row.
    """

    start: bytes = b""
    stop: bytes = b""
    reverse: bool = False
    selection: Selection | None = None
    before: int | None = None
    batch: int | None = None
    row_filter: RowFilter | None = None
    sort_columns: bool = False


class Scanner:
    """The state of one open scan; call :meth:`next` under the store's lock."""

    def __init__(self, table: Table, spec: ScanSpec) -> None:
        self.table = table
        self.spec = spec
        self.position: bytes | None = None
        self.leftover: list[RowResult] = []
        self.rows_returned = 0
        self.done = False
        self.last_used = time.monotonic()

    def next(self, count: int) -> list[RowResult]:
        """Up to ``count`` results (an empty list once the scan is over)."""
        self.last_used = time.monotonic()
        results, self.leftover = self.leftover[:count], self.leftover[count:]
        keys = self.table.rows.sorted_keys()
        index = self._first_index(keys)
        step = -1 if self.spec.reverse else 1
        while len(results) < count and not self.done:
            if not 0 <= index < len(keys) or self._past_stop(keys[index]):
                self.done = True
                break
            key = keys[index]
            self.position = key
            index += step
            parts = self._parts(key)
            if parts:
                self.rows_returned += 1
                room = count - len(results)
                results += parts[:room]
                self.leftover = parts[room:]
                self.done = self._page_full()
        return results

    def _first_index(self, keys: SortedList) -> int:
        start, position = self.spec.start, self.position
        if not self.spec.reverse:
            return (keys.bisect_left(start) if position is None
                    else keys.bisect_right(position))
        if position is not None:
            return int(keys.bisect_left(position)) - 1
        return (keys.bisect_right(start) if start else len(keys)) - 1

    def _past_stop(self, key: bytes) -> bool:
        stop = self.spec.stop
        if not stop:
            return False
        if stop == self.spec.start:
            return key != stop
        return key <= stop if self.spec.reverse else key >= stop

    def _page_full(self) -> bool:
        page = self.spec.row_filter.page_size if self.spec.row_filter else None
        return page is not None and self.rows_returned >= page

    def _parts(self, key: bytes) -> list[RowResult]:
        row_filter = self.spec.row_filter
        if row_filter is not None and not row_filter.accepts_row(key):
            return []
        row = self.table.rows.get(key)
        found = row.read(self.spec.selection, self.spec.before, 1) if row is not None else []
        if row_filter is not None:
            found = row_filter.columns(found)
        if not found:
            return []
        size = self.spec.batch or len(found)
        return [(key, found[offset:offset + size]) for offset in range(0, len(found), size)]


def open_scanner(store: Store, name: bytes, columns: list[bytes] | None, spec: ScanSpec,
                 timestamp: int | None = None, filter_string: bytes | None = None) -> Scanner:
    """A scanner over the enabled table ``name`` (columns, time bound and filter checked)."""
    row_filter = parse_filter(filter_string.decode("latin-1")) if filter_string else None
    with store.lock:
        table = store.enabled_table(name)
        selection = selection_for(name, table.families, columns)
    return Scanner(table, replace(spec, selection=selection, before=read_before(timestamp),
                                  row_filter=row_filter))


def prefix_successor(prefix: bytes) -> bytes:
    """The first key after every key starting with ``prefix`` (empty: no such key)."""
    stripped = prefix.rstrip(b"\xff")
    return stripped[:-1] + bytes([stripped[-1] + 1]) if stripped else b""


class Scanners:
    """Open scanners by id; scanners idle for ``idle_timeout`` seconds are dropped."""

    def __init__(self, idle_timeout: float = IDLE_TIMEOUT) -> None:
        self.idle_timeout = idle_timeout
        self._scanners: dict[int, Scanner] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def open(self, scanner: Scanner) -> int:
        with self._lock:
            self._expire()
            scanner_id = next(self._ids)
            self._scanners[scanner_id] = scanner
            return scanner_id

    def get(self, scanner_id: int) -> Scanner:
        with self._lock:
            scanner = self._scanners.get(scanner_id)
        if scanner is None:
            raise ScannerNotFoundError()
        return scanner

    def close(self, scanner_id: int) -> None:
        with self._lock:
            if self._scanners.pop(scanner_id, None) is None:
                raise ScannerNotFoundError()

    def _expire(self) -> None:
        deadline = time.monotonic() - self.idle_timeout
        for scanner_id in [key for key, scanner in self._scanners.items()
                           if scanner.last_used < deadline]:
            del self._scanners[scanner_id]
