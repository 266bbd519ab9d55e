"""Serving settings: the ``PINSITE_SERVING`` dict, resolved lazily with defaults in code.

>>> from pinsite.serving.conf import serving_settings
>>> serving_settings.TRUSTED_PROXIES
0
"""

from __future__ import annotations

from typing import Any

from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    # Reverse proxies in front of the site that append to X-Forwarded-For (0: none, the
    # header is ignored); see pinsite.serving.clients.
    "TRUSTED_PROXIES": 0,
    # The cache (an alias of CACHES) holding the credential attempt counters; it must raise
    # on errors (IGNORE_EXCEPTIONS off) for the limits to fail closed.
    "THROTTLE_CACHE": "throttles",
    # Who may read /metrics and /readyz (pinsite.serving.access): client networks, and a
    # bearer token that is also required when set.
    "STATUS_ALLOW": ["127.0.0.0/8", "::1/128"],
    "STATUS_TOKEN": "",
    # How long one /readyz probe of every store answers for (0: probe on every request).
    "READY_CACHE_SECONDS": 1.0,
}

serving_settings = Settings("PINSITE_SERVING", DEFAULTS)
