"""Request body limits: no request larger than the largest upload is read.

The largest body the site takes is a pin upload: the image limit
(``PINSITE_CONTENT["MAX_IMAGE_BYTES"]``) plus :data:`FORM_ALLOWANCE` for the form's other
fields, :func:`upload_limit` (the web UI, the admin and the API share it).

- :class:`BodyLimit`, a middleware placed before anything reads a body (sessions, CSRF, the
  views): a request whose ``Content-Length`` is over the limit is answered 413 at once, its
  body unread (an HTML page naming the limit, or the API's JSON error under ``/api/``).
- :func:`bounded_streams`, around the WSGI application: a body streamed without
  ``Content-Length`` (``Transfer-Encoding: chunked``, which gunicorn decodes) is read into
  memory up to the limit, so Django sees an ordinary body of known length. One byte over and
  reading stops: nothing past the limit is read, nothing of it is written to disk, and
  :class:`BodyLimit` answers 413.

>>> application = bounded_streams(get_wsgi_application())
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from pins.conf import content_settings

FORM_ALLOWANCE = 256 * 1024
OVER_LIMIT = "pinsite.body_over_limit"
READ_CHUNK = 64 * 1024

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def image_limit() -> int:
    return content_settings.number("MAX_IMAGE_BYTES")


def upload_limit() -> int:
    """The most bytes any request body may have: one image and its form."""
    return image_limit() + FORM_ALLOWANCE


def too_large_message() -> str:
    return f"The upload is larger than the {image_limit() / 2**20:g} MB image limit."


def declared_length(meta: Mapping[str, Any]) -> int:
    """The request's ``Content-Length`` (0 when absent or malformed)."""
    try:
        return max(0, int(meta.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


class BodyLimit:
    """Refuse, unread, a body over :func:`upload_limit`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.META.get(OVER_LIMIT) or declared_length(request.META) > upload_limit():
            return _too_large(request)
        return self.get_response(request)


def _too_large(request: HttpRequest) -> HttpResponse:
    if request.path.startswith(reverse("api-root")):
        return JsonResponse({"code": "too_large", "detail": too_large_message()}, status=413)
    return render(request, "413.html", {"message": too_large_message()}, status=413)


def bounded_streams(app: WSGIApp) -> WSGIApp:
    """``app`` with streamed request bodies read to at most :func:`upload_limit` bytes."""

    def application(environ: dict[str, Any],
                    start_response: Callable[..., Any]) -> Iterable[bytes]:
        if _is_streamed(environ):
            _buffer(environ, upload_limit())
        return app(environ, start_response)

    return application


def _is_streamed(environ: Mapping[str, Any]) -> bool:
    return (not environ.get("CONTENT_LENGTH") and bool(environ.get("wsgi.input_terminated"))
            and "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower())


def _buffer(environ: dict[str, Any], limit: int) -> None:
    """Read the streamed body into memory; past ``limit`` bytes mark it over the limit."""
    source, body = environ["wsgi.input"], io.BytesIO()
    size = 0
    while chunk := source.read(min(READ_CHUNK, limit + 1 - size)):
        size += len(chunk)
        if size > limit:
            environ[OVER_LIMIT] = True
            environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(), "0"
            return
        body.write(chunk)
    body.seek(0)
    environ["wsgi.input"], environ["CONTENT_LENGTH"] = body, str(size)
