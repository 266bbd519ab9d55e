"""One pinner acting on another's boards, pins and follows: never a success.

Every attempt is answered 403 (or 401 without credentials, or 404 for what does not exist),
and afterwards everything is as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from pins import selectors
from tests.api.helpers import (
    PASSWORD,
    Caller,
    error_of,
    new_board,
    new_caller,
    new_pin,
    unique_username,
    upload,
)


@dataclass
class Victim:
    caller: Caller
    board_id: int
    pin_id: int


@pytest.fixture
def victim(alice: Caller) -> Victim:
    board = new_board(alice, "Private thoughts")
    return Victim(alice, board.id, new_pin(alice, board, "Mine").id)


Attempt = Callable[[APIClient, Victim, int], object]

ATTEMPTS: dict[str, Attempt] = {
    "rename board": lambda c, v, _: c.patch(f"/api/v1/boards/{v.board_id}/", {"name": "Ha"},
                                           format="json"),
    "delete board": lambda c, v, _: c.delete(f"/api/v1/boards/{v.board_id}/"),
    "retitle pin": lambda c, v, _: c.patch(f"/api/v1/pins/{v.pin_id}/", {"title": "Ha"},
                                          format="json"),
    "delete pin": lambda c, v, _: c.delete(f"/api/v1/pins/{v.pin_id}/"),
    "pin to their board": lambda c, v, _: c.post("/api/v1/pins/", {
        "board_id": str(v.board_id), "title": "Ha", "image": upload()}, format="multipart"),
    "repin to their board": lambda c, v, _: c.post(f"/api/v1/pins/{v.pin_id}/repin/",
                                                   {"board_id": str(v.board_id)}, format="json"),
}


def _unchanged(victim: Victim) -> None:
    board = selectors.get_board(victim.board_id)
    pin = selectors.get_pin(victim.pin_id)
    assert (board.name, pin.title) == ("Private thoughts", "Mine")
    assert selectors.board_pin_count(victim.board_id) == 1


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_another_pinner_is_refused(attempt: str, victim: Victim, bob: Caller) -> None:
    response = ATTEMPTS[attempt](bob.client, victim, bob.user_id)
    assert response.status_code == 403, response.content  # type: ignore[attr-defined]
    assert error_of(response)["code"] == "permission_denied"
    _unchanged(victim)


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_anonymous_callers_are_refused(attempt: str, victim: Victim,
                                       anonymous: APIClient) -> None:
    response = ATTEMPTS[attempt](anonymous, victim, 0)
    assert response.status_code == 401  # type: ignore[attr-defined]
    _unchanged(victim)


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_accounts_without_a_pinner_are_refused(attempt: str, victim: Victim) -> None:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user(unique_username("op"), "",
                                                                   PASSWORD))
    response = ATTEMPTS[attempt](client, victim, 0)
    assert response.status_code == 403  # type: ignore[attr-defined]
    _unchanged(victim)


def test_follow_acts_for_the_caller_whatever_the_body_says(victim: Victim, bob: Caller) -> None:
    target = new_caller()
    response = bob.client.put(f"/api/v1/users/{target.id}/follow/",
                              {"follower_id": victim.caller.id}, format="json")
    assert response.status_code == 200
    asked = f"/api/v1/users/{target.id}/follow/"
    assert victim.caller.client.get(asked).json()["following"] is False
    assert bob.client.get(asked).json()["following"] is True


def test_unfollow_cannot_undo_someone_elses_follow(victim: Victim, bob: Caller) -> None:
    target = new_caller()
    victim.caller.client.put(f"/api/v1/users/{target.id}/follow/")
    response = bob.client.delete(f"/api/v1/users/{target.id}/follow/",
                                 {"follower_id": victim.caller.id}, format="json")
    assert response.json() == {"following": False, "changed": False}
    assert victim.caller.client.get(f"/api/v1/users/{target.id}/follow/").json()[
        "following"] is True


def test_batch_check_answers_only_for_the_caller(victim: Victim, bob: Caller) -> None:
    target = new_caller()
    victim.caller.client.put(f"/api/v1/users/{target.id}/follow/")
    body = bob.client.get(f"/api/v1/me/follows/?users={target.id}&follower_id="
                          f"{victim.caller.id}").json()
    assert body["users"] == {target.id: False}


def test_staff_flags_cannot_be_set_through_the_api(anonymous: APIClient) -> None:
    username = unique_username("staff")
    anonymous.post("/api/v1/users/", {"username": username, "password": PASSWORD,
                                      "is_staff": True}, format="json")
    token = anonymous.post("/api/v1/auth/token/", {"username": username, "password": PASSWORD},
                           format="json").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/me/").json()["is_staff"] is False
