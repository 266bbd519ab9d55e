"""The server's data folder: an exclusive lock, the snapshot and the write-ahead log.

Layout::

    <data>/
      LOCK              flock held while a server uses the folder (a second server refuses)
      snapshot.bin      the last snapshot (see :mod:`devstack.hbase.snapshot`)
      wal/NNNNNNNN.log  log segments written since that snapshot

Usage::

    folder = DataDir(path, sync=True)
    store = folder.open()        # lock, load the snapshot, replay the log, start a new segment
    ...
    folder.close(store)          # final snapshot, log closed, lock released
"""

from __future__ import annotations

import fcntl
import gc
import logging
import os
import time
from pathlib import Path

from devstack.hbase import snapshot, wal
from devstack.hbase.errors import StorageError
from devstack.hbase.store import Store

logger = logging.getLogger(__name__)


class DataDir:
    """Recovery and snapshots of one store kept in ``path``."""

    def __init__(self, path: Path, *, sync: bool = True) -> None:
        self.path = path
        self.wal_folder = path / "wal"
        self.sync = sync
        self._lock_fd = -1

    def open(self) -> Store:
        """Lock the folder and rebuild the store: snapshot, then every later log record."""
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        began = time.monotonic()
        tables, first_segment = snapshot.load(self.path)
        store = Store()
        store.tables = tables
        replayed = 0
        for record in wal.replay(self.wal_folder, first_segment):
            store.apply(record)
            replayed += 1
        wal.remove_segments_before(self.wal_folder, first_segment)
        segment = max([first_segment - 1, *wal.segments(self.wal_folder)]) + 1
        store.log = wal.WriteAheadLog(self.wal_folder, segment, sync=self.sync)
        logger.info("loaded %d tables and replayed %d log records in %.2fs", len(tables),
                    replayed, time.monotonic() - began)
        if replayed:
            self.snapshot(store)
        gc.freeze()
        return store

    def snapshot(self, store: Store) -> None:
        """Write a snapshot of ``store`` and drop the log segments it covers."""
        began = time.monotonic()
        with store.lock:
            segment = self._log(store).rotate()
            image = snapshot.capture(store.tables, segment)
        data = snapshot.encode(image)
        snapshot.write(self.path, data)
        wal.remove_segments_before(self.wal_folder, segment)
        logger.info("snapshot of %d bytes written in %.2fs", len(data), time.monotonic() - began)

    def close(self, store: Store) -> None:
        """Final snapshot, then close the log and release the folder."""
        self.snapshot(store)
        with store.lock:
            self._log(store).close()
            store.closed = True
        os.close(self._lock_fd)
        self._lock_fd = -1

    def _log(self, store: Store) -> wal.WriteAheadLog:
        if store.log is None or store.closed:
            raise StorageError("the store is closed")
        return store.log

    def _lock(self) -> None:
        self._lock_fd = os.open(self.path / "LOCK", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise StorageError(f"another server is using {self.path}") from None
