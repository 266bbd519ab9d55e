"""Errors of a pinner's data exports, with messages fit to show them.

Each is one of the content domain's kinds (:mod:`pins.exceptions`), so the web UI and the API
answer them as they answer those: a 404.
"""

from __future__ import annotations

from pins.exceptions import NotFound


class ExportNotFound(NotFound):
    """No such export of the acting pinner: none by that ID, someone else's, expired (and so
    deleted), or not ready to download."""
