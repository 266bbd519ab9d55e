"""Helpers of the API tests: pinners with tokens, boards, pins, and images to upload (made
as the content tests make them, ``tests/pins/helpers.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from pins.actions import create_board, create_pin, create_pinner
from pins.domain import Board, Pin
from tests.pins.helpers import image_bytes, unique_username

PASSWORD = "correct-horse-battery-staple"


@dataclass
class Caller:
    """A pinner and an API client that sends their token."""

    user_id: int
    username: str
    token: str
    client: APIClient

    @property
    def id(self) -> str:
        return str(self.user_id)


def new_caller(**fields: str) -> Caller:
    """A new pinner with a password and an API token, and a client using that token."""
    pinner = create_pinner(unique_username("api"), PASSWORD, **fields)
    token, _ = Token.objects.get_or_create(user=pinner.account)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return Caller(pinner.user_id, pinner.username, token.key, client)


def upload(data: bytes | None = None, name: str = "quiche.png",
           content_type: str = "image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, image_bytes() if data is None else data,
                              content_type=content_type)


def new_board(owner: Caller, name: str = "Quiche ideas") -> Board:
    return create_board(owner.user_id, name)


def new_pin(owner: Caller, board: Board, title: str = "Leek quiche") -> Pin:
    return create_pin(owner.user_id, board.id, title, "Crisp pastry.", "", image_bytes())


def error_of(response: Any) -> dict[str, Any]:
    """The JSON error body, checked to have the API's error shape."""
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert set(body) <= {"code", "detail", "fields"} and {"code", "detail"} <= set(body), body
    return dict(body)
