"""A pinner's profile: boards, pins, followers and following, and following the pinner."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from pins.domain import User
from pins.models import Pinner
from pins.selectors import pinner_by_username
from pinsite.web.acting import acting_pinner, viewer_context
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
    page = context["profile"].boards.page(limit=BOARD_PAGE, after=cursor_of(request))
    context.update(cards=board_cards(context["viewer"], page.items),
                   more_url=more_url(request, page.next_cursor))
    return render_page(request, "profiles/boards.html", "partials/board_grid.html", context)


@domain_errors
def pins(request: HttpRequest, username: str) -> HttpResponse:
    """Every pin the pinner made, newest first."""
    context = _profile(request, username, "pins")
    page = context["profile"].pins.page(limit=PIN_PAGE, after=cursor_of(request))
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
    return change_follow(request, target, target.username,
                         reverse("profile", args=[target.username]))


def _people(request: HttpRequest, username: str, tab: str) -> HttpResponse:
    context = _profile(request, username, tab)
    profile: User = context["profile"]
    people_of = profile.followers if tab == "followers" else profile.following
    page = people_of.page(limit=PEOPLE_PAGE, after=cursor_of(request))
    context.update(rows=people(context["viewer"], page),
                   more_url=more_url(request, page.next_cursor), **PEOPLE_TEXT[tab])
    return render_page(request, "profiles/people.html", "partials/people_list.html", context)


def _profile(request: HttpRequest, username: str, tab: str) -> dict[str, Any]:
    """The pinner and the viewer; for a full page also the header: exact counts and the
    viewer's follow state (a fragment for the script only needs the list)."""
    profile = User.objects.get(username=username)
    viewer = acting_pinner(request)
    context: dict[str, Any] = {"profile": profile, "tab": tab, **viewer_context(viewer)}
    if not is_fragment(request):
        context.update(_header(profile, viewer))
    return context


def _header(profile: User, viewer: Pinner | None) -> dict[str, Any]:
    is_own = viewer is not None and viewer.user_id == profile.id
    kind = viewer.following.kind(profile) if viewer is not None and not is_own else None
    return {
        "is_own": is_own, "follows_all": kind == "explicit", "follows_some": kind == "implicit",
        "counts": {"boards": profile.boards.count(), "pins": profile.pins.count(),
                   "followers": profile.followers.count(),
                   "following": profile.following.count()},
        "follow_url": reverse("profile-follow", args=[profile.username]),
        "interests": list(profile.interests.iterator()),
    }
