"""Thrift structs of the IDL built from the store's plain results."""

from __future__ import annotations

from typing import Any

from devstack.hbase.idl import hbase
from devstack.hbase.row import Cell, RowResult
from devstack.hbase.table import Family, Table


def tcells(cells: list[Cell]) -> list[Any]:
    """``list<TCell>``."""
    return [hbase.TCell(value=value, timestamp=timestamp) for timestamp, value in cells]


def row_results(results: list[RowResult], sort_columns: bool = False) -> list[Any]:
    """``list<TRowResult>``: the newest cell per column, as a map or (sorted) as a list."""
    if sort_columns:
        return [hbase.TRowResult(row=key, sortedColumns=[
            hbase.TColumn(columnName=name, cell=hbase.TCell(value=cells[0][1],
                                                           timestamp=cells[0][0]))
            for name, cells in found]) for key, found in results]
    return [hbase.TRowResult(row=key, columns={
        name: hbase.TCell(value=cells[0][1], timestamp=cells[0][0]) for name, cells in found})
        for key, found in results]


def column_descriptor(family: Family) -> Any:
    """The ``ColumnDescriptor`` of a family (its name with the trailing colon)."""
    return hbase.ColumnDescriptor(name=family.name + b":", maxVersions=family.max_versions,
                                  **family.options)


def region(table: Table, host: str, port: int) -> Any:
    """The single region that holds the whole table."""
    region_id = table.created
    return hbase.TRegionInfo(startKey=b"", endKey=b"", id=region_id,
                             name=b"%s,,%d" % (table.name, region_id), version=1,
                             serverName=host.encode(), port=port)
