"""Web UI test set-up: graph and feed on the running stack, fast passwords, private media,
pinners, logged-in clients and a real queue worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import dramatiq
import pytest
from django.core.management import call_command
from django.test import Client
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from pytest_django import Settings

from feed import tasks
from pins.models import Pinner
from tests.web.helpers import new_pinner


@pytest.fixture(autouse=True, scope="session")
def _graph_and_feed(django_db_setup: None) -> None:
    call_command("graph", "init", verbosity=0)
    call_command("feed", "init", verbosity=0)


@pytest.fixture(autouse=True)
def _web_settings(settings: Settings, tmp_path: Path) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"


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


@pytest.fixture
def worker() -> Iterator[dramatiq.Worker]:
    """A Dramatiq worker on the real RabbitMQ broker consuming the feed's queues (emptied
    first of what other tests left), so new pins and follows reach the feeds."""
    broker = cast(RabbitmqBroker, dramatiq.get_broker())
    for name in tasks.queues():
        broker.declare_queue(name, ensure=True)
        broker.flush(name)
    running = dramatiq.Worker(broker, queues=set(tasks.queues()), worker_threads=4,
                              worker_timeout=100)
    running.start()
    yield running
    running.stop()
