"""Errors of the content domain, with messages fit to show a pinner or an operator.

Views turn them into 404 / 403 / 400 responses and commands into ``CommandError``; store errors
(:mod:`sharding.exceptions`) that are not about the request pass through unchanged.
"""

from __future__ import annotations


class ContentError(Exception):
    """Base class of every content-domain error."""


class NotFound(ContentError, LookupError):
    """No such pinner, board or pin (also for an ID of the wrong type)."""


class PermissionDenied(ContentError):
    """The acting pinner does not own the board or pin."""


class InvalidContent(ContentError, ValueError):
    """Input the domain rejects; ``field`` names the offending input when there is one.

    >>> raise InvalidContent("Enter a valid http(s) URL.", field="link")
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class UsernameTaken(InvalidContent):
    """The username is already some account's (the API answers 409, a form shows it)."""
