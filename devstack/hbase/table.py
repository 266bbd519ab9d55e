"""A table: its column families, its enabled flag and its rows in byte order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from devstack.hbase.row import Row
from devstack.hbase.sortedmap import SortedMap


@dataclass(frozen=True)
class Family:
    """A column family: its name (without the colon), ``max_versions`` and the other
    ``ColumnDescriptor`` fields, stored only to be reported back."""

    name: bytes
    max_versions: int
    options: dict[str, Any] = field(default_factory=dict)


class Table:
    """One table; every access happens under the store's lock."""

    __slots__ = ("created", "enabled", "families", "name", "rows")

    def __init__(self, name: bytes, families: list[Family], created: int) -> None:
        self.name = name
        self.families: dict[bytes, Family] = {family.name: family for family in families}
        self.created = created
        self.enabled = True
        self.rows: SortedMap[Row] = SortedMap()

    def row_for_write(self, key: bytes) -> Row:
        """The row ``key``, created empty if it does not exist yet."""
        row = self.rows.get(key)
        if row is None:
            row = Row()
            self.rows.set(key, row)
        return row

    def compact(self) -> None:
        """Major compaction: drop every delete marker, then every row left without cells."""
        emptied = []
        for key, row in self.rows.items():
            row.compact()
            if row.is_empty():
                emptied.append(key)
        for key in emptied:
            self.rows.pop(key)
