"""The following feed through the API, fanned out by a real queue worker."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.helpers import Caller, error_of, new_board, new_pin
from tests.polling import wait_until


def feed_ids(caller: Caller, query: str = "") -> list[str]:
    response = caller.client.get(f"/api/v1/me/feed/{query}")
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["items"]]


@pytest.mark.usefixtures("worker")
def test_feed_shows_pins_of_followed_boards_newest_first(alice: Caller, bob: Caller) -> None:
    board = new_board(bob)
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    older, newer = new_pin(bob, board, "Older"), new_pin(bob, board, "Newer")
    assert wait_until(lambda: feed_ids(alice) == [str(newer.id), str(older.id)], timeout=20)
    first = alice.client.get("/api/v1/me/feed/?limit=1").json()
    assert [item["id"] for item in first["items"]] == [str(newer.id)]
    assert first["items"][0]["pinner_id"] == bob.id
    assert feed_ids(alice, f"?limit=1&cursor={first['next_cursor']}") == [str(older.id)]


def test_feed_of_a_new_pinner_is_empty(alice: Caller) -> None:
    assert alice.client.get("/api/v1/me/feed/").json() == {
        "items": [], "next_cursor": None, "next": None}


def test_feed_needs_a_pinner(anonymous: APIClient) -> None:
    assert anonymous.get("/api/v1/me/feed/").status_code == 401


def test_feed_rejects_a_bad_cursor(alice: Caller) -> None:
    response = alice.client.get("/api/v1/me/feed/?cursor=bm90LWEtY3Vyc29y")
    assert response.status_code == 400 and "cursor" in error_of(response)["detail"]


@pytest.mark.usefixtures("worker")
def test_the_cursor_goes_on_past_the_feeds_cap(alice: Caller, bob: Caller,
                                               settings: Any) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "CAP": 4, "SLACK": 2}
    board = new_board(bob)
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    pins = [new_pin(bob, board, f"Pin {n}") for n in range(5 * 4 + 2)]
    expected = [str(pin.id) for pin in reversed(pins)]

    def scrolled() -> list[str]:
        shown: list[str] = []
        query = "?limit=3"
        while True:
            body = alice.client.get(f"/api/v1/me/feed/{query}").json()
            shown += [item["id"] for item in body["items"]]
            if body["next_cursor"] is None:
                return shown
            query = f"?limit=3&cursor={body['next_cursor']}"

    assert wait_until(lambda: scrolled() == expected, timeout=30)


@pytest.mark.usefixtures("worker")
def test_explain_says_why_a_pin_is_in_the_feed(alice: Caller, bob: Caller) -> None:
    board = new_board(bob)
    alice.client.put(f"/api/v1/users/{bob.id}/follow/")
    pin = new_pin(bob, board, "Tart")
    assert wait_until(lambda: feed_ids(alice) == [str(pin.id)], timeout=20)
    response = alice.client.get(f"/api/v1/me/feed/explain/?pin={pin.id}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["present"] is True
    codes = [(reason["source"], reason["code"]) for reason in body["reasons"]]
    assert ("edge_log", "followed_through_owner") in codes
    assert ("feed:primary", "delivered") in codes
    follow = next(r for r in body["reasons"] if r["code"] == "followed_through_owner")
    assert follow["time"] and follow["detail"] == {"owner_id": bob.id}
    assert set(body["home"]) == {"present", "reasons"}


def test_explain_says_why_a_pin_is_not_in_the_feed(alice: Caller, bob: Caller) -> None:
    pin = new_pin(bob, new_board(bob), "Tart")
    body = alice.client.get(f"/api/v1/me/feed/explain/?pin={pin.id}").json()
    assert body["present"] is False
    assert "not_followed" in [reason["code"] for reason in body["reasons"]]
    assert body["home"]["present"] is False


@pytest.mark.parametrize("query", ["", "?pin=", "?pin=abc", "?pin=-1"])
def test_explain_needs_a_pin_id(alice: Caller, query: str) -> None:
    response = alice.client.get(f"/api/v1/me/feed/explain/{query}")
    assert response.status_code == 400
    assert "pin" in str(error_of(response))


def test_explain_needs_a_pinner(anonymous: APIClient) -> None:
    assert anonymous.get("/api/v1/me/feed/explain/?pin=1").status_code == 401
