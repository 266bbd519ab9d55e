"""The feed page: the pins of the boards the user follows, newest first."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from rest_framework import generics, serializers
from rest_framework.pagination import CursorPagination

from benchmarks.plain.models import Pin


class PinSerializer(serializers.ModelSerializer[Pin]):
    image_url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()

    class Meta:
        model = Pin
        fields = ["id", "board", "pinner", "title", "description", "link", "image_url",
                  "thumbnail_url", "width", "height", "created", "source_pin", "interest"]

    def get_image_url(self, pin: Pin) -> str:
        return self.context["request"].build_absolute_uri(settings.MEDIA_URL + pin.image)

    def get_thumbnail_url(self, pin: Pin) -> str:
        return self.context["request"].build_absolute_uri(settings.MEDIA_URL + pin.thumbnail)


class FeedPagination(CursorPagination):
    page_size = 25
    page_size_query_param = "limit"
    max_page_size = 100
    ordering = "-created"


class FeedView(generics.ListAPIView[Pin]):
    serializer_class = PinSerializer
    pagination_class = FeedPagination

    def get_queryset(self) -> QuerySet[Pin]:
        return Pin._default_manager.filter(board__follow__follower=self.request.user)


def healthz(request: HttpRequest, *args: Any) -> HttpResponse:
    return HttpResponse("ok")
