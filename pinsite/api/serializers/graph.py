"""The follower graph: follower lists, follow state, and the batch check."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from pinsite.api.fields import ID_EXAMPLE, TextField
from pinsite.api.serializers.users import UserSerializer

MAX_BATCH = 100
ID_LIST_PATTERN = r"^([0-9]{1,20}(,[0-9]{1,20}){0,99})?$"
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
    """Comma-separated object IDs (at most :data:`MAX_BATCH`), e.g. ``1,2,3``."""

    default_error_messages = {"too_many": TOO_MANY_IDS}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(pattern=ID_LIST_PATTERN, max_length=MAX_BATCH * 21,
                         error_messages={"max_length": TOO_MANY_IDS}, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if isinstance(data, str) and data.count(",") >= MAX_BATCH:
            self.fail("too_many")
        text = super().run_validation(data)
        return list(dict.fromkeys(text.split(","))) if text else []


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
    users = IdListField(required=False, help_text=f"Up to {MAX_BATCH} user IDs, comma-separated.")
    boards = IdListField(required=False,
                         help_text=f"Up to {MAX_BATCH} board IDs, comma-separated.")
    interests = SlugListField(required=False,
                              help_text=f"Up to {MAX_BATCH} interest slugs, comma-separated.")


@extend_schema_field({"type": "object", "additionalProperties": {"type": "boolean"},
                      "example": {ID_EXAMPLE: True}})
class FollowMapField(serializers.DictField):
    """``{"<id>": true|false}`` for every ID asked about."""


class BatchCheckSerializer(serializers.Serializer[Any]):
    """For each ID asked about: does the requesting pinner follow it? IDs that name no user
    (or no board) are answered ``false``."""

    users = FollowMapField(read_only=True)
    boards = FollowMapField(read_only=True)
    interests = FollowMapField(read_only=True)
