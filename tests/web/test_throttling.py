"""Credential limits on the web log-in, sign-up and the admin's log-in: per address and per
username, a 429 page saying when to retry, and refused (503) when the limiter is down."""

from __future__ import annotations

import pytest
from django.test import Client
from pytest_django import Settings

from pins.models import Pinner
from pinsite.serving.attempts import LimiterUnavailable
from tests.api.helpers import unique_address
from tests.web.helpers import PASSWORD, text, unique_username

RATE = 20
CLOSED = "127.0.0.1:1"  # nothing listens on port 1


@pytest.fixture(autouse=True)
def credential_rate(settings: Settings) -> None:
    """The production credential rate (the test settings lift it)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "credentials": f"{RATE}/minute"}}


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


def test_25_wrong_passwords_from_one_address_meet_a_429() -> None:
    client = Client(REMOTE_ADDR=unique_address())
    statuses = [client.post("/login/", {"username": unique_username(),
                                        "password": "wrong-password"}).status_code
                for _ in range(25)]
    assert statuses == [200] * RATE + [429] * (25 - RATE)
    _assert_retry_page(client, "/login/", unique_username())


def test_one_username_from_many_addresses_meets_a_429(pinner: Pinner) -> None:
    assert [_attempt("/login/", pinner.username) for _ in range(RATE)] == [200] * RATE
    assert _attempt("/login/", pinner.username) == 429
    assert _attempt("/login/", pinner.username.upper(), PASSWORD) == 429


def test_the_right_password_within_the_limit_logs_in(pinner: Pinner) -> None:
    address = unique_address()
    for _ in range(RATE - 1):
        _attempt("/login/", pinner.username, address=address)
    assert _attempt("/login/", pinner.username, PASSWORD, address=address) == 302


def test_the_admin_login_is_limited_per_address_and_per_username(pinner: Pinner) -> None:
    client = Client(REMOTE_ADDR=unique_address())
    statuses = [client.post("/admin/login/", {"username": unique_username(),
                                              "password": "wrong-password"}).status_code
                for _ in range(RATE + 1)]
    assert statuses == [200] * RATE + [429]
    _assert_retry_page(client, "/admin/login/", unique_username())
    assert [_attempt("/admin/login/", pinner.username) for _ in range(RATE + 1)] == \
        [200] * RATE + [429]


def test_sign_ups_from_one_address_are_limited() -> None:
    client = Client(REMOTE_ADDR=unique_address())
    statuses = [client.post("/signup/", {"username": unique_username(), "password1": "x",
                                         "password2": "y"}).status_code
                for _ in range(RATE + 1)]
    assert statuses == [200] * RATE + [429]
    _assert_retry_page(client, "/signup/", unique_username())


def test_pages_are_not_attempts() -> None:
    client = Client(REMOTE_ADDR=unique_address())
    for _ in range(RATE + 5):
        assert client.get("/login/").status_code == 200
    assert client.post("/login/", {"username": unique_username(),
                                   "password": "wrong-password"}).status_code == 200


def test_without_its_cache_the_limit_refuses_every_attempt(settings: Settings,
                                                           pinner: Pinner) -> None:
    settings.CACHES = {**settings.CACHES, "throttles": {
        **settings.CACHES["throttles"], "LOCATION": f"redis://{CLOSED}/0"}}
    for path in ("/login/", "/admin/login/", "/signup/"):
        response = Client(REMOTE_ADDR=unique_address()).post(
            path, {"username": pinner.username, "password": PASSWORD})
        assert response.status_code == 503, path
        assert LimiterUnavailable.message in text(response)
    assert Client().get("/login/").status_code == 200
