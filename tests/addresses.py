"""Addresses tests use: a port nothing listens on, and client addresses no other test uses.

>>> settings.PINSITE_FEED = {**settings.PINSITE_FEED, "POOLS": CLOSED}
>>> Client(REMOTE_ADDR=unique_address()).post("/login/", {...})
"""

from __future__ import annotations

import ipaddress
import random

CLOSED = ("127.0.0.1", 1)  # nothing listens on port 1


def unique_address() -> str:
    """An address of the IPv6 documentation range no other test (or run) uses, so attempt
    counters in the shared throttle cache start at zero for it."""
    return str(ipaddress.IPv6Address((0x20010DB8 << 96) | random.getrandbits(80)))
