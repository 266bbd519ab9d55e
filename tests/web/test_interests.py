"""Interest pages: the list with follow buttons, one interest, following it."""

from __future__ import annotations

from collections.abc import Callable

from django.test import Client

from graph.interests import is_following_interest
from pins.models import Pinner
from tests.web.helpers import text

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
