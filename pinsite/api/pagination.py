"""Cursor pagination: ``?cursor=&limit=`` in, ``{"items", "next_cursor", "next"}`` out.

Cursors are the domain's opaque newest-first cursors, sealed (:mod:`pinsite.cursors`); a page
size is 1..:data:`MAX_LIMIT` (default :data:`DEFAULT_LIMIT`). A cursor that is not one the API
issued is a 400, and so is a page size out of range, a ``cursor`` or ``limit`` given more than
once (``?limit=1&limit=2``), or an ``after`` parameter (the web UI's name for the cursor, which
the API does not take).

>>> query = page_query(request)
>>> page = board.pins.page(limit=query.limit, after=query.cursor)
>>> page_response(request, PinSerializer, page)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from pinsite.api.fields import TextField
from pinsite.cursors import InvalidCursor, seal, unseal
from toolkit.paging import Page

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
CURSOR_PATTERN = r"^[A-Za-z0-9_-]*$"


class QuerySerializer(serializers.Serializer[Any]):
    """Query-string parameters, each given at most once: a repeated one is a 400 naming it
    (rather than the last one silently winning)."""

    def to_internal_value(self, data: Any) -> Any:
        repeated = {name: ["Give this parameter at most once."] for name in self.fields
                    if hasattr(data, "getlist") and len(data.getlist(name)) > 1}
        if repeated:
            raise serializers.ValidationError(repeated)
        return super().to_internal_value(data)


class QueryIntegerField(serializers.IntegerField):
    """A query-string integer written in plain decimal digits (no sign, point or spaces);
    given but empty is not valid (DRF's form handling would take it for absent)."""

    def get_value(self, dictionary: Any) -> Any:
        return dictionary.get(self.field_name, serializers.empty)

    def to_internal_value(self, data: Any) -> int:
        if not _plain_digits(data):
            self.fail("invalid")
        return int(super().to_internal_value(data))


def _plain_digits(data: Any) -> bool:
    """A query-string integer as the API takes one: up to six ASCII digits."""
    return isinstance(data, str) and data.isascii() and data.isdigit() and len(data) <= 6


class PageQuerySerializer(QuerySerializer):
    cursor = TextField(required=False, max_length=200, pattern=CURSOR_PATTERN,
                       help_text="The `next_cursor` of the previous page; empty or absent for "
                                 "the first page.")
    limit = QueryIntegerField(required=False, min_value=1, max_value=MAX_LIMIT,
                              help_text=f"Items per page, 1..{MAX_LIMIT} "
                                        f"(default {DEFAULT_LIMIT}).")


@dataclass(frozen=True)
class PageQuery:
    cursor: str | None
    limit: int


def page_query(request: Request) -> PageQuery:
    """The checked cursor and page size of a list request (400 when malformed)."""
    if "after" in request.query_params:
        raise serializers.ValidationError(
            {"after": ["Not a parameter of the API: pass the previous page's next_cursor "
                       "as cursor."]})
    plain = _plain_first_page(request.query_params)
    if plain is not None:
        return plain
    checked = PageQuerySerializer(data=request.query_params)
    checked.is_valid(raise_exception=True)
    data = checked.validated_data
    cursor = None
    if data.get("cursor"):
        try:
            cursor = unseal(data["cursor"])
        except InvalidCursor as exc:
            raise serializers.ValidationError({"cursor": [str(exc)]}) from exc
    return PageQuery(cursor=cursor, limit=data.get("limit", DEFAULT_LIMIT))


def _plain_first_page(params: Any) -> PageQuery | None:
    """A first page asked for plainly (no cursor, at most one limit in plain digits within
    range): what the serializer would make of it, without its CPU; None for anything else,
    which the serializer checks (and words the 400 of)."""
    limits, cursors = params.getlist("limit"), params.getlist("cursor")
    if cursors or len(limits) > 1:
        return None
    if not limits:
        return PageQuery(cursor=None, limit=DEFAULT_LIMIT)
    text = limits[0]
    if _plain_digits(text) and 1 <= int(text) <= MAX_LIMIT:
        return PageQuery(cursor=None, limit=int(text))
    return None


def page_response(request: Request, item_serializer: type[serializers.Serializer[Any]],
                  page: Page[Any]) -> Response:
    """A page's items with the cursor and URL of the next page (``null`` at the end)."""
    context = {"request": request}
    next_cursor, next_url = page.next_cursor, None
    if next_cursor:
        next_cursor = seal(next_cursor)
        next_url = replace_query_param(request.build_absolute_uri(), "cursor", next_cursor)
    return Response({"items": item_serializer(page.items, many=True, context=context).data,
                     "next_cursor": next_cursor, "next": next_url})


@cache
def page_serializer(item_serializer: type[serializers.Serializer[Any]],
                    ) -> type[serializers.Serializer[Any]]:
    """The schema of a page of ``item_serializer`` (component ``<Item>Page``)."""
    name = item_serializer.__name__.removesuffix("Serializer")
    fields = {
        "items": item_serializer(many=True, read_only=True),
        "next_cursor": serializers.CharField(
            allow_null=True, read_only=True,
            help_text="Pass as `cursor` for the next page; null on the last page."),
        "next": serializers.URLField(allow_null=True, read_only=True,
                                     help_text="The next page's URL; null on the last page."),
    }
    return type(f"{name}PageSerializer", (serializers.Serializer,), fields)
