"""Profile pages: boards, pins, exact counts, follower and following lists, following."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from graph import selectors
from graph.actions import follow_board, follow_user, unfollow_board
from graph.selectors import follow_kind
from pins.models import Pinner
from pinsite.web import profiles
from tests.web.helpers import follow_buttons, new_board, new_pin, new_pinner, next_fragment, text

Login = Callable[[Pinner], Client]


def counts(page: str) -> dict[str, int]:
    return {name: int(value) for name, value in
            re.findall(r'data-count="(\w+)">(\d+)<', page)}


def calls_to(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Count the calls to ``module.name`` (and how many IDs each asked about)."""
    real, seen = getattr(module, name), []

    def counting(viewer: int, ids: list[int]) -> list[int]:
        seen.append(len(ids))
        return list(real(viewer, ids))

    monkeypatch.setattr(module, name, counting)
    return seen


def test_the_profile_shows_exact_counts(pinner: Pinner, client: Client) -> None:
    recipes, garden = new_board(pinner, "Recipes"), new_board(pinner, "Garden")
    for board in (recipes, recipes, garden):
        new_pin(pinner, board)
    fan, board_fan, idol = new_pinner(), new_pinner(), new_pinner()
    follow_user(fan.user_id, pinner.user_id)
    follow_board(board_fan.user_id, garden.id)
    follow_user(pinner.user_id, idol.user_id)
    page = text(client.get(f"/u/{pinner.username}/"))
    assert counts(page) == {"followers": 2, "following": 1}
    assert ">Boards <span class=\"count\">2</span>" in page
    assert ">Pins <span class=\"count\">3</span>" in page


def test_the_boards_tab_lists_boards_with_covers(pinner: Pinner, client: Client) -> None:
    board = new_board(pinner, "Recipes")
    pin = new_pin(pinner, board)
    page = text(client.get(f"/u/{pinner.username}/"))
    assert f'id="board-{board.id}"' in page and "Recipes" in page
    assert pin.thumbnail_url in page


def test_the_pins_tab_lists_pins_newest_first(pinner: Pinner, client: Client) -> None:
    board = new_board(pinner)
    first, second = new_pin(pinner, board, "First"), new_pin(pinner, board, "Second")
    page = text(client.get(f"/u/{pinner.username}/pins/"))
    assert page.index(f'id="pin-{second.id}"') < page.index(f'id="pin-{first.id}"')


def test_follower_buttons_come_from_one_batch_check(
        pinner: Pinner, login: Login, monkeypatch: pytest.MonkeyPatch) -> None:
    viewer, followed, unfollowed = new_pinner(), new_pinner(), new_pinner()
    for fan in (followed, unfollowed, viewer):
        follow_user(fan.user_id, pinner.user_id)
    follow_user(viewer.user_id, followed.user_id)
    checks = calls_to(monkeypatch, selectors, "which_users_followed")
    response = login(viewer).get(f"/u/{pinner.username}/followers/")
    assert checks == [2]
    assert follow_buttons(response) == {f"/u/{followed.username}/follow/": "unfollow",
                                         f"/u/{unfollowed.username}/follow/": "follow",
                                         f"/u/{pinner.username}/follow/": "unfollow"}
    assert f'id="user-{viewer.user_id}"' in text(response)


def test_a_follower_of_some_boards_only_is_marked(pinner: Pinner, client: Client) -> None:
    board_fan = new_pinner()
    follow_board(board_fan.user_id, new_board(pinner).id)
    page = text(client.get(f"/u/{pinner.username}/followers/"))
    assert board_fan.username in page and "follows some boards" in page


def test_the_following_list_shows_whom_the_pinner_follows(pinner: Pinner,
                                                          client: Client) -> None:
    idol = new_pinner()
    follow_user(pinner.user_id, idol.user_id)
    page = text(client.get(f"/u/{pinner.username}/following/"))
    assert f'id="user-{idol.user_id}"' in page


