"""Boards: create, show with pins and followers, follow or unfollow, delete."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from pins.actions import create_board, delete_board, update_board
from pins.domain import Board
from pins.interests import interest
from pins.models import Pinner
from pinsite.web.acting import acting_pinner, require_pinner, viewer_context
from pinsite.web.errors import domain_errors
from pinsite.web.follows import change_follow, people
from pinsite.web.forms import BoardForm, saved
from pinsite.web.paging import (
    PEOPLE_PAGE,
    PIN_PAGE,
    cursor_of,
    is_fragment,
    more_url,
    render_page,
)


@login_required
@domain_errors
def create(request: HttpRequest) -> HttpResponse:
    """A new board of the logged-in pinner."""
    me = require_pinner(request)
    form = BoardForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        board = saved(form, lambda: create_board(me.user_id, data["name"], data["description"],
                                                 data["interest"]))
        if board is not None:
            messages.success(request, f"Board “{board.name}” created.")
            return redirect("board", board.id)
    return render(request, "boards/create.html", {"form": form})


@login_required
@domain_errors
def edit(request: HttpRequest, board_id: int) -> HttpResponse:
    """Rename the board, change its description or interest (owner only)."""
    me, board = _own_board(request, board_id, "change")
    initial = {"name": board.name, "description": board.description,
               "interest": board.interest or ""}
    form = BoardForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if saved(form, lambda: update_board(me.user_id, board.id, name=data["name"],
                                            description=data["description"],
                                            interest=data["interest"])) is not None:
            messages.success(request, f"Board “{data['name']}” saved.")
            return redirect("board", board.id)
    return render(request, "boards/edit.html", {"form": form, "board": board})


@domain_errors
def detail(request: HttpRequest, board_id: int) -> HttpResponse:
    """The board's pins, newest first."""
    context = _board(request, board_id, "pins")
    page = context["board"].pins.page(limit=PIN_PAGE, after=cursor_of(request))
    context.update(pins=page.items, more_url=more_url(request, page.next_cursor),
                   empty_text="No pins on this board yet.")
    return render_page(request, "boards/detail.html", "partials/pin_grid.html", context)


@domain_errors
def followers(request: HttpRequest, board_id: int) -> HttpResponse:
    """Who follows the board (explicitly, or through its owner), newest first."""
    context = _board(request, board_id, "followers")
    page = context["board"].followers.page(limit=PEOPLE_PAGE, after=cursor_of(request))
    context.update(rows=people(context["viewer"], page),
                   more_url=more_url(request, page.next_cursor),
                   empty_text="Nobody follows this board yet.",
                   partial_note=f"follows {context['owner'].username}")
    return render_page(request, "boards/followers.html", "partials/people_list.html", context)


@require_POST
@login_required
@domain_errors
def follow(request: HttpRequest, board_id: int) -> HttpResponse:
    """Follow or unfollow this one board (also one followed through its owner)."""
    board = Board.objects.get(board_id)
    return change_follow(request, board, board.name, reverse("board", args=[board.id]))


@login_required
@domain_errors
def delete(request: HttpRequest, board_id: int) -> HttpResponse:
    """Ask for confirmation, then delete the board with all its pins (owner only)."""
    me, board = _own_board(request, board_id, "delete")
    if request.method == "POST":
        deleted = delete_board(me.user_id, board.id)
        messages.success(request, f"Board “{board.name}” and its {deleted} pins deleted.")
        return redirect("profile", me.username)
    return render(request, "boards/delete.html",
                  {"board": board, "pin_count": board.pins.count()})


def _own_board(request: HttpRequest, board_id: int, verb: str) -> tuple[Pinner, Board]:
    """The acting pinner and their board, or a 403 saying only its owner may ``verb`` it."""
    me = require_pinner(request)
    board = Board.objects.get(board_id)
    if board.owner_id != me.user_id:
        raise PermissionDenied(f"Only the owner of this board can {verb} it.")
    return me, board


def _board(request: HttpRequest, board_id: int, tab: str) -> dict[str, Any]:
    """The board and the viewer; for a full page also the header: owner, exact counts and
    the viewer's follow state (a fragment for the script only needs the list)."""
    board = Board.objects.get(board_id)
    viewer = acting_pinner(request)
    context: dict[str, Any] = {"board": board, "tab": tab, "owner": board.owner,
                               **viewer_context(viewer)}
    if not is_fragment(request):
        context.update(_header(board, viewer))
    return context


def _header(board: Board, viewer: Pinner | None) -> dict[str, Any]:
    is_own = viewer is not None and viewer.user_id == board.owner_id
    following = through_owner = False
    if viewer is not None and not is_own:
        following = board.followers.contains(viewer)
        through_owner = following and viewer.following.kind(board.owner_id) == "explicit"
    return {
        "is_own": is_own, "following": following, "through_owner": through_owner,
        "interest": interest(board.interest) if board.interest else None,
        "counts": {"pins": board.pins.count(), "followers": board.followers.count()},
        "follow_url": reverse("board-follow", args=[board.id]),
    }
