"""Signing up pinners: a user object on a random open shard plus the global index row."""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from pins.domain import timestamp_text
from pins.exceptions import UsernameTaken
from pins.models import Pinner
from pins.types import USER
from pins.validation import (
    clean_display_name,
    clean_email,
    clean_password,
    clean_username,
)
from sharding import objects
from sharding.mappings import now_sequence
from sharding.topology import current_map


def create_pinner(username: str, password: str | None, email: str = "",
                  display_name: str = "") -> Pinner:
    """Create a pinner: the user object on a random open shard, then the auth user and the
    ``Pinner`` index row in ``default`` (one transaction). If the index write fails the user
    object is deleted again, so nothing dangles. ``password=None`` makes an account that
    cannot log in with a password.
    """
    username = clean_username(username)
    email = clean_email(email)
    display_name = clean_display_name(display_name) or username
    if password is not None:
        clean_password(password)
    _check_username_free(username)
    user_id = objects.create(USER, random_open_shard(), {
        "username": username, "display_name": display_name, "about": "",
        "created": timestamp_text(now_sequence()),
    })
    try:
        return _create_index_row(username, password, email, user_id)
    except BaseException:
        objects.delete(user_id)
        raise


def random_open_shard() -> int:
    """A uniformly random shard among the open ones (the placement of a new user)."""
    return random.choice(current_map().open_shards())


def _check_username_free(username: str) -> None:
    if get_user_model().objects.filter(username__iexact=username).exists():
        raise _taken(username)


def _taken(username: str) -> UsernameTaken:
    return UsernameTaken(f"The username {username!r} is already taken.", field="username")


def _create_index_row(username: str, password: str | None, email: str, user_id: int) -> Pinner:
    try:
        with transaction.atomic(using="default"):
            account = get_user_model().objects.create_user(username, email, password)
            return Pinner.objects.create(account=account, user_id=user_id)
    except IntegrityError as exc:
        raise _taken(username) from exc
