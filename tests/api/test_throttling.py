"""Throttling: unsafe methods are limited per account, reads are not; credential requests
per address (as the trusted-proxy setting decides it) and per username, failing closed; the
``X-RateLimit-*`` headers on every answer a throttle counted, and on no other."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from pytest_django import Settings
from rest_framework.test import APIClient

from pinsite.serving import attempts
from pinsite.serving.attempts import LimiterUnavailable
from tests.addresses import CLOSED, unique_address
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


# --- Rate-limit headers ------------------------------------------------------------------------

RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def _rate_limit(response: Any) -> tuple[int, int, int]:
    """The answer's ``(limit, remaining, reset)``, each header present and a whole number."""
    limit, remaining, reset = (int(response[name]) for name in RATE_LIMIT_HEADERS)
    return limit, remaining, reset


def _has_no_rate_limit(response: Any) -> bool:
    return not any(response.has_header(name) for name in RATE_LIMIT_HEADERS)


@pytest.fixture
def write_rate(settings: Settings) -> int:
    """Writes a minute, few enough to run out of."""
    rate = 3
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "writes": f"{rate}/minute"}}
    return rate


def test_each_counted_write_says_how_many_are_left(write_rate: int, alice: Caller) -> None:
    started = time.time()
    answers = [alice.client.post("/api/v1/boards/", {"name": f"Board {n}"}, format="json")
               for n in range(write_rate)]
    assert [answer.status_code for answer in answers] == [201] * write_rate
    limits = [_rate_limit(answer) for answer in answers]
    assert [limit for limit, _, _ in limits] == [write_rate] * write_rate
    assert [remaining for _, remaining, _ in limits] == list(range(write_rate - 1, -1, -1))
    resets = {reset for _, _, reset in limits}
    assert len(resets) == 1, "the first write leaves the window first, for every answer"
    assert started + 60 <= resets.pop() <= time.time() + 61


def test_a_throttled_write_says_when_to_retry(write_rate: int, alice: Caller) -> None:
    answers = [alice.client.post("/api/v1/boards/", {"name": f"Board {n}"}, format="json")
               for n in range(write_rate)]
    last_reset = _rate_limit(answers[-1])[2]
    response = alice.client.post("/api/v1/boards/", {"name": "One too many"}, format="json")
    assert response.status_code == 429
    limit, remaining, reset = _rate_limit(response)
    assert (limit, remaining, reset) == (write_rate, 0, last_reset)
    retry_after = int(response["Retry-After"])
    assert 0 < retry_after <= 60
    assert abs(reset - time.time() - retry_after) <= 2


def test_a_rejected_write_is_counted_and_carries_the_headers(write_rate: int,
                                                             alice: Caller) -> None:
    response = alice.client.post("/api/v1/boards/", {"name": ""}, format="json")
    assert response.status_code == 400
    assert _rate_limit(response)[:2] == (write_rate, write_rate - 1)


def test_reads_carry_no_rate_limit_headers(write_rate: int, alice: Caller,
                                           anonymous: APIClient) -> None:
    for client in (alice.client, anonymous):
        response = client.get(f"/api/v1/users/{alice.id}/boards/")
        assert response.status_code == 200
        assert _has_no_rate_limit(response)


def test_token_requests_carry_the_credential_allowance(credential_rate: int) -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    answers = [_wrong_password(client) for _ in range(3)]
    assert [answer.status_code for answer in answers] == [401] * 3
    window_end = (int(attempts.clock()) // 60 + 1) * 60
    assert [_rate_limit(answer) for answer in answers] == [
        (credential_rate, credential_rate - n, window_end) for n in (1, 2, 3)]


@pytest.mark.usefixtures("low_rates", "attempt_clock_held")
def test_a_throttled_token_request_says_when_the_window_ends() -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    assert _rate_limit(_wrong_password(client))[:2] == (1, 0)
    response = _wrong_password(client)
    assert response.status_code == 429
    limit, remaining, reset = _rate_limit(response)
    assert (limit, remaining) == (1, 0)
    assert int(response["Retry-After"]) == math.ceil(reset - attempts.clock()) == 59


def test_a_rejected_sign_up_carries_the_credential_allowance(credential_rate: int) -> None:
    client = APIClient(REMOTE_ADDR=unique_address())
    response = client.post("/api/v1/users/", {"username": unique_username(), "password": "x"},
                           format="json")
    assert response.status_code == 400
    assert _rate_limit(response)[:2] == (credential_rate, credential_rate - 1)


@pytest.mark.usefixtures("throttle_cache_down")
def test_without_its_cache_the_credential_throttle_sends_no_numbers() -> None:
    response = _wrong_password(APIClient(REMOTE_ADDR=unique_address()))
    assert response.status_code == 503
    assert _has_no_rate_limit(response)


def test_without_its_cache_the_write_throttle_sends_no_numbers(
        write_rate: int, alice: Caller, settings: Settings) -> None:
    host, port = CLOSED
    settings.CACHES = {**settings.CACHES, "default": {
        **settings.CACHES["default"], "LOCATION": f"redis://{host}:{port}/0"}}
    for n in range(write_rate + 1):
        response = alice.client.post("/api/v1/boards/", {"name": f"Board {n}"}, format="json")
        assert response.status_code == 201, "the write throttle fails open"
        assert _has_no_rate_limit(response)
