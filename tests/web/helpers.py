"""Helpers for web tests: pinners with passwords, boards, pins, images, page text."""

from __future__ import annotations

import re
import uuid
from io import BytesIO
from typing import Protocol

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from pins.actions import create_board, create_pin, create_pinner
from pins.domain import Board, Pin, timestamp_text
from pins.models import Pinner
from pins.types import BOARD_HAS_PINS, PIN, USER_HAS_PINS
from sharding import mappings, objects
from sharding.hosts import atomic
from sharding.ids import shard_of
from toolkit.clock import now_us

PASSWORD = "a-long-test-passphrase"


def unique_username(prefix: str = "w") -> str:
    return f"{prefix}{uuid.uuid4().hex[:14]}"


def new_pinner() -> Pinner:
    return create_pinner(unique_username(), PASSWORD)


def png_bytes(width: int = 60, height: int = 40) -> bytes:
    out = BytesIO()
    Image.new("RGB", (width, height), (200, 60, 80)).save(out, "PNG")
    return out.getvalue()


def png_upload(name: str = "pin.png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes(), content_type="image/png")


def new_board(owner: Pinner, name: str = "Quiche ideas") -> Board:
    return create_board(owner.user_id, name)


def new_pin(owner: Pinner, board: Board, title: str = "Leek quiche") -> Pin:
    return create_pin(owner.user_id, board.id, title, "", "", png_bytes())


class Response(Protocol):
    content: bytes


def text(response: Response) -> str:
    return response.content.decode()


def next_fragment(page: str) -> str | None:
    """The URL of the fragment that a page's "More" link names (what its script fetches), or
    None on the last page."""
    more = re.search(r'href="([^"]+)" rel="next"', page)
    return None if more is None else more.group(1).replace("&amp;", "&") + "&fragment=1"


def follow_buttons(response: Response) -> dict[str, str]:
    """``follow URL → "follow" | "unfollow"`` of every follow button on the page."""
    forms = re.findall(r'<form method="post" action="([^"]+)" class="follow".*?'
                       r'name="action" value="(follow|unfollow)"', text(response), re.S)
    return dict(forms)


def many_pins(owner: Pinner, board: Board, count: int) -> Pin:
    """Fill ``board`` with ``count`` more pins sharing one image, written straight to the
    store in one transaction (the test of big boards needs thousands, fast); returns the
    first, real pin."""
    first = new_pin(owner, board, "Pin 0")
    data = objects.get(first.id)
    assert data is not None
    shard = shard_of(board.id)
    with atomic(shard):
        for n in range(1, count):
            sequence = now_us()
            pin_id = objects.create(PIN, shard, {**data, "title": f"Pin {n}",
                                                 "created": timestamp_text(sequence)})
            mappings.add(BOARD_HAS_PINS, board.id, pin_id, sequence=sequence)
            mappings.add(USER_HAS_PINS, owner.user_id, pin_id, sequence=sequence)
    return first
