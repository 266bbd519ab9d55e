"""A WSGI application that answers at once, for ``bench web``: what a web server costs a
request when the application costs nothing. No Django."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

BODY = b'{"status": "ok"}'
HEADERS = [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))]


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", HEADERS)
    return [BODY]
