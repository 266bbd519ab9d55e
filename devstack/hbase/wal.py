"""The write-ahead log: each record is appended, and by default fsynced, before it is applied.

Files: ``<data>/wal/<segment>.log`` (8-digit segment numbers). A record is a ``>II`` header
(payload length, CRC-32) followed by the pickled record. One Thrift call writes one record and
syncs once (group commit), so a 1,000-row ``mutateRows`` costs one ``fdatasync``. A new segment
starts at every snapshot; the snapshot names the first segment it does not contain.

The log is private to the server (pickle is only ever read back from its own folder).
"""

from __future__ import annotations

import logging
import os
import pickle
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

from devstack.hbase.errors import StorageError
from devstack.hbase.records import Record

HEADER = struct.Struct(">II")
PICKLE_PROTOCOL = 5
logger = logging.getLogger(__name__)


class WriteAheadLog:
    """Appends records to the current segment of ``folder``; ``sync`` fsyncs every append."""

    def __init__(self, folder: Path, segment: int, *, sync: bool = True) -> None:
        self.folder = folder
        self.sync = sync
        self.segment = segment
        self.bytes_since_rotation = 0
        self._fd = -1
        self._size = 0
        folder.mkdir(parents=True, exist_ok=True)
        self._open()

    def append(self, record: Record) -> None:
        """Write ``record`` durably; on failure the segment is cut back to its last record."""
        payload = pickle.dumps(record, protocol=PICKLE_PROTOCOL)
        data = HEADER.pack(len(payload), zlib.crc32(payload)) + payload
        try:
            _write_all(self._fd, data)
            if self.sync:
                os.fdatasync(self._fd)
        except OSError as error:
            self._cut_back()
            raise StorageError(f"write-ahead log {segment_path(self.folder, self.segment)}: "
                               f"{error}") from error
        self._size += len(data)
        self.bytes_since_rotation += len(data)

    def rotate(self) -> int:
        """Close the current segment and start the next one; returns the new segment number."""
        self.close()
        self.segment += 1
        self.bytes_since_rotation = 0
        self._open()
        return self.segment

    def close(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)
            os.close(self._fd)
            self._fd = -1

    def _open(self) -> None:
        path = segment_path(self.folder, self.segment)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._size = os.fstat(self._fd).st_size
        sync_folder(self.folder)

    def _cut_back(self) -> None:
        try:
            os.ftruncate(self._fd, self._size)
        except OSError:
            logger.exception("could not cut the write-ahead log back to its last record")


def segment_path(folder: Path, segment: int) -> Path:
    return folder / f"{segment:08d}.log"


def segments(folder: Path) -> list[int]:
    """The segment numbers present in ``folder``, in order."""
    if not folder.is_dir():
        return []
    return sorted(int(path.stem) for path in folder.glob("*.log") if path.stem.isdigit())


def replay(folder: Path, first_segment: int) -> Iterator[Record]:
    """Every record of the segments numbered ``first_segment`` or above, in order.

    A torn record at the end of the last segment (a write cut short by a crash, never
    acknowledged) is cut off; damage anywhere else stops the server with :class:`StorageError`.
    """
    numbers = [number for number in segments(folder) if number >= first_segment]
    for number in numbers:
        yield from read_segment(segment_path(folder, number), last=number == numbers[-1])


def read_segment(path: Path, *, last: bool) -> Iterator[Record]:
    data = path.read_bytes()
    offset = 0
    while offset < len(data):
        payload = _payload_at(data, offset)
        if payload is None:
            if not last:
                raise StorageError(f"write-ahead log {path} is damaged at byte {offset}")
            logger.warning("cutting a torn record off %s at byte %d", path, offset)
            os.truncate(path, offset)
            return
        yield pickle.loads(payload)
        offset += HEADER.size + len(payload)


def remove_segments_before(folder: Path, segment: int) -> None:
    """Delete the segments a snapshot has made redundant."""
    for number in segments(folder):
        if number < segment:
            segment_path(folder, number).unlink(missing_ok=True)


def sync_folder(folder: Path) -> None:
    """fsync a directory, so that files created or renamed in it survive a crash."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _payload_at(data: bytes, offset: int) -> bytes | None:
    if offset + HEADER.size > len(data):
        return None
    length, checksum = HEADER.unpack_from(data, offset)
    payload = data[offset + HEADER.size:offset + HEADER.size + length]
    if len(payload) != length or zlib.crc32(payload) != checksum:
        return None
    return payload


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
