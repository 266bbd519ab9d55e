"""Web UI test set-up: pinners and logged-in clients (the stack, media folder and queue worker
come from ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from pins.models import Pinner
from tests.web.helpers import new_pinner


@pytest.fixture
def pinner() -> Pinner:
    return new_pinner()


@pytest.fixture
def other() -> Pinner:
    return new_pinner()


@pytest.fixture
def login() -> Callable[[Pinner], Client]:
    """A test client logged in as the given pinner."""

    def logged_in(who: Pinner) -> Client:
        client = Client()
        client.force_login(who.account)
        return client

    return logged_in

