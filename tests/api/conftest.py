"""API test set-up: anonymous clients, callers with tokens and the OpenAPI schema (the stack
and the media folder come from ``tests/conftest.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.helpers import Caller, new_caller


@pytest.fixture
def anonymous() -> APIClient:
    return APIClient()


@pytest.fixture
def alice() -> Caller:
    return new_caller(display_name="Alice")


@pytest.fixture
def bob() -> Caller:
    return new_caller(display_name="Bob")


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    """The API's OpenAPI schema, as served."""
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return dict(response.json())
