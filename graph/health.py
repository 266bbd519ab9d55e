"""Operator views of the graph's Redis side: how each instance answers, and the raw sizes of a
user's and a board's sets (for the admin and ``manage.py graph vshards show``).

>>> instance_health("redis001a").role
'master'
>>> user_set_sizes(alice)["fe"]
3
"""

from __future__ import annotations

from dataclasses import dataclass

from graph import keys
from graph.exceptions import GraphError
from graph.store import admin, reads
from graph.vshards import vshard_of

USER_SETS: tuple[tuple[str, str], ...] = (
    (keys.FOLLOWING, "zcard"),
    (keys.IMPLICIT_FOLLOWING, "zcard"),
    (keys.FOLLOWERS, "zcard"),
    (keys.IMPLICIT_FOLLOWERS, "zcard"),
    (keys.BOARDS_FOLLOWED, "scard"),
    (keys.BOARDS_UNFOLLOWED, "scard"),
)


@dataclass(frozen=True)
class InstanceHealth:
    """One Redis instance as it answers now (``up`` False when it does not)."""

    name: str
    up: bool
    role: str | None = None
    link: str | None = None
    lag_bytes: int | None = None
    keys: int | None = None
    used_memory: int | None = None


def instance_health(name: str, master: str | None = None) -> InstanceHealth:
    """How ``name`` answers; for a replica whose ``master`` is given, how many bytes of the
    master's replication stream it has not applied yet (``lag_bytes``)."""
    if not admin.ping(name):
        return InstanceHealth(name, up=False)
    try:
        replication = admin.replication(name)
        keyspace = admin.info(name, "keyspace").get("db0", {})
        memory = admin.used_memory(name)
    except GraphError:
        return InstanceHealth(name, up=False)
    lag = None
    if replication.get("role") == "slave" and master is not None:
        lag = _lag(master, int(replication.get("slave_repl_offset", 0)))
    count = int(keyspace.get("keys", 0)) if isinstance(keyspace, dict) else 0
    return InstanceHealth(name, True, replication.get("role"),
                          replication.get("master_link_status"), lag, count, memory)


def _lag(master: str, applied: int) -> int | None:
    """The master's replication offset minus what the replica applied (as failover waits for);
    None when the master does not answer."""
    try:
        return max(0, int(admin.replication(master).get("master_repl_offset", 0)) - applied)
    except GraphError:
        return None


def user_set_sizes(user_id: int) -> dict[str, int]:
    """``Redis key → size`` of each of the user's six sets, in :data:`USER_SETS` order."""
    names = [keys.user_key(user_id, kind) for kind, _ in USER_SETS]
    sizes = reads.execute(vshard_of(user_id), [(command, name) for name, (_, command)
                                               in zip(names, USER_SETS, strict=True)])
    return {name: int(size) for name, size in zip(names, sizes, strict=True)}


def board_set_sizes(board_id: int) -> tuple[int, int, int]:
    """Explicit followers, explicit unfollowers, and followers who also follow the owner."""
    explicit, unfollowers, overlap = reads.execute(vshard_of(board_id), [
        ("hlen", keys.board_key(board_id, keys.BOARD_FOLLOWERS)),
        ("scard", keys.board_key(board_id, keys.BOARD_UNFOLLOWERS)),
        ("get", keys.board_key(board_id, keys.BOARD_OVERLAP))])
    return int(explicit), int(unfollowers), int(overlap or 0)


def unreachable(address: tuple[str, int]) -> str | None:
    """Why a Redis server at ``address`` cannot be reached (None: it answers)."""
    return admin.unreachable(address)
