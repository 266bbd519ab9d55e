"""Reading the graph: calls on the master of one vshard, in one round trip each.

A read that fails because its instance went away is tried once more if a fresh vshard map
names another master (after a promotion or a move); otherwise it raises
:class:`~graph.exceptions.GraphUnavailable`.

>>> score(17, "g:{17}:u:1153:fwe", 2305)
1718000000000000.0
>>> execute(17, [("zcard", "g:{17}:u:1153:fre"), ("zcard", "g:{17}:u:1153:fri")])
[12, 3]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

import redis

from graph import topology
from graph.exceptions import GraphUnavailable, InvalidGraphInput
from graph.store.connections import client
from graph.store.errors import DriverError, graph_error

T = TypeVar("T")
Cursor = tuple[int, str]
Scored = tuple[str, int]

READ_COMMANDS = frozenset({
    "zscore", "zmscore", "zcard", "scard", "hlen", "get", "exists", "sismember", "smismember",
    "hexists", "hget", "hmget", "hgetall", "smembers",
})


def _read(vshard: int, call: Callable[[redis.Redis], T]) -> T:
    instance = topology.master_for(vshard)
    try:
        return call(client(instance))
    except DriverError as exc:
        error = graph_error(instance, exc)
        if not isinstance(error, GraphUnavailable):
            raise error from exc
        fresh = topology.refresh().master_for(vshard)
        if fresh == instance:
            raise error from exc
    try:
        return call(client(fresh))
    except DriverError as exc:
        raise graph_error(fresh, exc) from exc


def score(vshard: int, key: str, member: int) -> float | None:
    """``ZSCORE``: the member's score, or None."""
    return _read(vshard, lambda c: c.zscore(key, member))  # type: ignore[return-value]


def scores(vshard: int, key: str, members: Sequence[int]) -> list[float | None]:
    """``ZMSCORE``: the scores of ``members`` (None where absent), in one call."""
    return _read(vshard, lambda c: c.zmscore(key, list(members)))  # type: ignore


def execute(vshard: int, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
    """Run read ``commands`` (``(name, *args)``) in one pipeline; their replies in order."""
    _check_reads(commands)
    return _read(vshard, partial(_pipelined, commands=commands))


def execute_many(commands: Mapping[int, Sequence[tuple[Any, ...]]]) -> dict[int, list[Any]]:
    """:func:`execute` of several vshards' read commands (vshard → commands): the commands of
    the vshards one instance serves go in one pipeline, a round trip an instance. An instance
    that fails is asked again a vshard at a time, as :func:`execute` asks."""
    _check_reads([command for found in commands.values() for command in found])
    vshard_map = topology.current_map()
    by_instance: dict[str, list[int]] = {}
    for vshard in commands:
        by_instance.setdefault(vshard_map.master_for(vshard), []).append(vshard)
    replies: dict[int, list[Any]] = {}
    for instance, vshards in by_instance.items():
        try:
            answers = iter(_pipelined(client(instance), [command for vshard in vshards
                                                         for command in commands[vshard]]))
        except DriverError:
            replies.update((vshard, execute(vshard, commands[vshard])) for vshard in vshards)
            continue
        for vshard in vshards:
            replies[vshard] = [next(answers) for _ in commands[vshard]]
    return replies


def _check_reads(commands: Sequence[tuple[Any, ...]]) -> None:
    for name, *_ in commands:
        if name not in READ_COMMANDS:
            raise InvalidGraphInput(f"{name} is not a graph read")


def _pipelined(c: redis.Redis, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
    """``commands`` run in one pipeline (one round trip); their replies in order."""
    pipe = c.pipeline(transaction=False)
    for name, *args in commands:
        getattr(pipe, name)(*args)
    return pipe.execute()


def newest(vshard: int, keys: Sequence[str], after: Cursor | None,
           count: int) -> dict[str, list[Scored]]:
    """Up to ``count`` members of each sorted set, newest first (score, then member, both
    descending), strictly after ``after``; one round trip unless many share a score."""
    found: dict[str, list[Scored]] = {key: [] for key in keys}
    offsets = dict.fromkeys(keys, 0)
    while offsets:
        replies = _read(vshard, lambda c: _ranges(c, offsets, after, count))
        for key, reply in zip(list(offsets), replies, strict=True):
            found[key] += [(m, int(s)) for m, s in reply if _is_after(m, int(s), after)]
            offsets[key] += len(reply)
            if len(reply) < count or len(found[key]) >= count:
                del offsets[key]
    return {key: entries[:count] for key, entries in found.items()}


def _ranges(c: redis.Redis, offsets: dict[str, int], after: Cursor | None,
            count: int) -> list[Any]:
    pipe = c.pipeline(transaction=False)
    top = "+inf" if after is None else after[0]
    for key, offset in offsets.items():
        pipe.zrange(key, top, "-inf", desc=True, byscore=True,  # type: ignore[arg-type]
                    offset=offset, num=count, withscores=True)
    return pipe.execute()


def _is_after(member: str, time_us: int, after: Cursor | None) -> bool:
    return after is None or (time_us, member) < after


def hash_chunks(vshard: int, key: str, count: int) -> Iterator[dict[str, str]]:
    """A hash in chunks of about ``count`` fields (``HSCAN``; a field may repeat if the hash
    is resized meanwhile)."""
    cursor = 0
    while True:
        cursor, chunk = _read(vshard, partial(_hscan, key=key, position=cursor, count=count))
        if chunk:
            yield chunk
        if cursor == 0:
            return


def _hscan(c: redis.Redis, key: str, position: int, count: int) -> tuple[int, dict[str, str]]:
    position, chunk = c.hscan(key, position, count=count)  # type: ignore[misc]
    return int(position), dict(chunk)  # type: ignore[arg-type]
