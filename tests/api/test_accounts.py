"""Tokens, sign-up and ``/me/``."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from sharding import objects
from tests.api.helpers import PASSWORD, Caller, error_of, new_caller, unique_username


def test_token_is_issued_for_valid_credentials(anonymous: APIClient, alice: Caller) -> None:
    response = anonymous.post("/api/v1/auth/token/",
                              {"username": alice.username, "password": PASSWORD}, format="json")
    assert response.status_code == 200
    assert response.json() == {"token": alice.token, "user_id": alice.id}


def test_token_is_refused_for_a_wrong_password(anonymous: APIClient, alice: Caller) -> None:
    response = anonymous.post("/api/v1/auth/token/",
                              {"username": alice.username, "password": "wrong-password"},
                              format="json")
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"
    assert response["WWW-Authenticate"] == "Token"


def test_token_request_needs_both_fields(anonymous: APIClient) -> None:
    response = anonymous.post("/api/v1/auth/token/", {"username": "x"}, format="json")
    assert response.status_code == 400
    assert error_of(response)["fields"] == {"password": ["This field is required."]}


def test_revoked_token_no_longer_authenticates(alice: Caller) -> None:
    assert alice.client.delete("/api/v1/auth/token/").status_code == 204
    response = alice.client.get("/api/v1/me/")
    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


def test_session_login_also_authenticates(alice: Caller) -> None:
    client = APIClient()
    assert client.login(username=alice.username, password=PASSWORD)
    assert client.get("/api/v1/me/").json()["id"] == alice.id


def test_sign_up_creates_a_pinner(anonymous: APIClient) -> None:
    username = unique_username("new")
    response = anonymous.post("/api/v1/users/", {
        "username": username, "password": PASSWORD, "email": "new@example.com",
        "display_name": "New Pinner"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == username and body["display_name"] == "New Pinner"
    assert isinstance(body["id"], str) and body["id"].isdigit()
    assert response["Location"].endswith(f"/api/v1/users/{body['id']}/")
    assert "password" not in body


def test_sign_up_ignores_read_only_fields(anonymous: APIClient) -> None:
    username = unique_username("ro")
    response = anonymous.post("/api/v1/users/", {
        "username": username, "password": PASSWORD, "id": "241294492511762325",
        "is_staff": True, "is_superuser": True, "follower_count": 1000}, format="json")
    assert response.status_code == 201
    assert response.json()["id"] != "241294492511762325"
    account = get_user_model().objects.get(username=username)
    assert not account.is_staff and not account.is_superuser


def test_sign_up_with_a_taken_username_is_a_conflict(anonymous: APIClient,
                                                       alice: Caller) -> None:
    response = anonymous.post("/api/v1/users/", {"username": alice.username.upper(),
                                                 "password": PASSWORD}, format="json")
    assert response.status_code == 409
    assert "already taken" in error_of(response)["detail"]


def test_sign_up_rejects_a_common_password(anonymous: APIClient) -> None:
    response = anonymous.post("/api/v1/users/", {"username": unique_username(),
                                                 "password": "password"}, format="json")
    assert response.status_code == 400
    assert "password" in error_of(response)["fields"]


def test_sign_up_rejects_a_bad_username(anonymous: APIClient) -> None:
    response = anonymous.post("/api/v1/users/", {"username": "no spaces here",
                                                 "password": PASSWORD}, format="json")
    assert response.status_code == 400
    assert "username" in error_of(response)["fields"]


def test_me_shows_the_requesting_pinner(alice: Caller) -> None:
    body = alice.client.get("/api/v1/me/").json()
    assert body["id"] == alice.id and body["username"] == alice.username
    assert body["is_staff"] is False
    assert body["board_count"] == 0 and body["follower_count"] == 0


def test_me_needs_credentials(anonymous: APIClient) -> None:
    response = anonymous.get("/api/v1/me/")
    assert response.status_code == 401
    assert error_of(response)["code"] == "not_authenticated"


def test_me_refuses_an_account_without_a_pinner() -> None:
    account = get_user_model().objects.create_user(unique_username("op"), "", PASSWORD)
    client = APIClient()
    client.force_authenticate(account)
    response = client.get("/api/v1/me/")
    assert response.status_code == 403
    assert "no pinner profile" in error_of(response)["detail"]


def test_api_root_names_the_schema_and_docs(anonymous: APIClient) -> None:
    body = anonymous.get("/api/v1/").json()
    assert body["schema"].endswith("/api/schema/") and body["docs"].endswith("/api/docs/")


def test_unknown_paths_are_json_404s(anonymous: APIClient) -> None:
    for path in ("/api/v1/nothing/", "/api/v1/me", "/api/v1/users/1/boards/extra/"):
        response = anonymous.get(path)
        assert response.status_code == 404
        assert error_of(response)["code"] == "not_found"


def test_session_writes_need_the_csrf_token(alice: Caller) -> None:
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username=alice.username, password=PASSWORD)
    response = client.post("/api/v1/boards/", {"name": "No token"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in error_of(response)["detail"]


def test_deleting_me_starts_the_deletion_and_refuses_the_token_at_once() -> None:
    caller = new_caller()
    response = caller.client.delete("/api/v1/me/")
    assert response.status_code == 202
    assert response.json() == {"deleting": True, "user_id": caller.id,
                               "detail": "Your account is being deleted."}
    assert caller.client.get("/api/v1/me/").status_code == 401
    assert (objects.get(caller.user_id) or {}).get("deleting") is True


def test_deleting_me_needs_a_pinner() -> None:
    assert APIClient().delete("/api/v1/me/").status_code == 401
