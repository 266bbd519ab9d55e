"""Sign up, log in and log out through the forms."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from graph.interests import followed_interests
from pins.models import Pinner
from pins.selectors import get_user
from sharding import objects
from tests.web.helpers import PASSWORD, new_pinner, text, unique_username


def sign_up(client: Client, username: str, password: str = PASSWORD, again: str | None = None,
            email: str = "", name: str = "") -> str:
    response = client.post("/signup/", {"username": username, "password1": password,
                                        "password2": password if again is None else again,
                                        "email": email, "display_name": name})
    return text(response) if response.status_code == 200 else response["Location"]


def test_signing_up_creates_a_pinner_and_logs_them_in(client: Client) -> None:
    username = unique_username()
    assert sign_up(client, username, name="Ada Lovelace") == "/"
    pinner = Pinner.objects.get(account__username=username)
    user = get_user(pinner.user_id)
    assert (user.username, user.display_name) == (username, "Ada Lovelace")
    page = text(client.get("/"))
    assert "Your home feed" in page and f"Welcome, {username}" in page


@pytest.mark.parametrize(("fields", "message"), [
    ({"username": "ab"}, "Ensure this value has at least 3 characters"),
    ({"username": "bad name!"}, "is not allowed"),
    ({"again": "something-else-entirely"}, "The two passwords differ."),
    ({"password": "password"}, "This password is too common."),
    ({"password": "short"}, "This password is too short."),
    ({"email": "not-an-address"}, "Enter a valid email address."),
])
def test_signing_up_with_bad_input_shows_the_error_on_the_form(
        client: Client, fields: dict[str, str], message: str) -> None:
    username = fields.pop("username", unique_username())
    page = sign_up(client, username, **fields)
    assert message in page
    assert not Pinner.objects.filter(account__username=username).exists()


def test_a_taken_username_is_refused_whatever_its_case(client: Client) -> None:
    taken = new_pinner()
    page = sign_up(client, taken.username.upper())
    assert "is already taken" in page


def test_logging_in_and_out(client: Client) -> None:
    pinner = new_pinner()
    response = client.post("/login/", {"username": pinner.username, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert "Your home feed" in text(client.get("/"))
    assert client.post("/logout/")["Location"] == "/"
    assert "Sign up" in text(client.get("/"))


def test_a_wrong_password_shows_a_clear_error(client: Client) -> None:
    pinner = new_pinner()
    page = text(client.post("/login/", {"username": pinner.username, "password": "nope"}))
    assert "Please enter a correct username and password" in page


def test_logging_out_needs_a_post(client: Client) -> None:
    client.force_login(new_pinner().account)
    assert client.get("/logout/").status_code == 405


def test_a_logged_in_pinner_is_sent_home_from_the_sign_up_page(client: Client) -> None:
    client.force_login(new_pinner().account)
    assert client.get("/signup/")["Location"] == "/"


def test_an_account_without_a_pinner_profile_sees_a_note_and_cannot_create(
        client: Client) -> None:
    operator = get_user_model().objects.create_user(unique_username("op"), "", PASSWORD)
    client.force_login(operator)
    assert "has no pinner profile" in text(client.get("/"))
    response = client.get("/board/new/")
    assert response.status_code == 403 and "has no pinner profile" in text(response)


def _deletion_requested(pinner: Pinner) -> bool:
    data = objects.get(pinner.user_id)
    pinner.account.refresh_from_db()
    return bool(data and data.get("deleting")) and not pinner.account.is_active


def test_deleting_the_account_asks_for_the_username_first(
        pinner: Pinner, login: Callable[[Pinner], Client]) -> None:
    client = login(pinner)
    page = text(client.get("/account/delete/"))
    assert f"Delete the account @{pinner.username}?" in page
    response = client.post("/account/delete/", {"username": "someone-else"})
    assert response.status_code == 400 and "Type your username exactly" in text(response)
    assert not _deletion_requested(pinner)


def test_deleting_the_account_signs_out_and_starts_the_deletion(
        pinner: Pinner, login: Callable[[Pinner], Client]) -> None:
    client = login(pinner)
    response = client.post("/account/delete/", {"username": pinner.username.upper()},
                           follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert f"The account {pinner.username} is being deleted" in text(response)
    assert _deletion_requested(pinner)
    assert client.get("/account/delete/")["Location"].startswith("/login/")
    assert not client.login(username=pinner.username, password=PASSWORD)


def test_the_own_profile_links_to_account_deletion(pinner: Pinner,
                                                   login: Callable[[Pinner], Client]) -> None:
    page = text(login(pinner).get(f"/u/{pinner.username}/"))
    assert 'href="/account/delete/"' in page


def test_signing_up_can_follow_interests_at_once(client: Client) -> None:
    username = unique_username()
    assert 'value="travel"' in text(client.get("/signup/"))
    response = client.post("/signup/", {"username": username, "password1": PASSWORD,
                                        "password2": PASSWORD, "interests": ["travel", "art"]})
    assert response["Location"] == "/"
    pinner = Pinner.objects.get(account__username=username)
    assert [t.slug for t in followed_interests(pinner.user_id)] == ["art", "travel"]
    profile = text(client.get(f"/u/{username}/"))
    assert 'data-interest="art">Art</a>' in profile and "choose interests…" in profile
