"""Write throttling: unsafe methods are rate-limited per account (or per address when
anonymous); reads are not. Rates come from ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``,
read on every request, so a settings change applies at once.

>>> REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
{'writes': '120/minute', 'credentials': '20/minute'}
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class WriteThrottle(SimpleRateThrottle):
    """``writes``: creates, changes, deletes, follows and unfollows of one account."""

    scope = "writes"

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str:
        user = request.user
        ident = f"user-{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class CredentialThrottle(WriteThrottle):
    """``credentials``: sign-ups and token requests from one address (password guessing)."""

    scope = "credentials"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
