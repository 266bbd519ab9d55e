"""Snapshots: the whole store in one file, so that startup replays only a short log.

``<data>/snapshot.bin`` holds a magic string, a CRC-32 and a pickle of ``{"format", "wal_segment",
"tables"}``; ``wal_segment`` is the first log segment the snapshot does not contain. The file is
written beside, fsynced and renamed over the previous one, so a crash at any point leaves a
complete snapshot and the log segments it needs.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import pickle
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from devstack.hbase.errors import StorageError
from devstack.hbase.row import Row
from devstack.hbase.sortedmap import SortedMap
from devstack.hbase.table import Family, Table
from devstack.hbase.wal import PICKLE_PROTOCOL, sync_folder

MAGIC = b"PINSITE-HBASE-SNAPSHOT\n"
CHECKSUM = struct.Struct(">I")
FORMAT = 1
FILE_NAME = "snapshot.bin"


def capture(tables: dict[bytes, Table], wal_segment: int) -> dict[str, Any]:
    """A copy of the tables in plain types (call it under the store's lock)."""
    return {"format": FORMAT, "wal_segment": wal_segment,
            "tables": [_plain_table(table) for table in tables.values()]}


def encode(image: dict[str, Any]) -> bytes:
    """The snapshot file's bytes for a :func:`capture` (no lock needed)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=PICKLE_PROTOCOL)
    pickler.fast = True  # plain acyclic data without shared parts: no memo needed, much faster
    pickler.dump(image)
    payload = buffer.getvalue()
    return MAGIC + CHECKSUM.pack(zlib.crc32(payload)) + payload


def write(folder: Path, data: bytes) -> None:
    """Replace ``folder/snapshot.bin`` with ``data`` atomically and durably."""
    target = folder / FILE_NAME
    scratch = target.with_suffix(f".{os.getpid()}.tmp")  # a writer of its own
    with open(scratch, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    scratch.replace(target)
    sync_folder(folder)


def load(folder: Path) -> tuple[dict[bytes, Table], int]:
    """The tables of the snapshot in ``folder`` and its ``wal_segment`` (empty and 0 if none)."""
    path = folder / FILE_NAME
    if not path.exists():
        return {}, 0
    data = path.read_bytes()
    header = len(MAGIC) + CHECKSUM.size
    payload = data[header:]
    if (not data.startswith(MAGIC)
            or CHECKSUM.unpack_from(data, len(MAGIC))[0] != zlib.crc32(payload)):
        raise StorageError(f"snapshot {path} is damaged")
    with _collector_paused():
        image = pickle.loads(payload)
        if image.get("format") != FORMAT:
            raise StorageError(f"snapshot {path} has unknown format {image.get('format')!r}")
        tables = [_table_from_plain(plain) for plain in image["tables"]]
    return {table.name: table for table in tables}, image["wal_segment"]


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Build millions of small acyclic objects without the cyclic GC scanning them over and
    over (it would double the load time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _plain_table(table: Table) -> tuple[Any, ...]:
    families = [(family.name, family.max_versions, family.options)
                for family in table.families.values()]
    rows = [(key, _plain_row(row)) for key, row in table.rows.items()]
    return table.name, table.created, table.enabled, families, rows


def _plain_row(row: Row) -> tuple[Any, ...]:
    families = [(family, [(qualifier, list(cells)) for qualifier, cells in columns.items()])
                for family, columns in row.families.items()]
    return families, dict(row.column_marks), dict(row.family_marks)


def _table_from_plain(plain: tuple[Any, ...]) -> Table:
    name, created, enabled, families, rows = plain
    table = Table(name, [Family(*family) for family in families], created)
    table.enabled = enabled
    for key, row in rows:
        table.rows.set(key, _row_from_plain(row))
    return table


def _row_from_plain(plain: tuple[Any, ...]) -> Row:
    families, column_marks, family_marks = plain
    row = Row()
    for family, columns in families:
        cells: SortedMap[list[tuple[int, bytes]]] = SortedMap()
        for qualifier, versions in columns:
            cells.set(qualifier, versions)
        row.families[family] = cells
    row.column_marks.update(column_marks)
    row.family_marks.update(family_marks)
    return row
