"""One happybase connection pool per HBase cluster per process, created on first use.

The following feed is written to the ``primary`` and ``standby`` clusters (:data:`CLUSTERS`);
the smart feed's pools live on a third cluster, ``pools`` (:data:`POOLS`), which the feed's
fanout never writes. Calls name their table, the feed's by default.

Pools are never created at import time and are dropped when the process forks (a Dramatiq
worker process, a test subprocess), so connections are never shared across processes. Every
driver error becomes :class:`~feed.exceptions.FeedUnavailable`, with the original as
``__cause__``.

>>> with table("primary") as hbase:
...     hbase.row(b"\\x00" * 8)
{}
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from typing import Literal, TypeVar

import happybase
from happybase.pool import NoConnectionsAvailable
from thriftpy2.thrift import TException
from thriftpy2.transport import TTransportException

from feed.conf import feed_settings
from feed.exceptions import FeedUnavailable
from feed.schema import table_name
from toolkit.metrics import store_call
from toolkit.processes import PerProcess

T = TypeVar("T")
Cluster = Literal["primary", "standby"]
CLUSTERS: tuple[Cluster, ...] = ("primary", "standby")
AnyCluster = Literal["primary", "standby", "pools"]
POOLS: AnyCluster = "pools"
SETTING: dict[str, str] = {"primary": "PRIMARY", "standby": "STANDBY", "pools": "POOLS"}
DRIVER_ERRORS = (TException, OSError, socket.timeout, EOFError, NoConnectionsAvailable)
# Creating a table runs a procedure on the cluster's master: seconds, not milliseconds.
DDL_TIMEOUT_MS = 60_000
# What the Thrift (v1) gateway speaks: buffered transport, binary protocol.
WIRE: dict[str, str] = {"transport": "buffered", "protocol": "binary", "compat": "0.98"}


def _new_pool(where: tuple[str, int]) -> happybase.ConnectionPool:
    host, port = where
    return happybase.ConnectionPool(feed_settings.number("POOL_SIZE"), host=host, port=port,
                                    autoconnect=False, timeout=feed_settings.number("TIMEOUT_MS"),
                                    **WIRE)


_pools: PerProcess[tuple[str, int], happybase.ConnectionPool] = PerProcess(_new_pool)


def address(cluster: AnyCluster) -> tuple[str, int]:
    """The ``(host, port)`` of a cluster's Thrift server, from the settings."""
    if cluster not in SETTING:
        raise ValueError(f"unknown HBase cluster {cluster!r}")
    host, port = getattr(feed_settings, SETTING[cluster])
    return str(host), int(port)


def feed_table() -> str:
    return table_name(feed_settings.text("TABLE_PREFIX"))


@contextmanager
def connection(cluster: AnyCluster) -> Iterator[happybase.Connection]:
    """A pooled connection to ``cluster``; driver errors raise :class:`FeedUnavailable`."""
    try:
        with _pool(cluster).connection(timeout=feed_settings.decimal("POOL_WAIT_SECONDS")) as conn:
            yield conn
    except DRIVER_ERRORS as exc:
        raise _unavailable(cluster, exc) from exc


@contextmanager
def ddl_connection(cluster: AnyCluster) -> Iterator[happybase.Connection]:
    """A connection of its own to ``cluster`` for table definitions, which wait for the
    master (:data:`DDL_TIMEOUT_MS`); driver errors raise :class:`FeedUnavailable`."""
    host, port = address(cluster)
    try:
        with closing(happybase.Connection(host, port, timeout=DDL_TIMEOUT_MS, **WIRE)) as conn:
            yield conn
    except DRIVER_ERRORS as exc:
        raise _unavailable(cluster, exc) from exc


@contextmanager
def table(cluster: Cluster) -> Iterator[happybase.Table]:
    """The feed table on ``cluster``, through a pooled connection."""
    with connection(cluster) as conn:
        yield conn.table(feed_table())


def run(cluster: AnyCluster, operation: Callable[[happybase.Table], T], *,
        idempotent: bool = True, table: str | None = None) -> T:
    """Run ``operation`` on ``table`` (the feed table by default) of ``cluster``. A pooled
    connection that went stale (the server restarted) fails once and is replaced; an
    idempotent operation is then tried once more on the fresh connection."""
    name = table or feed_table()
    attempts = 2 if idempotent else 1
    for attempt in range(attempts):
        try:
            with store_call("hbase", cluster), _pool(cluster).connection(
                    timeout=feed_settings.decimal("POOL_WAIT_SECONDS")) as conn:
                return operation(conn.table(name))
        except DRIVER_ERRORS as exc:
            if attempt + 1 < attempts and _stale(exc):
                continue
            raise _unavailable(cluster, exc) from exc
    raise AssertionError("unreachable")


def reset() -> None:
    """Forget every pool of this process (their connections close when collected)."""
    _pools.clear()


def _pool(cluster: AnyCluster) -> happybase.ConnectionPool:
    """The pool of the cluster's current address (settings may change in tests)."""
    try:
        return _pools.get(address(cluster))
    except DRIVER_ERRORS as exc:
        raise _unavailable(cluster, exc) from exc


def _stale(exc: BaseException) -> bool:
    """A connection the server closed (restart): end of file or reset on first use."""
    if isinstance(exc, TTransportException):
        return exc.type == TTransportException.END_OF_FILE
    return isinstance(exc, ConnectionResetError | BrokenPipeError | EOFError)


def _unavailable(cluster: AnyCluster, exc: BaseException) -> FeedUnavailable:
    host, port = address(cluster)
    return FeedUnavailable(f"HBase {cluster} ({host}:{port}) failed: {_detail(exc)}")


def _detail(exc: BaseException) -> str:
    """The first line of the error: an HBase ``IOError`` carries the server's whole Java
    stack trace as its message."""
    detail = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    if isinstance(detail, bytes):
        detail = detail.decode(errors="replace")
    return str(detail).strip().splitlines()[0]
