"""The pin serializer's one-step representation says exactly what DRF's field-by-field one
says, for plain pins, repins, pins with and without an interest, with and without a request."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import RequestFactory
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from pins.domain import Pin
from pinsite.api.serializers.pins import PinSerializer

ids = st.integers(min_value=1, max_value=2**62)
text = st.text(max_size=40)
pins = st.builds(
    Pin, id=ids, board_id=ids, pinner_id=ids, title=text, description=text, link=text,
    image=st.from_regex(r"pins/[a-z0-9]{2}/[a-z0-9]{8}\.jpg", fullmatch=True)
    | st.from_regex(r"pins/[a-z0-9 é%#?.]{1,8}\.jpg", fullmatch=True),
    thumbnail=st.from_regex(r"thumbs/[a-z0-9]{2}/[a-z0-9]{8}\.jpg", fullmatch=True),
    width=st.integers(1, 5000), height=st.integers(1, 5000),
    created=st.datetimes(min_value=datetime(2010, 1, 1), max_value=datetime(2040, 1, 1),
                         timezones=st.just(UTC)),
    source_pin_id=st.none() | ids, interest=st.none() | st.sampled_from(["travel", "food"]))


def drf(pin: Pin, context: dict[str, Any]) -> dict[str, Any]:
    """DRF's own walk over the declared fields."""
    return dict(serializers.Serializer.to_representation(PinSerializer(context=context), pin))


@pytest.mark.parametrize("with_request", [False, True])
@settings(max_examples=60, deadline=None)
@given(pin=pins)
def test_the_one_step_representation_is_drfs(pin: Pin, with_request: bool) -> None:
    context = {"request": RequestFactory().get("/api/v1/me/feed/")} if with_request else {}
    fast = PinSerializer(pin, context=dict(context)).data
    assert dict(fast) == drf(pin, dict(context))
    assert list(fast) == list(PinSerializer().fields)


@pytest.mark.parametrize("with_request", [False, True])
@settings(max_examples=30, deadline=None)
@given(page=st.lists(pins, max_size=6))
def test_a_page_of_pins_is_each_pins_representation(page: list[Pin], with_request: bool) -> None:
    context = {"request": RequestFactory().get("/api/v1/me/feed/")} if with_request else {}
    written = PinSerializer(page, many=True, context=dict(context)).data
    assert [dict(item) for item in written] == [drf(pin, dict(context)) for pin in page]


def test_a_page_of_a_serializer_with_more_fields_takes_drfs_path() -> None:
    class Weighed(PinSerializer):
        weight = serializers.IntegerField(default=3, read_only=True)

    pin = Pin(id=1, board_id=2, pinner_id=3, title="t", description="", link="",
              image="pins/ab/cdefghij.jpg", thumbnail="thumbs/ab/cdefghij.jpg", width=1,
              height=1, created=datetime(2026, 1, 1, tzinfo=UTC), source_pin_id=None)
    [item] = Weighed([pin], many=True).data
    assert dict(item) == {**drf(pin, {}), "weight": 3}
