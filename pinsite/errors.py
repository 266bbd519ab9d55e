"""Which domain and store exceptions mean what to a caller, for every way in (the web UI
:mod:`pinsite.web.errors`, the API :mod:`pinsite.api.errors`, the admin's log-in): one list,
so they answer alike. Each glue layer adds its own content errors (``pins.exceptions``) and
its own rendering; the HTML ones share the 503 page, :func:`unavailable_page`.

Order matters where the groups overlap: a not-found or invalid-input error of a store is also
one of its errors, so check those first and :data:`UNAVAILABLE` last.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from dramatiq.errors import BrokerError

from feed.exceptions import FeedError, InvalidFeedInput
from graph.exceptions import GraphError, GraphNotFound, InvalidGraphInput
from pinsite.serving.attempts import LimiterUnavailable
from sharding.exceptions import (
    InvalidObjectId,
    ObjectNotFound,
    ShardingError,
    ShardNotOpen,
    UnknownObjectType,
)

logger = logging.getLogger("pinsite")

Kinds = tuple[type[BaseException], ...]

STORE_NOT_FOUND: Kinds = (InvalidObjectId, ObjectNotFound, ShardNotOpen, UnknownObjectType,
                          GraphNotFound)
"""A malformed, wrong-type or unknown ID as the stores see it: 404."""

STORE_INVALID: Kinds = (InvalidGraphInput, InvalidFeedInput)
"""Input the graph or the feed refuses: 400."""

UNAVAILABLE: Kinds = (LimiterUnavailable, ShardingError, GraphError, FeedError, OperationalError,
                      InterfaceError, BrokerError)
"""A store (or the queue, or the credential attempt limiter) that cannot answer now: 503."""


def unavailable_message(exc: BaseException) -> str | None:
    """What the 503 for ``exc`` tells the caller: the attempt limiter's own sentence (it
    refuses on purpose), else ``None`` for the generic one."""
    return exc.message if isinstance(exc, LimiterUnavailable) else None


def unavailable_page(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 page for ``exc``, one of :data:`UNAVAILABLE`, logged."""
    logger.error("a store could not serve %s %s", request.method, request.path, exc_info=exc)
    return render(request, "503.html", {"message": unavailable_message(exc)}, status=503)
