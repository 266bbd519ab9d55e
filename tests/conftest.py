"""Test-suite set-up: the real ``test`` profile stack, Django's tables migrated, shards, the
graph's vshard map and the feed tables created; private media and export folders per test; a
real queue worker for the feed (``worker``). Fast password hashing comes from
``pinsite.test_settings``.

Tests talk to real MariaDB, Redis, ZooKeeper and RabbitMQ servers (``make test`` starts them).
Each session has a RabbitMQ virtual host of its own (``pinsite.test_settings``), created here
and deleted at the end, so two sessions on one stack never take each other's messages.
Isolation comes from fresh objects per test (new users, boards, pins) rather than from
rolled-back transactions, because sharded writes span several hosts.
"""

from __future__ import annotations

import io
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import dramatiq
import pytest
from django.conf import settings
from django.core.management import call_command
from pytest_django import Settings

from devstack import Stack
from devstack.process import exclusive
from devstack.rabbitmq import USER as AMQP_USER
from devstack.rabbitmq import RabbitMQ
from events import publisher
from feed import observe, speculative
from feed.smart.service import flush_visits
from feed.store import observations
from pinsite.env import redis_location
from pinsite.test_settings import AMQP_VHOST, AMQP_VHOST_PREFIX
from tests.addresses import CLOSED
from tests.feed.helpers import flush_feed_queues, worker_queues


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _own_vhost() -> RabbitMQ | None:
    """The stack's RabbitMQ if this process named the session's virtual host and the server
    is up (``django_db_setup`` explains a stack that is down)."""
    rabbitmq = cast(RabbitMQ, Stack(settings.PROFILE).service("rabbitmq"))
    own = f"{AMQP_VHOST_PREFIX}{os.getpid()}" == AMQP_VHOST
    return rabbitmq if own and _reachable(rabbitmq.host, rabbitmq.port) else None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Create this session's virtual host (and drop those of sessions that died)."""
    rabbitmq = _own_vhost()
    if rabbitmq is None:
        return
    for name in rabbitmq.ctl("list_vhosts", "--quiet", "--no-table-headers").split():
        pid = name.removeprefix(AMQP_VHOST_PREFIX)
        if name != AMQP_VHOST and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            rabbitmq.ctl("delete_vhost", name, check=False)
    rabbitmq.ctl("add_vhost", AMQP_VHOST, check=False)
    rabbitmq.ctl("set_permissions", "-p", AMQP_VHOST, AMQP_USER, ".*", ".*", ".*")


def pytest_sessionfinish(session: pytest.Session) -> None:
    rabbitmq = _own_vhost()
    if rabbitmq is not None:
        dramatiq.get_broker().close()
        rabbitmq.ctl("delete_vhost", AMQP_VHOST, check=False)


@pytest.fixture(scope="session")
def django_db_setup(django_db_blocker: pytest.FixtureRequest) -> Iterator[None]:
    """Use the running test stack as it is: migrate ``default`` and create the shards."""
    database = settings.DATABASES["default"]
    if not _reachable(database["HOST"], int(database["PORT"])):
        pytest.exit("the test stack is down: run `python3 -m devstack --profile test up` "
                    "(or `make test`)", returncode=3)
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)  # WhiteNoise's root
    # Sessions started together (`make test` runs two) set the stores up one after the other.
    setup_lock = Stack(settings.PROFILE).profile.var_dir / "pytest-setup.lock"
    with exclusive(setup_lock), django_db_blocker.unblock():  # type: ignore[attr-defined]
        call_command("migrate", interactive=False, verbosity=0)
        call_command("shards", "init", "--quiet", verbosity=0, stdout=io.StringIO())
        call_command("graph", "init", verbosity=0, stdout=io.StringIO())
        call_command("feed", "init", verbosity=0, stdout=io.StringIO())
        call_command("smartfeed", "init", verbosity=0, stdout=io.StringIO())
    yield


