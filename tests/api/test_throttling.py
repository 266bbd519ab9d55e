"""Throttling: unsafe methods are limited per account, reads are not; credential requests
per address (as the trusted-proxy setting decides it) and per username, failing closed."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_django import Settings
from rest_framework.test import APIClient

from pinsite.serving.attempts import LimiterUnavailable
from tests.addresses import unique_address
from tests.api.helpers import PASSWORD, Caller, error_of, unique_username


@pytest.fixture
def low_rates(settings: Settings) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        "writes": "2/minute", "credentials": "1/minute"}}


@pytest.mark.usefixtures("low_rates")
def test_writes_beyond_the_rate_are_429(alice: Caller) -> None:
    for name in ("One", "Two"):
        assert alice.client.post("/api/v1/boards/", {"name": name},
                                 format="json").status_code == 201
    response = alice.client.post("/api/v1/boards/", {"name": "Three"}, format="json")
    assert response.status_code == 429
    assert error_of(response)["code"] == "throttled"
    assert int(response["Retry-After"]) > 0


@pytest.mark.usefixtures("low_rates")
def test_reads_are_not_throttled(alice: Caller) -> None:
    for _ in range(5):
        assert alice.client.get(f"/api/v1/users/{alice.id}/boards/").status_code == 200


@pytest.mark.usefixtures("low_rates")
def test_each_account_has_its_own_allowance(alice: Caller, bob: Caller) -> None:
    for name in ("One", "Two", "Three"):
        alice.client.post("/api/v1/boards/", {"name": name}, format="json")
    assert bob.client.post("/api/v1/boards/", {"name": "Mine"}, format="json").status_code == 201


@pytest.mark.usefixtures("low_rates", "attempt_clock_held")
def test_credential_requests_are_throttled_per_address() -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    attempt = {"username": unique_username(), "password": PASSWORD}
    client.post("/api/v1/auth/token/", attempt, format="json")
    response = client.post("/api/v1/auth/token/", attempt, format="json")
    assert response.status_code == 429


def _wrong_password(client: APIClient, **headers: str) -> Any:
    attempt = {"username": unique_username(), "password": "wrong-password"}
    return client.post("/api/v1/auth/token/", attempt, format="json", **headers)


def test_a_rotating_x_forwarded_for_still_meets_the_429(credential_rate: int) -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    statuses = [_wrong_password(client, HTTP_X_FORWARDED_FOR=unique_address()).status_code
                for _ in range(credential_rate + 10)]
    assert statuses == [401] * credential_rate + [429] * 10
    response = _wrong_password(client, HTTP_X_FORWARDED_FOR=unique_address())
    assert error_of(response)["code"] == "throttled"
    assert 0 < int(response["Retry-After"]) <= 60


def test_with_one_trusted_proxy_the_right_most_address_is_counted(
        credential_rate: int, settings: Settings) -> None:
    settings.PINSITE_SERVING = {**settings.PINSITE_SERVING, "TRUSTED_PROXIES": 1}
    proxy = APIClient(REMOTE_ADDR=unique_address())
    client, neighbour = unique_address(), unique_address()
    for _ in range(credential_rate):
        forged = f"{unique_address()}, {client}"
        assert _wrong_password(proxy, HTTP_X_FORWARDED_FOR=forged).status_code == 401
    assert _wrong_password(proxy, HTTP_X_FORWARDED_FOR=f"{unique_address()}, "
                                                       f"{client}").status_code == 429
    assert _wrong_password(proxy, HTTP_X_FORWARDED_FOR=neighbour).status_code == 401


def test_token_requests_are_limited_per_username_across_addresses(
        credential_rate: int, alice: Caller) -> None:
    def attempt(password: str) -> int:
        client = APIClient(REMOTE_ADDR=unique_address())
        return int(client.post("/api/v1/auth/token/",
                               {"username": alice.username, "password": password},
                               format="json").status_code)

    assert [attempt("wrong-password") for _ in range(credential_rate)] == \
        [401] * credential_rate
    assert attempt("wrong-password") == 429
    assert attempt(PASSWORD) == 429


def test_sign_ups_are_limited_per_address(credential_rate: int) -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    statuses = [client.post("/api/v1/users/", {"username": unique_username(), "password": "x"},
                            format="json").status_code for _ in range(credential_rate + 1)]
    assert statuses == [400] * credential_rate + [429]


@pytest.mark.usefixtures("throttle_cache_down")
def test_the_credential_throttle_fails_closed_without_its_cache(alice: Caller) -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    for path, body in (("/api/v1/auth/token/", {"username": alice.username,
                                                "password": PASSWORD}),
                       ("/api/v1/users/", {"username": unique_username(),
                                           "password": PASSWORD})):
        response = client.post(path, body, format="json")
        assert response.status_code == 503, path
        assert error_of(response) == {"code": "unavailable",
                                      "detail": LimiterUnavailable.message}
    assert alice.client.post("/api/v1/boards/", {"name": "Still"},
                             format="json").status_code == 201
