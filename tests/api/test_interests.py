"""Interests in the API: the taxonomy, one interest with its count and its pins, following,
batch check."""

from __future__ import annotations

from rest_framework.test import APIClient

from pins.actions import create_board, repin
from tests.api.helpers import Caller, error_of, new_pin


def test_following_an_interest_changes_its_count_and_my_interests(alice: Caller,
                                                                  anonymous: APIClient) -> None:
    before = anonymous.get("/api/v1/interests/tattoos/").json()
    assert before["name"] == "Tattoos"
    assert alice.client.get("/api/v1/interests/tattoos/follow/").json()["following"] is False
    followed = alice.client.put("/api/v1/interests/tattoos/follow/")
    assert followed.status_code == 200 and followed.json() == {"following": True,
                                                               "changed": True}
    assert alice.client.put("/api/v1/interests/tattoos/follow/").json()["changed"] is False
    assert alice.client.get("/api/v1/interests/tattoos/follow/").json()["following"] is True
    after = anonymous.get("/api/v1/interests/tattoos/").json()
    assert after["follower_count"] == before["follower_count"] + 1
    assert alice.client.get("/api/v1/me/interests/").json() == [
        {"slug": "tattoos", "name": "Tattoos"}]
    assert alice.client.delete("/api/v1/interests/tattoos/follow/").json() == {
        "following": False, "changed": True}
    assert alice.client.get("/api/v1/me/interests/").json() == []


def test_the_batch_check_answers_interests_too(alice: Caller) -> None:
    alice.client.put("/api/v1/interests/quotes/follow/")
    body = alice.client.get("/api/v1/me/follows/?interests=quotes,science,nonsense").json()
    assert body["interests"] == {"quotes": True, "science": False, "nonsense": False}


def test_an_unknown_interest_is_a_404(alice: Caller, anonymous: APIClient) -> None:
    assert anonymous.get("/api/v1/interests/knitting/").status_code == 404
    response = alice.client.put("/api/v1/interests/knitting/follow/")
    assert response.status_code == 404 and "knitting" in error_of(response)["detail"]


def test_following_needs_a_pinner(anonymous: APIClient) -> None:
    assert anonymous.put("/api/v1/interests/travel/follow/").status_code == 401


def test_an_interests_pins_are_paged_newest_first(alice: Caller, bob: Caller,
                                                  anonymous: APIClient) -> None:
    board = create_board(alice.user_id, "Ink", interest="tattoos")
    pins = [new_pin(alice, board, f"Tattoo {n}") for n in range(3)]
    saved = repin(bob.user_id, pins[0].id, create_board(bob.user_id, "Trips", "",
                                                        "travel").id)
    first = anonymous.get("/api/v1/interests/tattoos/pins/?limit=2").json()
    assert [item["id"] for item in first["items"]] == [str(pins[2].id), str(pins[1].id)]
    assert first["items"][0]["title"] == "Tattoo 2"
    assert first["next_cursor"] and f"cursor={first['next_cursor']}" in first["next"]
    second = anonymous.get(first["next"]).json()
    assert second["items"][0]["id"] == str(pins[0].id)
    seen = [item["id"] for item in first["items"] + second["items"]]
    assert len(seen) == len(set(seen)) and str(saved.id) not in seen
    travel = anonymous.get("/api/v1/interests/travel/pins/?limit=5").json()
    assert travel["items"][0]["id"] == str(saved.id)


def test_interest_pins_with_a_bad_cursor_are_400_and_of_an_unknown_interest_404(
        anonymous: APIClient) -> None:
    bad = anonymous.get("/api/v1/interests/tattoos/pins/?cursor=bm90LWEtY3Vyc29y")
    assert bad.status_code == 400 and "cursor" in error_of(bad)["fields"]
    assert anonymous.get("/api/v1/interests/tattoos/pins/?cursor=a.b").status_code == 400
    missing = anonymous.get("/api/v1/interests/knitting/pins/")
    assert missing.status_code == 404 and "knitting" in error_of(missing)["detail"]
