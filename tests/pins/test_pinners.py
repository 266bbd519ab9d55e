"""Pinners: the user object on a random open shard and the global username index."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import AnonymousUser

from pins.actions import create_pinner, pinners
from pins.exceptions import InvalidContent, NotFound
from pins.selectors import get_user, pinner_by_username, pinner_of_account, user_object
from sharding import objects
from sharding.ids import shard_of
from sharding.topology import current_map
from tests.pins.helpers import new_pinner, unique_username


def test_a_new_pinner_has_a_user_object_with_its_profile() -> None:
    username = unique_username()
    pinner = create_pinner(username, None, display_name="Ada L.")
    user = get_user(pinner.user_id)
    assert (user.username, user.display_name, user.about) == (username, "Ada L.", "")


def test_the_display_name_defaults_to_the_username() -> None:
    pinner = new_pinner()
    assert get_user(pinner.user_id).display_name == pinner.username


def test_new_pinners_land_on_random_open_shards() -> None:
    open_shards = set(current_map().open_shards())
    shards = {shard_of(new_pinner().user_id) for _ in range(24)}
    assert shards <= open_shards
    assert len(shards) > 1


def test_a_pinner_can_log_in_with_the_password() -> None:
    username = unique_username()
    create_pinner(username, "a-long-secret-123", email="ada@example.com")
    account = authenticate(username=username, password="a-long-secret-123")
    assert account is not None and pinner_of_account(account) is not None


def test_a_pinner_without_password_cannot_log_in_with_one() -> None:
    pinner = new_pinner()
    assert not pinner.account.has_usable_password()


def test_the_username_index_finds_the_pinner_ignoring_case() -> None:
    pinner = new_pinner()
    assert pinner_by_username(pinner.username.upper()).user_id == pinner.user_id


def test_an_unknown_username_is_not_found() -> None:
    with pytest.raises(NotFound, match="No pinner"):
        pinner_by_username(unique_username())


def test_a_taken_username_is_rejected_ignoring_case() -> None:
    pinner = new_pinner()
    with pytest.raises(InvalidContent, match="already taken") as caught:
        create_pinner(pinner.username.upper(), None)
    assert caught.value.field == "username"


def test_a_weak_password_is_rejected() -> None:
    with pytest.raises(InvalidContent) as caught:
        create_pinner(unique_username(), "short")
    assert caught.value.field == "password"


def test_a_bad_email_is_rejected() -> None:
    with pytest.raises(InvalidContent, match="not a valid email"):
        create_pinner(unique_username(), None, email="not-an-email")


def test_a_failed_index_write_deletes_the_user_object(monkeypatch: pytest.MonkeyPatch) -> None:
    username = unique_username()
    get_user_model().objects.create_user(username)
    created: list[int] = []
    real_create = objects.create

    def recording_create(*args: object, **kwargs: object) -> int:
        created.append(real_create(*args, **kwargs))  # type: ignore[arg-type]
        return created[-1]

    monkeypatch.setattr(pinners, "_check_username_free", lambda username: None)
    monkeypatch.setattr(objects, "create", recording_create)
    with pytest.raises(InvalidContent, match="already taken"):
        create_pinner(username, None)
    assert len(created) == 1 and objects.get(created[0]) is None


def test_anonymous_visitors_have_no_pinner() -> None:
    assert pinner_of_account(AnonymousUser()) is None


def test_user_object_returns_the_stored_json() -> None:
    pinner = new_pinner()
    assert user_object(pinner.user_id)["username"] == pinner.username
