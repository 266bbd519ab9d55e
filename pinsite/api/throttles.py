"""Throttling: writes per account, credential attempts per address and per username.

Unsafe methods are rate-limited per account (or per address when anonymous); reads are not.
Sign-ups and token requests are credential attempts, limited as the web log-in is
(:mod:`pinsite.serving.attempts`, which fails closed: when its cache is down, the
``LimiterUnavailable`` it raises is a 503, :mod:`pinsite.api.errors`). The
write throttle fails open (its counters live in the ``default`` cache, which ignores errors).
Addresses come from :func:`pinsite.serving.clients.client_address`. Rates come from
``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, read on every request.

>>> REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
{'writes': '120/minute', 'credentials': '20/minute'}
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from pinsite.serving.attempts import attempt_wait
from pinsite.serving.clients import client_address


class WriteThrottle(SimpleRateThrottle):
    """``writes``: creates, changes, deletes, follows and unfollows of one account."""

    scope = "writes"

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_ident(self, request: Request) -> str:
        return client_address(request.META)

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str:
        user = request.user
        ident = f"user-{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class CredentialThrottle(BaseThrottle):
    """``credentials``: each sign-up or token request counts against its address and the
    username in its body."""

    def __init__(self) -> None:
        self.seconds: int | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True
        self.seconds = attempt_wait(client_address(request.META), _username(request))
        return self.seconds is None

    def wait(self) -> float | None:
        return self.seconds


def _username(request: Request) -> str | None:
    data = request.data
    name = data.get("username") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None
