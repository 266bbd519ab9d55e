"""Boards: the read model, and the input of creating and changing one."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from pins.interests import taxonomy
from pins.validation import BOARD_NAME_MAX, DESCRIPTION_MAX
from pinsite.api.fields import MULTI_LINE, ObjectIdField, RequiredTextField, TextField


class BoardSerializer(serializers.Serializer[Any]):
    """A board (:class:`pins.domain.Board`)."""

    id = ObjectIdField(read_only=True)
    owner_id = ObjectIdField(read_only=True)
    name = serializers.CharField(read_only=True)
    description = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    interest = serializers.CharField(read_only=True, allow_null=True,
                                     help_text="The board's interest (a slug of "
                                               "`GET /interests/`), or null.")


class BoardDetailSerializer(BoardSerializer):
    """A board with its exact counts."""

    pin_count = serializers.IntegerField(read_only=True)
    follower_count = serializers.IntegerField(read_only=True)


class BoardInput(serializers.Serializer[Any]):
    """A new board, or the fields to change (``PATCH`` sends only those). The owner is always
    the requesting pinner: ``id``, ``owner_id`` and counts are not inputs and are ignored."""

    name = RequiredTextField(max_length=BOARD_NAME_MAX)
    description = TextField(required=False, max_length=DESCRIPTION_MAX, pattern=MULTI_LINE)
    interest = serializers.ChoiceField(
        choices=[], required=False, allow_blank=True, allow_null=True,
        help_text="A slug of `GET /interests/`; empty or null for none (on `PATCH`, empty "
                  "clears it).")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["interest"].choices = taxonomy().slugs()  # type: ignore[attr-defined]
