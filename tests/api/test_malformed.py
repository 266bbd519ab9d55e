"""Malformed and oversized input: always a clear 4xx in the error shape, never a 5xx."""

from __future__ import annotations

import json

import pytest
from pytest_django import Settings
from rest_framework.test import APIClient

from pins.types import BOARD, PIN, USER
from pinsite import cursors
from sharding.ids import MAX_LOCAL, compose
from tests.api.helpers import Caller, error_of, new_board, new_pin, upload
from tests.pins.helpers import image_bytes

BAD_IDS = ["abc", "-1", "0", "1.5", "1e5", "%20", "99999999999999999999999",
           str(2**64), str(2**62), "0x10", "\uff11\uff12\uff13"]


@pytest.mark.parametrize("bad", BAD_IDS)
@pytest.mark.parametrize("path", ["users/{}/", "users/{}/boards/", "users/{}/pins/",
                                  "users/{}/followers/", "users/{}/following/", "boards/{}/",
                                  "boards/{}/pins/", "boards/{}/followers/", "pins/{}/",
                                  "pins/{}/repins/"])
def test_bad_ids_in_paths_are_400(path: str, bad: str, anonymous: APIClient) -> None:
    response = anonymous.get("/api/v1/" + path.format(bad))
    assert response.status_code == 400
    assert error_of(response)["code"] == "invalid"


def test_ids_of_the_wrong_type_are_400(alice: Caller, anonymous: APIClient) -> None:
    board = new_board(alice)
    pin = new_pin(alice, board)
    assert anonymous.get(f"/api/v1/users/{board.id}/").status_code == 400
    assert anonymous.get(f"/api/v1/boards/{pin.id}/").status_code == 400
    assert anonymous.get(f"/api/v1/pins/{alice.id}/").status_code == 400
    assert alice.client.put(f"/api/v1/users/{board.id}/follow/").status_code == 400
    assert alice.client.put(f"/api/v1/boards/{alice.id}/follow/").status_code == 400
    assert alice.client.delete(f"/api/v1/pins/{board.id}/").status_code == 400
    assert alice.client.patch(f"/api/v1/boards/{pin.id}/", {"name": "x"},
                              format="json").status_code == 400
    response = alice.client.post(f"/api/v1/pins/{pin.id}/repin/", {"board_id": str(pin.id)},
                                 format="json")
    assert response.status_code == 400 and "board_id" in error_of(response)["fields"]


def test_ids_nothing_has_are_404(alice: Caller, anonymous: APIClient) -> None:
    gone = {kind: compose(0, kind.type_id, MAX_LOCAL) for kind in (USER, BOARD, PIN)}
    assert anonymous.get(f"/api/v1/users/{gone[USER]}/").status_code == 404
    assert anonymous.get(f"/api/v1/boards/{gone[BOARD]}/").status_code == 404
    assert anonymous.get(f"/api/v1/pins/{gone[PIN]}/").status_code == 404
    assert alice.client.put(f"/api/v1/users/{gone[USER]}/follow/").status_code == 404


@pytest.mark.parametrize("bad", ["abc", "x" * 500, "2" * 21])
def test_bad_ids_in_follow_calls_are_400(bad: str, alice: Caller) -> None:
    for kind in ("users", "boards"):
        for method in ("get", "put", "delete"):
            response = getattr(alice.client, method)(f"/api/v1/{kind}/{bad}/follow/")
            assert response.status_code == 400, (kind, method)


@pytest.mark.parametrize("cursor", ["!!!", "bm90LWEtY3Vyc29y", "MTIz", "x" * 201, "a b",
                                    "%00"])
def test_bad_cursors_are_400(cursor: str, alice: Caller) -> None:
    board = new_board(alice)
    for path in (f"boards/{board.id}/pins/", f"users/{alice.id}/followers/", "me/feed/"):
        response = alice.client.get(f"/api/v1/{path}", {"cursor": cursor})
        assert response.status_code == 400, (path, response.content)
        assert "cursor" in error_of(response)["detail"]


