"""Every page renders, for its owner, for another pinner and for anonymous visitors."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from pins.models import Pinner
from tests.web.helpers import new_board, new_pin, text

Login = Callable[[Pinner], Client]


def test_an_anonymous_visitor_sees_the_welcome_page(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "Sign up" in text(response) and "Log in" in text(response)
    assert "Your home feed" not in text(response)


def test_the_static_stylesheet_and_script_are_linked(client: Client) -> None:
    page = text(client.get("/"))
    assert "/static/pinsite.css" in page and "/static/pinsite.js" in page


@pytest.mark.parametrize("viewer", ["owner", "other", "anonymous"])
def test_every_page_of_a_pinner_renders(viewer: str, pinner: Pinner, other: Pinner,
                                        login: Login) -> None:
    board = new_board(pinner)
    pin = new_pin(pinner, board)
    client = {"owner": login(pinner), "other": login(other), "anonymous": Client()}[viewer]
    name = pinner.username
    for url in ["/", f"/u/{name}/", f"/u/{name}/pins/", f"/u/{name}/followers/",
                f"/u/{name}/following/", f"/board/{board.id}/", f"/board/{board.id}/followers/",
                f"/pin/{pin.id}/"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert "<main" in text(response), url


def test_the_pages_only_a_pinner_uses_render(pinner: Pinner, login: Login) -> None:
    board = new_board(pinner)
    pin = new_pin(pinner, board)
    client = login(pinner)
    for url in ["/board/new/", "/pin/new/", f"/board/{board.id}/delete/",
                f"/pin/{pin.id}/delete/"]:
        assert client.get(url).status_code == 200, url


def test_the_account_pages_render(client: Client) -> None:
    for url in ["/signup/", "/login/"]:
        response = client.get(url)
        assert response.status_code == 200
        assert 'name="csrfmiddlewaretoken"' in text(response)
