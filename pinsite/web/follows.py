"""Follow buttons: rows and cards whose button state comes from ONE batch check per page,
and the answer to pressing a button.

A page of people asks the graph once which of them the viewer follows
(``which_users_followed``); a page of boards asks once which boards the viewer follows
(``which_boards_followed``, implicit follows through the owner included). A pressed button is
answered with the new button (for the script) or a redirect back (without it).

>>> rows = people(viewer, profile.followers.page(limit=30))
>>> [(row.user.username, row.followed) for row in rows]
[('ada', True), ('grace', False)]
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from graph.managers import FollowTarget
from graph.selectors import FollowPage
from pins.domain import Board, Pin, User
from pins.exceptions import InvalidContent
from pins.models import Pinner
from pins.selectors import board_covers
from pinsite.web.acting import require_pinner
from pinsite.web.paging import is_fragment


@dataclass(frozen=True)
class PersonRow:
    """A pinner in a followers or following list."""

    user: User
    followed: bool
    explicit: bool
    is_viewer: bool


@dataclass(frozen=True)
class BoardCard:
    """A board in a list: its newest pin as the cover, and whether the viewer follows it."""

    board: Board
    cover: Pin | None
    followed: bool
    is_own: bool


def people(viewer: Pinner | None, page: FollowPage) -> list[PersonRow]:
    """The page's pinners that still exist, with the viewer's follow state of each."""
    explicit = {item.user_id: item.explicit for item in page.items}
    found = User.objects.in_bulk(page.ids)
    users = [found[user_id] for user_id in page.ids if user_id in found]
    viewer_id = viewer.user_id if viewer else None
    others = [user for user in users if user.id != viewer_id]
    followed = set(viewer.which_followed(others)) if viewer else set()
    return [PersonRow(user, user.id in followed, explicit[user.id], user.id == viewer_id)
            for user in users]


def board_cards(viewer: Pinner | None, boards: list[Board]) -> list[BoardCard]:
    """Cards for a page of boards, with the viewer's follow state of each."""
    viewer_id = viewer.user_id if viewer else None
    others = [board for board in boards if board.owner_id != viewer_id]
    followed = set(viewer.which_followed(others)) if viewer else set()
    covers = board_covers(board.id for board in boards)
    return [BoardCard(board, covers.get(board.id), board.id in followed,
                      board.owner_id == viewer_id) for board in boards]


def wants_follow(request: HttpRequest) -> bool:
    """``True`` for ``action=follow``, ``False`` for ``action=unfollow``; anything else is
    :class:`InvalidContent` (the 400 page)."""
    action = request.POST.get("action")
    if action not in ("follow", "unfollow"):
        raise InvalidContent("Choose to follow or to unfollow.", field="action")
    return action == "follow"


def change_follow(request: HttpRequest, target: FollowTarget, subject: str,
                  fallback: str) -> HttpResponse:
    """Follow or unfollow ``target`` (a pinner, a board or an interest) as the logged-in
    pinner, as the form asks (``action``), then :func:`follow_answer` with the button of
    ``subject``."""
    me = require_pinner(request)
    now_following = wants_follow(request)
    (me.follow if now_following else me.unfollow)(target)
    return follow_answer(request, {"following": now_following, "subject": subject}, fallback)


def follow_answer(request: HttpRequest, button: dict[str, object], fallback: str,
                  ) -> HttpResponse:
    """After a follow change: the new button for the script (posting to the same address),
    else back where the form was."""
    target = request.POST.get("next", "")
    if is_fragment(request):
        return render(request, "partials/follow_button.html",
                      {**button, "follow_url": request.path, "next_url": target})
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        target = fallback
    return redirect(target)
