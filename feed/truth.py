"""The following feed that should be, computed from the source of truth: the edge log (who
follows what, since when) and the followed boards' pins, with the design's rules applied.

The edge log, not the graph's Redis, says which boards a pinner follows (boards followed one
by one, and the boards of users followed less those unfollowed), so a Redis that lost or
missed a change does not hide a wrong feed. Of those boards, the pins of pulled (celebrity)
boards are merged when the feed is read and are never required in a row; the rest are
*pushed*, and the feed should hold their newest pins, as a rebuild would write them
(:func:`feed.rebuild.targets` computes the same from Redis). Deleted pins are gone from the
boards' lists, so they are in no expected feed.

>>> truth = expected(alice)
>>> truth.entries[0].pin_id, truth.board_of[truth.entries[0].pin_id]
(241294492511762325, 241294492511760001)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from feed import pulled, sources, trim
from feed.schema import Entry, newest_first
from feed.sources import FollowedBoard


@dataclass(frozen=True)
class Expected:
    """What one pinner's following feed should hold, and the records it comes from."""

    entries: list[Entry]
    """The newest :func:`~feed.trim.keep` pins of the pushed boards followed, newest first."""
    board_of: dict[int, int]
    """``pin → board`` of :attr:`entries`."""
    boards: dict[int, FollowedBoard]
    """Every board followed (pulled ones too), with the follow that makes it so."""
    unfollowed: dict[int, int]
    """``board → time`` of the boards of followed users that the pinner unfollowed."""

    def created_us(self, pin_id: int) -> int | None:
        """The creation time of an expected entry's pin (None if not expected)."""
        entry = self.by_pin.get(pin_id)
        return None if entry is None else entry.created_us

    @cached_property
    def by_pin(self) -> dict[int, Entry]:
        return {entry.pin_id: entry for entry in self.entries}

    def since(self, pin_id: int, created_us: int) -> int:
        """Since when the entry of ``pin_id`` belongs in the feed: its creation, or the
        follow of its board if that came later."""
        board = self.boards.get(self.board_of.get(pin_id, 0))
        return created_us if board is None else max(created_us, board.since_us)


def expected(user_id: int) -> Expected:
    """The feed ``user_id`` should have now."""
    return expected_many([user_id])[user_id]


def expected_many(user_ids: Sequence[int]) -> dict[int, Expected]:
    """:func:`expected` of several pinners, the pins of all their boards read together."""
    size = trim.keep()
    now_pulled = frozenset(pulled.current())
    logged = {user: sources.followed_boards_logged(user) for user in user_ids}
    pushed = {board for found in logged.values() for board in found.followed
              if board not in now_pulled}
    pins = sources.newest_pins(pushed, size + 1)
    found = {}
    for user, log in logged.items():
        mine = [board for board in log.followed if board not in now_pulled]
        board_of = {entry.pin_id: board for board in mine for entry in pins[board]}
        entries = newest_first(list({entry for board in mine for entry in pins[board]}))[:size]
        found[user] = Expected(
            entries=entries, board_of={entry.pin_id: board_of[entry.pin_id] for entry in entries},
            boards=log.followed, unfollowed=log.unfollowed)
    return found
