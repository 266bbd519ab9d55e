"""Who may read ``/metrics`` and ``/readyz``: both ask every shard master and the broker, so
they answer only operators' machines.

A request is let in when its client address (:func:`pinsite.serving.clients.client_address`)
is in one of the networks of ``PINSITE_SERVING["STATUS_ALLOW"]`` (loopback by default) and,
when ``STATUS_TOKEN`` is set, it also carries ``Authorization: Bearer <token>``. Any other
address gets a 403; a missing or wrong token a 401. ``/healthz`` asks no store and stays open.

>>> @status_endpoint
... def metrics(request): ...
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
from collections.abc import Callable, Iterable

from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse

from pinsite.serving.clients import client_address
from pinsite.serving.conf import serving_settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
View = Callable[[HttpRequest], HttpResponse]


def status_endpoint(view: View) -> View:
    """Answer ``view`` only to the allowed networks, with the token when one is set."""
    @functools.wraps(view)
    def restricted(request: HttpRequest) -> HttpResponse:
        return refusal(request) or view(request)
    return restricted


def refusal(request: HttpRequest) -> HttpResponse | None:
    """The 403 or 401 answer for a request that may not read status endpoints, else None."""
    address = client_address(request.META)
    if not is_allowed(address, serving_settings.STATUS_ALLOW):
        return HttpResponse(f"{address or 'this address'} may not read this endpoint "
                            "(PINSITE_STATUS_ALLOW)\n", status=403, content_type="text/plain")
    token = serving_settings.text("STATUS_TOKEN")
    if token and not hmac.compare_digest(request.headers.get("Authorization", ""),
                                         f"Bearer {token}"):
        response = HttpResponse("this endpoint needs the bearer token (PINSITE_STATUS_TOKEN)\n",
                                status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="pinsite status"'
        return response
    return None


def is_allowed(address: str, networks: Iterable[str]) -> bool:
    """True if ``address`` lies in one of ``networks`` (CIDRs; an IPv4-mapped IPv6 address
    counts as its IPv4 address)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in allowed_networks(networks))


def allowed_networks(networks: Iterable[str]) -> tuple[Network, ...]:
    """The networks of an allow-list of CIDRs (blanks skipped); a malformed one raises
    :class:`~django.core.exceptions.ImproperlyConfigured` naming ``PINSITE_STATUS_ALLOW``."""
    return _parsed(tuple(networks))


@functools.lru_cache(maxsize=8)
def _parsed(networks: tuple[str, ...]) -> tuple[Network, ...]:
    try:
        return tuple(ipaddress.ip_network(text.strip(), strict=False)
                     for text in networks if text.strip())
    except ValueError as exc:
        raise ImproperlyConfigured(f"PINSITE_STATUS_ALLOW: {exc}") from exc
