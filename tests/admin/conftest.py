"""Admin test set-up: clients logged in as a superuser, a staff member who is not one, and a
pinner who is not staff (the stack and the media folder come from ``tests/conftest.py``; the
real queue with a worker, ``running``, from ``tests/feed/conftest.py``)."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.feed.conftest import running  # noqa: F401


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
