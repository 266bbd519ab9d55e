"""One redis-py connection pool per Redis instance per process, created on first use.

Pools are never created at import time and are created again in a forked child, so a
pre-forking server never shares sockets between processes.

>>> client("redis001a").ping()
True
"""

from __future__ import annotations

from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.client import Pipeline
from redis.retry import Retry

from graph.conf import graph_settings
from graph.topology import address_of
from toolkit.metrics import store_call
from toolkit.processes import PerProcess


class Pools:
    """``instance name → redis.Redis`` (each with its own pool) for the current process."""

    def __init__(self) -> None:
        self._clients: PerProcess[str, redis.Redis] = PerProcess(_new_client)

    def client(self, instance: str) -> redis.Redis:
        return self._clients.get(instance)

    def close(self) -> None:
        """Disconnect every pool of this process (tests, shutdown)."""
        for found in self._clients.mine():
            found.close()
        self._clients.clear()


class TimedRedis(redis.Redis):
    """A client whose every command (and every pipeline, as one call) is timed under its
    instance (``pinsite_store_call_seconds{backend="redis"}``)."""

    instance = ""

    def execute_command(self, *args: Any, **options: Any) -> Any:
        with store_call("redis", self.instance):
            return super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        return TimedPipeline(self.connection_pool, self.response_callbacks, transaction,
                             shard_hint, instance=self.instance)


class TimedPipeline(Pipeline):
    def __init__(self, *args: Any, instance: str) -> None:
        super().__init__(*args)
        self.instance = instance

    def execute(self, raise_on_error: bool = True) -> Any:
        with store_call("redis", self.instance):
            return super().execute(raise_on_error)


def _new_client(instance: str) -> redis.Redis:
    host, port = address_of(instance)
    client = TimedRedis(
        host=host, port=port, decode_responses=True,
        socket_timeout=graph_settings.decimal("SOCKET_TIMEOUT"),
        socket_connect_timeout=graph_settings.decimal("CONNECT_TIMEOUT"),
        retry=Retry(NoBackoff(), 1), client_name="pinsite-graph",
    )
    client.instance = instance
    return client


pools = Pools()
client = pools.client
