"""One row: its cells by family and qualifier, with versions and delete markers.

Each column holds ``(timestamp, value)`` cells, newest first, at most the family's
``max_versions``. A delete marker masks every cell of its column (or family) whose timestamp is
at or below the marker's, including cells written later with an older timestamp, until a major
compaction drops the markers. A masked cell can never become visible again (a compaction drops
it too), so it is not stored at all; only the markers are kept.
"""

from __future__ import annotations

from devstack.hbase.columns import Selection, join_column
from devstack.hbase.sortedmap import SortedMap

Cell = tuple[int, bytes]
ColumnCells = tuple[bytes, list[Cell]]
RowResult = tuple[bytes, list[ColumnCells]]


class Row:
    """The cells and delete markers of one row key."""

    __slots__ = ("column_marks", "families", "family_marks")

    def __init__(self) -> None:
        self.families: dict[bytes, SortedMap[list[Cell]]] = {}
        self.column_marks: dict[tuple[bytes, bytes], int] = {}
        self.family_marks: dict[bytes, int] = {}

    def is_empty(self) -> bool:
        """True if the row has neither cells nor markers."""
        return not self.families and not self.column_marks and not self.family_marks

    def has_cells(self) -> bool:
        return bool(self.families)

    def masked(self, family: bytes, qualifier: bytes, timestamp: int) -> bool:
        """True if a delete marker hides a cell at ``timestamp``."""
        return (timestamp <= self.family_marks.get(family, -1)
                or timestamp <= self.column_marks.get((family, qualifier), -1))

    def put(self, family: bytes, qualifier: bytes, timestamp: int, value: bytes,
            max_versions: int) -> None:
        """Store one cell (replacing a cell of the same timestamp) unless a marker masks it."""
        if self.masked(family, qualifier, timestamp):
            return
        columns = self.families.get(family)
        if columns is None:
            columns = self.families[family] = SortedMap()
        cells = columns.get(qualifier)
        if cells is None:
            columns.set(qualifier, [(timestamp, value)])
            return
        _insert_cell(cells, timestamp, value)
        del cells[max_versions:]

    def delete_column(self, family: bytes, qualifier: bytes, timestamp: int) -> None:
        """Mask every version of one column at or below ``timestamp``."""
        key = (family, qualifier)
        self.column_marks[key] = max(self.column_marks.get(key, -1), timestamp)
        columns = self.families.get(family)
        if columns is not None:
            self._drop_masked(family, columns, qualifier, timestamp)

    def delete_family(self, family: bytes, timestamp: int) -> None:
        """Mask every cell of ``family`` at or below ``timestamp``."""
        self.family_marks[family] = max(self.family_marks.get(family, -1), timestamp)
        columns = self.families.get(family)
        if columns is not None:
            for qualifier in list(columns):
                self._drop_masked(family, columns, qualifier, timestamp)

    def compact(self) -> None:
        """Major compaction: forget every delete marker (masked cells are already gone)."""
        self.column_marks.clear()
        self.family_marks.clear()

    def latest(self, family: bytes, qualifier: bytes) -> Cell | None:
        """The newest cell of one column, or None."""
        columns = self.families.get(family)
        cells = columns.get(qualifier) if columns is not None else None
        return cells[0] if cells else None

    def read(self, selection: Selection | None, before: int | None,
             versions: int) -> list[ColumnCells]:
        """``(column name, cells)`` in column order: up to ``versions`` newest cells per column,
        only cells older than ``before`` when it is given."""
        found: list[ColumnCells] = []
        for family in sorted(self.families):
            if selection is not None and not selection.wants_family(family):
                continue
            columns = self.families[family]
            chosen = selection.qualifiers(family) if selection is not None else None
            for qualifier in columns.sorted_keys() if chosen is None else chosen:
                cells = columns.get(qualifier)
                if cells and before is not None:
                    cells = [cell for cell in cells if cell[0] < before]
                if cells:
                    found.append((join_column(family, qualifier), cells[:versions]))
        return found

    def _drop_masked(self, family: bytes, columns: SortedMap[list[Cell]], qualifier: bytes,
                     timestamp: int) -> None:
        cells = columns.get(qualifier)
        if not cells or cells[-1][0] > timestamp:
            return
        kept = [cell for cell in cells if cell[0] > timestamp]
        if kept:
            columns.set(qualifier, kept)
            return
        columns.pop(qualifier)
        if not len(columns):
            del self.families[family]


def _insert_cell(cells: list[Cell], timestamp: int, value: bytes) -> None:
    """Insert into a newest-first list, replacing a cell with the same timestamp."""
    for index, (existing, _) in enumerate(cells):
        if existing == timestamp:
            cells[index] = (timestamp, value)
            return
        if existing < timestamp:
            cells.insert(index, (timestamp, value))
            return
    cells.append((timestamp, value))
