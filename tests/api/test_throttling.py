"""Write throttling: unsafe methods are limited per account, reads are not."""

from __future__ import annotations

import pytest
from pytest_django import Settings
from rest_framework.test import APIClient

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


@pytest.mark.usefixtures("low_rates")
def test_credential_requests_are_throttled_per_address() -> None:
    client = APIClient(REMOTE_ADDR="192.0.2.77")
    attempt = {"username": unique_username(), "password": PASSWORD}
    client.post("/api/v1/auth/token/", attempt, format="json")
    response = client.post("/api/v1/auth/token/", attempt, format="json")
    assert response.status_code == 429
