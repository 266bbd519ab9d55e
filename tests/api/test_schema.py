"""The OpenAPI schema and its documentation page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rest_framework.test import APIClient


def _properties(node: Any, name: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            yield key, value
        for key, value in node.items():
            yield from _properties(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from _properties(value, name)


def test_schema_is_openapi_3(schema: dict[str, Any]) -> None:
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "pinsite API"


def test_every_id_is_a_string_of_digits(schema: dict[str, Any]) -> None:
    ids = [(name, value) for name, value in _properties(schema)
           if name == "id" or name.endswith("_id")]
    assert len(ids) > 10
    for name, value in ids:
        assert value["type"] == "string" and value["pattern"] == "^[0-9]{1,19}$", name


def test_path_ids_are_strings_of_digits(schema: dict[str, Any]) -> None:
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and parameter["name"].endswith("_id"):
                    assert parameter["schema"]["type"] == "string", path


def test_every_endpoint_is_documented(schema: dict[str, Any]) -> None:
    operations = {(method.upper(), path) for path, item in schema["paths"].items()
                  for method in item}
    assert {("POST", "/api/v1/auth/token/"), ("POST", "/api/v1/users/"),
            ("GET", "/api/v1/me/"), ("GET", "/api/v1/me/feed/"), ("GET", "/api/v1/me/home/"),
            ("GET", "/api/v1/me/follows/"),
            ("PUT", "/api/v1/users/{user_id}/follow/"),
            ("DELETE", "/api/v1/boards/{board_id}/follow/"),
            ("POST", "/api/v1/pins/{pin_id}/repin/"), ("POST", "/api/v1/pins/"),
            ("PATCH", "/api/v1/boards/{board_id}/"), ("DELETE", "/api/v1/pins/{pin_id}/"),
            ("GET", "/api/v1/users/{user_id}/followers/"),
            ("GET", "/api/v1/interests/"), ("GET", "/api/v1/interests/{slug}/pins/"),
            ("GET", "/api/v1/interests/{slug}/follow/"),
            ("PUT", "/api/v1/interests/{slug}/follow/"),
            ("DELETE", "/api/v1/interests/{slug}/follow/"),
            ("GET", "/api/v1/pins/{pin_id}/related/"),
            ("GET", "/api/v1/boards/{board_id}/followers/")} <= operations


def test_errors_are_documented_with_their_shape(schema: dict[str, Any]) -> None:
    board = schema["paths"]["/api/v1/boards/{board_id}/"]["patch"]["responses"]
    assert {"400", "401", "403", "404", "429", "503"} <= set(board)
    assert board["403"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"}


def test_pin_upload_is_multipart(schema: dict[str, Any]) -> None:
    body = schema["paths"]["/api/v1/pins/"]["post"]["requestBody"]["content"]
    assert list(body) == ["multipart/form-data"]


def test_lists_take_cursor_and_limit(schema: dict[str, Any]) -> None:
    parameters = schema["paths"]["/api/v1/boards/{board_id}/pins/"]["get"]["parameters"]
    limit = next(p for p in parameters if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 100}
    assert any(p["name"] == "cursor" for p in parameters)


def test_docs_page_renders() -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger-ui" in response.content
