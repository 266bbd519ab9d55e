"""The address of the client a request comes from, the one rule every throttle keys on.

Behind no proxy (``PINSITE_SERVING["TRUSTED_PROXIES"]`` 0, the default) it is the peer of the
connection, ``REMOTE_ADDR``, and ``X-Forwarded-For`` is ignored: any client can write that
header. Behind N proxies that each append the address they received the request from, the
client is the Nth address from the right of ``X-Forwarded-For``; the addresses to its left
were sent by the client and are not trusted. A header with fewer than N addresses (a request
that did not pass every proxy) or a malformed one there falls back to ``REMOTE_ADDR``.

>>> client_address(request)   # X-Forwarded-For: 6.6.6.6, 203.0.113.9 with one proxy
'203.0.113.9'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from pinsite.serving.conf import serving_settings


def client_address(meta: Mapping[str, Any]) -> str:
    """The client's address from a request's ``META`` (a WSGI environ)."""
    remote = str(meta.get("REMOTE_ADDR") or "")
    proxies = serving_settings.number("TRUSTED_PROXIES")
    forwarded = str(meta.get("HTTP_X_FORWARDED_FOR") or "")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",")]
    if len(hops) < proxies:
        return remote
    return _valid_address(hops[-proxies]) or remote


def _valid_address(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None
