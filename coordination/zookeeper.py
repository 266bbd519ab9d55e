"""The process's ZooKeeper client, paths under this deployment's root, and small JSON nodes.

>>> write_json("orchestrator/status", {"leader": "host:12"})
>>> read_json("orchestrator/status")
{'leader': 'host:12'}
>>> append_json("orchestrator/history", {"kind": "promoted"}, keep=200)
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, KazooException, NodeExistsError, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import KazooState
from kazoo.retry import KazooRetry

from coordination.conf import coordination_settings
from coordination.exceptions import CoordinationUnavailable

log = logging.getLogger("pinsite.coordination")


class ZooKeeper:
    """The process's kazoo client: created on first use, recreated after a fork."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._client: KazooClient | None = None
        self._connected = threading.Event()
        self._pid = 0
        self._gave_up = False

    def client(self) -> KazooClient:
        """The client, started in the background on first use (it reconnects by itself)."""
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                self._client = KazooClient(
                    hosts=coordination_settings.ZK_HOSTS,
                    timeout=10.0,
                    connection_retry=KazooRetry(max_tries=-1, max_delay=2.0),
                    command_retry=KazooRetry(max_tries=2, max_delay=1.0),
                )
                self._pid = os.getpid()
                self._connected = self._client.start_async()
                self._gave_up = False
            return self._client

    def require(self) -> KazooClient:
        """The connected client, or :class:`CoordinationUnavailable`."""
        client = self.connected_client()
        if client is None:
            raise CoordinationUnavailable(
                f"ZooKeeper at {coordination_settings.ZK_HOSTS} is unreachable")
        return client

    def connected_client(self, timeout: float | None = None) -> KazooClient | None:
        """The client if it is (or within ``timeout``, by default the connect timeout, becomes)
        connected, else ``None``. Once a whole connect timeout passed without a connection,
        later calls answer at once until ZooKeeper is reached again (kazoo keeps trying in the
        background): a process pays one timeout per outage, not one for each node it reads."""
        client = self.client()
        if client.state == KazooState.CONNECTED:
            self._gave_up = False
            return client
        if not self._gave_up:
            wait = connect_timeout() if timeout is None else timeout
            if not self._connected.wait(wait) and timeout is None:
                self._gave_up = True
                log.warning("ZooKeeper at %s not reached within %gs; reads use their "
                            "last-known-good copies until it is", coordination_settings.ZK_HOSTS,
                            wait)
        return client if client.state == KazooState.CONNECTED else None

    def connected(self, timeout: float) -> bool:
        """Whether this process has (or within ``timeout`` gets) a ZooKeeper session."""
        return self.connected_client(timeout=timeout) is not None

    def stop(self) -> None:
        """Close the client (tests, and process shutdown)."""
        with self._lock:
            if self._client is not None and self._pid == os.getpid():
                self._client.stop()
                self._client.close()
            self._client = None


zookeeper = ZooKeeper()


def connect_timeout() -> float:
    """How long a call waits on ZooKeeper (``CONNECT_TIMEOUT``)."""
    return coordination_settings.decimal("CONNECT_TIMEOUT")


@contextmanager
def failing_closed(action: str) -> Iterator[None]:
    """Turn ZooKeeper failures into :class:`CoordinationUnavailable` (let node errors
    through)."""
    try:
        yield
    except (NodeExistsError, BadVersionError, NoNodeError):
        raise  # answers about the node, not failures of ZooKeeper
    except (KazooException, KazooTimeoutError) as exc:
        raise CoordinationUnavailable(f"cannot {action}: ZooKeeper failed ({exc!r})") from exc


def root_path(name: str) -> str:
    """The ZooKeeper path of ``name`` under this deployment's root (``ZK_ROOT``)."""
    return f"{coordination_settings.ZK_ROOT.rstrip('/')}/{name}"


def read_json(name: str, default: Any = None) -> Any:
    """The JSON value of node ``name`` (under the root); ``default`` when it does not exist
    or is empty."""
    with failing_closed(f"read {root_path(name)}"):
        try:
            raw, _ = zookeeper.require().get(root_path(name))
        except NoNodeError:
            return default
    return json.loads(raw) if raw else default


def write_json(name: str, value: Any) -> None:
    """Set node ``name`` (under the root) to ``value`` as JSON, creating it if need be."""
    client, path, raw = zookeeper.require(), root_path(name), json.dumps(value).encode()
    with failing_closed(f"write {path}"):
        try:
            client.set(path, raw)
        except NoNodeError:
            client.ensure_path(path)
            client.set(path, raw)


def append_json(name: str, entry: Any, keep: int) -> None:
    """Append ``entry`` to the JSON list of node ``name`` (under the root), keeping the newest
    ``keep``: compare-and-set, read again after a race."""
    client, path = zookeeper.require(), root_path(name)
    with failing_closed(f"append to {path}"):
        client.ensure_path(path)
        while True:
            raw, stat = client.get(path)
            entries = json.loads(raw) if raw else []
            try:
                client.set(path, json.dumps([*entries, entry][-keep:]).encode(),
                           version=stat.version)
                return
            except BadVersionError:
                continue


def create_node(path: str, raw: bytes) -> None:
    """Create the node at the absolute ``path`` holding ``raw`` (and its parents)."""
    with failing_closed(f"create {path}"):
        zookeeper.require().create(path, raw, makepath=True)


def delete_tree(path: str) -> None:
    """Delete the node at the absolute ``path`` and everything under it (a test's or a
    bench's own root); nothing when it does not exist."""
    with failing_closed(f"delete {path}"):
        zookeeper.require().delete(path, recursive=True)
