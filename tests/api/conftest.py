"""API test set-up: the graph's vshard map and the feed tables on the running stack, fast
password hashing, a private media folder per test, and callers with tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from pytest_django import Settings
from rest_framework.test import APIClient

from tests.api.helpers import Caller, new_caller


@pytest.fixture(autouse=True, scope="session")
def _graph_and_feed(django_db_setup: None) -> None:
    call_command("graph", "init", verbosity=0)
    call_command("feed", "init", verbosity=0)


@pytest.fixture(autouse=True)
def _api_settings(settings: Settings, tmp_path: Path) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def anonymous() -> APIClient:
    return APIClient()


@pytest.fixture
def alice() -> Caller:
    return new_caller(display_name="Alice")


@pytest.fixture
def bob() -> Caller:
    return new_caller(display_name="Bob")
