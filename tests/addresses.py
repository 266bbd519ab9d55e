"""Addresses tests use: a port nothing listens on, and client addresses no other test uses.

>>> settings.PINSITE_FEED = {**settings.PINSITE_FEED, "POOLS": CLOSED}
>>> with database_at_closed_port("default"): ...
>>> Client(REMOTE_ADDR=unique_address()).post("/login/", {...})
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections

CLOSED = ("127.0.0.1", 1)  # nothing listens on port 1


@contextmanager
def database_at_closed_port(alias: str) -> Iterator[None]:
    """This thread's connection to database ``alias`` pointed at :data:`CLOSED` (closed
    first, so its next statement connects there), then closed and pointed back."""
    connection = connections[alias]
    configured = connection.settings_dict
    connection.close()
    connection.settings_dict = {**configured, "HOST": CLOSED[0], "PORT": str(CLOSED[1])}
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict = configured


def unique_address() -> str:
    """An address of the IPv6 documentation range no other test (or run) uses, so attempt
    counters in the shared throttle cache start at zero for it."""
    return str(ipaddress.IPv6Address((0x20010DB8 << 96) | random.getrandbits(80)))
