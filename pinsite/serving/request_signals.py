"""Django's work at every request's start and end, less the part that does nothing here.

Django connects three receivers to its request signals: ``reset_queries`` when a request
starts, ``close_old_connections`` when it starts and when it ends, and ``close_caches`` when
it ends. Each walks every database connection or cache this thread has opened, through a
thread-local lookup apiece: with five databases and five caches, about 195 µs of CPU a
request, of which the two below are 100 µs (BENCHMARKS.md, "Django's request signals").

- ``close_caches`` asks each cache to close its connections. A django-redis cache keeps its
  pool unless told to close it (``CLOSE_CONNECTION``), and Django's local-memory and dummy
  caches hold no connection, so when every configured cache is one of those the receiver is
  disconnected.
- ``reset_queries`` empties each connection's log of queries, which Django fills only with
  ``DEBUG`` on (and inside ``CaptureQueriesContext``, which counts from where the log stood
  when it began and connects ``reset_queries`` again when it ends). Without ``DEBUG`` at
  start-up it is disconnected.

``close_old_connections`` stays: it closes connections that failed or outlived
``CONN_MAX_AGE``, and Django's test client disconnects it around its requests.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signals
from django.core.cache import close_caches
from django.db import reset_queries

from sharding.cache import closes_nothing


def trim() -> None:
    """Disconnect Django's request receivers that would do nothing with these settings."""
    if all(closes_nothing(config) for config in settings.CACHES.values()):
        signals.request_finished.disconnect(close_caches)
    if not settings.DEBUG:
        signals.request_started.disconnect(reset_queries)
