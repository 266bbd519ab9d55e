"""Django's request receivers that would do nothing with these settings are disconnected at
start-up; those that do something stay."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core import signals
from django.core.cache import close_caches
from django.db import close_old_connections, reset_queries
from django.dispatch import Signal
from django.test import override_settings
from django_redis.client import DefaultClient

from pinsite.serving import request_signals
from sharding import cache

REDIS = "django_redis.cache.RedisCache"


class ClosingClient(DefaultClient):
    """A django-redis client that closes its connections at the end of every request."""

    def close(self, **kwargs: Any) -> None:
        self.do_close_clients()


def _receivers(signal: Signal) -> list[Callable[..., Any]]:
    return list(signal._live_receivers(None)[0])


@pytest.fixture
def receivers_restored() -> Iterator[None]:
    """Django's receivers connected again for the test; as the app left them after it."""
    signals.request_finished.connect(close_caches)
    signals.request_started.connect(reset_queries)
    try:
        yield
    finally:
        signals.request_finished.connect(close_caches)
        signals.request_started.connect(reset_queries)
        request_signals.trim()


def test_a_process_of_the_site_keeps_only_the_receivers_that_do_something() -> None:
    # In a process of its own: CaptureQueriesContext, which other tests use, connects
    # reset_queries again when it ends.
    shown = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n"
         "from django.core import signals\n"
         "for signal in (signals.request_started, signals.request_finished):\n"
         "    print(sorted(r.__name__ for r in signal._live_receivers(None)[0]))"],
        cwd=settings.BASE_DIR, capture_output=True, text=True, check=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings"}).stdout
    assert shown.splitlines() == ["['close_old_connections']", "['close_old_connections']"]


def test_trim_disconnects_close_caches_and_reset_queries(receivers_restored: None) -> None:
    request_signals.trim()
    assert close_caches not in _receivers(signals.request_finished)
    assert reset_queries not in _receivers(signals.request_started)
    assert close_old_connections in _receivers(signals.request_started)
    assert close_old_connections in _receivers(signals.request_finished)


def test_a_cache_that_closes_its_connections_keeps_close_caches(receivers_restored: None,
                                                                ) -> None:
    closing = {"default": {"BACKEND": REDIS, "LOCATION": "redis://127.0.0.1:1/0",
                           "OPTIONS": {"CLOSE_CONNECTION": True}}}
    with override_settings(CACHES=closing):
        request_signals.trim()
    assert close_caches in _receivers(signals.request_finished)


def test_with_debug_the_query_log_is_reset_at_each_request(receivers_restored: None) -> None:
    with override_settings(DEBUG=True):
        request_signals.trim()
    assert reset_queries in _receivers(signals.request_started)


@pytest.mark.parametrize(("config", "closes_nothing"), [
    ({"BACKEND": REDIS, "OPTIONS": {}}, True),
    ({"BACKEND": REDIS, "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"}}, True),
    ({"BACKEND": REDIS, "OPTIONS": {"CLOSE_CONNECTION": True}}, False),
    ({"BACKEND": REDIS, "OPTIONS": {"CLIENT_CLASS": f"{__name__}.ClosingClient"}}, False),
    ({"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}, True),
    ({"BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache"}, False),
])
def test_which_caches_close_nothing(config: dict[str, Any], closes_nothing: bool) -> None:
    assert cache.closes_nothing(config) is closes_nothing
