"""Errors of the following feed. Driver errors are wrapped, with the original as ``__cause__``."""

from toolkit.errors import StoreUnavailable


class FeedError(Exception):
    """Base class of every error raised by the feed."""


class InvalidFeedInput(FeedError, ValueError):
    """A bad user ID, page size or cursor."""


class FeedUnavailable(FeedError, StoreUnavailable):
    """An HBase cluster (or the cache holding the smart feed's health figures) cannot be
    reached, timed out, or failed the call."""


class FeedSchemaError(FeedError):
    """The feed table is missing or has the wrong column families (run ``feed init``)."""


class ObservationsUnavailable(FeedUnavailable):
    """The Redis database holding the fanout observations (:mod:`feed.observe`) cannot be
    reached or failed the call."""
