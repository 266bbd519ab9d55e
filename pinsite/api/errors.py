"""The API's errors: domain and store exceptions become JSON responses with the right status.

Every error body has one shape (``Error`` in the schema, :data:`pinsite.api.schema.ERROR_SCHEMA`)::

    {"code": "not_found", "detail": "No board 144959613005987841."}
    {"code": "invalid", "detail": "name: This field is required.",
     "fields": {"name": ["This field is required."]}}

Domain errors map by kind (the store's groups are in :mod:`pinsite.errors`, shared with the web
UI): not found (also every malformed or wrong-type ID) → 404, not the owner → 403, rejected
input → 400, a store (or the credential attempt limiter) that cannot answer now → 503.
Anything else is a bug and propagates to Django's 500 handling.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from pins.exceptions import InvalidContent, NotFound, PermissionDenied, UsernameTaken
from pinsite.api.exceptions import Conflict, ServiceUnavailable
from pinsite.errors import STORE_INVALID, STORE_NOT_FOUND, UNAVAILABLE, unavailable_message
from toolkit.paging import InvalidPageSize

logger = logging.getLogger("pinsite.api")


def invalid(message: str, field: str | None = None) -> exceptions.ValidationError:
    """A 400 naming the offending input (``field``) when there is one."""
    return exceptions.ValidationError({field: [message]} if field else [message])


Translation = tuple[type[BaseException] | tuple[type[BaseException], ...],
                    Callable[[Any], exceptions.APIException]]

TRANSLATIONS: list[Translation] = [
    (Http404, lambda exc: exceptions.NotFound(str(exc) or None)),
    (DjangoPermissionDenied, lambda exc: exceptions.PermissionDenied(str(exc) or None)),
    (NotFound, lambda exc: exceptions.NotFound(str(exc))),
    (PermissionDenied, lambda exc: exceptions.PermissionDenied(str(exc))),
    (UsernameTaken, lambda exc: Conflict(exc.message)),
    (InvalidContent, lambda exc: invalid(exc.message, exc.field)),
    (InvalidPageSize, lambda exc: invalid(str(exc), "limit")),
    (STORE_INVALID, lambda exc: invalid(_sentence(exc))),
    (STORE_NOT_FOUND, lambda exc: exceptions.NotFound(_sentence(exc))),
    (UNAVAILABLE, lambda exc: ServiceUnavailable(unavailable_message(exc))),
]


def api_exception(exc: BaseException) -> exceptions.APIException | None:
    """The DRF exception that stands for ``exc``, or ``None`` for a bug."""
    if isinstance(exc, exceptions.APIException):
        return exc
    for kinds, translate in TRANSLATIONS:
        if isinstance(exc, kinds):
            return translate(exc)
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: translate, then render the one error shape."""
    translated = api_exception(exc)
    if translated is None:
        return None
    if isinstance(translated, ServiceUnavailable):
        logger.warning("API request failed on an unavailable store: %r", exc, exc_info=exc)
    response = drf_exception_handler(translated, context)
    if response is not None:
        response.data = error_body(translated)
    return response


def error_body(exc: exceptions.APIException) -> dict[str, Any]:
    """``{"code", "detail"[, "fields"]}`` for any DRF exception."""
    if isinstance(exc, exceptions.ValidationError):
        fields = _field_messages(exc.detail)
        detail = "; ".join(f"{name}: {' '.join(messages)}" if name != "non_field_errors"
                           else " ".join(messages) for name, messages in fields.items())
        body: dict[str, Any] = {"code": "invalid", "detail": detail or "Invalid input."}
        named = {name: messages for name, messages in fields.items()
                 if name != "non_field_errors"}
        if named:
            body["fields"] = named
        return body
    code = exc.get_codes()
    return {"code": code if isinstance(code, str) else exc.default_code,
            "detail": str(exc.detail)}


def _field_messages(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, dict):
        return {str(name): _flat(messages) for name, messages in detail.items()}
    return {"non_field_errors": _flat(detail)}


def _flat(messages: Any) -> list[str]:
    if isinstance(messages, dict):
        return [f"{key}: {text}" for key, value in messages.items() for text in _flat(value)]
    if isinstance(messages, list):
        return [text for item in messages for text in _flat(item)]
    return [str(messages)]


def _sentence(exc: BaseException) -> str:
    text = str(exc).strip() or "Not found."
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")
