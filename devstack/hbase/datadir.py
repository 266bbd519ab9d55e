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

Periodic snapshots are taken in a forked child, as Redis's ``BGSAVE`` does
(:meth:`DataDir.snapshot_in_background`): the store is locked only while the log rotates and
the process forks; the child writes its copy-on-write image while the server keeps serving.
"""

from __future__ import annotations

import fcntl
import gc
import logging
import os
import threading
import time
import traceback
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
        self._writer: threading.Thread | None = None

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

    def snapshot_in_background(self, store: Store) -> bool:
        """Start a snapshot in a forked child and return at once; False if the last one is
        still being written. The child exits 0 once the file is durable; then (on a thread of
        this process) the log segments it covers are dropped. If it fails, they stay."""
        if self._writer is not None and self._writer.is_alive():
            return False
        began = time.monotonic()
        with store.lock:
            segment = self._log(store).rotate()
            pid = os.fork()
            if pid == 0:
                self._write_child(store, segment)
        self._writer = threading.Thread(target=self._reap, args=(pid, segment, began),
                                        name="snapshot", daemon=True)
        self._writer.start()
        return True

    def _write_child(self, store: Store, segment: int) -> None:
        """In the forked child: write the snapshot, exit (never returns). Only this thread
        exists here, so nothing that other threads may have locked (logging) is touched."""
        code = 1
        try:
            gc.disable()
            snapshot.write(self.path, snapshot.encode(snapshot.capture(store.tables, segment)))
            code = 0
        except BaseException:  # reported through the exit code and stderr
            os.write(2, traceback.format_exc().encode())
        finally:
            os._exit(code)

    def _reap(self, pid: int, segment: int, began: float) -> None:
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code != 0:
            logger.error("snapshot writer %d failed (exit %d); the write-ahead log keeps every "
                         "change", pid, code)
            return
        wal.remove_segments_before(self.wal_folder, segment)
        logger.info("snapshot written in the background in %.2fs",
                    time.monotonic() - began)

    def close(self, store: Store) -> None:
        """Final snapshot (after a background one still running), then close the log and
        release the folder."""
        if self._writer is not None:
            self._writer.join()
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
