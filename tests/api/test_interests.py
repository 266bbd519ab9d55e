"""Interests in the API: the taxonomy, one interest with its count, following, batch check."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.helpers import Caller, error_of


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
