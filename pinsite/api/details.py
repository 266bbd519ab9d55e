"""Read models the API assembles from several selectors: objects with their exact counts, and
follow entries with their users. Application-side joins, like the domain's own pages.

>>> user_detail("2522015791327477761")["follower_count"]
12
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from graph import selectors as graph
from graph.selectors import Follow
from pins import selectors as content
from pins.domain import Pin, timestamp_text


def user_detail(user_id: int | str) -> dict[str, Any]:
    """A user's profile and counts of boards, pins, followers and followings."""
    user = content.get_user(user_id)
    return {**asdict(user),
            "board_count": content.user_board_count(user.id),
            "pin_count": content.user_pin_count(user.id),
            "follower_count": graph.follower_count(user.id),
            "following_count": graph.following_count(user.id)}


def board_detail(board_id: int | str) -> dict[str, Any]:
    """A board with its pin and follower counts."""
    board = content.get_board(board_id)
    return {**asdict(board), "pin_count": content.board_pin_count(board.id),
            "follower_count": graph.board_follower_count(board.id)}


@dataclass(frozen=True)
class PinDetail:
    pin: Pin
    repin_count: int


def pin_detail(pin_id: int | str) -> PinDetail:
    """A pin with its repin count."""
    pin = content.get_pin(pin_id)
    return PinDetail(pin, content.repin_count(pin.id))


def follow_entries(follows: list[Follow]) -> list[dict[str, Any]]:
    """Follow entries with their users; entries of users deleted meanwhile are skipped."""
    users = content.users_by_id(follow.user_id for follow in follows)
    return [{"user": users[follow.user_id], "since": timestamp_text(follow.time_us),
             "explicit": follow.explicit}
            for follow in follows if follow.user_id in users]
