"""Deeply nested JSON: a 400 in the error shape on every endpoint that reads a JSON body, and
no 500 anywhere. The endpoints come from the URL conf, not from a list kept by hand."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient
from rest_framework.views import APIView

from pinsite.api.parsers import JSON_MAX_DEPTH, json_depth
from tests.api.helpers import Caller, error_of, new_board, new_pin

DEEP = "[" * 3000
BODY_METHODS = ("post", "put", "patch")


def api_routes() -> Iterator[tuple[str, type[APIView]]]:
    """Every route of the URL conf served by a DRF view, as ``/path/<str:name>/``."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, type[APIView]]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "cls", None)
                if isinstance(view, type) and issubclass(view, APIView):
                    yield prefix + str(pattern.pattern), view

    yield from walk(get_resolver().url_patterns, "/")


def json_operations(schema: dict[str, Any]) -> set[tuple[str, str]]:
    """``(method, path)`` of every operation the schema says takes a JSON body."""
    return {(method, path) for path, operations in schema["paths"].items()
            for method, operation in operations.items()
            if "application/json" in operation.get("requestBody", {}).get("content", {})}


def test_depth_counts_brackets_outside_strings() -> None:
    assert json_depth(b'{"a": [1, {"b": "[[[[\\"[["}]}') == 3
    assert json_depth(b'"\\\\"[[') == 2
    assert json_depth(DEEP.encode()) == 3000


def test_a_3000_deep_body_is_a_400_on_every_json_endpoint(
        alice: Caller, bob: Caller, schema: dict[str, Any]) -> None:
    board = new_board(alice)
    pin = new_pin(alice, board)
    values = {"user_id": bob.id, "board_id": str(board.id), "pin_id": str(pin.id),
              "slug": "tattoos", "username": bob.username, "export_id": "1"}
    takes_json = json_operations(schema)
    assert {("post", "/api/v1/auth/token/"), ("post", "/api/v1/users/"),
            ("patch", "/api/v1/boards/{board_id}/")} <= takes_json
    tried = set()
    for route, view in api_routes():
        if not route.startswith("/api/v1/") or "^" in route:
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[str(m.group(1))], route)
        documented = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        for method in BODY_METHODS:
            if not hasattr(view, method):
                continue
            for client in (APIClient(), alice.client):  # the last one may change things
                response = getattr(client, method)(path, DEEP, content_type="application/json")
                assert response.status_code < 500, (method, path, response.content[:200])
                if client is alice.client and (method, documented) in takes_json:
                    assert response.status_code == 400, (method, path, response.status_code)
                    body = error_of(response)
                    assert body["code"] == "parse_error"
                    assert f"deeper than {JSON_MAX_DEPTH}" in body["detail"]
            tried.add((method, documented))
    assert takes_json <= tried


@pytest.mark.parametrize("depth", [JSON_MAX_DEPTH, JSON_MAX_DEPTH + 1])
def test_the_documented_depth_is_the_limit(depth: int, alice: Caller) -> None:
    board = new_board(alice)
    nested = '{"name": "Deep", "description": "x", "extra": ' + "[" * (depth - 1) + \
        "]" * (depth - 1) + "}"
    response = alice.client.patch(f"/api/v1/boards/{board.id}/", nested,
                                  content_type="application/json")
    assert response.status_code == (200 if depth <= JSON_MAX_DEPTH else 400)
