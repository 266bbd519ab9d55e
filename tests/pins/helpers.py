"""Helpers for content tests: unique pinners, boards and pins, and small images."""

from __future__ import annotations

import uuid
from io import BytesIO

from PIL import Image

from pins.actions import create_board, create_pin, create_pinner
from pins.domain import Board, Pin
from pins.models import Pinner
from sharding.ids import shard_of


def unique_username(prefix: str = "t") -> str:
    return f"{prefix}{uuid.uuid4().hex[:16]}"


def new_pinner(**fields: str) -> Pinner:
    return create_pinner(unique_username(), None, **fields)


def pinner_off_shard(shard: int, attempts: int = 100) -> Pinner:
    """A new pinner whose user object is not on ``shard`` (placement is random)."""
    for _ in range(attempts):
        pinner = new_pinner()
        if shard_of(pinner.user_id) != shard:
            return pinner
    raise AssertionError(f"every new pinner landed on shard {shard}")


def image_bytes(width: int = 40, height: int = 30, image_format: str = "PNG",
                mode: str = "RGB") -> bytes:
    colours: dict[str, float | tuple[int, ...]] = {"1": 1, "RGBA": (255, 99, 71, 128)}
    colour = colours.get(mode, (255, 99, 71))
    picture = Image.new(mode, (width, height), colour)
    out = BytesIO()
    picture.save(out, image_format)
    return out.getvalue()


def new_board(owner_id: int, name: str = "Quiche ideas") -> Board:
    return create_board(owner_id, name)


def new_pin(pinner_id: int, board_id: int, title: str = "Leek quiche", link: str = "") -> Pin:
    return create_pin(pinner_id, board_id, title, "Crisp pastry.", link, image_bytes())
