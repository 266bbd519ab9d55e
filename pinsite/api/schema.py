"""The OpenAPI schema's conventions, applied to every operation in one place.

- List views (:class:`~pinsite.api.base.PageView`) get the ``cursor``/``limit`` parameters
  and a ``…Page`` response.
- Operations a permission opens to anonymous callers list the empty security requirement.
- Path IDs are strings of digits (``ID_SCHEMA``), like every ID in a body.
- Every operation documents the error responses it can give, all of the ``Error`` shape.
"""

from __future__ import annotations

import inspect
from typing import Any

from drf_spectacular.openapi import AutoSchema

from pinsite.api.fields import ID_SCHEMA
from pinsite.api.pagination import PageQuerySerializer, page_serializer

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "detail"],
    "properties": {
        "code": {"type": "string", "description": "Machine-readable: `invalid`, `not_found`, "
                 "`permission_denied`, `not_authenticated`, `authentication_failed`, "
                 "`conflict`, `throttled`, `too_large`, `unavailable`, …"},
        "detail": {"type": "string", "description": "What went wrong, for people."},
        "fields": {"type": "object", "description": "For `invalid`: messages per input field.",
                   "additionalProperties": {"type": "array", "items": {"type": "string"}}},
    },
}
ERRORS = {
    400: "The input is not valid (see `fields`), or the page cursor or size is not.",
    401: "No valid credentials were given.",
    403: "Not allowed: not the owner, no pinner profile, or a missing CSRF token.",
    404: "No such user, board, pin or data export (also for malformed or wrong-type IDs).",
    409: "The username is already taken.",
    413: "The request body is too large.",
    415: "The body is not of a supported media type.",
    429: "Too many writes; retry after the `Retry-After` seconds.",
    503: "A data store cannot answer right now; try again shortly.",
}
UNSAFE = {"post", "put", "patch", "delete"}
EXTRA_ERRORS = {("post", "/api/v1/users/"): [409], ("post", "/api/v1/pins/"): [404],
                ("get", "/api/v1/me/export/"): [404]}


class PinsiteAutoSchema(AutoSchema):
    """drf-spectacular's schema with the conventions of :mod:`pinsite.api.base`."""

    def _is_page(self) -> bool:
        return self.method == "GET" and hasattr(self.view, "item_serializer")

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        return [*parameters, PageQuerySerializer] if self._is_page() else parameters

    def get_response_serializers(self) -> Any:
        if self._is_page():
            return page_serializer(self.view.item_serializer)
        return super().get_response_serializers()

    def get_description(self) -> str:
        """The method's docstring, else the view class's own (never a base class's)."""
        action = getattr(self.view, self.method.lower(), None)
        own = action.__doc__ if action is not None and action.__doc__ else \
            type(self.view).__dict__.get("__doc__")
        return inspect.cleandoc(own) if own else ""

    def get_summary(self) -> str | None:
        if self._is_page():
            return str(self.view.summary)
        return super().get_summary()

    def get_auth(self) -> list[dict[str, Any]]:
        auths = list(super().get_auth())
        anonymous = any(self.method in getattr(permission, "anonymous_methods", ())
                        for permission in self.view.get_permissions())
        if anonymous and {} not in auths:
            auths.append({})
        return auths


def document_conventions(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Postprocessing hook: ID path parameters, optional blank text, and the error responses
    of every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    _blank_allowed(result)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            _describe_path_ids(operation)
            for code in _error_codes(path, method, operation):
                operation["responses"].setdefault(str(code), {
                    "description": ERRORS[code],
                    "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Error"}}}})
    return result


def _blank_allowed(node: Any) -> None:
    """``oneOf: [text, {maxLength: 0}]`` (DRF's ``allow_blank``) → ``anyOf``: a pattern that
    accepts the empty string would otherwise make ``""`` match both and so neither."""
    if isinstance(node, dict):
        branches = node.get("oneOf")
        if isinstance(branches, list) and {"type": "string", "maxLength": 0} in branches:
            node["anyOf"] = node.pop("oneOf")
        for value in node.values():
            _blank_allowed(value)
    elif isinstance(node, list):
        for value in node:
            _blank_allowed(value)


def _describe_path_ids(operation: dict[str, Any]) -> None:
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "path" and parameter["name"].endswith("_id"):
            parameter["schema"] = dict(ID_SCHEMA)


def _error_codes(path: str, method: str, operation: dict[str, Any]) -> list[int]:
    codes = {401, 403, 503, *EXTRA_ERRORS.get((method, path), ())}
    has_body = "requestBody" in operation
    if has_body or operation.get("parameters") or method in UNSAFE:
        codes.add(400)
    if "{" in path:
        codes.add(404)
    if has_body:
        codes |= {413, 415}
    if method in UNSAFE:
        codes.add(429)
    return sorted(codes)