def test_forged_and_altered_cursors_are_400(alice: Caller, anonymous: APIClient) -> None:
    board = new_board(alice)
    for _ in range(3):
        new_pin(alice, board)
    path = f"/api/v1/boards/{board.id}/pins/"
    issued = anonymous.get(path, {"limit": 1}).json()["next_cursor"]
    assert anonymous.get(path, {"limit": 1, "cursor": issued}).status_code == 200
    domain = issued[:-cursors.MAC_CHARS]
    flipped = issued[:-1] + ("A" if issued[-1] != "A" else "B")
    for forged in (domain, flipped, domain[:-1] + issued[-cursors.MAC_CHARS:], issued + "A"):
        response = anonymous.get(path, {"cursor": forged})
        assert response.status_code == 400, forged
        assert error_of(response)["fields"]["cursor"] == [str(cursors.InvalidCursor())]


def test_after_is_not_an_api_parameter(alice: Caller) -> None:
    for value in ("!!!", "MTIz"):
        response = alice.client.get("/api/v1/me/feed/", {"after": value})
        assert response.status_code == 400
        assert "cursor" in error_of(response)["fields"]["after"][0]


@pytest.mark.parametrize("limit", ["0", "101", "1000000", "99999999999999999999", "-1", "abc",
                                   "1.5", " 5", "+5", ""])
def test_bad_page_sizes_are_400(limit: str, alice: Caller) -> None:
    for path in (f"users/{alice.id}/boards/", f"users/{alice.id}/following/", "me/feed/"):
        response = alice.client.get(f"/api/v1/{path}", {"limit": limit})
        assert response.status_code == 400, (path, limit)
        assert "limit" in error_of(response)["fields"]


def test_the_largest_page_size_is_accepted(alice: Caller) -> None:
    assert alice.client.get(f"/api/v1/users/{alice.id}/pins/?limit=100").status_code == 200


