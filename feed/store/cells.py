"""Reads and writes of raw feed rows on one cluster: bytes in, bytes out.

Writes carry an explicit cell timestamp (µs) and go out as one ``mutateRowsTs`` per call. HBase's
Thrift gateway applies such a call as two batches, every row's puts first, then every row's
deletes: a reader may see a row's new cells before its removed ones go, and a failure between
the two leaves the puts alone (the caller's retry, or the next trim, finishes the change; see
docs/decisions.md). A delete of ``family:qualifier`` masks every version at or below its
timestamp (HBase ``deleteColumns``), also puts that arrive later with an older timestamp.
The Thrift mutations are built directly; :func:`write_column` shares one mutation among all
its rows (a fanout chunk writes one column into a thousand rows).

>>> write("primary", {b"\\x00" * 7 + b"\\x01": [b"feed:" + qualifier]}, {}, timestamp=now_us)
>>> read_row("primary", b"\\x00" * 7 + b"\\x01", [b"feed"])
{b'feed:...': b''}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import happybase  # also loads the Hbase_thrift module
from Hbase_thrift import BatchMutation, Mutation, TIncrement

from feed.schema import COUNT
from feed.store.pools import Cluster, feed_table, run

Columns = Mapping[bytes, Sequence[bytes]]


def write(cluster: Cluster, puts: Columns, deletes: Columns, timestamp: int) -> None:
    """Put empty cells at ``puts`` and delete ``deletes`` (row → columns), all at
    ``timestamp``, in one call (the puts are applied before the deletes)."""
    batches = []
    for row in dict.fromkeys([*puts, *deletes]):
        mutations = ([Mutation(isDelete=False, column=column, value=b"")
                      for column in puts.get(row, ())]
                     + [Mutation(isDelete=True, column=column) for column in deletes.get(row, ())])
        if mutations:
            batches.append(BatchMutation(row=row, mutations=mutations))
    _send(cluster, batches, timestamp)


def write_column(cluster: Cluster, rows: Sequence[bytes], column: bytes, timestamp: int, *,
                 delete: bool = False) -> None:
    """Put an empty cell at ``column`` in every one of ``rows`` (or delete that column), all
    at ``timestamp``, in one batch."""
    mutations = [Mutation(isDelete=delete, column=column, value=None if delete else b"")]
    _send(cluster, [BatchMutation(row=row, mutations=mutations) for row in rows], timestamp)


def delete_row(cluster: Cluster, row: bytes, timestamp: int) -> None:
    """Delete every cell of ``row`` at or below ``timestamp`` (HBase ``deleteAllRowTs``)."""
    run(cluster, lambda hbase: hbase.connection.client.deleteAllRowTs(
        hbase.name, row, timestamp, {}))


def _send(cluster: Cluster, batches: list[BatchMutation], timestamp: int) -> None:
    if batches:
        run(cluster, lambda hbase: hbase.connection.client.mutateRowsTs(
            hbase.name, batches, timestamp, {}))


def read_row(cluster: Cluster, row: bytes, columns: Sequence[bytes] | None = None,
             ) -> dict[bytes, bytes]:
    """The row's cells (``family:qualifier`` → value), optionally only of ``columns``."""
    wanted = list(columns) if columns else None
    found: dict[bytes, bytes] = run(cluster, lambda hbase: hbase.row(row, columns=wanted))
    return found


def read_head(cluster: Cluster, row: bytes, family: bytes, count: int,
              also: Sequence[bytes] = ()) -> dict[bytes, bytes]:
    """The row's first ``count`` cells of ``family``, in column order, and every cell of the
    families ``also`` (``family:qualifier`` → value).

    The head is a one-row scan whose batch is ``count`` cells: the region server stops there,
    so a long row (or one full of trimmed cells' delete markers) costs what its head costs.
    ``also`` is a second read on the same connection (the scan cannot take it: its cells sort
    after the head's). Four Thrift calls, against one for :func:`read_row` of a whole row."""
    wanted = list(also)

    def operation(hbase: happybase.Table) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        for _, head in hbase.scan(row_start=row, row_stop=row + b"\x00", columns=[family],
                                  batch_size=1, scan_batching=count, limit=1):
            found.update(head)
        if wanted:
            found.update(hbase.row(row, columns=wanted))
        return found

    return run(cluster, operation)


def cell_time(cluster: Cluster, row: bytes, column: bytes) -> int | None:
    """The timestamp (µs) of the newest visible cell at ``column``; None when there is none."""
    found = run(cluster, lambda hbase: hbase.row(row, columns=[column], include_timestamp=True))
    cell = found.get(column)
    return None if cell is None else int(cell[1])


def read_rows(cluster: Cluster, rows: Sequence[bytes], columns: Sequence[bytes],
              ) -> dict[bytes, dict[bytes, bytes]]:
    """Several rows' cells of ``columns`` in one call; rows without any are absent."""
    if not rows:
        return {}
    return dict(run(cluster, lambda hbase: hbase.rows(list(rows), columns=list(columns))))


def add_to_counter(cluster: Cluster, row: bytes, column: bytes, amount: int) -> int:
    """Add ``amount`` to a 64-bit counter cell and return its new value (one atomic call)."""
    return int(run(cluster, lambda hbase: hbase.counter_inc(row, column, amount),
                   idempotent=False))


def reset_counter(cluster: Cluster, row: bytes, column: bytes, seen: int) -> bool:
    """Set a counter cell to zero if it still holds ``seen`` (one ``checkAndPut``); False when
    another writer changed it since it was read."""
    zero = Mutation(isDelete=False, column=column, value=COUNT.pack(0))
    return bool(run(cluster, lambda hbase: hbase.connection.client.checkAndPut(
        hbase.name, row, column, COUNT.pack(seen), zero, {})))


def add_to_counters(cluster: Cluster, rows: Sequence[bytes], column: bytes, amount: int) -> None:
    """Add ``amount`` to the counter cell of every row, in one call (``incrementRows``)."""
    if not rows:
        return
    name = feed_table().encode()
    increments = [TIncrement(table=name, row=row, column=column, ammount=amount) for row in rows]
    run(cluster, lambda hbase: hbase.connection.client.incrementRows(increments),
        idempotent=False)
