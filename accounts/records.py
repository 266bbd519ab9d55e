"""What each file of a data export holds: one JSON record per profile, board, pin, follow and
interest, and the archive's ``README.txt`` that describes them to the pinner.

IDs are decimal strings, as in the API (JavaScript numbers cannot hold 64-bit IDs); times are
ISO 8601 in UTC, to the microsecond. A record names another object by ID and, where one is
at hand, by its name, so the files read without pinsite.

>>> board_record(board)
{'id': '144959613005987841', 'name': 'Quiche', 'description': '', 'interest': None,
 'created': '2024-06-10T08:00:00.123456+00:00'}
"""

from __future__ import annotations

from typing import Any

from graph.selectors import BoardFollow, Follow
from pins.domain import Board, Pin, User, timestamp_text
from pins.interests import Interest
from pins.models import Pinner

Record = dict[str, Any]


def profile_record(pinner: Pinner, user: User, exported_us: int) -> Record:
    """``profile.json``: the profile, the account's e-mail address and sign-up time."""
    return {"id": str(user.id), "username": user.username, "display_name": user.display_name,
            "about": user.about, "email": pinner.account.email,
            "created": user.created.isoformat(), "signed_up": pinner.created.isoformat(),
            "exported": timestamp_text(exported_us)}


def board_record(board: Board) -> Record:
    """One entry of ``boards.json``."""
    return {"id": str(board.id), "name": board.name, "description": board.description,
            "interest": board.interest, "created": board.created.isoformat()}


def pin_record(pin: Pin, board: Board | None, image: str | None) -> Record:
    """One entry of ``pins.json``; ``image`` is the picture's path inside the zip (``None``
    when its file could not be read)."""
    return {"id": str(pin.id), "board_id": str(pin.board_id),
            "board": None if board is None else board.name, "title": pin.title,
            "description": pin.description, "link": pin.link,
            "created": pin.created.isoformat(), "interest": pin.interest,
            "repin_of": None if pin.source_pin_id is None else str(pin.source_pin_id),
            "width": pin.width, "height": pin.height, "image": image}


def follow_record(follow: Follow, user: User | None) -> Record:
    """One entry of ``following.json`` or ``followers.json``."""
    return {"user_id": str(follow.user_id), "username": None if user is None else user.username,
            "since": timestamp_text(follow.time_us), "explicit": follow.explicit}


def board_follow_record(follow: BoardFollow, board: Board | None, owner: User | None) -> Record:
    """One entry of ``boards_followed.json`` or ``boards_unfollowed.json``."""
    return {"board_id": str(follow.board_id), "board": None if board is None else board.name,
            "owner_id": None if board is None else str(board.owner_id),
            "owner": None if owner is None else owner.username,
            "since": timestamp_text(follow.time_us)}


def interest_record(topic: Interest) -> Record:
    """One entry of ``interests.json``."""
    return {"slug": topic.slug, "name": topic.name}


README = """\
Your pinsite data
=================

This archive holds everything pinsite keeps about your account, as it was when the export
was prepared (the time is in profile.json, "exported"). Every file but the images is JSON
(UTF-8). IDs are strings of digits; times are ISO 8601, in UTC.

profile.json
    Your profile: id, username, display_name, about, email, created (your profile),
    signed_up (your account), exported.

boards.json
    Your boards, newest first: id, name, description, interest (a topic slug, or null),
    created.

pins.json
    Every pin you made, repins included, newest first: id, board_id and board (its name),
    title, description, link, created, interest, repin_of (the pin you repinned, or null),
    width and height of the image, and image: the path of the original image in this
    archive (null if its file could not be read).

images/<pin id>.<ext>
    The original image of each pin, byte for byte as it was uploaded (a repin's is the
    image of the pin it saves).

following.json
    The pinners you follow, newest first: user_id, username, since, and explicit: true when
    you follow the pinner (and so all their boards), false when you follow only some of
    their boards (those are in boards_followed.json).

followers.json
    Who follows you, newest first, in the same form: explicit is true when they follow
    you, false when they follow only some of your boards.

boards_followed.json
    The boards you follow one by one, newest first: board_id, board (its name), owner_id,
    owner (a username), since.

boards_unfollowed.json
    Boards of pinners you follow that you unfollowed one by one (so you do not follow
    them), in the same form; since is when you unfollowed the board.

interests.json
    The interests (topics) you follow: slug, name.

A username, board name or owner is null when that pinner or board no longer exists.
"""
