"""The follower graph: follower lists, follow state, and the batch check."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from pins.types import BOARD, USER
from pinsite.api.fields import ID_EXAMPLE, TextField
from pinsite.api.serializers.users import UserSerializer
from sharding.exceptions import MalformedObjectId
from sharding.ids import ID_DIGITS, ObjectType, parse_id

MAX_BATCH = 100
ID_LIST_PATTERN = rf"^([0-9]{{1,{ID_DIGITS}}}(,[0-9]{{1,{ID_DIGITS}}}){{0,99}})?$"
TOO_MANY_IDS = f"At most {MAX_BATCH} IDs, comma-separated."
SLUG_LIST_PATTERN = r"^[^,\x00-\x1f]*(,[^,\x00-\x1f]*){0,99}$"
TOO_MANY_SLUGS = f"At most {MAX_BATCH} interest slugs, comma-separated."


class FollowerSerializer(serializers.Serializer[Any]):
    """One entry of a follower or following list, newest first."""

    user = UserSerializer(read_only=True)
    since = serializers.DateTimeField(read_only=True, help_text="When this follow began.")
    explicit = serializers.BooleanField(
        read_only=True, help_text="True when the user (not only some boards) is followed.")


class FollowStateSerializer(serializers.Serializer[Any]):
    """Whether the requesting pinner follows the user or board now."""

    following = serializers.BooleanField(read_only=True)
    kind = serializers.ChoiceField(
        choices=["explicit", "implicit"], allow_null=True, read_only=True,
        help_text="For a user: `explicit` (the user), `implicit` (only some of their boards) "
                  "or null. For a board: `explicit` when followed by itself, `implicit` when "
                  "followed through its owner, or null.")


class FollowChangeSerializer(serializers.Serializer[Any]):
    """The outcome of a follow or unfollow; ``changed`` is false when it was already so."""

    following = serializers.BooleanField(read_only=True)
    changed = serializers.BooleanField(read_only=True)


class IdListField(TextField):
    """Comma-separated IDs of ``object_type`` (at most :data:`MAX_BATCH`), e.g. ``1,2,3``, as
    ``{ID as given: ID}``; one that no object of the type can have is a 400
    (:func:`~sharding.ids.parse_id`)."""

    default_error_messages = {"too_many": TOO_MANY_IDS,
                              "malformed": "{value} is not a {kind} ID."}

    def __init__(self, object_type: ObjectType, **kwargs: Any) -> None:
        super().__init__(pattern=ID_LIST_PATTERN, max_length=MAX_BATCH * (ID_DIGITS + 1),
                         error_messages={"max_length": TOO_MANY_IDS}, **kwargs)
        self.object_type = object_type

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if isinstance(data, str) and data.count(",") >= MAX_BATCH:
            self.fail("too_many")
        text = super().run_validation(data)
        checked = {}
        for value in dict.fromkeys(text.split(",")) if text else ():
            try:
                checked[value] = parse_id(value, self.object_type)
            except MalformedObjectId:
                self.fail("malformed", value=value, kind=self.object_type.name)
        return checked


class SlugListField(TextField):
    """Comma-separated interest slugs (at most :data:`MAX_BATCH`)."""

    default_error_messages = {"too_many": TOO_MANY_SLUGS}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(pattern=SLUG_LIST_PATTERN, max_length=2000,
                         error_messages={"max_length": TOO_MANY_SLUGS}, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if isinstance(data, str) and data.count(",") >= MAX_BATCH:
            self.fail("too_many")
        return super().run_validation(data)


class BatchCheckQuery(serializers.Serializer[Any]):
    users = IdListField(USER, required=False,
                        help_text=f"Up to {MAX_BATCH} user IDs, comma-separated.")
    boards = IdListField(BOARD, required=False,
                         help_text=f"Up to {MAX_BATCH} board IDs, comma-separated.")
    interests = SlugListField(required=False,
                              help_text=f"Up to {MAX_BATCH} interest slugs, comma-separated.")


@extend_schema_field({"type": "object", "additionalProperties": {"type": "boolean"},
                      "example": {ID_EXAMPLE: True}})
class FollowMapField(serializers.DictField):
    """``{"<id>": true|false}`` for every ID asked about."""


class BatchCheckSerializer(serializers.Serializer[Any]):
    """For each ID asked about: does the requesting pinner follow it? IDs that name no user
    (or no board) are answered ``false``; IDs that no user (or board) can have are a 400."""

    users = FollowMapField(read_only=True)
    boards = FollowMapField(read_only=True)
    interests = FollowMapField(read_only=True)
