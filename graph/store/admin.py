"""Instance-level operations: key scans, typed reads and writes of whole keys, fences,
copies between instances, replication control and memory figures.

Used by verify/rebuild, vshard moves, promotion and the benchmark; never on a request path.
Key values are plain Python: a sorted set or hash is ``{member: int}``, a set ``{member}``
and a counter an ``int`` (members are IDs, so ints).

>>> read_values("redis001a", ["g:{17}:u:1153:fwe"])
{'g:{17}:u:1153:fwe': {2305: 1718000000000000}}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import redis

from graph import keys as graph_keys
from graph.keys import Value
from graph.store.connections import client
from graph.store.errors import translated
from graph.store.scripts import scripts

BATCH = 500


def unreachable(address: tuple[str, int]) -> str | None:
    """Why a Redis server at ``address`` does not answer ``PING`` (None: it answers)."""
    try:
        with redis.Redis(host=address[0], port=address[1], socket_timeout=2,
                         socket_connect_timeout=2) as probe:
            probe.ping()
    except redis.exceptions.RedisError as exc:
        return str(exc)
    return None


def ping(instance: str) -> bool:
    """True if the instance answers (errors mean no)."""
    try:
        with translated(instance):
            return bool(client(instance).ping())
    except Exception:
        return False


def info(instance: str, section: str) -> dict[str, Any]:
    with translated(instance):
        return dict(client(instance).info(section))  # type: ignore[arg-type]


def used_memory(instance: str) -> int:
    return int(info(instance, "memory")["used_memory"])


def scan_keys(instance: str, pattern: str) -> Iterator[str]:
    """Every key matching ``pattern`` (``SCAN``; a key may repeat if the keyspace resizes)."""
    with translated(instance):
        yield from client(instance).scan_iter(match=pattern, count=1000)


def read_values(instance: str, key_names: Sequence[str]) -> dict[str, Value]:
    """The values of graph data keys that exist (absent keys are left out)."""
    found: dict[str, Value] = {}
    for start in range(0, len(key_names), BATCH):
        chunk = key_names[start:start + BATCH]
        with translated(instance):
            pipe = client(instance).pipeline(transaction=False)
            for name in chunk:
                _queue_read(pipe, name)
            replies = pipe.execute()
        found.update({name: value for name, reply in zip(chunk, replies, strict=True)
                      if (value := _decode(name, reply)) is not None})
    return found


def _queue_read(pipe: Any, name: str) -> None:
    kind = _type_of(name)
    if kind == "zset":
        pipe.zrange(name, 0, -1, withscores=True)
    elif kind == "hash":
        pipe.hgetall(name)
    elif kind == "set":
        pipe.smembers(name)
    else:
        pipe.get(name)


def _decode(name: str, reply: Any) -> Value | None:
    kind = _type_of(name)
    if kind == "zset":
        return {int(m): int(s) for m, s in reply} or None
    if kind == "hash":
        return {int(f): int(v) for f, v in reply.items()} or None
    if kind == "set":
        return {int(m) for m in reply} or None
    return None if reply is None else int(reply)


def _type_of(name: str) -> str:
    parsed = graph_keys.parse(name)
    if parsed is None:
        raise ValueError(f"{name} is not a graph data key")
    return parsed.type


def replace_keys(instance: str, delete: Iterable[str], values: dict[str, Value]) -> None:
    """Delete ``delete`` and write ``values`` in one MULTI/EXEC transaction."""
    with translated(instance):
        pipe = client(instance).pipeline(transaction=True)
        doomed = list(delete)
        if doomed:
            pipe.unlink(*doomed)
        for name, value in values.items():
            _queue_write(pipe, name, value)
        pipe.execute()


def write_values(instance: str, values: dict[str, Value], batch: int = 2000) -> None:
    """Write whole keys (adding to what exists), pipelined in batches (bulk loads)."""
    items = list(values.items())
    for start in range(0, len(items), batch):
        with translated(instance):
            pipe = client(instance).pipeline(transaction=False)
            for name, value in items[start:start + batch]:
                _queue_write(pipe, name, value)
            pipe.execute()


def _queue_write(pipe: Any, name: str, value: Value) -> None:
    kind = _type_of(name)
    if isinstance(value, int):
        pipe.set(name, value)
    elif isinstance(value, set):
        for chunk in _chunks(sorted(value), 1000):
            pipe.sadd(name, *chunk)
    else:
        for chunk in _chunks(sorted(value.items()), 1000):
            mapping = {str(member): number for member, number in chunk}
            if kind == "zset":
                pipe.zadd(name, mapping)
            else:
                pipe.hset(name, mapping=mapping)


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def delete_keys(instance: str, key_names: Sequence[str]) -> int:
    deleted = 0
    for chunk in _chunks(list(key_names), BATCH):
        with translated(instance):
            deleted += int(client(instance).unlink(*chunk))  # type: ignore[arg-type]
    return deleted


def read_members(instance: str, pairs: Sequence[tuple[str, int]]) -> list[int | bool | None]:
    """For each ``(key, member)``: the member's score or hash value, True for a set member,
    None when absent."""
    with translated(instance):
        pipe = client(instance).pipeline(transaction=False)
        for name, member in pairs:
            kind = _type_of(name)
            if kind == "zset":
                pipe.zscore(name, member)
            elif kind == "hash":
                pipe.hget(name, str(member))
            else:
                pipe.sismember(name, str(member))
        replies = pipe.execute()
    return [_member_value(name, reply) for (name, _), reply in zip(pairs, replies, strict=True)]


def _member_value(name: str, reply: Any) -> int | bool | None:
    if _type_of(name) == "set":
        return True if reply else None
    return None if reply is None else int(reply)


def set_member(instance: str, name: str, member: int, value: int | bool | None) -> None:
    """Make ``member`` absent (``None``) or present, with ``value`` as its score or hash value
    (``True`` for a set)."""
    kind = _type_of(name)
    with translated(instance):
        c = client(instance)
        if value is None:
            {"zset": c.zrem, "set": c.srem, "hash": c.hdel}[kind](name, str(member))
        elif kind == "zset":
            c.zadd(name, {str(member): int(value)})  # type: ignore[arg-type]
        elif kind == "hash":
            c.hset(name, str(member), int(value))  # type: ignore[arg-type]
        else:
            c.sadd(name, member)


def recount_overlap(instance: str, board_followers: str, owner_followers: str,
                    overlap: str) -> int:
    """Recompute a board's overlap counter from its two sets (same vshard, atomic)."""
    with translated(instance):
        return int(scripts.run("recount_overlap", client(instance),
                               [board_followers, owner_followers, overlap], []))


