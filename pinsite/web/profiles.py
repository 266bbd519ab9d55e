"""A pinner's profile: boards, pins, followers and following, and following the pinner."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from graph.actions import follow_user, unfollow_user
from graph.interests import followed_interests
from graph.selectors import (
    follow_kind,
    follower_count,
    followers_page,
    following_count,
    followings_page,
)
from pins.selectors import (
    boards_of,
    get_user,
    pinner_by_username,
    pins_of_user,
    user_board_count,
    user_pin_count,
)
from pinsite.web.acting import acting_user_id
from pinsite.web.errors import domain_errors
from pinsite.web.follows import board_cards, change_follow, people
from pinsite.web.paging import (
    BOARD_PAGE,
    PEOPLE_PAGE,
    PIN_PAGE,
    cursor_of,
    is_fragment,
    more_url,
    render_page,
)

PEOPLE_TEXT = {
    "followers": {"empty_text": "No followers yet.", "partial_note": "follows some boards"},
    "following": {"empty_text": "Not following anyone yet.", "partial_note": "some boards"},
}


@domain_errors
def boards(request: HttpRequest, username: str) -> HttpResponse:
    """The pinner's boards, newest first, each with its cover and a follow button."""
    context = _profile(request, username, "boards")
    page = boards_of(context["profile"].id, limit=BOARD_PAGE, after=cursor_of(request))
    context.update(cards=board_cards(context["viewer_id"], page.items),
                   more_url=more_url(request, page.next_cursor))
    return render_page(request, "profiles/boards.html", "partials/board_grid.html", context)


@domain_errors
def pins(request: HttpRequest, username: str) -> HttpResponse:
    """Every pin the pinner made, newest first."""
    context = _profile(request, username, "pins")
    page = pins_of_user(context["profile"].id, limit=PIN_PAGE, after=cursor_of(request))
    context.update(pins=page.items, more_url=more_url(request, page.next_cursor),
                   empty_text="No pins yet.")
    return render_page(request, "profiles/pins.html", "partials/pin_grid.html", context)


@domain_errors
def followers(request: HttpRequest, username: str) -> HttpResponse:
    """Who follows the pinner (or some of their boards), newest first."""
    return _people(request, username, "followers")


@domain_errors
def following(request: HttpRequest, username: str) -> HttpResponse:
    """Whom the pinner follows (or some of whose boards), newest first."""
    return _people(request, username, "following")


@require_POST
@login_required
@domain_errors
def follow(request: HttpRequest, username: str) -> HttpResponse:
    """Follow or unfollow the pinner (and so all their boards)."""
    target = pinner_by_username(username)
    return change_follow(request, follow_user, unfollow_user, target.user_id, target.username,
                         reverse("profile", args=[target.username]))


def _people(request: HttpRequest, username: str, tab: str) -> HttpResponse:
    context = _profile(request, username, tab)
    read = followers_page if tab == "followers" else followings_page
    page = read(context["profile"].id, limit=PEOPLE_PAGE, cursor=cursor_of(request))
    context.update(rows=people(context["viewer_id"], page),
                   more_url=more_url(request, page.next_cursor), **PEOPLE_TEXT[tab])
    return render_page(request, "profiles/people.html", "partials/people_list.html", context)


def _profile(request: HttpRequest, username: str, tab: str) -> dict[str, Any]:
    """The pinner and the viewer; for a full page also the header: exact counts and the
    viewer's follow state (a fragment for the script only needs the list)."""
    profile = get_user(pinner_by_username(username).user_id)
    viewer_id = acting_user_id(request)
    context: dict[str, Any] = {"profile": profile, "tab": tab, "viewer_id": viewer_id}
    if not is_fragment(request):
        context.update(_header(profile.id, profile.username, viewer_id))
    return context


def _header(user_id: int, username: str, viewer_id: int | None) -> dict[str, Any]:
    is_own = viewer_id == user_id
    kind = follow_kind(viewer_id, user_id) if viewer_id is not None and not is_own else None
    return {
        "is_own": is_own, "follows_all": kind == "explicit", "follows_some": kind == "implicit",
        "counts": {"boards": user_board_count(user_id), "pins": user_pin_count(user_id),
                   "followers": follower_count(user_id), "following": following_count(user_id)},
        "follow_url": reverse("profile-follow", args=[username]),
        "interests": followed_interests(user_id),
    }
