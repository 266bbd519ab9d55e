"""Raw Redis calls of the feeds' observations, the fanouts' (:mod:`feed.observe`) and the
smart feed's health (:mod:`feed.smart.health`): one client per process from the cache alias
``observations`` (``settings.CACHES``: a database of the cache Redis, short timeouts), made
on first use, and the Lua scripts that close a fanout exactly once.

Driver errors become :class:`~feed.exceptions.ObservationsUnavailable`.

>>> finish("fo:123:primary", "4", "obs:1700000000", "deliveries:primary", 3, "lag:primary:40", 3700)
1
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from django.conf import settings
from django.core.cache import caches

from feed.exceptions import ObservationsUnavailable
from toolkit.processes import ProcessLocal

T = TypeVar("T")
ALIAS = "observations"
"""The cache alias of the observations' Redis database."""
PLAN = "plan"
"""The planner's token in a fanout's set: the fanout cannot close while planning goes on."""
CLOSED = "closed"
"""The member a fanout's set keeps once it closed: a late duplicate then finds it closed."""
CLOSED_KEEP_SECONDS = 600
"""How long a closed fanout's set stays (duplicates come within minutes; a later one only
counts its deliveries again), so the sets of busy hours do not pile up in Redis."""

# KEYS: one outstanding set per cluster   ARGV: keep seconds, members...
REGISTER = f"""
for _, key in ipairs(KEYS) do
  if redis.call('SISMEMBER', key, '{CLOSED}') == 0 then
    redis.call('SADD', key, unpack(ARGV, 2))
    redis.call('EXPIRE', key, ARGV[1])
  end
end
"""

# KEYS: outstanding set, bucket hash
# ARGV: member, count field, count, lag field, bucket keep seconds, closed set keep seconds
# Returns 0: nothing recorded (a duplicate, or a closed fanout), 1: counted, 2: counted and
# the fanout closed (its lag recorded).
FINISH = f"""
if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then
  if redis.call('EXISTS', KEYS[1]) == 1 or ARGV[1] == '{PLAN}' then return 0 end
  if tonumber(ARGV[3]) > 0 then
    redis.call('HINCRBY', KEYS[2], ARGV[2], ARGV[3])
    redis.call('EXPIRE', KEYS[2], ARGV[5])
  end
  return 1
end
if tonumber(ARGV[3]) > 0 then redis.call('HINCRBY', KEYS[2], ARGV[2], ARGV[3]) end
local closed = 1
if redis.call('SCARD', KEYS[1]) == 0 then
  redis.call('SADD', KEYS[1], '{CLOSED}')
  redis.call('EXPIRE', KEYS[1], ARGV[6])
  redis.call('HINCRBY', KEYS[2], ARGV[4], 1)
  closed = 2
end
redis.call('EXPIRE', KEYS[2], ARGV[5])
return closed
"""

def _connect() -> tuple[redis.Redis, dict[str, Any]]:
    connection: redis.Redis = caches[ALIAS].client.get_client(write=True)  # type: ignore[attr-defined]
    return connection, {"register": connection.register_script(REGISTER),
                        "finish": connection.register_script(FINISH)}


_connection = ProcessLocal(_connect)


def client() -> redis.Redis:
    """This process's client (a fresh one after a fork)."""
    return _connection.get()[0]


def reset() -> None:
    """Forget this process's client (tests that move the ``observations`` alias)."""
    _connection.clear()


def register(keys: Sequence[str], members: Sequence[str], keep_seconds: int) -> None:
    """Add ``members`` to every set of ``keys`` that has not closed yet."""
    _call(lambda: _script("register")(keys=list(keys), args=[keep_seconds, *members]))


def finish(key: str, member: str, bucket: str, count_field: str, count: int,
           lag_field: str, keep_seconds: int) -> int:
    """Take ``member`` out of ``key``; see :data:`FINISH` for what it records and returns."""
    return int(_call(lambda: _script("finish")(
        keys=[key, bucket],
        args=[member, count_field, count, lag_field, keep_seconds, CLOSED_KEEP_SECONDS])))


