"""Interest pages: the list with follow buttons, one interest with its newest pins, following
it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.test import Client

from graph.interests import is_following_interest
from pins.actions import create_board
from pins.models import Pinner
from pinsite import cursors
from pinsite.web import interests as interest_pages
from tests.web.helpers import new_pin, next_fragment, text

Login = Callable[[Pinner], Client]


def test_the_interests_page_lists_the_taxonomy_with_follow_buttons(pinner: Pinner,
                                                                    login: Login) -> None:
    page = text(login(pinner).get("/interests/"))
    assert 'href="/interests/home-decor/" data-interest="home-decor">Home decor' in page
    assert 'action="/interests/home-decor/follow/"' in page


def test_following_an_interest_from_its_page(pinner: Pinner, login: Login) -> None:
    client = login(pinner)
    page = text(client.get("/interests/outdoors/"))
    assert "<h1>Outdoors</h1>" in page and 'aria-label="Follow Outdoors"' in page
    response = client.post("/interests/outdoors/follow/", {"action": "follow",
                                                           "next": "/interests/outdoors/"})
    assert response["Location"] == "/interests/outdoors/"
    assert is_following_interest(pinner.user_id, "outdoors")
    assert 'aria-label="Unfollow Outdoors"' in text(client.get("/interests/outdoors/"))


def test_an_unknown_interest_is_a_404_page(client: Client) -> None:
    assert client.get("/interests/knitting/").status_code == 404


def test_visitors_see_interests_without_buttons(client: Client) -> None:
    page = text(client.get("/interests/travel/"))
    assert "Log in to follow" in page


def test_an_interest_page_shows_its_newest_pins_paged_with_a_more_link(
        pinner: Pinner, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interest_pages, "PIN_PAGE", 2)
    board = create_board(pinner.user_id, "Drawings", interest="illustration")
    pins = [new_pin(pinner, board, f"Sketch {n}") for n in range(3)]
    first = text(client.get("/interests/illustration/"))
    assert "<h1>Illustrations and posters</h1>" in first and 'class="pin-grid"' in first
    assert re.findall(r'id="pin-(\d+)"', first) == [str(pins[2].id), str(pins[1].id)]
    assert "Sketch 2" in first
    more = next_fragment(first)
    assert more is not None and more.startswith("/interests/illustration/?after=")
    fragment = text(client.get(more))
    assert "<html" not in fragment and "<h1>" not in fragment
    assert re.findall(r'id="pin-(\d+)"', fragment)[0] == str(pins[0].id)


def test_a_bad_cursor_on_an_interest_page_is_the_400_page(client: Client) -> None:
    response = client.get("/interests/illustration/?after=garbage")
    assert response.status_code == 400 and "not valid" in text(response)


def test_a_more_link_with_its_seal_altered_is_the_400_page(
        pinner: Pinner, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(interest_pages, "PIN_PAGE", 1)
    board = create_board(pinner.user_id, "Drawings", interest="illustration")
    for n in range(2):
        new_pin(pinner, board, f"Sketch {n}")
    more = re.search(r'href="/interests/illustration/\?after=([^"&]+)"',
                     text(client.get("/interests/illustration/")))
    assert more is not None
    issued = more.group(1)
    assert client.get(f"/interests/illustration/?after={issued}").status_code == 200
    for forged in (issued[:-cursors.MAC_CHARS], issued[:-1] + ("A" if issued[-1] != "A" else "B")):
        response = client.get(f"/interests/illustration/?after={forged}")
        assert response.status_code == 400 and "not valid" in text(response)
