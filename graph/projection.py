"""What Redis must hold for a set of edge-log rows: the pure model behind verify and rebuild.

The online path (:mod:`graph.updates`) and this projection implement the same rules; the
stateful property test and the repair test hold them to each other.

* ``A follows T``: ``fwe(A)[T]`` and ``fre(T)[A]`` at the follow time.
* ``A follows board X`` of owner ``O``: ``bfe(A) ∋ X``, ``fre(X)[A]`` (hash) at that time.
* ``A unfollowed X`` (only recorded while A follows O): ``bue(A) ∋ X`` and ``ufe(X) ∋ A``.
* ``A`` follows some of ``O``'s boards but not ``O``: ``fwi(A)[O]`` and ``fri(O)[A]`` at the
  earliest of those board follows.
* ``ovl(X)``: how many of X's explicit followers also follow X's owner.

>>> project(LogRows(user_follows=[(alice, bob, 5)]), owners={})
{'g:{1}:u:alice:fwe': {bob: 5}, 'g:{2}:u:bob:fre': {alice: 5}}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from graph.keys import (
    BOARD_FOLLOWERS,
    BOARD_OVERLAP,
    BOARD_UNFOLLOWERS,
    BOARDS_FOLLOWED,
    BOARDS_UNFOLLOWED,
    FOLLOWERS,
    FOLLOWING,
    IMPLICIT_FOLLOWERS,
    IMPLICIT_FOLLOWING,
    Value,
    board_key,
    user_key,
    vshard_of_key,
)

Row = tuple[int, int, int]


@dataclass
class LogRows:
    """Rows of the three edge-log tables: ``(from_id, to_id, sequence)``."""

    user_follows: set[Row] = field(default_factory=set)
    board_follows: set[Row] = field(default_factory=set)
    board_unfollows: set[Row] = field(default_factory=set)

    def boards(self) -> set[int]:
        return {row[1] for row in (*self.board_follows, *self.board_unfollows)}

    def update(self, other: LogRows) -> None:
        self.user_follows |= other.user_follows
        self.board_follows |= other.board_follows
        self.board_unfollows |= other.board_unfollows

    def total(self) -> int:
        return len(self.user_follows) + len(self.board_follows) + len(self.board_unfollows)


def project(rows: LogRows, owners: dict[int, int]) -> dict[str, Value]:
    """Every graph key the rows imply, with its value (boards without an owner are skipped)."""
    state: dict[str, Value] = {}
    explicit = {(a, t) for a, t, _ in rows.user_follows}
    for follower, target, time_us in rows.user_follows:
        _score(state, user_key(follower, FOLLOWING), target, time_us)
        _score(state, user_key(target, FOLLOWERS), follower, time_us)
    earliest: dict[tuple[int, int], int] = {}
    for follower, board, time_us in rows.board_follows:
        owner = owners.get(board)
        if owner is None:
            continue
        _member(state, user_key(follower, BOARDS_FOLLOWED), board)
        _score(state, board_key(board, BOARD_FOLLOWERS), follower, time_us)
        pair = (follower, owner)
        earliest[pair] = min(time_us, earliest.get(pair, time_us))
        if pair in explicit:
            _count(state, board_key(board, BOARD_OVERLAP))
    for follower, board, _ in rows.board_unfollows:
        if board in owners:
            _member(state, user_key(follower, BOARDS_UNFOLLOWED), board)
            _member(state, board_key(board, BOARD_UNFOLLOWERS), follower)
    for (follower, owner), time_us in earliest.items():
        if (follower, owner) not in explicit:
            _score(state, user_key(follower, IMPLICIT_FOLLOWING), owner, time_us)
            _score(state, user_key(owner, IMPLICIT_FOLLOWERS), follower, time_us)
    return state


def orphans(rows: LogRows, owners: dict[int, int]) -> int:
    """Rows that name a board no longer in the object store."""
    return sum(1 for row in (*rows.board_follows, *rows.board_unfollows) if row[1] not in owners)


def within(state: dict[str, Value], vshards: Iterable[int] | None) -> dict[str, Value]:
    """The keys of ``state`` in ``vshards`` (all when None)."""
    if vshards is None:
        return state
    wanted = set(vshards)
    return {key: value for key, value in state.items() if vshard_of_key(key) in wanted}


def _score(state: dict[str, Value], key: str, member: int, time_us: int) -> None:
    state.setdefault(key, {})[member] = time_us  # type: ignore[index]


def _member(state: dict[str, Value], key: str, member: int) -> None:
    state.setdefault(key, set()).add(member)  # type: ignore[union-attr]


def _count(state: dict[str, Value], key: str) -> None:
    state[key] = int(state.get(key, 0)) + 1  # type: ignore[arg-type]
