"""Boards: create, read with counts, change, delete, and their pins."""

from __future__ import annotations

from rest_framework.test import APIClient

from tests.api.helpers import Caller, error_of, new_board, new_pin, upload


def test_create_board_as_the_requesting_pinner(alice: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", {"name": "Tarts", "description": "Sweet."},
                                 format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["owner_id"] == alice.id and body["name"] == "Tarts"
    assert body["description"] == "Sweet."
    assert isinstance(body["id"], str)
    assert response["Location"].endswith(f"/api/v1/boards/{body['id']}/")


def test_create_board_ignores_read_only_fields(alice: Caller, bob: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", {
        "name": "Mine", "owner_id": bob.id, "id": "1", "pin_count": 7}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["owner_id"] == alice.id and body["id"] != "1"


def test_board_detail_has_counts_and_string_ids(alice: Caller, anonymous: APIClient) -> None:
    board = new_board(alice)
    new_pin(alice, board)
    body = anonymous.get(f"/api/v1/boards/{board.id}/").json()
    assert body["id"] == str(board.id) and body["owner_id"] == alice.id
    assert body["pin_count"] == 1 and body["follower_count"] == 0


def test_patch_board_changes_only_given_fields(alice: Caller) -> None:
    board = new_board(alice, "Old name")
    response = alice.client.patch(f"/api/v1/boards/{board.id}/", {"description": "New."},
                                  format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "Old name" and response.json()["description"] == "New."


def test_patch_board_rejects_a_blank_name(alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.patch(f"/api/v1/boards/{board.id}/", {"name": "   "},
                                  format="json")
    assert response.status_code == 400
    assert "name" in error_of(response)["fields"]


def test_delete_board_removes_it_and_its_pins(alice: Caller, anonymous: APIClient) -> None:
    board = new_board(alice)
    pin = new_pin(alice, board)
    assert alice.client.delete(f"/api/v1/boards/{board.id}/").status_code == 204
    assert anonymous.get(f"/api/v1/boards/{board.id}/").status_code == 404
    assert anonymous.get(f"/api/v1/pins/{pin.id}/").status_code == 404


def test_board_pins_are_paged_newest_first(alice: Caller, anonymous: APIClient) -> None:
    board = new_board(alice)
    pins = [new_pin(alice, board, f"Pin {n}") for n in range(5)]
    first = anonymous.get(f"/api/v1/boards/{board.id}/pins/?limit=3").json()
    assert [item["id"] for item in first["items"]] == [str(p.id) for p in pins[:1:-1]]
    assert first["next_cursor"] and f"cursor={first['next_cursor']}" in first["next"]
    second = anonymous.get(first["next"]).json()
    assert [item["id"] for item in second["items"]] == [str(pins[1].id), str(pins[0].id)]
    assert second["next_cursor"] is None and second["next"] is None


def test_board_pins_of_a_missing_board_is_404(anonymous: APIClient, alice: Caller) -> None:
    board = new_board(alice)
    alice.client.delete(f"/api/v1/boards/{board.id}/")
    assert anonymous.get(f"/api/v1/boards/{board.id}/pins/").status_code == 404


def test_create_board_needs_a_pinner(anonymous: APIClient) -> None:
    response = anonymous.post("/api/v1/boards/", {"name": "Nope"}, format="json")
    assert response.status_code == 401


def test_the_interest_taxonomy_is_public(anonymous: APIClient) -> None:
    body = anonymous.get("/api/v1/interests/").json()
    assert body["version"] >= 1
    assert {"slug": "travel", "name": "Travel"} in body["interests"]


def test_a_board_is_created_and_changed_with_an_interest(alice: Caller) -> None:
    created = alice.client.post("/api/v1/boards/", {"name": "Trips", "interest": "travel"},
                                format="json")
    assert created.status_code == 201 and created.json()["interest"] == "travel"
    board_id = created.json()["id"]
    pin = alice.client.post("/api/v1/pins/", {"board_id": board_id, "title": "Coast",
                                              "image": upload()}, format="multipart")
    assert pin.json()["interest"] == "travel"
    renamed = alice.client.patch(f"/api/v1/boards/{board_id}/", {"name": "Journeys"},
                                 format="json")
    assert renamed.json()["interest"] == "travel"
    cleared = alice.client.patch(f"/api/v1/boards/{board_id}/", {"interest": None},
                                 format="json")
    assert cleared.status_code == 200 and cleared.json()["interest"] is None
    assert alice.client.get(f"/api/v1/boards/{board_id}/").json()["interest"] is None


def test_an_unknown_interest_is_a_400_on_the_field(alice: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", {"name": "X", "interest": "knitting"},
                                 format="json")
    assert response.status_code == 400
    assert "interest" in error_of(response)["fields"]
