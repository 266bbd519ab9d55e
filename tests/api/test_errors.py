"""Errors: every domain and store failure has its status and the one JSON shape."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django.http import Http404
from pytest_django import Settings
from rest_framework.exceptions import APIException

from coordination.exceptions import CoordinationUnavailable
from feed.exceptions import FeedUnavailable, InvalidFeedInput
from graph.exceptions import GraphFenced, GraphNotFound, GraphUnavailable, InvalidGraphInput
from pins.exceptions import InvalidContent, NotFound, PermissionDenied
from pinsite.api.errors import api_exception, error_body
from sharding.exceptions import (
    InvalidObjectId,
    ShardMapUnavailable,
    ShardNotOpen,
    ShardUnavailable,
)
from tests.addresses import CLOSED
from tests.api.helpers import Caller, error_of


@pytest.mark.parametrize(("error", "status", "code"), [
    (NotFound("No board 5."), 404, "not_found"),
    (PermissionDenied("Board 5 belongs to another pinner."), 403, "permission_denied"),
    (InvalidContent("Title is required.", field="title"), 400, "invalid"),
    (InvalidObjectId("5 is not a pin id"), 404, "not_found"),
    (ShardNotOpen("shard 9000 is not open"), 404, "not_found"),
    (GraphNotFound("no user 5"), 404, "not_found"),
    (InvalidGraphInput("a user cannot follow themselves"), 400, "invalid"),
    (InvalidFeedInput("The page cursor is not valid."), 400, "invalid"),
    (ShardUnavailable("mysql001a is unreachable"), 503, "unavailable"),
    (ShardMapUnavailable("no map"), 503, "unavailable"),
    (CoordinationUnavailable("ZooKeeper at 127.0.0.1:13181 is unreachable"), 503, "unavailable"),
    (GraphUnavailable("redis001a is down"), 503, "unavailable"),
    (GraphFenced("vshard 17 is moving"), 503, "unavailable"),
    (FeedUnavailable("neither HBase cluster answered"), 503, "unavailable"),
    (OperationalError(2003, "Can't connect"), 503, "unavailable"),
    (Http404("gone"), 404, "not_found"),
])
def test_errors_map_to_statuses(error: Exception, status: int, code: str) -> None:
    translated = api_exception(error)
    assert isinstance(translated, APIException)
    assert translated.status_code == status
    assert error_body(translated)["code"] == code


def test_store_details_do_not_leak_into_503s() -> None:
    translated = api_exception(ShardUnavailable("mysql001a (10.0.0.7:3306) is unreachable"))
    assert translated is not None
    assert "10.0.0.7" not in error_body(translated)["detail"]


def test_field_errors_name_the_field() -> None:
    translated = api_exception(InvalidContent("Link 'x' is not a valid URL.", field="link"))
    assert translated is not None
    assert error_body(translated) == {"code": "invalid",
                                      "detail": "link: Link 'x' is not a valid URL.",
                                      "fields": {"link": ["Link 'x' is not a valid URL."]}}


def test_bugs_are_not_disguised() -> None:
    assert api_exception(ZeroDivisionError()) is None



def test_an_unreachable_feed_is_a_503(alice: Caller, settings: Settings) -> None:
    dead = CLOSED
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "PRIMARY": dead, "STANDBY": dead,
                             "TIMEOUT_MS": 500, "POOL_WAIT_SECONDS": 1}
    response = alice.client.get("/api/v1/me/feed/")
    assert response.status_code == 503
    body = error_of(response)
    assert body["code"] == "unavailable" and "try again" in body["detail"]
