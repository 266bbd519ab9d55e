"""Serializer fields of the API: 64-bit IDs as strings, and strict text checked like its schema.

Input fields reject what their OpenAPI schema rejects and accept what it accepts: no coercion
of numbers or booleans into text, no trimming before the length check, and patterns matched
against the whole value (the domain strips and normalises afterwards).

>>> ObjectIdField().to_representation(241294492511762325)
'241294492511762325'
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from sharding.exceptions import MalformedObjectId
from sharding.ids import ID_DIGITS, ObjectType, parse_id

ID_PATTERN = rf"^[0-9]{{1,{ID_DIGITS}}}$"
ID_EXAMPLE = "241294492511762325"
ID_SCHEMA = {"type": "string", "pattern": ID_PATTERN, "example": ID_EXAMPLE,
             "description": "An object ID (62 bits: shard, type and local ID), as a decimal "
                            "string."}

_CONTROL = "\\u0000-\\u001f\\u007f-\\u009f"
_CONTROL_KEEPING_NEWLINES = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f"
SINGLE_LINE = f"^[^{_CONTROL}]*$"
"""Any text without control characters (may be empty)."""
SINGLE_LINE_REQUIRED = f"^[^{_CONTROL}]*[^\\s{_CONTROL}][^{_CONTROL}]*$"
"""Text without control characters and with at least one character that is not a space."""
MULTI_LINE = f"^[^{_CONTROL_KEEPING_NEWLINES}]*$"
"""Text whose only control characters are tabs and line breaks."""
ANY_TEXT = "^[^\\u0000]*$"
"""Any text but NUL (passwords). Lone surrogates, which no pattern here can name portably,
are refused by every text field (DRF's ``CharField``)."""
USERNAME = r"^[A-Za-z0-9_.@+-]{3,30}$"
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,20}[A-Za-z0-9])?"
LINK = (rf"^(https?://{_LABEL}(\.{_LABEL}){{0,5}}\.[A-Za-z]{{2,12}}(:[1-9][0-9]{{0,4}})?"
        r"([/?#][A-Za-z0-9._~/%?&=+:,;@!$'()*#-]{0,1000})?)?$")
"""An empty link, or an absolute http(s) URL of a plain host name and path."""


@extend_schema_field(ID_SCHEMA)
class ObjectIdField(serializers.Field):
    """An object ID: an ``int`` in Python, a decimal string in JSON.

    Input must be a JSON string that :func:`~sharding.ids.parse_id` takes for an ID of
    ``object_type``; anything else is a 400 naming the field. Whether the object exists is
    for the domain to say (its :class:`~pins.exceptions.NotFound` becomes a 404).
    """

    default_error_messages = {"invalid": "Enter {kind} ID: a string of decimal digits."}

    def __init__(self, object_type: ObjectType | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.object_type = object_type

    def to_representation(self, value: int) -> str:
        return str(value)

    def to_internal_value(self, data: Any) -> int:
        kind = f"a {self.object_type.name}" if self.object_type else "an object"
        if not isinstance(data, str) or not re.fullmatch(ID_PATTERN, data):
            self.fail("invalid", kind=kind)
        try:
            return parse_id(data, self.object_type)
        except MalformedObjectId:
            self.fail("invalid", kind=kind)
            raise


class FullMatchValidator(RegexValidator):
    """A :class:`RegexValidator` that requires the whole value to match (ECMA ``^…$``
    semantics: no match before a trailing newline); published as the field's ``pattern``."""

    def __call__(self, value: Any) -> None:
        if not re.fullmatch(self.regex, str(value)):
            raise ValidationError(self.message, code=self.code)


class TextField(serializers.CharField):
    """A JSON string matching ``pattern`` in full, of at most ``max_length`` characters; its
    length and pattern are published in the schema exactly as they are checked here."""

    default_error_messages = {"not_text": "Must be a JSON string."}

    def __init__(self, *, pattern: str = SINGLE_LINE, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("allow_blank", True)
        super().__init__(**kwargs)
        message = "Contains characters that are not allowed here."
        self.validators.append(FullMatchValidator(pattern, message=message))

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text")
        return str(super().to_internal_value(data))


class RequiredTextField(TextField):
    """A required single line with at least one visible character."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("pattern", SINGLE_LINE_REQUIRED)
        kwargs.setdefault("allow_blank", False)
        super().__init__(**kwargs)


def path_id(text: str, object_type: ObjectType) -> int:
    """A URL path segment as an ID of ``object_type``: 1 to 19 digits (no spaces) that
    :func:`~sharding.ids.parse_id` takes, else :class:`~sharding.exceptions.MalformedObjectId`
    (a 400, as for every malformed ID)."""
    if not re.fullmatch(ID_PATTERN, text):
        raise MalformedObjectId(f"{text[:40]!r} is not a {object_type.name} ID")
    return parse_id(text, object_type)