@dataclass(frozen=True)
class Sample:
    """A value pushed onto the list ``key``, which keeps its newest ``keep`` values."""

    key: str
    value: str
    keep: int


def increment(bucket: str, amounts: Mapping[str, int], keep_seconds: int, *,
              sample: Sample | None = None) -> None:
    """Add each of ``amounts`` to its field of a bucket and, with ``sample``, push it onto
    its list (both kept ``keep_seconds``, one pipelined round trip)."""
    def run() -> None:
        pipe = client().pipeline(transaction=False)
        for field, amount in amounts.items():
            pipe.hincrby(bucket, field, amount)
        pipe.expire(bucket, keep_seconds)
        if sample is not None:
            pipe.lpush(sample.key, sample.value)
            pipe.ltrim(sample.key, 0, sample.keep - 1)
            pipe.expire(sample.key, keep_seconds)
        pipe.execute()
    _call(run)


def claim(bucket: str, field: str, keep_seconds: int) -> bool:
    """Set ``field`` of a bucket unless it is set: True for the one caller that set it."""
    def run() -> bool:
        pipe = client().pipeline(transaction=False)
        pipe.hsetnx(bucket, field, "1")
        pipe.expire(bucket, keep_seconds)
        return bool(pipe.execute()[0])
    return _call(run)


def store(bucket: str, values: Mapping[str, int], keep_seconds: int) -> None:
    """Set several fields of a bucket."""
    def run() -> None:
        pipe = client().pipeline(transaction=False)
        if values:
            pipe.hset(bucket, mapping=dict(values))
        pipe.expire(bucket, keep_seconds)
        pipe.execute()
    _call(run)


def read(buckets: Sequence[str]) -> list[dict[str, str]]:
    """Every field of each bucket, in order (empty for a bucket that expired or never was)."""
    def run() -> list[dict[str, str]]:
        pipe = client().pipeline(transaction=False)
        for bucket in buckets:
            pipe.hgetall(bucket)
        return list(pipe.execute())
    return _call(run)


def read_with_samples(buckets: Sequence[str], lists: Sequence[str],
                      ) -> tuple[list[dict[str, str]], list[list[str]]]:
    """Every field of each bucket and every value of each list, in order (one round trip)."""
    def run() -> tuple[list[dict[str, str]], list[list[str]]]:
        pipe = client().pipeline(transaction=False)
        for bucket in buckets:
            pipe.hgetall(bucket)
        for key in lists:
            pipe.lrange(key, 0, -1)
        replies = pipe.execute()
        return list(replies[:len(buckets)]), list(replies[len(buckets):])
    return _call(run)


def members(key: str) -> set[str]:
    """The members of the set ``key`` (empty when it does not exist)."""
    return _call(lambda: set(client().smembers(key)))  # type: ignore[arg-type]


def add_point(key: str, score: float, value: str, keep: float) -> None:
    """Add ``value`` at ``score`` to the sorted set ``key``, dropping the points scored below
    ``score - keep`` (one pipelined round trip)."""
    def run() -> None:
        pipe = client().pipeline(transaction=False)
        pipe.zadd(key, {value: score})
        pipe.zremrangebyscore(key, "-inf", f"({score - keep}")
        pipe.execute()
    _call(run)


def points(key: str, since: float, newest: int | None = None) -> list[str]:
    """The values of the sorted set ``key`` scored at or after ``since``, oldest first; with
    ``newest``, only that many of the newest."""
    def run() -> list[str]:
        pipe = client().pipeline(transaction=False)
        if newest is not None:
            pipe.zrevrangebyscore(key, "+inf", since, start=0, num=newest)
            return list(reversed(pipe.execute()[0]))
        pipe.zrangebyscore(key, since, "+inf")
        return list(pipe.execute()[0])
    return _call(run)


def _script(name: str) -> Any:
    return _connection.get()[1][name]


def _call(run: Callable[[], T]) -> T:
    try:
        return run()
    except (redis.RedisError, OSError) as exc:
        raise ObservationsUnavailable(
            f"the feed's observations cannot be reached in Redis "
            f"({settings.CACHES[ALIAS]['LOCATION']}): {type(exc).__name__}: {exc}") from exc
