"""The API's orjson renderer writes what DRF's JSON renderer writes."""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal

from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from pinsite.api.renderers import FastJSONRenderer

DATA = {
    "id": "2522015791327477761",
    "title": "Crème brûlée \u2028line\u2029 ✓ \"quoted\" \\ </script>",
    "count": 12, "big": 2**63 - 1, "share": 0.25, "ok": True, "missing": None,
    "created": datetime.datetime(2026, 11, 28, 4, 37, 53, 123456, tzinfo=datetime.UTC),
    "day": datetime.date(2026, 11, 28),
    "price": Decimal("1.50"), "uid": uuid.UUID(int=7), "label": gettext_lazy("Pins"),
    "items": [{"a": [1, 2, {"b": []}]}, "x"], 5: "an int key",
}


def test_the_bytes_are_drfs() -> None:
    assert FastJSONRenderer().render(DATA) == JSONRenderer().render(DATA)
    assert json.loads(FastJSONRenderer().render(DATA))["title"] == DATA["title"]


def test_nothing_renders_empty() -> None:
    assert FastJSONRenderer().render(None) == b""


def test_indentation_when_asked() -> None:
    rendered = FastJSONRenderer().render({"a": [1]}, "application/json; indent=2")
    assert rendered == JSONRenderer().render({"a": [1]}, "application/json; indent=2")
    assert b"\n  " in rendered
