"""Limits on credential attempts: log-ins (web, admin, API token) and sign-ups.

Every attempt counts once against the client's address (:func:`pinsite.serving.clients.
client_address`) and once against the username it names; past the ``credentials`` rate
(``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, ``PINSITE_API_CREDENTIAL_RATE``, 20 a minute by
default) either count refuses the attempt until its window ends. So guessing one account's
password from many addresses is limited, and so is trying many accounts from one address.

Counts live in the throttle cache (``PINSITE_SERVING["THROTTLE_CACHE"]``, Redis) in fixed
windows of the rate's period aligned to the clock (an atomic ``INCR`` each): a burst can reach
twice the rate across a window boundary, never more. The limits fail closed: when that cache
cannot be reached, :class:`LimiterUnavailable` is raised and the caller refuses the attempt.

>>> wait = attempt_wait(client_address(request.META), "alice")
>>> if wait is not None: ...   # 429 with Retry-After: wait
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from typing import cast

from django.conf import settings
from django.core.cache import caches

from pinsite.serving.conf import serving_settings

logger = logging.getLogger("pinsite.serving")

SCOPE = "credentials"
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class LimiterUnavailable(Exception):
    """The attempt counters cannot be read or written: refuse the attempt."""

    message = ("Signing in and signing up are paused for a moment: the attempt limiter "
               "cannot be reached. Try again shortly.")


def parse_rate(rate: str) -> tuple[int, int]:
    """``"20/minute"`` → ``(20, 60)``: attempts allowed per period of seconds."""
    count, _, period = rate.partition("/")
    return int(count), PERIODS[period.strip()[:1]]


def credential_rate() -> tuple[int, int]:
    rates = cast(dict[str, str], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    return parse_rate(rates[SCOPE])


def attempt_wait(address: str, username: str | None) -> int | None:
    """Count one attempt from ``address`` naming ``username``; ``None`` when it is allowed,
    else the seconds until it would be."""
    allowed, period = credential_rate()
    now = time.time()
    window = int(now // period)
    keys = [f"{SCOPE}:address:{address}:{window}"]
    if username:
        keys.append(f"{SCOPE}:username:{_digest(username)}:{window}")
    counts = [_count(key, period) for key in keys]
    if max(counts) <= allowed:
        return None
    return max(1, math.ceil((window + 1) * period - now))


def _count(key: str, period: int) -> int:
    cache = caches[serving_settings.THROTTLE_CACHE]
    try:
        cache.add(key, 0, timeout=period + 1)
        return int(cache.incr(key))
    except Exception as exc:  # whatever the cache's client raises: refuse, never let through
        logger.warning("credential attempt limiter unavailable: %r", exc)
        raise LimiterUnavailable(LimiterUnavailable.message) from exc


def _digest(username: str) -> str:
    return hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
