"""Driver errors → :mod:`graph.exceptions`, keeping the original as ``__cause__``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import redis.exceptions

from graph.exceptions import GraphError, GraphFenced, GraphUnavailable

FENCED_PREFIX = "GRAPHFENCED vshard is "
"""How a write script refuses a fenced vshard; its fence's value follows."""

DriverError = redis.exceptions.RedisError


@contextmanager
def translated(instance: str) -> Iterator[None]:
    """Run a Redis call on ``instance``, raising graph errors instead of redis-py's."""
    try:
        yield
    except DriverError as exc:
        raise graph_error(instance, exc) from exc


def graph_error(instance: str, exc: redis.exceptions.RedisError) -> GraphError:
    """The graph error for a redis-py error raised by ``instance`` (raise it ``from exc``)."""
    if isinstance(exc, redis.exceptions.ReadOnlyError):
        return GraphUnavailable(f"Redis {instance} is a read-only replica now")
    if isinstance(exc, redis.exceptions.ResponseError):
        return _response_error(instance, exc)
    return GraphUnavailable(f"Redis {instance} failed: {exc}")


def _response_error(instance: str, exc: redis.exceptions.ResponseError) -> GraphError:
    message = str(exc)
    if "GRAPHFENCED" in message:
        return GraphFenced(f"Redis {instance}: {message}",
                           mark=message.partition(FENCED_PREFIX)[2] or None)
    if message.startswith(("LOADING", "MASTERDOWN", "NOREPLICAS")):
        return GraphUnavailable(f"Redis {instance} cannot serve: {message}")
    return GraphError(f"Redis {instance} rejected a command: {message}")
