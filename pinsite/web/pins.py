"""Pins: upload one, show one, repin it, delete it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from pins import actions
from pins.domain import Board, Pin
from pins.exceptions import InvalidContent, NotFound
from pins.interests import interest
from pins.related import related_pins
from pins.selectors import boards_of
from pinsite.web.acting import acting_user_id, require_pinner
from pinsite.web.errors import domain_errors
from pinsite.web.forms import PinForm, RepinForm, saved

CHOICE_BOARDS = 200
MORE_FROM_BOARD = 12
MORE_LIKE_THIS = 12


@login_required
@domain_errors
def create(request: HttpRequest) -> HttpResponse:
    """Upload an image as a new pin on one of the pinner's boards."""
    me = require_pinner(request)
    boards = _own_boards(me.user_id)
    if not boards:
        messages.info(request, "Create a board first: every pin lives on a board.")
        return redirect("board-create")
    form = PinForm(request.POST or None, request.FILES or None, boards=boards,
                   initial={"board": request.GET.get("board")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        pin = saved(form, lambda: actions.create_pin(
            me.user_id, int(data["board"]), data["title"], data["description"], data["link"],
            data["image"]))
        if pin is not None:
            messages.success(request, f"Pinned “{pin.title}”.")
            return redirect("pin", pin.id)
    return render(request, "pins/create.html", {"form": form})


@domain_errors
def detail(request: HttpRequest, pin_id: int) -> HttpResponse:
    """The image, its details, its board, a form to repin it, and related pins."""
    pin = Pin.objects.get(pin_id)
    viewer_id = acting_user_id(request)
    boards = _own_boards(viewer_id) if viewer_id else []
    return render(request, "pins/detail.html", {
        "pin": pin, "board": pin.board, "pinner": pin.pinner,
        "source": _source_of(pin), "repins": pin.repins.count(),
        "is_own": viewer_id == pin.pinner_id, "viewer_id": viewer_id,
        "interest": interest(pin.interest) if pin.interest else None,
        "related": [found for found, _ in related_pins(pin.id, limit=MORE_LIKE_THIS)],
        "repin_form": RepinForm(boards=boards) if boards else None,
        "more": [p for p in pin.board.pins.page(limit=MORE_FROM_BOARD + 1)
                 if p.id != pin.id][:MORE_FROM_BOARD],
    })


@require_POST
@login_required
@domain_errors
def repin(request: HttpRequest, pin_id: int) -> HttpResponse:
    """Save the pin to one of the pinner's boards."""
    me = require_pinner(request)
    source = Pin.objects.get(pin_id)
    form = RepinForm(request.POST, boards=_own_boards(me.user_id))
    if not form.is_valid():
        raise InvalidContent("Choose one of your boards to save the pin to.", field="board")
    saved = actions.repin(me.user_id, source.id, int(form.cleaned_data["board"]))
    messages.success(request, f"Saved “{saved.title}” to your board.")
    return redirect("pin", saved.id)


@login_required
@domain_errors
def delete(request: HttpRequest, pin_id: int) -> HttpResponse:
    """Ask for confirmation, then delete the pin (its pinner only)."""
    me = require_pinner(request)
    pin = Pin.objects.get(pin_id)
    if pin.pinner_id != me.user_id:
        raise PermissionDenied("Only the pinner who made this pin can delete it.")
    if request.method == "POST":
        actions.delete_pin(me.user_id, pin.id)
        messages.success(request, f"Pin “{pin.title}” deleted.")
        return redirect("board", pin.board_id)
    return render(request, "pins/delete.html", {"pin": pin})


def _own_boards(user_id: int) -> list[Board]:
    return boards_of(user_id, limit=CHOICE_BOARDS).items


def _source_of(pin: Pin) -> Pin | None:
    if pin.source_pin_id is None:
        return None
    try:
        return Pin.objects.get(pin.source_pin_id)
    except NotFound:
        return None
