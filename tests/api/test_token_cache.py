"""The account cache behind API tokens (pinsite.api.tokens): a second request reads no account
from the database, and every way a token stops being good takes effect at the next request,
though the token was cached."""

from __future__ import annotations

from django.core.cache import caches
from django.db import connections, transaction
from django.test.utils import CaptureQueriesContext
from django_redis import get_redis_connection
from rest_framework.authtoken.models import Token

from pins.actions.pinners import request_account_deletion
from pins.models import Pinner
from pinsite.api import tokens
from tests.api.helpers import Caller, new_caller


def cached(caller: Caller) -> object:
    return caches["default"].get(tokens._name(caller.token))


def test_a_token_once_seen_is_answered_from_the_cache() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    assert isinstance(cached(caller), Token)
    with CaptureQueriesContext(connections["default"]) as queries:
        response = caller.client.get("/api/v1/me/")
    assert response.json()["id"] == caller.id
    assert not [q for q in queries if "authtoken_token" in q["sql"]]


def test_the_cached_account_holds_no_password_hash() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    account = Pinner.objects.get(user_id=caller.user_id).account
    raw = get_redis_connection("default").get(
        caches["default"].make_key(tokens._name(caller.token)))
    assert raw and account.password.encode() not in raw


def test_a_deleted_token_is_refused_at_once() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    assert caller.client.delete("/api/v1/auth/token/").status_code == 204
    assert caller.client.get("/api/v1/me/").status_code == 401


def test_a_deactivated_account_is_refused_at_once() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    request_account_deletion(caller.user_id)
    response = caller.client.get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["detail"] == "User inactive or deleted."


def test_an_account_changed_by_an_operator_is_read_again() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    account = Pinner.objects.get(user_id=caller.user_id).account
    account.is_active = False
    account.save()
    assert caller.client.get("/api/v1/me/").status_code == 401
    account.is_active = True
    account.save()
    assert caller.client.get("/api/v1/me/").status_code == 200


def test_signing_in_keeps_the_cached_token() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    account = Pinner.objects.get(user_id=caller.user_id).account
    account.save(update_fields=["last_login"])
    assert isinstance(cached(caller), Token)


def test_a_read_from_before_a_revocation_cannot_cache_the_old_account() -> None:
    """The race the tombstone closes: a request reads the token from the database, the token
    is deleted (its tombstone written), and only then does the request try to cache what it
    read."""
    caller = new_caller()
    stale = Token.objects.select_related("user__pinner").get(key=caller.token)
    Token.objects.filter(key=caller.token).delete()
    assert cached(caller) == "revoked"
    caches["default"].add(tokens._name(caller.token), stale, tokens.LIFETIME)
    assert tokens.token_of(caller.token) is None
    assert caller.client.get("/api/v1/me/").status_code == 401


def test_a_revocation_inside_a_transaction_waits_for_its_commit() -> None:
    caller = new_caller()
    assert caller.client.get("/api/v1/me/").status_code == 200
    with transaction.atomic(using="default"):
        Token.objects.filter(key=caller.token).delete()
        assert isinstance(cached(caller), Token)
    assert cached(caller) == "revoked"
