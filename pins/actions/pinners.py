"""Signing up pinners (a user object on a random open shard plus the global index row), and
the content domain's part of deleting them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.utils import timezone

from auditlog.operations import operation
from pins import events
from pins.conf import content_settings
from pins.domain import timestamp_text
from pins.exceptions import ContentError, UsernameTaken
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
from sharding.hosts import atomic, atomic_on_host, by_host
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
    user_id = objects.create(USER, random_open_shard(), _user_data(username, display_name))
    try:
        return _create_index_row(username, password, email, user_id)
    except BaseException:
        objects.delete(user_id)
        raise


@dataclass(frozen=True)
class NewPinner:
    """One pinner of :func:`create_pinners`: an account without a password."""

    username: str
    display_name: str = ""


def create_pinners(new: Sequence[NewPinner]) -> list[Pinner | ContentError]:
    """Sign up many pinners at once (an import), as :func:`create_pinner` does each: one
    query for the usernames taken, the user objects placed in groups of
    ``BULK_PINNERS_PER_SHARD`` on random open shards (:func:`bulk_placement`) and those of one
    host's shards made in one transaction there, then every auth user and ``Pinner`` row in
    one transaction in ``default``. If that
    fails (a username taken meanwhile), the user objects are deleted again and each pinner is
    made alone. Returns, in order, each pinner or the :class:`ContentError` that refused it."""
    results: list[Pinner | ContentError | None] = [None] * len(new)
    cleaned: dict[int, tuple[str, str]] = {}
    for index, spec in enumerate(new):
        try:
            username = clean_username(spec.username)
            cleaned[index] = (username, clean_display_name(spec.display_name) or username)
        except ContentError as exc:
            results[index] = exc
    taken = _taken_of([username for username, _ in cleaned.values()])
    for index, (username, _) in list(cleaned.items()):
        if username.casefold() in taken:
            results[index] = _taken(username)
            del cleaned[index]
        taken.add(username.casefold())  # a second row with the name is refused too
    placed = bulk_placement(list(cleaned))  # shard → indexes of the pinners placed there
    made: dict[int, int] = {}
    try:
        for shards in by_host(placed).values():
            with atomic_on_host(shards):
                ids = objects.create_on_host(USER, {
                    shard: [_user_data(*cleaned[index]) for index in placed[shard]]
                    for shard in shards})
                for shard in shards:
                    made.update(zip(placed[shard], ids[shard], strict=True))
        for index, pinner in _create_index_rows({index: (cleaned[index][0], user_id)
                                                 for index, user_id in made.items()}).items():
            results[index] = pinner
    except IntegrityError:
        for user_id in made.values():
            objects.delete(user_id)
        for index, (username, display_name) in cleaned.items():
            try:
                results[index] = create_pinner(username, None, display_name=display_name)
            except ContentError as exc:
                results[index] = exc
    except BaseException:
        for user_id in made.values():
            objects.delete(user_id)
        raise
    return [result for result in results if result is not None]


def _user_data(username: str, display_name: str) -> dict[str, Any]:
    return {"username": username, "display_name": display_name, "about": "",
            "created": timestamp_text(now_us())}


def _taken_of(usernames: list[str]) -> set[str]:
    """Which of ``usernames`` have an account, case-folded (one query). ``IN`` matches as
    ``iexact`` does: MySQL compares in the column's collation, which is case-insensitive, as
    Django's ``iexact`` (a ``LIKE``) relies on too; an ``OR`` of 10,000 ``LIKE``s took seconds
    where ``IN`` takes tens of milliseconds."""
    if not usernames:
        return set()
    found = get_user_model().objects.filter(username__in=usernames)
    return {username.casefold() for username in found.values_list("username", flat=True)}


def _create_index_rows(accounts: dict[int, tuple[str, int]]) -> dict[int, Pinner]:
    """The auth users (no password) and ``Pinner`` rows of ``{index: (username, user_id)}``,
    in one transaction in ``default``."""
    model = get_user_model()
    users = {index: model(username=model.normalize_username(username), email="")
             for index, (username, _) in accounts.items()}
    for user in users.values():
        user.set_unusable_password()
    with transaction.atomic(using="default"):
        model.objects.bulk_create(users.values())
        pinners = {index: Pinner(account=users[index], user_id=user_id)
                   for index, (_, user_id) in accounts.items()}
        Pinner.objects.bulk_create(pinners.values())
    return pinners


def update_pinner(user_id: int, *, display_name: str | None = None) -> None:
    """Change a pinner's display name (``None`` keeps it; empty falls back to the
    username)."""
    user_id, data = load(user_id, USER)
    edit(user_id, USER, data, {"display_name": (
        display_name, lambda value: clean_display_name(value) or data["username"])})


def random_open_shard() -> int:
    """A uniformly random shard among the open ones (the placement of a new user)."""
    return random.choice(current_map().open_shards())


def bulk_placement(indexes: list[int]) -> dict[int, list[int]]:
    """The shards of a bulk of new pinners: groups of ``BULK_PINNERS_PER_SHARD`` of them
    (``indexes``, in order), each group on a random open shard of its own while there are
    enough. A pinner's boards and pins live on its shard, so a group's objects and mapping
    rows go in one multi-row statement a table where one pinner a shard would take one
    each; over many bulks the shards receive about as many groups each, as one pinner a
    shard spreads single sign-ups (``docs/decisions.md``)."""
    if not indexes:
        return {}
    size = content_settings.number("BULK_PINNERS_PER_SHARD")
    groups = -(-len(indexes) // size)
    open_shards = current_map().open_shards()
    shards = (random.sample(open_shards, groups) if groups <= len(open_shards)
              else random.choices(open_shards, k=groups))
    placed: dict[int, list[int]] = {}
    for number, index in enumerate(indexes):
        placed.setdefault(shards[number // size], []).append(index)
    return placed


def _check_username_free(username: str) -> None:
    if _taken_of([username]):
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


def delete_account_for_staff(user_id: int, username: str) -> None:
    """:func:`request_account_deletion` asked by staff (the admin's pages), which, unlike a
    pinner's own, is an operation of the operator audit log (``accounts.delete``)."""
    with operation("accounts.delete", f"user {user_id}", {"username": username}):
        request_account_deletion(user_id)


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
