"""API test set-up: anonymous clients and callers with tokens (the stack and the media folder
come from ``tests/conftest.py``)."""

from __future__ import annotations

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
