"""Which domain and store exceptions mean what to a caller, for every way in (the web UI
:mod:`pinsite.web.errors`, the API :mod:`pinsite.api.errors`): one list, so the two answer
alike. Each glue layer adds its own content errors (``pins.exceptions``) and its own rendering.

Order matters where the groups overlap: a not-found or invalid-input error of a store is also
one of its errors, so check those first and :data:`UNAVAILABLE` last.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from dramatiq.errors import BrokerError

from feed.exceptions import FeedError, InvalidFeedInput
from graph.exceptions import GraphError, GraphNotFound, InvalidGraphInput
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

UNAVAILABLE: Kinds = (ShardingError, GraphError, FeedError, OperationalError, InterfaceError,
                      BrokerError)
"""A store (or the queue) that cannot answer now: 503."""
