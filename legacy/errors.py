"""Errors of the legacy import (commands turn them into ``CommandError``)."""

from __future__ import annotations


class LegacyError(Exception):
    """The legacy database cannot be read, or a row cannot be copied."""
