"""Error pages: never a traceback; bad input 400, unknown 404, a store down 503, bugs 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import OperationalError
from django.template.loader import render_to_string
from django.test import Client

from feed.exceptions import FeedUnavailable
from feed.smart import service
from graph import selectors
from graph.exceptions import GraphUnavailable
from pins.models import Pinner
from sharding.exceptions import ShardMapError, ShardNotOpen, ShardUnavailable
from tests.web.helpers import new_board, text

Login = Callable[[Pinner], Client]


def broken(error: Exception) -> Callable[..., object]:
    def fail(*args: object, **kwargs: object) -> object:
        raise error

    return fail


def test_an_unknown_address_is_the_404_page(client: Client) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "Not found" in text(response) and "<main" in text(response)


@pytest.mark.parametrize("url", ["/?after=garbage", "/u/{name}/?after=garbage",
                                 "/u/{name}/followers/?after=garbage",
                                 "/board/{board}/?after=%%%"])
def test_a_bad_page_cursor_is_the_400_page(url: str, pinner: Pinner, login: Login) -> None:
    board = new_board(pinner)
    response = login(pinner).get(url.format(name=pinner.username, board=board.id))
    assert response.status_code == 400
    assert "not valid" in text(response) and "Traceback" not in text(response)


@pytest.mark.parametrize("url", ["/following/?after=a&after=b", "/u/{name}/?after=&after=",
                                 "/board/{board}/?after=x&after=x"])
def test_a_repeated_page_cursor_is_the_400_page(url: str, pinner: Pinner,
                                                login: Login) -> None:
    board = new_board(pinner)
    response = login(pinner).get(url.format(name=pinner.username, board=board.id))
    assert response.status_code == 400
    assert "was given more than once" in text(response)


@pytest.mark.parametrize("error", [FeedUnavailable("hbase down"),
                                   ShardUnavailable("mysql001a down"),
                                   OperationalError("mysql000 down"),
                                   ShardMapError("shard map down")])
def test_a_store_that_cannot_answer_is_the_503_page(
        error: Exception, pinner: Pinner, login: Login,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "home_page", broken(error))
    response = login(pinner).get("/")
    assert response.status_code == 503
    assert "Temporarily unavailable" in text(response) and "down" not in text(response)


def test_an_id_the_shards_do_not_know_is_the_404_page(
        pinner: Pinner, login: Login, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "home_page", broken(ShardNotOpen("shard 9 is not open")))
    assert login(pinner).get("/").status_code == 404


def test_the_graph_down_is_the_503_page(pinner: Pinner, client: Client,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selectors, "follower_count", broken(GraphUnavailable("redis down")))
    assert client.get(f"/u/{pinner.username}/").status_code == 503


def test_a_bug_is_the_500_page_without_a_traceback(pinner: Pinner,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "home_page", broken(RuntimeError("boom")))
    client = Client(raise_request_exception=False)
    client.force_login(pinner.account)
    response = client.get("/")
    assert response.status_code == 500
    assert "Something went wrong" in text(response)
    assert "boom" not in text(response) and "Traceback" not in text(response)


def test_the_error_pages_render_without_a_request() -> None:
    for name in ("400.html", "403.html", "404.html", "500.html", "503.html"):
        assert "pinsite" in render_to_string(name)
