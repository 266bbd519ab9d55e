"""Redis key names of the graph: ``g:{<vshard>}:<u|b>:<id>:<kind>``.

The vshard sits in a hash tag, so every key of one vshard (a user, that user's boards and the
vshard's fence) would share a slot in Redis Cluster too, and tools can find a vshard's keys by
pattern. Kinds per user and per board, as in the source:

=====  ==========================================================  ======
kind   what                                                        type
=====  ==========================================================  ======
u fwe  users followed explicitly (score: action time, µs)          ZSET
u fwi  users followed implicitly (one or more of their boards)     ZSET
u fre  explicit followers                                          ZSET
u fri  implicit followers (follow some boards, not the user)       ZSET
u bfe  boards followed explicitly                                  SET
u bue  boards unfollowed explicitly (of users followed)            SET
b fre  the board's explicit followers (follower → time)            HASH
b ufe  the board's explicit unfollowers                            SET
b ovl  explicit board followers who also follow the owner (count)  STRING
=====  ==========================================================  ======

>>> user_key(241294492511762325, FOLLOWING)
'g:{3429}:u:241294492511762325:fwe'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graph.vshards import vshard_of

FOLLOWING, IMPLICIT_FOLLOWING = "fwe", "fwi"
FOLLOWERS, IMPLICIT_FOLLOWERS = "fre", "fri"
BOARDS_FOLLOWED, BOARDS_UNFOLLOWED = "bfe", "bue"
BOARD_FOLLOWERS, BOARD_UNFOLLOWERS, BOARD_OVERLAP = "fre", "ufe", "ovl"
FENCE = "mv"

USER_KINDS = (FOLLOWING, IMPLICIT_FOLLOWING, FOLLOWERS, IMPLICIT_FOLLOWERS, BOARDS_FOLLOWED,
              BOARDS_UNFOLLOWED)
BOARD_KINDS = (BOARD_FOLLOWERS, BOARD_UNFOLLOWERS, BOARD_OVERLAP)
FOLLOWER_SIDE_KINDS = (FOLLOWING, IMPLICIT_FOLLOWING, BOARDS_FOLLOWED, BOARDS_UNFOLLOWED)
"""A user's keys that their own edge-log rows decide alone."""
STAMP = "graph:stamp"
"""A plain key each master carries outside the vshards' keys: when the orchestrator last
wrote to it (µs). A replica holds every write its master made before the stamp it shows."""

KeyType = Literal["zset", "set", "hash", "count"]
Value = dict[int, int] | set[int] | int
"""A key's content: sorted set or hash ``{id: int}``, set ``{id}``, counter ``int``."""
USER_TYPES: dict[str, KeyType] = {FOLLOWING: "zset", IMPLICIT_FOLLOWING: "zset",
                                  FOLLOWERS: "zset", IMPLICIT_FOLLOWERS: "zset",
                                  BOARDS_FOLLOWED: "set", BOARDS_UNFOLLOWED: "set"}
BOARD_TYPES: dict[str, KeyType] = {BOARD_FOLLOWERS: "hash", BOARD_UNFOLLOWERS: "set",
                                   BOARD_OVERLAP: "count"}

_PATTERN = re.compile(r"^g:\{(\d+)\}:([ub]):(\d+):([a-z]+)$")


@dataclass(frozen=True)
class GraphKey:
    """A parsed graph key."""

    vshard: int
    owner: Literal["u", "b"]
    object_id: int
    kind: str

    @property
    def type(self) -> KeyType:
        return (USER_TYPES if self.owner == "u" else BOARD_TYPES)[self.kind]


def user_key(user_id: int, kind: str) -> str:
    return f"g:{{{vshard_of(user_id)}}}:u:{user_id}:{kind}"


def board_key(board_id: int, kind: str) -> str:
    return f"g:{{{vshard_of(board_id)}}}:b:{board_id}:{kind}"


RECONCILING = "reconciling"
"""The fence of a promoted instance's vshards while they are rebuilt from the edge log."""


def fence_key(vshard: int) -> str:
    """The vshard's fence: absent normally, ``moving:<to>``, ``fenced``, ``moved:<to>`` or
    ``reconciling``."""
    return f"g:{{{vshard}}}:{FENCE}"


def vshard_pattern(vshard: int | None = None) -> str:
    """A ``SCAN MATCH`` pattern for one vshard's keys (or every graph key)."""
    return "g:*" if vshard is None else f"g:{{{vshard}}}:*"


def parse(key: str) -> GraphKey | None:
    """The parts of a graph data key; None for fences and foreign keys."""
    match = _PATTERN.match(key)
    if match is None or match.group(4) == FENCE:
        return None
    vshard, owner, object_id, kind = match.groups()
    kinds = USER_TYPES if owner == "u" else BOARD_TYPES
    if kind not in kinds:
        return None
    return GraphKey(int(vshard), owner, int(object_id), kind)  # type: ignore[arg-type]


def vshard_of_key(key: str) -> int | None:
    """The vshard in a graph key's hash tag (fences included)."""
    match = re.match(r"^g:\{(\d+)\}:", key)
    return int(match.group(1)) if match else None


def user_keys(user_id: int) -> list[str]:
    return [user_key(user_id, kind) for kind in USER_KINDS]


def board_keys(board_id: int) -> list[str]:
    return [board_key(board_id, kind) for kind in BOARD_KINDS]
