"""The interest taxonomy: the topics a board can have (and, later, pinners can follow)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from pins.interests import taxonomy
from pinsite.api.base import PinsiteView


class InterestSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField(read_only=True)
    name = serializers.CharField(read_only=True)


class TaxonomySerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField(read_only=True,
                                       help_text="Rises when interests are added or renamed.")
    interests = InterestSerializer(many=True, read_only=True)


class InterestsView(PinsiteView):
    """Every interest of the taxonomy."""

    @extend_schema(responses={200: TaxonomySerializer}, summary="The interest taxonomy")
    def get(self, request: Request) -> Response:
        return self.render(TaxonomySerializer, taxonomy())
