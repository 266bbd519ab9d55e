"""Which domain and store exceptions mean what to a caller, for every way in (the web UI
:mod:`pinsite.web.errors`, the API :mod:`pinsite.api.errors`, the admin's log-in): one list,
so they answer alike. Each glue layer adds its own content errors (``pins.exceptions``) and
its own rendering.

Order matters where the groups overlap: a malformed ID is also an invalid one, and a
not-found or invalid-input error of a store is also one of its errors, so check
:data:`STORE_INVALID` first, then :data:`STORE_NOT_FOUND`, and :data:`UNAVAILABLE` last.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from dramatiq.errors import BrokerError

from coordination.exceptions import CoordinationError
from feed.exceptions import FeedError, InvalidFeedInput
from graph.exceptions import GraphError, GraphNotFound, InvalidGraphInput
from pinsite.serving.attempts import LimiterUnavailable
from sharding.exceptions import (
    InvalidObjectId,
    MalformedObjectId,
    ObjectNotFound,
    ShardingError,
    ShardNotOpen,
    UnknownObjectType,
)
from toolkit.paging import InvalidPageSize
from toolkit.queue import QueueUnavailable

Kinds = tuple[type[BaseException], ...]

STORE_INVALID: Kinds = (MalformedObjectId, InvalidPageSize, InvalidGraphInput, InvalidFeedInput)
"""Input refused: an ID given that no object of the wanted type can have
(:func:`sharding.ids.parse_id`), or what the graph or the feed refuses: 400."""

STORE_NOT_FOUND: Kinds = (InvalidObjectId, ObjectNotFound, ShardNotOpen, UnknownObjectType,
                          GraphNotFound)
"""No such object, or an ID the stores found they cannot use: 404."""

UNAVAILABLE: Kinds = (LimiterUnavailable, ShardingError, CoordinationError, GraphError, FeedError,
                      OperationalError, InterfaceError, BrokerError, QueueUnavailable)
"""A store (or the queue, or the credential attempt limiter) that cannot answer now: 503."""


def unavailable_message(exc: BaseException) -> str | None:
    """What the 503 for ``exc`` tells the caller: the attempt limiter's own sentence (it
    refuses on purpose), else ``None`` for the generic one."""
    return exc.message if isinstance(exc, LimiterUnavailable) else None

