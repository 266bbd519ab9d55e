"""Rows of any table on one cluster, written at the server's time: the smart feed's pools
(``hbase3``) and materialized home rows (primary and standby). Bytes in, bytes out.

Unlike :mod:`feed.store.cells`, whose writes carry the feed's own cell timestamps, these writes
take the region server's clock: a later write of a cell wins, as the pools and the home rows
need. Every write is one Thrift call, built directly (``mutateRows``, ``incrementRows``).

>>> write(POOLS, "pinsite_pools", puts={key: {b"p:e": value}})
>>> scan(POOLS, "pinsite_pools", prefix, [b"p:e"], limit=10)
[(key, {b'p:e': value})]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import happybase  # first: it loads the Hbase_thrift module
from happybase.table import make_row
from happybase.util import bytes_increment
from Hbase_thrift import BatchMutation, Mutation, TIncrement, TScan

from feed.store.pools import AnyCluster, run

Cells = dict[bytes, bytes]


def write(cluster: AnyCluster, table: str, *,
          puts: Mapping[bytes, Mapping[bytes, bytes]] | None = None,
          deletes: Mapping[bytes, Sequence[bytes]] | None = None) -> None:
    """Put ``puts`` (row → column → value) and delete ``deletes`` (row → columns) in one
    call. A delete mutation is shared by every row that deletes the same column (a trim
    deletes one column from thousands of rows)."""
    puts, deletes = puts or {}, deletes or {}
    deleting: dict[bytes, Mutation] = {}
    batches = []
    for row in dict.fromkeys([*puts, *deletes]):
        mutations = [Mutation(isDelete=False, column=column, value=value)
                     for column, value in puts.get(row, {}).items()]
        for column in deletes.get(row, ()):
            if column not in deleting:
                deleting[column] = Mutation(isDelete=True, column=column)
            mutations.append(deleting[column])
        if mutations:
            batches.append(BatchMutation(row=row, mutations=mutations))
    if batches:
        run(cluster, lambda hbase: hbase.connection.client.mutateRows(hbase.name, batches, {}),
            table=table)


def delete_row(cluster: AnyCluster, table: str, row: bytes) -> None:
    """Delete every cell of ``row`` (``deleteAllRow``)."""
    run(cluster, lambda hbase: hbase.connection.client.deleteAllRow(hbase.name, row, {}),
        table=table)


def increment(cluster: AnyCluster, table: str, amounts: Mapping[tuple[bytes, bytes], int],
              ) -> None:
    """Add to 64-bit counter cells, ``(row, column) → amount``, in one ``incrementRows`` (not
    retried: a retry could count twice)."""
    if not amounts:
        return
    name = table.encode()
    increments = [TIncrement(table=name, row=row, column=column, ammount=amount)
                  for (row, column), amount in amounts.items()]
    run(cluster, lambda hbase: hbase.connection.client.incrementRows(increments),
        idempotent=False, table=table)


def read_row(cluster: AnyCluster, table: str, row: bytes, columns: Sequence[bytes]) -> Cells:
    """The row's cells of ``columns`` (families or ``family:qualifier``)."""
    wanted = list(columns)
    found: Cells = run(cluster, lambda hbase: hbase.row(row, columns=wanted), table=table)
    return found


def read_rows(cluster: AnyCluster, table: str, rows: Sequence[bytes], columns: Sequence[bytes],
              ) -> dict[bytes, Cells]:
    """Several rows' cells of ``columns`` in one call; rows without any are absent."""
    if not rows:
        return {}
    wanted, keys = list(columns), list(rows)
    return dict(run(cluster, lambda hbase: hbase.rows(keys, columns=wanted), table=table))


def scan(cluster: AnyCluster, table: str, prefix: bytes, columns: Sequence[bytes], *,
         limit: int | None = None, batch_size: int = 1000) -> list[tuple[bytes, Cells]]:
    """The rows under ``prefix`` in key order (at most ``limit``), with their cells of
    ``columns`` (see :func:`scan_range`)."""
    return scan_range(cluster, table, prefix, prefix_end(prefix), columns, limit=limit,
                      batch_size=batch_size)


def scan_range(cluster: AnyCluster, table: str, start: bytes, stop: bytes | None,
               columns: Sequence[bytes], *, limit: int | None = None, batch_size: int = 1000,
               ) -> list[tuple[bytes, Cells]]:
    """The rows from ``start`` up to ``stop`` (excluded; None: the table's end) in key order,
    at most ``limit``, with their cells of ``columns``. A batch that comes back short ends the
    scan (the Thrift server fills a batch until its scanner runs out), so a scan that fits one
    batch is three calls: open, one batch, close (happybase asks for one more, empty, batch
    first)."""
    wanted = list(columns)
    size = min(batch_size, limit) if limit else batch_size

    def operation(hbase: happybase.Table) -> list[tuple[bytes, Cells]]:
        client = hbase.connection.client
        scanner = client.scannerOpenWithScan(
            hbase.name, TScan(startRow=start, stopRow=stop, columns=wanted, caching=size), {})
        found: list[tuple[bytes, Cells]] = []
        try:
            while limit is None or len(found) < limit:
                asked = size if limit is None else min(size, limit - len(found))
                batch = client.scannerGetList(scanner, asked)
                found += [(item.row, make_row(item.columns, False)) for item in batch]
                if len(batch) < asked:
                    break
        finally:
            client.scannerClose(scanner)
        return found

    return run(cluster, operation, table=table)


def prefix_end(prefix: bytes) -> bytes | None:
    """The first key after every key that starts with ``prefix`` (None: there is none)."""
    end: bytes | None = bytes_increment(prefix)
    return end
