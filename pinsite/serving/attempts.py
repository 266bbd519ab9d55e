"""Limits on credential attempts: log-ins (web, admin, API token) and sign-ups.

Every attempt counts once against the client's address (:func:`pinsite.serving.clients.
client_address`) and once against the username it names; past the ``credentials`` rate
(``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, ``PINSITE_API_CREDENTIAL_RATE``, 20 a minute by
default) either count refuses the attempt until its window ends. So guessing one account's
password from many addresses is limited, and so is trying many accounts from one address.

Counts live in the throttle cache (``PINSITE_SERVING["THROTTLE_CACHE"]``, Redis) in fixed
windows of the rate's period aligned to the clock (an atomic ``INCR`` each): a burst can reach
twice the rate across a window boundary, never more. The limits fail closed: when that cache
cannot be reached, :class:`LimiterUnavailable` is raised and the attempt is refused: a 503
with its message, as :mod:`pinsite.errors` maps it for the web UI, the admin and the API.

:func:`credential_limited` puts an HTML log-in or sign-up view (the web UI's, the admin's)
under the limits: past them the answer is the 429 page, saying when to try again (and a
``Retry-After`` header). The caller maps :class:`LimiterUnavailable` with its other errors.
The API's limits are :mod:`pinsite.api.throttles`.

:func:`count_attempt` also says how many attempts are left and when the window ends, for the
API's rate-limit headers.

>>> login_view = domain_errors(credential_limited(LoginView.as_view()))
>>> wait = attempt_wait(client_address(request.META), "alice")
>>> if wait is not None: ...   # 429 with Retry-After: wait
>>> count_attempt(client_address(request.META), "alice")
Allowance(limit=20, remaining=17, reset=1718000040, wait=None)
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render

from pinsite.serving.clients import client_address
from pinsite.serving.conf import serving_settings
from toolkit.errors import StoreUnavailable

SCOPE = "credentials"
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
clock = time.time
"""The limiter's clock (the windows are aligned to it)."""


Answer = TypeVar("Answer", bound=HttpResponseBase)


class LimiterUnavailable(StoreUnavailable):
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


@dataclass(frozen=True)
class Allowance:
    """Where one counted attempt leaves its client: ``limit`` attempts a window, ``remaining``
    of them (the fewer of its address's and its username's), the window ending at ``reset``
    (Unix seconds), and ``wait``: ``None`` when the attempt is allowed, else the seconds
    until one would be."""

    limit: int
    remaining: int
    reset: int
    wait: int | None


def count_attempt(address: str, username: str | None) -> Allowance:
    """Count one attempt from ``address`` naming ``username``."""
    allowed, period = credential_rate()
    now = clock()
    window = int(now // period)
    keys = [f"{SCOPE}:address:{address}:{window}"]
    if username:
        keys.append(f"{SCOPE}:username:{_digest(username)}:{window}")
    used = max(_count(key, period) for key in keys)
    reset = (window + 1) * period
    wait = None if used <= allowed else max(1, math.ceil(reset - now))
    return Allowance(allowed, max(0, allowed - used), reset, wait)


def attempt_wait(address: str, username: str | None) -> int | None:
    """Count one attempt from ``address`` naming ``username``; ``None`` when it is allowed,
    else the seconds until it would be."""
    return count_attempt(address, username).wait


def _count(key: str, period: int) -> int:
    cache = caches[serving_settings.THROTTLE_CACHE]
    try:
        cache.add(key, 0, timeout=period + 1)
        return int(cache.incr(key))
    except Exception as exc:  # whatever the cache's client raises: refuse, never let through
        raise LimiterUnavailable(f"the attempt counters cannot be reached: {exc!r}") from exc


def _digest(username: str) -> str:
    return hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]


def credential_limited(view: Callable[..., Answer]) -> Callable[..., Answer | HttpResponse]:
    """``view`` with its POSTs limited as credential attempts."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> Answer | HttpResponse:
        if request.method == "POST":
            wait = attempt_wait(client_address(request.META), request.POST.get("username"))
            if wait is not None:
                return too_many_attempts(request, wait)
        return view(request, *args, **kwargs)

    return wrapped


def too_many_attempts(request: HttpRequest, wait: int) -> HttpResponse:
    """The 429 page: try again in ``wait`` seconds."""
    response = render(request, "429.html", {"wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response
