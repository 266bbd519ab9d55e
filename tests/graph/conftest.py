"""Graph test set-up: the vshard map published on the running stack, and event capture."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command

from graph.events import FOLLOW_CHANGED
from tests.events.helpers import recorded


@pytest.fixture(autouse=True, scope="session")
def _vshard_map(django_db_setup: None) -> None:
    call_command("graph", "init", verbosity=0)


@pytest.fixture
def follow_events() -> Iterator[list[dict[str, Any]]]:
    """Every ``follow_changed`` payload published during the test."""
    with recorded(FOLLOW_CHANGED) as received:
        yield received
