"""Signing up pinners (a user object on a random open shard plus the global index row), and
the content domain's part of deleting them."""

from __future__ import annotations

import random
from typing import Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.utils import timezone

from pins import events
from pins.domain import timestamp_text
from pins.exceptions import UsernameTaken
from pins.lookup import edit, load
from pins.models import Pinner
from pins.types import USER
from pins.validation import (
    clean_display_name,
    clean_email,
    clean_password,
    clean_username,
)
from sharding import objects
from sharding.hosts import atomic
from sharding.ids import shard_of
from sharding.topology import current_map
from toolkit.clock import now_us


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
        "created": timestamp_text(now_us()),
    })
    try:
        return _create_index_row(username, password, email, user_id)
    except BaseException:
        objects.delete(user_id)
        raise


def update_pinner(user_id: int, *, display_name: str | None = None) -> None:
    """Change a pinner's display name (``None`` keeps it; empty falls back to the
    username)."""
    user_id, data = load(user_id, USER)
    edit(user_id, USER, data, {"display_name": (
        display_name, lambda value: clean_display_name(value) or data["username"])})


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


def request_account_deletion(user_id: int) -> None:
    """Start deleting a pinner's account. At once they can no longer sign in (the account is
    deactivated and its password made unusable, which also ends its sessions; tokens of an
    inactive account are refused), the user object is marked ``deleting``, and in the same
    transaction ``account_deletion_requested`` queues the deletion. Asking again is harmless
    and queues it again (to finish a deletion that was interrupted)."""
    user_id, data = load(user_id, USER)
    shard = shard_of(user_id)
    with atomic(shard):
        objects.update(user_id, {**data, "deleting": True})
        events.account_deletion_requested(shard, user_id)
    account = _account_of(user_id)
    if account is not None:
        account.is_active = False
        account.set_unusable_password()
        account.save(update_fields=["is_active", "password"])


def remove_pinner(user_id: int) -> None:
    """The last step of an account's deletion: the user object (recording ``user_deleted``),
    its sessions, API tokens, ``Pinner`` row and auth account; the username is free again.
    Idempotent: what is already gone is skipped."""
    shard = shard_of(user_id)
    with atomic(shard):
        if objects.delete(user_id):
            events.user_deleted(shard, user_id)
    account = _account_of(user_id)
    if account is None:
        return
    _end_sessions(account.pk)
    with transaction.atomic(using="default"):
        Pinner.objects.filter(user_id=user_id).delete()
        account.delete()  # API tokens go with it (on_delete=CASCADE)


def _account_of(user_id: int) -> Any:
    pinner = Pinner.objects.select_related("account").filter(user_id=user_id).first()
    return None if pinner is None else pinner.account


def _end_sessions(account_pk: int) -> None:
    """Delete the account's stored sessions (Django does not index them by user: one pass)."""
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get(SESSION_KEY) == str(account_pk):
            session.delete()
