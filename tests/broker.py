"""RabbitMQ out of reach for this process only: the broker pointed, through ``AMQP_URL``, at a
loopback port nothing listens on, so sends fail as they do when the server is down (pika's
connection refused, retried, then Dramatiq's ``ConnectionClosed``) while the shared test
server keeps serving other processes.

>>> with unreachable_broker():
...     new_pin(owner, board)     # committed; the fast path's publish fails, the row stays
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import dramatiq
import pika
from django.conf import settings
from django.test import override_settings


def closed_port() -> int:
    """A loopback port that was free a moment ago (and nothing listens on)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def unreachable_broker() -> Iterator[None]:
    """Within the block, this process's broker connects to a closed port; its open
    connections are closed on the way in and out."""
    broker: Any = dramatiq.get_broker()
    reachable = broker.parameters
    url = settings.AMQP_URL.replace(f":{reachable.port}/", f":{closed_port()}/", 1)
    with override_settings(AMQP_URL=url):
        broker.parameters = pika.URLParameters(settings.AMQP_URL)
        broker.close()
        try:
            yield
        finally:
            broker.parameters = reachable
            broker.close()
