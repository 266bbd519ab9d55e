"""Cleaning of pinner input: each ``clean_*`` returns the normalised value or raises
:class:`~pins.exceptions.InvalidContent` naming the field.

>>> clean_link(" https://example.com/quiche ")
'https://example.com/quiche'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, URLValidator

from pins.exceptions import InvalidContent

USERNAME_LENGTH = (3, 30)
DISPLAY_NAME_MAX = 60
ABOUT_MAX = 500
BOARD_NAME_MAX = 50
TITLE_MAX = 100
DESCRIPTION_MAX = 500
LINK_MAX = 2048

_username_validator = UnicodeUsernameValidator()
_link_validator = URLValidator(schemes=["http", "https"])
_email_validator = EmailValidator()


def _has_control_characters(text: str, allow_newlines: bool) -> bool:
    allowed = {"\n", "\r", "\t"} if allow_newlines else set()
    return any(unicodedata.category(ch) == "Cc" and ch not in allowed for ch in text)


def clean_text(value: object, field: str, maximum: int, required: bool = False,
               multiline: bool = False) -> str:
    """Strip ``value`` and check its type, length and characters."""
    label = field.replace("_", " ").capitalize()
    if not isinstance(value, str):
        raise InvalidContent(f"{label} must be text.", field=field)
    text = value.strip()
    if required and not text:
        raise InvalidContent(f"{label} is required.", field=field)
    if len(text) > maximum:
        raise InvalidContent(f"{label} must be at most {maximum} characters "
                             f"(it has {len(text)}).", field=field)
    if _has_control_characters(text, allow_newlines=multiline):
        raise InvalidContent(f"{label} contains control characters.", field=field)
    return text


def clean_username(value: object) -> str:
    """A username: 3 to 30 letters, digits and ``@.+-_`` (Django's username rules)."""
    username = clean_text(value, "username", USERNAME_LENGTH[1], required=True)
    if len(username) < USERNAME_LENGTH[0]:
        raise InvalidContent(f"Username must be at least {USERNAME_LENGTH[0]} characters.",
                             field="username")
    try:
        _username_validator(username)
    except ValidationError as exc:
        raise InvalidContent(f"Username {username!r} is not allowed: {exc.messages[0]}",
                             field="username") from exc
    return username


def clean_password(password: str) -> None:
    """Apply the project's password validators (``AUTH_PASSWORD_VALIDATORS``)."""
    try:
        validate_password(password)
    except ValidationError as exc:
        raise InvalidContent(" ".join(exc.messages), field="password") from exc


def clean_email(value: object) -> str:
    return _validated(value, "email", 254, _email_validator,
                      lambda email: f"{email!r} is not a valid email address.")


def clean_link(value: object) -> str:
    """An absolute http or https URL, or empty (a pin without a link)."""
    return _validated(value, "link", LINK_MAX, _link_validator,
                      lambda link: f"Link {link[:100]!r} is not a valid http or https URL.")


def _validated(value: object, field: str, limit: int, validator: Callable[[str], None],
               message: Callable[[str], str]) -> str:
    """Cleaned text that, unless empty, Django's ``validator`` accepts."""
    text = clean_text(value, field, limit)
    if text:
        try:
            validator(text)
        except ValidationError as exc:
            raise InvalidContent(message(text), field=field) from exc
    return text


def clean_title(value: object) -> str:
    return clean_text(value, "title", TITLE_MAX, required=True)


def clean_description(value: object) -> str:
    return clean_text(value, "description", DESCRIPTION_MAX, multiline=True)


def clean_board_name(value: object) -> str:
    return clean_text(value, "name", BOARD_NAME_MAX, required=True)


def clean_display_name(value: object) -> str:
    return clean_text(value, "display_name", DISPLAY_NAME_MAX)
