"""Pins: the read model, the multipart upload that creates one, changes, and repins."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import DEFAULT_STORAGE_ALIAS
from django.core.files.storage import storages
from django.utils import timezone
from rest_framework import serializers

from pins.domain import Pin
from pins.types import BOARD
from pins.validation import DESCRIPTION_MAX, LINK_MAX, TITLE_MAX
from pinsite.api.details import PinDetail
from pinsite.api.fields import (
    LINK,
    MULTI_LINE,
    ObjectIdField,
    RequiredTextField,
    TextField,
)


class PinWriter:
    """Writes pins as the API shows them (the fields of :class:`PinSerializer`), with what is
    the same for every pin of a response looked up once: the request's origin for absolute
    picture URLs, the current time zone, the picture storage. A page serializes dozens of
    pins, and DRF's walk over each one's fields (attribute lookups, method fields, the
    serializer's context found again for every field) cost more CPU than everything else in a
    feed request."""

    def __init__(self, request: Any) -> None:
        self.origin = None if request is None else request.build_absolute_uri("/")[:-1]
        self.zone = timezone.get_current_timezone()
        self.storage = storages[DEFAULT_STORAGE_ALIAS]

    def pin(self, pin: Pin) -> dict[str, Any]:
        return {
            "id": str(pin.id), "board_id": str(pin.board_id), "pinner_id": str(pin.pinner_id),
            "title": _text(pin.title), "description": _text(pin.description),
            "link": _text(pin.link),
            "image_url": self.url(pin.image), "thumbnail_url": self.url(pin.thumbnail),
            "width": _number(pin.width), "height": _number(pin.height),
            "created": self.timestamp(pin.created),
            "source_pin_id": None if pin.source_pin_id is None else str(pin.source_pin_id),
            "interest": _text(pin.interest),
        }

    def url(self, name: str) -> str:
        """The picture's URL, made absolute against the request's origin."""
        url = str(self.storage.url(name))
        if self.origin is None or not url.startswith("/") or url.startswith("//"):
            return url
        return self.origin + url

    def timestamp(self, value: datetime) -> str:
        """What DRF's ``DateTimeField`` writes: ISO 8601 in the current time zone, ``Z`` for
        UTC."""
        if value.tzinfo is None:
            return str(_CREATED.to_representation(value))
        text = value.astimezone(self.zone).isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text


class PinListSerializer(serializers.ListSerializer[Any]):
    """A page of pins: one :class:`PinWriter` for all of them."""

    def to_representation(self, data: Any) -> list[Any]:
        if type(self.child) is not PinSerializer:
            return list(super().to_representation(data))
        writer = PinWriter(self.context.get("request"))
        return [writer.pin(pin) for pin in data]


class PinSerializer(serializers.Serializer[Any]):
    """A pin (:class:`pins.domain.Pin`); a repin names its ``source_pin_id``."""

    id = ObjectIdField(read_only=True)
    board_id = ObjectIdField(read_only=True)
    pinner_id = ObjectIdField(read_only=True)
    title = serializers.CharField(read_only=True)
    description = serializers.CharField(read_only=True)
    link = serializers.CharField(read_only=True)
    image_url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()
    width = serializers.IntegerField(read_only=True)
    height = serializers.IntegerField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    source_pin_id = ObjectIdField(read_only=True, allow_null=True)
    interest = serializers.CharField(read_only=True, allow_null=True,
                                     help_text="Its board's interest when it was made, or null.")

    class Meta:
        list_serializer_class = PinListSerializer

    def to_representation(self, instance: Any) -> dict[str, Any]:
        """The declared fields, written by :class:`PinWriter` in one step. Subclasses that
        declare more fields take DRF's path."""
        if type(self) is not PinSerializer:
            return dict(super().to_representation(instance))
        return self._writer().pin(instance)

    def get_image_url(self, pin: Pin) -> str:
        return self._writer().url(pin.image)

    def get_thumbnail_url(self, pin: Pin) -> str:
        return self._writer().url(pin.thumbnail)

    def _writer(self) -> PinWriter:
        """The response's writer, shared by every pin serializer of it through the common
        context."""
        writer = self.context.get("_pin_writer")
        if writer is None:
            writer = self.context["_pin_writer"] = PinWriter(self.context.get("request"))
        return writer


_CREATED = serializers.DateTimeField()


def _text(value: str | None) -> str | None:
    return None if value is None else str(value)


def _number(value: int | None) -> int | None:
    return None if value is None else int(value)


class PinDetailSerializer(PinSerializer):
    """A pin with its repin count (:class:`pinsite.api.details.PinDetail`)."""

    repin_count = serializers.IntegerField(read_only=True)

    def to_representation(self, instance: PinDetail) -> dict[str, Any]:
        pin = PinSerializer(instance.pin, context=self.context).data
        return {**pin, "repin_count": instance.repin_count}


class PinChangeInput(serializers.Serializer[Any]):
    """The fields of a pin its pinner may change; send only those to change."""

    title = RequiredTextField(required=False, max_length=TITLE_MAX)
    description = TextField(required=False, max_length=DESCRIPTION_MAX, pattern=MULTI_LINE)
    link = TextField(required=False, max_length=LINK_MAX, pattern=LINK,
                     help_text="An absolute http or https URL, or empty for none.")


class PinUploadInput(PinChangeInput):
    """A new pin: an image file pinned to one of the requesting pinner's boards."""

    board_id = ObjectIdField(BOARD, help_text="One of your boards.")
    title = RequiredTextField(max_length=TITLE_MAX)
    image = serializers.FileField(help_text="JPEG, PNG, GIF or WebP, at most 10 MB and "
                                            "40 million pixels.")


class RepinInput(serializers.Serializer[Any]):
    """Save a pin to one of the requesting pinner's boards; the title defaults to the
    source's."""

    board_id = ObjectIdField(BOARD, help_text="One of your boards.")
    title = RequiredTextField(required=False, max_length=TITLE_MAX)
