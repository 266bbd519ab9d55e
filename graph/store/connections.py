"""One redis-py connection pool per Redis instance per process, created on first use.

Pools are never created at import time and are created again in a forked child, so a
pre-forking server never shares sockets between processes.

>>> client("redis001a").ping()
True
"""

from __future__ import annotations

import os
import threading

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graph.conf import graph_settings
from graph.topology import address_of


class Pools:
    """``instance name → redis.Redis`` (each with its own pool) for the current process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[str, redis.Redis] = {}
        self._pid = 0

    def client(self, instance: str) -> redis.Redis:
        if self._pid == os.getpid():
            found = self._clients.get(instance)
            if found is not None:
                return found
        with self._lock:
            if self._pid != os.getpid():
                self._clients, self._pid = {}, os.getpid()
            if instance not in self._clients:
                self._clients[instance] = _new_client(instance)
            return self._clients[instance]

    def close(self) -> None:
        """Disconnect every pool of this process (tests, shutdown)."""
        with self._lock:
            if self._pid == os.getpid():
                for found in self._clients.values():
                    found.close()
            self._clients = {}


def _new_client(instance: str) -> redis.Redis:
    host, port = address_of(instance)
    return redis.Redis(
        host=host, port=port, decode_responses=True,
        socket_timeout=float(graph_settings.SOCKET_TIMEOUT),
        socket_connect_timeout=float(graph_settings.CONNECT_TIMEOUT),
        retry=Retry(NoBackoff(), 1), client_name="pinsite-graph",
    )


pools = Pools()
client = pools.client
