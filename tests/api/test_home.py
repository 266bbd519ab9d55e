"""The smart home feed through the API: this visit's picks first, then what was shown before,
paged by cursor; errors are 4xx, and a generator that fails still answers."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from feed.smart import generator, materialized
from tests.api.helpers import Caller, error_of, new_board, new_pin
from tests.polling import wait_until


def home(caller: Caller, query: str = "") -> dict:  # type: ignore[type-arg]
    response = caller.client.get(f"/api/v1/me/home/{query}")
    assert response.status_code == 200, response.content
    return dict(response.json())


@pytest.mark.usefixtures("worker")
def test_home_shows_picks_then_pages_into_what_was_shown(alice: Caller, bob: Caller) -> None:
    board = new_board(bob)
    alice.client.put(f"/api/v1/boards/{board.id}/follow/")
    pins = {str(new_pin(bob, board, f"Pin {n}").id) for n in range(3)}

    def everything_kept() -> bool:
        """Each visit shows the pools' next picks and queues their keeping: the later pages
        are read from what was kept, so the test waits for that, not for the showing."""
        home(alice)
        kept = materialized.read("primary", alice.user_id)
        return pins <= {str(entry.pin_id) for entry in kept}

    assert wait_until(everything_kept, timeout=20)
    first = home(alice, "?limit=2")
    assert len(first["items"]) == 2 and first["next_cursor"]
    second = home(alice, f"?limit=2&cursor={first['next_cursor']}")
    ids = [item["id"] for item in first["items"] + second["items"]]
    assert len(ids) == len(set(ids)) == 3 and set(ids) == pins


def test_home_of_a_new_pinner_is_empty(alice: Caller) -> None:
    assert home(alice) == {"items": [], "next_cursor": None, "next": None}


def test_home_answers_when_the_generator_fails(alice: Caller,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> generator.Chunk:
        raise RuntimeError("generator down")

    monkeypatch.setattr(generator, "generate", broken)
    assert home(alice)["items"] == []


def test_home_needs_a_pinner_and_checks_its_input(alice: Caller, anonymous: APIClient) -> None:
    assert anonymous.get("/api/v1/me/home/").status_code == 401
    response = alice.client.get("/api/v1/me/home/?cursor=bm90LWEtY3Vyc29y")
    assert response.status_code == 400 and "cursor" in error_of(response)["detail"]
    assert alice.client.get("/api/v1/me/home/?limit=0").status_code == 400
