"""Admin test set-up: the graph map and feed tables on the running stack, and clients logged in
as a superuser, a staff member who is not one, and a pinner who is not staff."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from pytest_django import Settings


@pytest.fixture(autouse=True, scope="session")
def _graph_and_feed(django_db_setup: None) -> None:
    call_command("graph", "init", verbosity=0)
    call_command("feed", "init", verbosity=0)


@pytest.fixture(autouse=True)
def _admin_settings(settings: Settings, tmp_path: Path) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"


def _client(**flags: bool) -> Client:
    account = get_user_model().objects.create_user(f"op{uuid.uuid4().hex[:12]}", "",
                                                   "operator-password", **flags)
    client = Client()
    client.force_login(account)
    return client


@pytest.fixture
def superuser() -> Client:
    return _client(is_staff=True, is_superuser=True)


@pytest.fixture
def staff() -> Client:
    return _client(is_staff=True)


@pytest.fixture
def pinner_client() -> Client:
    return _client()