@pytest.mark.parametrize("body", [
    {"name": 123}, {"name": None}, {"name": ["x"]}, {"name": {"a": 1}}, {"name": True},
    {"name": "ok", "description": 5}, {"name": ""}, {"name": "x" * 51},
    {"name": "tab\there"}, {"name": "ok", "description": "nul\x00"}, {},
])
def test_board_input_of_wrong_types_or_sizes_is_400(body: dict[str, object],
                                                     alice: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", body, format="json")
    assert response.status_code == 400, body
    assert error_of(response)["fields"]


@pytest.mark.parametrize("raw", ["[1, 2]", '"name"', "42", "null", "{", "{'name': 'x'}",
                                 '{"name": "\\ud800"}'])
def test_bodies_that_are_not_json_objects_are_400(raw: str, alice: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", raw, content_type="application/json")
    assert response.status_code == 400, raw
    error_of(response)


def test_json_bodies_are_capped(alice: Caller) -> None:
    body = json.dumps({"name": "x", "description": "y" * 70_000})
    response = alice.client.post("/api/v1/boards/", body, content_type="application/json")
    assert response.status_code == 413
    assert error_of(response)["code"] == "too_large"


def test_form_encoded_bodies_are_415(alice: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", "name=x",
                                 content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415


def test_unsupported_methods_are_405(alice: Caller) -> None:
    response = alice.client.put(f"/api/v1/users/{alice.id}/", {}, format="json")
    assert response.status_code == 405
    assert error_of(response)["code"] == "method_not_allowed"


@pytest.mark.parametrize("fields", [
    {"title": "No board"},
    {"board_id": "abc", "title": "Bad board"},
    {"board_id": "{board}"},
    {"board_id": "{board}", "title": "   "},
    {"board_id": "{board}", "title": "x" * 101},
    {"board_id": "{board}", "title": "Bad link", "link": "ftp://example.com/x"},
])
def test_pin_upload_with_missing_or_bad_fields_is_400(fields: dict[str, str],
                                                      alice: Caller) -> None:
    board = new_board(alice)
    data: dict[str, object] = {key: value.replace("{board}", str(board.id))
                               for key, value in fields.items()}
    response = alice.client.post("/api/v1/pins/", {**data, "image": upload()},
                                 format="multipart")
    assert response.status_code == 400, response.content
    assert error_of(response)["fields"]


def test_pin_upload_to_a_board_that_does_not_exist_is_404(alice: Caller) -> None:
    gone = compose(0, BOARD.type_id, MAX_LOCAL)
    response = alice.client.post("/api/v1/pins/", {"board_id": str(gone),
                                                   "title": "Lost", "image": upload()},
                                 format="multipart")
    assert response.status_code == 404


def test_oversized_images_are_refused(alice: Caller, settings: Settings) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT, "MAX_IMAGE_BYTES": 2000}
    board = new_board(alice)
    big = image_bytes(200, 200) + b"\0" * 2000
    response = alice.client.post("/api/v1/pins/", {"board_id": str(board.id), "title": "Big",
                                                   "image": upload(big)}, format="multipart")
    assert response.status_code == 400
    assert "larger than" in error_of(response)["fields"]["image"][0]


def test_uploads_far_over_the_limit_are_refused_unread(alice: Caller,
                                                        settings: Settings) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT, "MAX_IMAGE_BYTES": 2000}
    board = new_board(alice)
    huge = b"\0" * 400_000
    response = alice.client.post("/api/v1/pins/", {"board_id": str(board.id), "title": "Huge",
                                                   "image": upload(huge)}, format="multipart")
    assert response.status_code == 413
    assert "image limit" in error_of(response)["detail"]


@pytest.mark.parametrize("data", [b"GIF89a-not-really", b"%PDF-1.4 ...", b"<svg></svg>",
                                  image_bytes()[:40]])
def test_non_images_and_truncated_images_are_400(data: bytes, alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.post("/api/v1/pins/", {"board_id": str(board.id), "title": "Not",
                                                   "image": upload(data)}, format="multipart")
    assert response.status_code == 400
    assert "image" in error_of(response)["fields"]


def test_an_image_sent_as_a_text_field_is_400(alice: Caller) -> None:
    board = new_board(alice)
    response = alice.client.post("/api/v1/pins/", {"board_id": str(board.id), "title": "Text",
                                                   "image": "not a file"}, format="multipart")
    assert response.status_code == 400


def test_repin_with_a_board_id_of_the_wrong_json_type_is_400(alice: Caller) -> None:
    pin = new_pin(alice, new_board(alice))
    board = new_board(alice)
    for board_id in (board.id, None, [str(board.id)]):
        response = alice.client.post(f"/api/v1/pins/{pin.id}/repin/", {"board_id": board_id},
                                     format="json")
        assert response.status_code == 400, board_id


def test_bad_token_is_401_even_where_reads_are_public(anonymous: APIClient) -> None:
    anonymous.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = anonymous.get("/api/v1/")
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


@pytest.mark.parametrize("query", ["limit=1&limit=2", "limit=5&limit=5", "cursor=&cursor=",
                                   "limit=2&cursor=&limit=3"])
def test_repeated_paging_parameters_are_400(query: str, alice: Caller) -> None:
    board = new_board(alice)
    name = query.split("=")[0]
    for path in (f"boards/{board.id}/pins/", f"users/{alice.id}/followers/", "me/feed/"):
        response = alice.client.get(f"/api/v1/{path}?{query}")
        assert response.status_code == 400, (path, query)
        assert error_of(response)["fields"][name] == ["Give this parameter at most once."]


def test_a_repeated_limit_of_related_pins_is_400(alice: Caller) -> None:
    pin = new_pin(alice, new_board(alice))
    response = alice.client.get(f"/api/v1/pins/{pin.id}/related/?limit=1&limit=2")
    assert response.status_code == 400
    assert "limit" in error_of(response)["fields"]
