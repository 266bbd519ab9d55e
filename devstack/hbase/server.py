"""The Thrift server: happybase's protocol (binary, buffered), one thread per connection.

Usage::

    run(ServerConfig(host="127.0.0.1", port=9090, data=Path("var/dev/hbase1/data")))

Runs until SIGTERM or SIGINT, then writes a final snapshot. Meanwhile a snapshot is taken when
the log has grown by ``snapshot_log_bytes`` or, if anything was written, every
``snapshot_interval`` seconds, by a forked child (:meth:`DataDir.snapshot_in_background`), so
serving never waits for it.
"""

from __future__ import annotations

import gc
import logging
import signal
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.server import TThreadedServer
from thriftpy2.transport import (
    TBufferedTransportFactory,
    TServerSocket,
    TSocket,
    TTransportException,
)

from devstack.hbase.datadir import DataDir
from devstack.hbase.errors import StorageError
from devstack.hbase.handler import Handler
from devstack.hbase.idl import hbase
from devstack.hbase.processor import Processor
from devstack.hbase.store import Store

logger = logging.getLogger(__name__)
# The store is millions of small acyclic objects: collect young garbage less often.
GC_THRESHOLDS = (50_000, 20, 20)


@dataclass(frozen=True)
class ServerConfig:
    """How to run one server (the options of ``python -m devstack.hbase``)."""

    host: str = "127.0.0.1"
    port: int = 9090
    data: Path = Path("hbase-data")
    sync: bool = True
    snapshot_interval: float = 300.0
    snapshot_log_bytes: int = 64 << 20


class ServerSocket(TServerSocket):
    """Listens without ``SO_REUSEPORT`` (two servers must never share a port); clients get
    ``TCP_NODELAY`` and no timeout, so idle pooled connections stay open."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host=host, port=port, client_timeout=None)

    def _init_sock(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock = sock

    def accept(self) -> TSocket:
        client = super().accept()
        client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return client


class ThriftServer:
    """Accepts connections on its own thread; each connection is served by a daemon thread.

    thriftpy2's ``TThreadedServer`` supplies the processor and the transport and protocol
    factories; the accept loop is ours so that binding happens before serving starts.
    """

    def __init__(self, handler: Handler, host: str, port: int) -> None:
        self.socket = ServerSocket(host, port)
        self.threaded = TThreadedServer(Processor(hbase.Hbase, handler), self.socket,
                                        iprot_factory=TBinaryProtocolFactory(),
                                        itrans_factory=TBufferedTransportFactory(), daemon=True)
        self.closed = threading.Event()

    def start(self) -> None:
        """Bind and listen now (so a busy port fails at once), then accept in the background."""
        self.socket.listen()
        threading.Thread(target=self._accept_loop, name="accept", daemon=True).start()

    def stop(self) -> None:
        self.closed.set()
        self.socket.close()

    def _accept_loop(self) -> None:
        while not self.closed.is_set():
            try:
                client = self.socket.accept()
            except OSError:
                if not self.closed.is_set():
                    logger.exception("accept failed")
                    time.sleep(0.1)
                continue
            threading.Thread(target=self._serve_client, args=(client,), daemon=True).start()

    def _serve_client(self, client: TSocket) -> None:
        """Answer calls until the client leaves (a reset connection is a normal goodbye)."""
        threaded = self.threaded
        itrans = threaded.itrans_factory.get_transport(client)
        otrans = threaded.otrans_factory.get_transport(client)
        iprot = threaded.iprot_factory.get_protocol(itrans)
        oprot = threaded.oprot_factory.get_protocol(otrans)
        try:
            while True:
                threaded.processor.process(iprot, oprot)
        except (TTransportException, ConnectionError):
            pass
        except Exception:
            logger.exception("connection dropped after an unreadable request")
        finally:
            itrans.close()
            otrans.close()


def run(config: ServerConfig) -> None:
    """Serve until SIGTERM/SIGINT; take periodic snapshots and a final one."""
    gc.set_threshold(*GC_THRESHOLDS)
    folder = DataDir(config.data, sync=config.sync)
    store = folder.open()
    server = ThriftServer(Handler(store, host=config.host, port=config.port),
                          config.host, config.port)
    server.start()
    logger.info("serving %s on %s:%d", config.data, config.host, config.port)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    last_snapshot = time.monotonic()
    while not stop.wait(1.0):
        if _snapshot_due(store, config, time.monotonic() - last_snapshot):
            last_snapshot = time.monotonic()
            _try_snapshot(folder, store)
    server.stop()
    folder.close(store)
    logger.info("stopped")


def _try_snapshot(folder: DataDir, store: Store) -> None:
    """A periodic snapshot, written by a forked child while serving goes on; if it fails, the
    log still holds everything."""
    try:
        if not folder.snapshot_in_background(store):
            logger.debug("the last snapshot is still being written; skipping this one")
    except (OSError, StorageError):
        logger.exception("snapshot failed; the write-ahead log keeps every change")


def _snapshot_due(store: Store, config: ServerConfig, elapsed: float) -> bool:
    written = store.log.bytes_since_rotation if store.log is not None else 0
    return written >= config.snapshot_log_bytes or (written > 0
                                                   and elapsed >= config.snapshot_interval)
