"""Pinners: public profiles, the requesting account, and sign-up input."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from pins.validation import DISPLAY_NAME_MAX
from pinsite.api.fields import ANY_TEXT, SINGLE_LINE, USERNAME, ObjectIdField, TextField


class UserSerializer(serializers.Serializer[Any]):
    """A pinner's public profile (:class:`pins.domain.User`)."""

    id = ObjectIdField(read_only=True)
    username = serializers.CharField(read_only=True)
    display_name = serializers.CharField(read_only=True)
    about = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)


class UserDetailSerializer(UserSerializer):
    """A profile with its exact counts."""

    board_count = serializers.IntegerField(read_only=True)
    pin_count = serializers.IntegerField(read_only=True)
    follower_count = serializers.IntegerField(read_only=True)
    following_count = serializers.IntegerField(read_only=True)


class MeSerializer(UserDetailSerializer):
    """The requesting pinner, with what only they see."""

    email = serializers.CharField(read_only=True)
    is_staff = serializers.BooleanField(read_only=True)


class SignUpInput(serializers.Serializer[Any]):
    """A new pinner. IDs, counts and staff flags are not inputs: extra fields are ignored."""

    username = TextField(pattern=USERNAME, min_length=3, max_length=30, allow_blank=False,
                         help_text="3 to 30 letters, digits and `_.@+-`; unique, ignoring case.")
    password = TextField(write_only=True, min_length=8, max_length=128, allow_blank=False,
                         pattern=ANY_TEXT, style={"input_type": "password"},
                         help_text="At least 8 characters, not a common password.")
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254,
                                   trim_whitespace=False)
    display_name = TextField(required=False, max_length=DISPLAY_NAME_MAX, pattern=SINGLE_LINE)
