"""Pins: upload, read, change and delete one's own; repin; a pin's repins."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from pins import actions, selectors
from pins.domain import Pin
from pins.related import RELATED_LIMIT, related_pins
from pins.types import PIN
from pinsite.api.base import PageView, PinsiteView
from pinsite.api.details import pin_detail
from pinsite.api.fields import path_id
from pinsite.api.pagination import PageQuery, QueryIntegerField, QuerySerializer
from pinsite.api.serializers.pins import (
    PinChangeInput,
    PinDetailSerializer,
    PinSerializer,
    PinUploadInput,
    RepinInput,
)
from toolkit.paging import Page


class PinsView(PinsiteView):
    parser_classes = [MultiPartParser]

    @extend_schema(request={"multipart/form-data": PinUploadInput},
                   responses={201: PinSerializer},
                   summary="Pin an uploaded image to one of your boards")
    def post(self, request: Request) -> Response:
        data = self.checked(PinUploadInput)
        pin = actions.create_pin(self.pinner_id(), data["board_id"], data["title"],
                                 data.get("description", ""), data.get("link", ""),
                                 data["image"])
        return _created(self, pin)


class PinView(PinsiteView):
    @extend_schema(responses={200: PinDetailSerializer}, summary="A pin with its repin count")
    def get(self, request: Request, pin_id: str) -> Response:
        return self.render(PinDetailSerializer, pin_detail(path_id(pin_id, PIN)))

    @extend_schema(request=PinChangeInput, responses={200: PinSerializer},
                   summary="Change a pin's title, description or link (its pinner only)")
    def patch(self, request: Request, pin_id: str) -> Response:
        data = self.checked(PinChangeInput, partial=True)
        pin = actions.update_pin(self.pinner_id(), path_id(pin_id, PIN),
                                 title=data.get("title"), description=data.get("description"),
                                 link=data.get("link"))
        return self.render(PinSerializer, pin)

    @extend_schema(request=None, responses={204: OpenApiResponse(description="Deleted.")},
                   summary="Delete a pin (its pinner only); its repins stay")
    def delete(self, request: Request, pin_id: str) -> Response:
        actions.delete_pin(self.pinner_id(), path_id(pin_id, PIN))
        return Response(status=204)


class RepinView(PinsiteView):
    @extend_schema(request=RepinInput, responses={201: PinSerializer},
                   summary="Save a pin to one of your boards")
    def post(self, request: Request, pin_id: str) -> Response:
        data = self.checked(RepinInput)
        pin = actions.repin(self.pinner_id(), path_id(pin_id, PIN), data["board_id"],
                            data.get("title"))
        return _created(self, pin)


class PinRepinsView(PageView):
    item_serializer = PinSerializer
    summary = "The repins made directly from a pin, newest first"

    def get_page(self, query: PageQuery, **kwargs: Any) -> Page[Any]:
        pin = selectors.get_pin(path_id(kwargs["pin_id"], PIN))
        page = selectors.repins_of(pin.id, limit=query.limit, after=query.cursor)
        return page


class RelatedPinSerializer(PinSerializer):
    weight = serializers.IntegerField(read_only=True,
                                      help_text="How many boards both pins were saved to.")


class RelatedQuery(QuerySerializer):
    limit = QueryIntegerField(required=False, min_value=1, max_value=RELATED_LIMIT,
                              help_text=f"How many, 1..{RELATED_LIMIT} (default 20).")


class RelatedPinsView(PinsiteView):
    @extend_schema(parameters=[RelatedQuery], responses={200: RelatedPinSerializer(many=True)},
                   summary="The pins most related to a pin (saved to the same boards), "
                           "strongest first")
    def get(self, request: Request, pin_id: str) -> Response:
        query = RelatedQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        pin = selectors.get_pin(path_id(pin_id, PIN))
        found = related_pins(pin.id, limit=query.validated_data.get("limit", 20))
        context = {"request": request}
        return Response([{**RelatedPinSerializer(related, context=context).data,
                          "weight": weight} for related, weight in found])


def _created(view: PinsiteView, pin: Pin) -> Response:
    location = view.request.build_absolute_uri(reverse("api-pin", args=[pin.id]))
    return view.render(PinSerializer, pin, status=201, headers={"Location": location})
