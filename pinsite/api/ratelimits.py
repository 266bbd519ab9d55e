"""Rate-limit headers: what a throttle counted of a request, told to the client in its answer.

A throttle that counts a request records where its client stands (:func:`record_rate_limit`,
called from ``allow_request``); :class:`~pinsite.api.base.PinsiteView` writes the record onto
the answer, whatever its status (:func:`add_rate_limit_headers`), as GitHub's and Mastodon's
APIs do. Requests no throttle counted (reads) carry no headers, and neither do requests whose
counters could not be read or written: a throttle that cannot count records nothing rather
than made-up numbers. The 429's ``Retry-After`` is DRF's, from the throttle's ``wait()``.

>>> record_rate_limit(request, RateLimit(limit=120, remaining=119, reset=1718000060))
>>> rate_limit_of(request).headers()
{'X-RateLimit-Limit': '120', 'X-RateLimit-Remaining': '119', 'X-RateLimit-Reset': '1718000060'}
"""

from __future__ import annotations

from dataclasses import dataclass

from rest_framework.request import Request
from rest_framework.response import Response

_ATTRIBUTE = "_pinsite_rate_limit"


@dataclass(frozen=True)
class RateLimit:
    """Where a client stands after one counted request: ``limit`` requests a window,
    ``remaining`` of them left, and ``reset``, the Unix time in whole seconds when
    ``remaining`` next grows (the window's end)."""

    limit: int
    remaining: int
    reset: int

    def headers(self) -> dict[str, str]:
        return {"X-RateLimit-Limit": str(self.limit),
                "X-RateLimit-Remaining": str(self.remaining),
                "X-RateLimit-Reset": str(self.reset)}

    def is_tighter_than(self, other: RateLimit) -> bool:
        """Fewer requests left, or as few for longer: the one a client must heed."""
        return (self.remaining, -self.reset) < (other.remaining, -other.reset)


def record_rate_limit(request: Request, rate_limit: RateLimit) -> None:
    """Keep ``rate_limit`` for the answer to ``request``; of several throttles' records, the
    tightest."""
    recorded = rate_limit_of(request)
    if recorded is None or rate_limit.is_tighter_than(recorded):
        setattr(request, _ATTRIBUTE, rate_limit)


def rate_limit_of(request: Request) -> RateLimit | None:
    """The rate limit recorded for ``request``, or ``None`` when no throttle counted it."""
    recorded = getattr(request, _ATTRIBUTE, None)
    return recorded if isinstance(recorded, RateLimit) else None


def add_rate_limit_headers(request: Request, response: Response) -> None:
    """Write the ``X-RateLimit-*`` headers of ``request``'s record, if any, onto ``response``."""
    rate_limit = rate_limit_of(request)
    if rate_limit is not None:
        for name, value in rate_limit.headers().items():
            response[name] = value
