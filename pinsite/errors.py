"""Which domain and store exceptions mean what to a caller, for every way in (the web UI
:mod:`pinsite.web.errors`, the API :mod:`pinsite.api.errors`, the admin's log-in): one list,
so they answer alike. Each glue layer adds its own content errors (``pins.exceptions``) and
its own rendering.

Order matters where the groups overlap: a not-found or invalid-input error of a store is also
one of its errors, so check those first and :data:`UNAVAILABLE` last.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
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

