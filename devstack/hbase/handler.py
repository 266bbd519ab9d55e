"""The ``Hbase`` Thrift service: one thin method per IDL call, named as in the IDL.

Arguments arrive in IDL order; ``attributes`` maps are accepted and ignored. Errors raised by
the store are turned into the IDL's exceptions by :class:`devstack.hbase.server.Processor`.
"""

from __future__ import annotations

from typing import Any

from devstack.hbase import ddl, reads, results, writes
from devstack.hbase.errors import HBaseError
from devstack.hbase.scanner import Scanners, ScanSpec, open_scanner, prefix_successor
from devstack.hbase.store import Store


class Handler:
    """Serves one :class:`Store`; ``host``/``port`` are reported as the region server."""

    def __init__(self, store: Store, scanners: Scanners | None = None, *,
                 host: str = "127.0.0.1", port: int = 9090) -> None:
        self.store = store
        self.scanners = scanners or Scanners()
        self.host = host
        self.port = port

    # Tables.

    def enableTable(self, tableName: bytes) -> None:
        ddl.set_enabled(self.store, tableName, True)

    def disableTable(self, tableName: bytes) -> None:
        ddl.set_enabled(self.store, tableName, False)

    def isTableEnabled(self, tableName: bytes) -> bool:
        return ddl.is_enabled(self.store, tableName)

    def compact(self, tableNameOrRegionName: bytes) -> None:
        ddl.table_info(self.store, tableNameOrRegionName)

    def majorCompact(self, tableNameOrRegionName: bytes) -> None:
        ddl.major_compact(self.store, tableNameOrRegionName)

    def getTableNames(self) -> list[bytes]:
        return ddl.table_names(self.store)

    def getColumnDescriptors(self, tableName: bytes) -> dict[bytes, Any]:
        table = ddl.table_info(self.store, tableName)
        return {family.name + b":": results.column_descriptor(family)
                for family in sorted(table.families.values(), key=lambda family: family.name)}

    def getTableRegions(self, tableName: bytes) -> list[Any]:
        return [results.region(ddl.table_info(self.store, tableName), self.host, self.port)]

    def createTable(self, tableName: bytes, columnFamilies: list[Any]) -> None:
        specs = [_family_spec(item) for item in columnFamilies or []]
        ddl.create_table(self.store, tableName, specs)

    def deleteTable(self, tableName: bytes) -> None:
        ddl.delete_table(self.store, tableName)

    # Reads.

    def get(self, tableName: bytes, row: bytes, column: bytes, attributes: Any) -> list[Any]:
        return self.getVer(tableName, row, column, 1, attributes)

    def getVer(self, tableName: bytes, row: bytes, column: bytes, numVersions: int,
               attributes: Any) -> list[Any]:
        return results.tcells(reads.get_versions(self.store, tableName, row, column, numVersions))

    def getVerTs(self, tableName: bytes, row: bytes, column: bytes, timestamp: int,
                 numVersions: int, attributes: Any) -> list[Any]:
        return results.tcells(reads.get_versions(self.store, tableName, row, column, numVersions,
                                                 timestamp))

    def getRow(self, tableName: bytes, row: bytes, attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, [row], None, None, attributes)

    def getRowWithColumns(self, tableName: bytes, row: bytes, columns: list[bytes] | None,
                          attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, [row], columns, None, attributes)

    def getRowTs(self, tableName: bytes, row: bytes, timestamp: int, attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, [row], None, timestamp, attributes)

    def getRowWithColumnsTs(self, tableName: bytes, row: bytes, columns: list[bytes] | None,
                            timestamp: int, attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, [row], columns, timestamp, attributes)

    def getRows(self, tableName: bytes, rows: list[bytes], attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, rows, None, None, attributes)

    def getRowsWithColumns(self, tableName: bytes, rows: list[bytes],
                           columns: list[bytes] | None, attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, rows, columns, None, attributes)

    def getRowsTs(self, tableName: bytes, rows: list[bytes], timestamp: int,
                  attributes: Any) -> list[Any]:
        return self.getRowsWithColumnsTs(tableName, rows, None, timestamp, attributes)

    def getRowsWithColumnsTs(self, tableName: bytes, rows: list[bytes],
                             columns: list[bytes] | None, timestamp: int | None,
                             attributes: Any) -> list[Any]:
        return results.row_results(reads.get_rows(self.store, tableName, rows or [], columns,
                                                  timestamp))

    def getRowOrBefore(self, tableName: bytes, row: bytes, family: bytes) -> list[Any]:
        found = reads.row_or_before(self.store, tableName, row, family)
        return results.tcells([cells[0] for _, cells in found])

    def getRegionInfo(self, row: bytes) -> Any:
        raise HBaseError("getRegionInfo reads hbase:meta, which the development server does "
                         "not have; use getTableRegions")

    # Writes.

    def mutateRow(self, tableName: bytes, row: bytes, mutations: list[Any],
                  attributes: Any) -> None:
        writes.mutate_rows(self.store, tableName, [(row, mutations)])

    def mutateRowTs(self, tableName: bytes, row: bytes, mutations: list[Any], timestamp: int,
                    attributes: Any) -> None:
        writes.mutate_rows(self.store, tableName, [(row, mutations)], timestamp)

    def mutateRows(self, tableName: bytes, rowBatches: list[Any], attributes: Any) -> None:
        writes.mutate_rows(self.store, tableName, _batches(rowBatches))

    def mutateRowsTs(self, tableName: bytes, rowBatches: list[Any], timestamp: int,
                     attributes: Any) -> None:
        writes.mutate_rows(self.store, tableName, _batches(rowBatches), timestamp)

    def atomicIncrement(self, tableName: bytes, row: bytes, column: bytes, value: int) -> int:
        return writes.increment(self.store, tableName, row, column, value)

    def increment(self, increment: Any) -> None:
        writes.increment(self.store, increment.table, increment.row, increment.column,
                         increment.ammount or 0)

    def incrementRows(self, increments: list[Any]) -> None:
        writes.increment_rows(self.store, [(item.table, item.row, item.column,
                                            item.ammount or 0) for item in increments])

    def append(self, append: Any) -> list[Any]:
        written = writes.append(self.store, append.table, append.row, append.columns or [],
                                append.values or [])
        return results.tcells([cell for _, cell in written])

    def checkAndPut(self, tableName: bytes, row: bytes, column: bytes, value: bytes | None,
                    mput: Any, attributes: Any) -> bool:
        return writes.check_and_put(self.store, tableName, row, column, value, mput)

    def deleteAll(self, tableName: bytes, row: bytes, column: bytes, attributes: Any) -> None:
        writes.delete_all(self.store, tableName, row, column)

    def deleteAllTs(self, tableName: bytes, row: bytes, column: bytes, timestamp: int,
                    attributes: Any) -> None:
        writes.delete_all(self.store, tableName, row, column, timestamp)

    def deleteAllRow(self, tableName: bytes, row: bytes, attributes: Any) -> None:
        writes.delete_all(self.store, tableName, row, None)

    def deleteAllRowTs(self, tableName: bytes, row: bytes, timestamp: int,
                       attributes: Any) -> None:
        writes.delete_all(self.store, tableName, row, None, timestamp)

    # Scanners.

    def scannerOpenWithScan(self, tableName: bytes, scan: Any, attributes: Any) -> int:
        return self._open(tableName, scan.columns, ScanSpec(
            start=scan.startRow or b"", stop=scan.stopRow or b"", reverse=bool(scan.reversed),
            batch=scan.batchSize if scan.batchSize and scan.batchSize > 0 else None,
            sort_columns=bool(scan.sortColumns)), scan.timestamp, scan.filterString)

    def scannerOpen(self, tableName: bytes, startRow: bytes, columns: list[bytes] | None,
                    attributes: Any) -> int:
        return self._open(tableName, columns, ScanSpec(start=startRow or b""))

    def scannerOpenWithStop(self, tableName: bytes, startRow: bytes, stopRow: bytes,
                            columns: list[bytes] | None, attributes: Any) -> int:
        return self._open(tableName, columns, ScanSpec(start=startRow or b"",
                                                       stop=stopRow or b""))

    def scannerOpenWithPrefix(self, tableName: bytes, startAndPrefix: bytes,
                              columns: list[bytes] | None, attributes: Any) -> int:
        prefix = startAndPrefix or b""
        return self._open(tableName, columns, ScanSpec(start=prefix,
                                                       stop=prefix_successor(prefix)))

    def scannerOpenTs(self, tableName: bytes, startRow: bytes, columns: list[bytes] | None,
                      timestamp: int, attributes: Any) -> int:
        return self._open(tableName, columns, ScanSpec(start=startRow or b""), timestamp)

    def scannerOpenWithStopTs(self, tableName: bytes, startRow: bytes, stopRow: bytes,
                              columns: list[bytes] | None, timestamp: int,
                              attributes: Any) -> int:
        return self._open(tableName, columns, ScanSpec(start=startRow or b"",
                                                       stop=stopRow or b""), timestamp)

    def scannerGet(self, id: int) -> list[Any]:
        return self.scannerGetList(id, 1)

    def scannerGetList(self, id: int, nbRows: int) -> list[Any]:
        scanner = self.scanners.get(id)
        with self.store.lock:
            found = scanner.next(nbRows) if nbRows > 0 else []
        return results.row_results(found, scanner.spec.sort_columns)

    def scannerClose(self, id: int) -> None:
        self.scanners.close(id)

    def _open(self, name: bytes, columns: list[bytes] | None, spec: ScanSpec,
              timestamp: int | None = None, filter_string: bytes | None = None) -> int:
        scanner = open_scanner(self.store, name, columns, spec, timestamp, filter_string)
        return self.scanners.open(scanner)


def _family_spec(descriptor: Any) -> ddl.FamilySpec:
    options = {key: getattr(descriptor, key) for key in (
        "compression", "inMemory", "bloomFilterType", "bloomFilterVectorSize",
        "bloomFilterNbHashes", "blockCacheEnabled", "timeToLive")}
    return ddl.FamilySpec(descriptor.name, descriptor.maxVersions or 0, options)


def _batches(row_batches: list[Any]) -> list[tuple[bytes, list[Any]]]:
    return [(batch.row, batch.mutations or []) for batch in row_batches or []]