@pytest.fixture(autouse=True, scope="session")
def _database_access(django_db_setup: None,
                     django_db_blocker: pytest.FixtureRequest) -> Iterator[None]:
    """Every test may use the real databases (no per-test transaction wrapping). Rows the
    fast path published are marked sent before the databases close for the session."""
    django_db_blocker.unblock()  # type: ignore[attr-defined]
    yield
    publisher.flush_and_mark()
    django_db_blocker.restore()  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _events_published() -> Iterator[None]:
    """What a test's follows handed to the publisher thread, and its Home visits to the visits
    thread, is sent before the next test starts: no event or visit of one test lands in
    another's recording or queue."""
    yield
    publisher.flush()
    flush_visits()


@pytest.fixture(autouse=True)
def _private_media(settings: Settings, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PINSITE_ACCOUNTS = {**settings.PINSITE_ACCOUNTS,
                                 "EXPORT_ROOT": str(tmp_path / "exports")}


@pytest.fixture
def worker() -> Iterator[dramatiq.Worker]:
    """A Dramatiq worker on the real RabbitMQ broker consuming the feed's and the graph's
    queues (emptied first of what other tests left), so new pins, follows and deletions reach
    the graph and the feeds. Its relay publishes what the fast path missed."""
    flush_feed_queues()
    running = dramatiq.Worker(dramatiq.get_broker(), queues=set(worker_queues()),
                              worker_threads=4, worker_timeout=100)
    running.start()
    yield running
    running.stop()


OBSERVATIONS_TEST_DB = 15


def observations_at(settings: Settings, location: str) -> None:
    """Point the ``observations`` cache alias (fanout observations, the smart feed's health)
    at ``location``; :func:`observations.reset` then gives a client there."""
    moved = {**settings.CACHES[observations.ALIAS], "LOCATION": location}
    settings.CACHES = {**settings.CACHES, observations.ALIAS: moved}
    observations.reset()


@pytest.fixture
def observations_db(settings: Settings) -> Iterator[None]:
    """Fanout observations (:mod:`feed.observe`) in a Redis database of their own, emptied
    first, so a test counts exactly what it caused."""
    observations_at(settings, redis_location(settings.REDIS_CACHE, OBSERVATIONS_TEST_DB))
    observe.flush_standby_reads()  # what earlier tests' reads left pending goes, with the rest
    observations.client().flushdb()
    yield
    observations.reset()


@pytest.fixture
def observations_down(settings: Settings) -> Iterator[None]:
    """The feed's observations (and the smart feed's health) pointed at a closed port: what a
    dead cache Redis looks like to them. In a module that uses ``observations_db``, take it as
    an argument: fixtures named in arguments come after the module's ``usefixtures``."""
    observations_at(settings, f"redis://{CLOSED[0]}:{CLOSED[1]}/0")
    yield
    observations.reset()


# --- Credential limits (tests/api, tests/web) -------------------------------------------------

@pytest.fixture
def attempt_clock_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """The attempt limiter's clock held one second into the current minute: its windows are
    fixed and aligned to the clock, and all of a test's attempts must fall in one, wherever in
    the minute the test starts and however slowly a busy machine runs it."""
    from pinsite.serving import attempts

    now = time.time()
    held = now - now % 60 + 1
    monkeypatch.setattr(attempts, "clock", lambda: held)


@pytest.fixture
def credential_rate(settings: Settings, attempt_clock_held: None) -> int:
    """The production credential rate, attempts a minute (the test settings lift it), in one
    window of the limiter's (:func:`attempt_clock_held`)."""
    rate = 20
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "credentials": f"{rate}/minute"}}
    return rate


@pytest.fixture
def throttle_cache_down(settings: Settings) -> None:
    """The credential attempt limiter's cache at a closed port: it cannot be reached."""
    host, port = CLOSED
    settings.CACHES = {**settings.CACHES, "throttles": {
        **settings.CACHES["throttles"], "LOCATION": f"redis://{host}:{port}/0"}}


# --- Speculative reads (tests/feed, tests/smartfeed) ------------------------------------------

@pytest.fixture
def failures_remembered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Speculative reads that remember no cluster's failure from before the test, and remember
    one within it for ten minutes (past any stall of a busy machine), so a cluster that failed
    is asked second for the rest of the test:

    >>> pytestmark = pytest.mark.usefixtures("failures_remembered")
    """
    monkeypatch.setattr(speculative, "SUSPECT_SECONDS", 600.0)
    speculative.answers.failed_at.clear()
    yield
    speculative.answers.failed_at.clear()

