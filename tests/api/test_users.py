"""Profiles, and a pinner's boards and pins."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.helpers import Caller, new_board, new_pin


def test_profile_has_exact_counts(alice: Caller, bob: Caller, anonymous: APIClient) -> None:
    board = new_board(alice)
    new_pin(alice, board)
    new_pin(alice, board)
    bob.client.put(f"/api/v1/users/{alice.id}/follow/")
    body = anonymous.get(f"/api/v1/users/{alice.id}/").json()
    assert body["id"] == alice.id and body["display_name"] == "Alice"
    assert (body["board_count"], body["pin_count"]) == (1, 2)
    assert (body["follower_count"], body["following_count"]) == (1, 0)


def test_profile_by_username_ignores_case(alice: Caller, anonymous: APIClient) -> None:
    response = anonymous.get(f"/api/v1/users/by-username/{alice.username.upper()}/")
    assert response.status_code == 200 and response.json()["id"] == alice.id


def test_unknown_username_is_404(anonymous: APIClient) -> None:
    assert anonymous.get("/api/v1/users/by-username/nobody-at-all/").status_code == 404


def test_user_boards_newest_first(alice: Caller, anonymous: APIClient) -> None:
    boards = [new_board(alice, f"Board {n}") for n in range(3)]
    body = anonymous.get(f"/api/v1/users/{alice.id}/boards/").json()
    assert [item["id"] for item in body["items"]] == [str(b.id) for b in reversed(boards)]
    assert all(item["owner_id"] == alice.id for item in body["items"])
    assert body["next_cursor"] is None


def test_user_pins_span_all_boards(alice: Caller, anonymous: APIClient) -> None:
    first, second = new_board(alice, "One"), new_board(alice, "Two")
    pins = [new_pin(alice, first), new_pin(alice, second)]
    body = anonymous.get(f"/api/v1/users/{alice.id}/pins/?limit=1").json()
    assert [item["id"] for item in body["items"]] == [str(pins[1].id)]
    rest = anonymous.get(f"/api/v1/users/{alice.id}/pins/?limit=1&cursor={body['next_cursor']}")
    assert [item["id"] for item in rest.json()["items"]] == [str(pins[0].id)]


def test_lists_of_a_user_id_of_nobody_are_404(anonymous: APIClient, alice: Caller) -> None:
    missing = alice.user_id + 1_000_000
    for path in ("", "boards/", "pins/", "followers/", "following/"):
        assert anonymous.get(f"/api/v1/users/{missing}/{path}").status_code == 404, path
