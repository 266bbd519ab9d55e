"""Helpers of the data export tests: a pinner with something of everything an export holds,
and reading an export's zip back.

>>> account = pinner_with_everything()
>>> archive = zip_of(account.pinner.user_id)       # built here, without the queue
>>> entries(archive, "boards.json")[0]["name"]
'Tarts'
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

import orjson
from django.http import FileResponse

from accounts.exports import build_export, open_export
from accounts.models import DataExport
from graph.actions import follow_board, follow_user, unfollow_board
from graph.interests import follow_interest
from pins.actions import create_board, create_pin, create_pinner, repin
from pins.domain import Board, Pin
from pins.models import Pinner
from tests.pins.helpers import image_bytes, unique_username

PASSWORD = "a-long-export-passphrase"


@dataclass
class Everything:
    """A pinner with boards, pins (a repin among them), follows both ways, an unfollowed
    board and interests; ``uploads`` are each pin's image bytes as uploaded."""

    pinner: Pinner
    boards: list[Board]
    pins: list[Pin]
    uploads: dict[int, bytes] = field(default_factory=dict)
    idol: Pinner | None = None
    crafter: Pinner | None = None
    fan: Pinner | None = None
    board_fan: Pinner | None = None
    followed_board: Board | None = None
    unfollowed_board: Board | None = None


def new_pinner(display_name: str = "", email: str = "") -> Pinner:
    return create_pinner(unique_username("x"), PASSWORD, email=email,
                         display_name=display_name)


def pinner_with_everything() -> Everything:
    """Ada: two boards, a PNG pin, a JPEG pin and a repin; she follows Idol (and so all
    Idol's boards but one, which she unfollowed) and one board of Crafter's; Fan follows her,
    Board Fan one of her boards; she follows two interests."""
    ada = new_pinner("Ada Lovelace", "ada@example.com")
    idol, crafter, fan, board_fan = (new_pinner(name) for name in
                                     ("Idol", "Crafter", "Fan", "Board Fan"))
    tarts = create_board(ada.user_id, "Tarts", "Savoury and sweet.", "food-and-drink")
    trips = create_board(ada.user_id, "Trips")
    uploads = {}
    png, jpeg = image_bytes(41, 29), image_bytes(33, 21, image_format="JPEG")
    quiche = create_pin(ada.user_id, tarts.id, "Leek quiche", "Crisp pastry.",
                        "https://example.com/quiche", png)
    uploads[quiche.id] = png
    lake = create_pin(ada.user_id, trips.id, "Lake", "", "", jpeg)
    uploads[lake.id] = jpeg
    idol_board, idol_other = (create_board(idol.user_id, name) for name in ("Idols", "Other"))
    source_image = image_bytes(17, 13)
    source = create_pin(idol.user_id, idol_board.id, "Idol's pin", "", "", source_image)
    saved = repin(ada.user_id, source.id, tarts.id, "Saved from Idol")
    uploads[saved.id] = source_image
    crafters = create_board(crafter.user_id, "Crafts")
    follow_user(ada.user_id, idol.user_id)
    unfollow_board(ada.user_id, idol_other.id)
    follow_board(ada.user_id, crafters.id)
    follow_user(fan.user_id, ada.user_id)
    follow_board(board_fan.user_id, trips.id)
    for slug in ("travel", "art"):
        follow_interest(ada.user_id, slug)
    return Everything(ada, [trips, tarts], [saved, lake, quiche], uploads, idol=idol,
                      crafter=crafter, fan=fan, board_fan=board_fan, followed_board=crafters,
                      unfollowed_board=idol_other)


def built_export(user_id: int) -> DataExport:
    """A new export of ``user_id``, built here (the actor's action, without the queue)."""
    export = DataExport.objects.create(user_id=user_id)
    build_export(export.pk)
    export.refresh_from_db()
    return export


def zip_of(user_id: int) -> zipfile.ZipFile:
    """The zip of a new export of ``user_id``, built here and read back whole."""
    export = built_export(user_id)
    with open_export(user_id, export.pk).file as file:
        return zipfile.ZipFile(BytesIO(file.read()))


def entries(archive: zipfile.ZipFile, name: str) -> Any:
    """The JSON entry ``name`` of an export's zip."""
    return orjson.loads(archive.read(name))


def downloaded(response: Any) -> zipfile.ZipFile:
    """The zip a download streamed, checked to be an attachment of type zip."""
    assert isinstance(response, FileResponse) and response.streaming
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="pinsite-data-')
    try:
        return zipfile.ZipFile(BytesIO(response.getvalue()))
    finally:
        response.close()
