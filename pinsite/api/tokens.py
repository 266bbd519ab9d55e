"""The account behind an API token, read through the shared cache.

Every API request with a token needs its account and the account's pinner. Loading them is one
query, but building and compiling that query was the largest part of an API request's CPU; so
the token, with its account and pinner (the password hash left out), is cached in Redis for
:data:`LIFETIME` seconds, shared by every web process.

Revocation is at once for every process: deleting a token, saving an account (deactivating
it, as a deletion request does) and saving or deleting its pinner replace the cached entry,
after the change commits, with a tombstone that lives :data:`TOMBSTONE` seconds. A request
that read the database before the change cannot put the old account back: entries are only
ever added where no key is (Redis ``SET NX``), and the tombstone holds the key. The lifetime
bounds what a write that sends no signals (a queryset ``update()``) or an invalidation lost to
a cache outage leaves behind. With the cache down, every request reads the database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from rest_framework.authtoken.models import Token

from pins.models import Pinner

LIFETIME = 60.0
TOMBSTONE = 10.0
_REVOKED = "revoked"
_ALIAS = "default"


def token_of(key: str) -> Token | None:
    """The token ``key`` with its account and the account's pinner, or ``None`` if no such
    token exists."""
    cache = caches[_ALIAS]
    name = _name(key)
    cached = cache.get(name)
    if isinstance(cached, Token):
        return cached
    token = (Token.objects.select_related("user__pinner").defer("user__password")
             .filter(key=key).first())
    if token is not None and cached is None:
        cache.add(name, token, LIFETIME)
    return token


def forget(keys: Iterable[str]) -> None:
    """Tombstones for the tokens ``keys``, once the current transaction commits."""
    names = [_name(key) for key in keys]
    if names:
        transaction.on_commit(lambda: caches[_ALIAS].set_many(
            dict.fromkeys(names, _REVOKED), TOMBSTONE), using="default")


def _name(key: str) -> str:
    return "token:" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _tokens_of_account(account_pk: Any) -> list[str]:
    return list(Token.objects.filter(user_id=account_pk).values_list("key", flat=True))


def _token_deleted(instance: Token, **_: Any) -> None:
    forget([instance.key])


def _account_saved(instance: Any, update_fields: frozenset[str] | None = None, **_: Any) -> None:
    if update_fields is not None and update_fields <= {"last_login"}:
        return  # signing in: nothing a token's request reads has changed
    forget(_tokens_of_account(instance.pk))


def _pinner_changed(instance: Pinner, **_: Any) -> None:
    forget(_tokens_of_account(instance.account_id))


def connect() -> None:
    """Revoke cached tokens on the changes above (idempotent)."""
    post_delete.connect(_token_deleted, sender=Token, dispatch_uid="tokens.deleted")
    post_save.connect(_account_saved, sender=get_user_model(), dispatch_uid="tokens.account")
    post_save.connect(_pinner_changed, sender=Pinner, dispatch_uid="tokens.pinner")
    post_delete.connect(_pinner_changed, sender=Pinner, dispatch_uid="tokens.pinner_deleted")