def set_fences(instance: str, vshards: Iterable[int], mark: str, seconds: float | None) -> None:
    """Set the fence of each vshard to ``mark`` (expiring after ``seconds`` if given)."""
    with translated(instance):
        pipe = client(instance).pipeline(transaction=False)
        for vshard in vshards:
            pipe.set(graph_keys.fence_key(vshard), mark,
                     px=None if seconds is None else int(seconds * 1000))
        pipe.execute()


def clear_fences(instance: str, vshards: Iterable[int]) -> None:
    names = [graph_keys.fence_key(vshard) for vshard in vshards]
    delete_keys(instance, names)


def write_stamp(instance: str, name: str, value: int) -> None:
    """Set the plain key ``name`` to ``value`` (a time stamp that replicates with the data)."""
    with translated(instance):
        client(instance).set(name, value)


def read_stamp(instance: str, name: str) -> int | None:
    """The value of the plain key ``name``, or None when it is not set."""
    with translated(instance):
        found: Any = client(instance).get(name)
    return None if found is None else int(found)


def migrate(source: str, target: tuple[str, int], key_names: Sequence[str],
            timeout_ms: int = 10_000) -> None:
    """Copy keys to ``target`` with ``MIGRATE ... COPY REPLACE`` (atomic on the source)."""
    host, port = target
    for chunk in _chunks(list(key_names), 100):
        with translated(source):
            client(source).execute_command("MIGRATE", host, port, "", 0, timeout_ms, "COPY",
                                           "REPLACE", "KEYS", *chunk)


def promote_replica(instance: str) -> None:
    """``REPLICAOF NO ONE``: the replica becomes a writable master."""
    with translated(instance):
        client(instance).execute_command("REPLICAOF", "NO", "ONE")


def follow_master(instance: str, master: tuple[str, int]) -> None:
    """``REPLICAOF host port``: the instance drops its data and replicates ``master``."""
    with translated(instance):
        client(instance).execute_command("REPLICAOF", master[0], master[1])


def pause_writes(instance: str, seconds: float) -> None:
    with translated(instance):
        client(instance).execute_command("CLIENT", "PAUSE", int(seconds * 1000), "WRITE")


def unpause(instance: str) -> None:
    with translated(instance):
        client(instance).execute_command("CLIENT", "UNPAUSE")


def replication(instance: str) -> dict[str, Any]:
    return info(instance, "replication")


def flush(instance: str) -> None:
    """Delete every key of the instance (repair drills and tests)."""
    with translated(instance):
        client(instance).flushall()


def raw_client(instance: str) -> redis.Redis:
    """The pooled redis-py client itself, for benchmarks that measure the raw ceiling."""
    return client(instance)
