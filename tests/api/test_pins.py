"""Pins: multipart upload, read, change, delete, repin and repins."""

from __future__ import annotations

from rest_framework.test import APIClient

from pins.actions import repin
from pins.related import record_repin
from tests.api.helpers import Caller, error_of, new_board, new_pin, upload


def test_upload_creates_a_pin(alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.post("/api/v1/pins/", {
        "board_id": str(board.id), "title": "Leek quiche", "description": "Crisp.",
        "link": "https://example.com/quiche", "image": upload()}, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["board_id"] == str(board.id) and body["pinner_id"] == alice.id
    assert (body["width"], body["height"]) == (40, 30)
    assert body["image_url"].startswith("http://testserver/media/pins/")
    assert body["source_pin_id"] is None
    assert response["Location"].endswith(f"/api/v1/pins/{body['id']}/")


def test_upload_to_someone_elses_board_is_403(alice: Caller, bob: Caller) -> None:
    board = new_board(bob)
    response = alice.client.post("/api/v1/pins/", {
        "board_id": str(board.id), "title": "Sneaky", "image": upload()}, format="multipart")
    assert response.status_code == 403
    assert error_of(response)["code"] == "permission_denied"


def test_upload_rejects_a_file_that_is_not_an_image(alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.post("/api/v1/pins/", {
        "board_id": str(board.id), "title": "Text",
        "image": upload(b"just some text", "notes.png")}, format="multipart")
    assert response.status_code == 400
    assert "image" in error_of(response)["fields"]


def test_upload_without_an_image_is_400(alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.post("/api/v1/pins/", {"board_id": str(board.id), "title": "No"},
                                 format="multipart")
    assert response.status_code == 400
    assert error_of(response)["fields"]["image"] == ["No file was submitted."]


def test_upload_must_be_multipart(alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.post("/api/v1/pins/", {"board_id": str(board.id), "title": "JSON",
                                                   "image": "aGVsbG8="}, format="json")
    assert response.status_code == 415
    assert error_of(response)["code"] == "unsupported_media_type"


def test_pin_detail_has_repin_count(alice: Caller, bob: Caller, anonymous: APIClient) -> None:
    pin = new_pin(alice, new_board(alice))
    bob.client.post(f"/api/v1/pins/{pin.id}/repin/", {"board_id": str(new_board(bob).id)},
                    format="json")
    body = anonymous.get(f"/api/v1/pins/{pin.id}/").json()
    assert body["id"] == str(pin.id) and body["repin_count"] == 1
    assert body["thumbnail_url"].startswith("http://testserver/media/")


def test_patch_pin_changes_text_fields(alice: Caller) -> None:
    pin = new_pin(alice, new_board(alice))
    response = alice.client.patch(f"/api/v1/pins/{pin.id}/", {
        "title": "Better title", "link": "", "board_id": "1", "width": 5}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == "Better title" and body["board_id"] == str(pin.board_id)
    assert body["width"] == pin.width


def test_patch_pin_rejects_a_bad_link(alice: Caller) -> None:
    pin = new_pin(alice, new_board(alice))
    response = alice.client.patch(f"/api/v1/pins/{pin.id}/", {"link": "javascript:alert(1)"},
                                  format="json")
    assert response.status_code == 400
    assert "link" in error_of(response)["fields"]


def test_delete_pin(alice: Caller, anonymous: APIClient) -> None:
    pin = new_pin(alice, new_board(alice))
    assert alice.client.delete(f"/api/v1/pins/{pin.id}/").status_code == 204
    assert anonymous.get(f"/api/v1/pins/{pin.id}/").status_code == 404


def test_repin_to_own_board(alice: Caller, bob: Caller) -> None:
    pin = new_pin(alice, new_board(alice), "Original")
    board = new_board(bob)
    response = bob.client.post(f"/api/v1/pins/{pin.id}/repin/",
                               {"board_id": str(board.id), "title": "Saved"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["source_pin_id"] == str(pin.id) and body["pinner_id"] == bob.id
    assert body["board_id"] == str(board.id) and body["title"] == "Saved"


def test_repins_of_a_pin_are_listed(alice: Caller, bob: Caller, anonymous: APIClient) -> None:
    pin = new_pin(alice, new_board(alice))
    board = new_board(bob)
    made = [bob.client.post(f"/api/v1/pins/{pin.id}/repin/", {"board_id": str(board.id)},
                            format="json").json()["id"] for _ in range(2)]
    body = anonymous.get(f"/api/v1/pins/{pin.id}/repins/").json()
    assert [item["id"] for item in body["items"]] == made[::-1]


def test_related_pins_come_strongest_first_with_weights(alice: Caller, bob: Caller,
                                                        anonymous: APIClient) -> None:
    board = new_board(alice)
    quiche = new_pin(alice, board, "Quiche")
    soup = new_pin(bob, new_board(bob), "Soup")
    record_repin(repin(alice.user_id, soup.id, board.id).id)
    body = anonymous.get(f"/api/v1/pins/{soup.id}/related/").json()
    assert [(item["id"], item["weight"]) for item in body] == [(str(quiche.id), 1)]
    assert body[0]["title"] == "Quiche" and body[0]["image_url"].startswith("http")
    assert anonymous.get(f"/api/v1/pins/{soup.id}/related/?limit=0").status_code == 400
