"""Throttling: writes per account, credential attempts per address and per username.

Unsafe methods are rate-limited per account (or per address when anonymous); reads are not.
Sign-ups and token requests are credential attempts, limited as the web log-in is
(:mod:`pinsite.serving.attempts`, which fails closed: when its cache is down, the
``LimiterUnavailable`` it raises is a 503, :mod:`pinsite.api.errors`). The
write throttle fails open (its counters live in the ``default`` cache, which ignores errors).
Addresses come from :func:`pinsite.serving.clients.client_address`. Rates come from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, read on every request.

Each throttle records where a request it counted leaves its client
(:func:`pinsite.api.ratelimits.record_rate_limit`), for the answer's ``X-RateLimit-*`` headers;
a count it could not store or read is not recorded.

>>> REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
{'writes': '120/minute', 'credentials': '20/minute'}
"""

from __future__ import annotations

import math
from typing import Any

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from pinsite.api.ratelimits import RateLimit, record_rate_limit
from pinsite.serving.attempts import count_attempt
from pinsite.serving.clients import client_address


class WriteThrottle(SimpleRateThrottle):
    """``writes``: creates, changes, deletes, follows and unfollows of one account.

    DRF's sliding window: the account's requests of the last period, newest first, in
    ``history``. Its rate-limit ``reset`` is when the oldest of them leaves the window: one
    more request is allowed from then on.
    """

    scope = "writes"

    def __init__(self) -> None:
        super().__init__()
        self.counted: RateLimit | None = None

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_ident(self, request: Request) -> str:
        return client_address(request.META)

    def get_cache_key(self, request: Request, view: Any) -> str:
        user = request.user
        ident = f"user-{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        allowed = bool(super().allow_request(request, view))
        if self.counted is not None:
            record_rate_limit(request, self.counted)
        return allowed

    def throttle_success(self) -> bool:
        """Add the request to the stored history. The ``default`` cache ignores errors:
        django-redis answers ``True`` once Redis holds the history and ``None`` when it
        cannot be reached, and then the count (read from the same Redis) is unknown and
        not recorded."""
        self.history.insert(0, self.now)
        if self.cache.set(self.key, self.history, self.duration) is True:
            self.counted = self._rate_limit(self.num_requests - len(self.history))
        return True

    def throttle_failure(self) -> bool:
        self.counted = self._rate_limit(0)
        return False

    def _rate_limit(self, remaining: int) -> RateLimit:
        oldest = self.history[-1] if self.history else self.now
        return RateLimit(self.num_requests, remaining, math.ceil(oldest + self.duration))


class CredentialThrottle(BaseThrottle):
    """``credentials``: each sign-up or token request counts against its address and the
    username in its body."""

    def __init__(self) -> None:
        self.seconds: int | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True
        allowance = count_attempt(client_address(request.META), _username(request))
        record_rate_limit(request, RateLimit(allowance.limit, allowance.remaining,
                                             allowance.reset))
        self.seconds = allowance.wait
        return self.seconds is None

    def wait(self) -> float | None:
        return self.seconds


def _username(request: Request) -> str | None:
    data = request.data
    name = data.get("username") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None
