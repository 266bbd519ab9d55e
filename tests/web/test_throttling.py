"""Credential limits on the web log-in, sign-up and the admin's log-in: per address and per
username, a 429 page saying when to retry, and refused (503) when the limiter is down."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from pins.models import Pinner
from pinsite.serving.attempts import LimiterUnavailable
from tests.addresses import unique_address
from tests.web.helpers import PASSWORD, text, unique_username

LOGIN_PATHS = ("/login/", "/admin/login/")


def _wrong_login() -> dict[str, str]:
    return {"username": unique_username(), "password": "wrong-password"}


def _failed_sign_up() -> dict[str, str]:
    return {"username": unique_username(), "password1": "x", "password2": "y"}


def _attempt(path: str, username: str, password: str = "wrong-password",
             address: str | None = None) -> int:
    client = Client(REMOTE_ADDR=address or unique_address())
    return client.post(path, {"username": username, "password": password}).status_code


def _assert_retry_page(client: Client, path: str, username: str) -> None:
    response = client.post(path, {"username": username, "password": "wrong-password"})
    assert response.status_code == 429
    wait = int(response["Retry-After"])
    assert 0 < wait <= 60
    assert "Too many attempts" in text(response)
    assert f"try again in {wait} second" in text(response)


@pytest.mark.parametrize(("path", "form"), [("/login/", _wrong_login),
                                            ("/admin/login/", _wrong_login),
                                            ("/signup/", _failed_sign_up)])
def test_attempts_from_one_address_meet_a_429(path: str, form: Callable[[], dict[str, str]],
                                              credential_rate: int) -> None:
    client = Client(REMOTE_ADDR=unique_address())
    statuses = [client.post(path, form()).status_code for _ in range(credential_rate + 5)]
    assert statuses == [200] * credential_rate + [429] * 5
    _assert_retry_page(client, path, unique_username())


@pytest.mark.parametrize("path", LOGIN_PATHS)
def test_one_username_from_many_addresses_meets_a_429(path: str, pinner: Pinner,
                                                      credential_rate: int) -> None:
    assert [_attempt(path, pinner.username) for _ in range(credential_rate)] == \
        [200] * credential_rate
    assert _attempt(path, pinner.username) == 429
    assert _attempt(path, pinner.username.upper(), PASSWORD) == 429


def test_the_right_password_within_the_limit_logs_in(pinner: Pinner,
                                                     credential_rate: int) -> None:
    address = unique_address()
    for _ in range(credential_rate - 1):
        _attempt("/login/", pinner.username, address=address)
    assert _attempt("/login/", pinner.username, PASSWORD, address=address) == 302


def test_pages_are_not_attempts(credential_rate: int) -> None:
    client = Client(REMOTE_ADDR=unique_address())
    for _ in range(credential_rate + 5):
        assert client.get("/login/").status_code == 200
    assert client.post("/login/", {"username": unique_username(),
                                   "password": "wrong-password"}).status_code == 200


@pytest.mark.usefixtures("throttle_cache_down")
def test_without_its_cache_the_limit_refuses_every_attempt(pinner: Pinner) -> None:
    for path in (*LOGIN_PATHS, "/signup/"):
        response = Client(REMOTE_ADDR=unique_address()).post(
            path, {"username": pinner.username, "password": PASSWORD})
        assert response.status_code == 503, path
        assert LimiterUnavailable.message in text(response)
    assert Client().get("/login/").status_code == 200
