"""Named locks on a shard's MySQL host (``GET_LOCK``), held by this thread's session there.

A lock serialises work that spans stores (a row written on the shard, then Redis updated) for
one key. It is taken on the host of the shard the key lives on, so it moves with the shard,
and released when the block ends (or when the session dies, by MySQL itself).

>>> with named_lock(shard_of(user), f"pinsite.graph.{user}", seconds=5):
...     ...  # nobody else holds that name on the host until here

A lease held across calls (the event relay's, one per host) uses :func:`try_lock`,
:func:`holds_lock` and :func:`unlock` on a host alias instead.

With ``ahead`` the lock request is sent without waiting for its answer (one round trip less
on a hot path): the block's first statement on the same host reads that answer, and a lock
not granted fails that statement, so it must be inside the block's transaction there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from sharding.exceptions import ShardingError
from sharding.hosts import alias_for_shard, cursor, send_unanswered
from sharding.mysql.pipeline import AnswerRejected

NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


class LockNotGranted(ShardingError):
    """Another session held the lock for longer than the wait allowed."""


@contextmanager
def named_lock(shard: int, name: str, seconds: float, ahead: bool = False) -> Iterator[None]:
    """Hold the lock ``name`` on ``shard``'s master for the block, waiting up to ``seconds``
    for it (:class:`LockNotGranted` after that). The release is sent without waiting."""
    with named_locks(shard, [name], seconds, ahead):
        yield


@contextmanager
def named_locks(shard: int, names: Sequence[str], seconds: float, ahead: bool = False,
                ) -> Iterator[None]:
    """Hold every lock of ``names`` on ``shard``'s master for the block (the locks of many
    keys on one host, for a bulk write there): taken in the order given by one statement,
    each waiting up to ``seconds``, and released together by one. A lock not granted raises
    :class:`LockNotGranted` once the others are released again."""
    for name in names:
        if not NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a lock name (letters, digits, '_.:-', at most 64)")
    if not names:
        yield
        return
    alias = alias_for_shard(shard)
    take = "SELECT " + ", ".join(f"GET_LOCK('{name}', {float(seconds)})" for name in names)
    shown = names[0] if len(names) == 1 else f"{names[0]} (of {len(names)})"
    refused = f"the lock {shown} was not granted within {seconds:g}s"
    try:
        if ahead:
            send_unanswered(alias, take, check=_granted)
        else:
            with cursor(alias) as c:
                c.execute(take)
                if any(granted != 1 for granted in c.fetchone()):
                    raise LockNotGranted(refused)
        yield
    except ShardingError as exc:
        if ahead and _caused_by(exc, AnswerRejected):
            raise LockNotGranted(refused) from exc
        raise
    finally:
        with suppress(ShardingError):
            send_unanswered(alias, "DO " + ", ".join(f"RELEASE_LOCK('{name}')"
                                                      for name in names))


def try_lock(alias: str, name: str) -> bool:
    """Take ``name`` on the host ``alias`` if it is free, for this thread's session there,
    until :func:`unlock` or until the session ends (a killed holder frees it at once)."""
    with cursor(alias) as c:
        c.execute("SELECT GET_LOCK(%s, 0)", [name])
        return bool(c.fetchone()[0] == 1)


def holds_lock(alias: str, name: str) -> bool:
    """Whether this thread's session on ``alias`` holds ``name``."""
    with cursor(alias) as c:
        c.execute("SELECT IS_USED_LOCK(%s) = CONNECTION_ID()", [name])
        return bool(c.fetchone()[0] == 1)


def unlock(alias: str, name: str) -> None:
    with cursor(alias) as c:
        c.execute("SELECT RELEASE_LOCK(%s)", [name])


def _granted(result: Any) -> None:
    rows = result.fetch_row()
    if len(rows) != 1 or any(granted != 1 for granted in rows[0]):
        raise AnswerRejected("a lock was not granted")


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, kind):
            return True
        cause = cause.__cause__ or cause.__context__
    return False
