"""Ownership checks: only a board's owner changes it or pins to it; only a pin's pinner
changes or deletes it."""

from __future__ import annotations

from pins.domain import JSONObject
from pins.exceptions import PermissionDenied
from pins.lookup import load
from pins.types import BOARD, PIN


def owned_board(actor_id: int, board_id: int | str) -> tuple[int, JSONObject]:
    """A board's ID and JSON if ``actor_id`` owns it, else :class:`PermissionDenied`."""
    board_id, data = load(board_id, BOARD)
    if int(data["owner_id"]) != actor_id:
        raise PermissionDenied(f"Board {board_id} belongs to another pinner.")
    return board_id, data


def owned_pin(actor_id: int, pin_id: int | str) -> tuple[int, JSONObject]:
    """A pin's ID and JSON if ``actor_id`` pinned it, else :class:`PermissionDenied`."""
    pin_id, data = load(pin_id, PIN)
    if int(data["pinner_id"]) != actor_id:
        raise PermissionDenied(f"Pin {pin_id} belongs to another pinner.")
    return pin_id, data