def test_people_lists_are_paged_with_a_more_link_and_fragments(
        pinner: Pinner, client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(profiles, "PEOPLE_PAGE", 2)
    fans = [new_pinner() for _ in range(3)]
    for fan in fans:
        follow_user(fan.user_id, pinner.user_id)
    first = text(client.get(f"/u/{pinner.username}/followers/"))
    assert re.findall(r'id="user-(\d+)"', first) == [str(f.user_id) for f in fans[:0:-1]]
    more = next_fragment(first)
    assert more is not None
    fragment = text(client.get(more))
    assert "<html" not in fragment and 'rel="next"' not in fragment
    assert re.findall(r'id="user-(\d+)"', fragment) == [str(fans[0].user_id)]


def test_board_buttons_on_a_profile_come_from_one_batch_check(
        pinner: Pinner, login: Login, monkeypatch: pytest.MonkeyPatch) -> None:
    kept, dropped = new_board(pinner, "Kept"), new_board(pinner, "Dropped")
    viewer = new_pinner()
    follow_user(viewer.user_id, pinner.user_id)
    unfollow_board(viewer.user_id, dropped.id)
    checks = calls_to(monkeypatch, selectors, "which_boards_followed")
    response = login(viewer).get(f"/u/{pinner.username}/")
    assert checks == [2]
    buttons = follow_buttons(response)
    assert buttons[f"/board/{kept.id}/follow/"] == "unfollow"
    assert buttons[f"/board/{dropped.id}/follow/"] == "follow"


def test_the_owner_sees_no_follow_buttons_on_their_own_profile(pinner: Pinner,
                                                               login: Login) -> None:
    new_board(pinner)
    response = login(pinner).get(f"/u/{pinner.username}/")
    assert follow_buttons(response) == {}
    assert "Create pin" in text(response)


def test_following_and_unfollowing_a_pinner(pinner: Pinner, other: Pinner,
                                            login: Login) -> None:
    client = login(pinner)
    url = f"/u/{other.username}/follow/"
    response = client.post(url, {"action": "follow", "next": f"/u/{other.username}/pins/"})
    assert response["Location"] == f"/u/{other.username}/pins/"
    assert follow_kind(pinner.user_id, other.user_id) == "explicit"
    assert follow_buttons(client.get(f"/u/{other.username}/"))[url] == "unfollow"
    client.post(url, {"action": "unfollow"})
    assert follow_kind(pinner.user_id, other.user_id) is None


def test_the_script_gets_the_new_button_as_a_fragment(pinner: Pinner, other: Pinner,
                                                      login: Login) -> None:
    url = f"/u/{other.username}/follow/"
    response = login(pinner).post(url, {"action": "follow", "fragment": "1"})
    assert response.status_code == 200 and "<html" not in text(response)
    assert follow_buttons(response) == {url: "unfollow"}


def test_a_foreign_next_url_is_ignored(pinner: Pinner, other: Pinner, login: Login) -> None:
    response = login(pinner).post(f"/u/{other.username}/follow/",
                                  {"action": "follow", "next": "https://evil.example/"})
    assert response["Location"] == f"/u/{other.username}/"


def test_following_oneself_is_a_clear_400(pinner: Pinner, login: Login) -> None:
    response = login(pinner).post(f"/u/{pinner.username}/follow/", {"action": "follow"})
    assert response.status_code == 400
    assert "A user cannot follow themselves" in text(response)


def test_an_unknown_follow_action_is_a_400(pinner: Pinner, other: Pinner,
                                           login: Login) -> None:
    response = login(pinner).post(f"/u/{other.username}/follow/", {"action": "befriend"})
    assert response.status_code == 400 and "Choose to follow or to unfollow" in text(response)


def test_anonymous_visitors_are_asked_to_log_in_to_follow(other: Pinner,
                                                          client: Client) -> None:
    response = client.post(f"/u/{other.username}/follow/", {"action": "follow"})
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert "Log in to follow" in text(client.get(f"/u/{other.username}/"))


def test_following_needs_a_post(pinner: Pinner, other: Pinner, login: Login) -> None:
    assert login(pinner).get(f"/u/{other.username}/follow/").status_code == 405


def test_an_unknown_pinner_is_the_404_page(client: Client) -> None:
    response = client.get("/u/nobody-by-this-name/")
    assert response.status_code == 404 and "Not found" in text(response)
