"""What Redis Sentinel says about the graph's Redis pairs, and asking it to fail one over.

Sentinels are configured by address (``PINSITE_GRAPH["SENTINELS"]``). Every question goes to
each of them; per group, the answer with the highest configuration epoch wins, so a
sentinel that missed the latest promotion is outvoted by one that saw it.

>>> masters()["redis001"].address
('127.0.0.1', 13381)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from graph.conf import graph_settings
from graph.exceptions import GraphError, GraphUnavailable

TIMEOUT = 1.0


@dataclass(frozen=True)
class GroupState:
    """One monitored group as the most up-to-date sentinel sees it."""

    group: str
    address: tuple[str, int]
    epoch: int
    failover_in_progress: bool
    down: bool


def configured() -> list[tuple[str, int]]:
    """The sentinels' addresses (none: the graph's pairs are not watched by Sentinel)."""
    return [(str(host), int(port)) for host, port in graph_settings.SENTINELS]


def masters() -> dict[str, GroupState]:
    """``group → state`` of every group any sentinel monitors (highest epoch wins)."""
    found: dict[str, GroupState] = {}
    for reply in _ask_all(lambda client: client.sentinel_masters()):
        for group, state in reply.items():
            seen = GroupState(group, (str(state["ip"]), int(state["port"])),
                              int(state.get("config-epoch", 0)),
                              "failover_in_progress" in str(state.get("flags", "")),
                              bool(state.get("is_sdown") or state.get("is_odown")))
            if group not in found or seen.epoch > found[group].epoch:
                found[group] = seen
    return found


def replicas(group: str) -> list[dict[str, Any]]:
    """The replicas of ``group`` as the first answering sentinel knows them."""
    return list(_ask_first(lambda client: client.sentinel_slaves(group)))


def failover(group: str) -> None:
    """``SENTINEL FAILOVER group``: a sentinel promotes the group's best replica now."""
    _ask_first(lambda client: client.sentinel_failover(group))


UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


def _ask_all(question: Any) -> list[Any]:
    replies, errors = [], []
    for address in configured():
        try:
            with _client(address) as client:
                replies.append(question(client))
        except UNREACHABLE as exc:
            errors.append(f"{address[0]}:{address[1]}: {exc}")
    if not replies:
        raise GraphUnavailable("no Redis Sentinel answers (" + "; ".join(errors) + ")")
    return replies


def _ask_first(question: Any) -> Any:
    errors = []
    for address in configured():
        try:
            with _client(address) as client:
                return question(client)
        except UNREACHABLE as exc:
            errors.append(f"{address[0]}:{address[1]}: {exc}")
        except redis.exceptions.ResponseError as exc:
            raise GraphError(f"Redis Sentinel {address[0]}:{address[1]} refused: {exc}") \
                from exc
    raise GraphUnavailable("no Redis Sentinel answers (" + "; ".join(errors) + ")")


def _client(address: tuple[str, int]) -> redis.Redis:
    return redis.Redis(host=address[0], port=address[1], socket_timeout=TIMEOUT,
                       socket_connect_timeout=TIMEOUT, decode_responses=True)
