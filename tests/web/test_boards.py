"""Board pages: create, pins and followers, follow and unfollow one board, delete."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.test import Client

from graph.actions import follow_board, follow_user
from graph.selectors import follow_kind, is_following_board
from pins.exceptions import NotFound
from pins.models import Pinner
from pins.selectors import boards_of, get_board, get_pin
from tests.web.helpers import follow_buttons, new_board, new_pin, new_pinner, text

Login = Callable[[Pinner], Client]


def test_creating_a_board_leads_to_its_page(pinner: Pinner, login: Login) -> None:
    client = login(pinner)
    response = client.post("/board/new/", {"name": " Quiche ", "description": "Tarts."})
    board = boards_of(pinner.user_id, limit=1).items[0]
    assert response["Location"] == f"/board/{board.id}/"
    assert (board.name, board.description) == ("Quiche", "Tarts.")
    assert "Board “Quiche” created." in text(client.get(response["Location"]))


def test_a_board_needs_a_name_of_at_most_50_characters(pinner: Pinner, login: Login) -> None:
    client = login(pinner)
    assert "This field is required." in text(client.post("/board/new/", {"name": ""}))
    page = text(client.post("/board/new/", {"name": "x" * 51}))
    assert "Ensure this value has at most 50 characters" in page
    page = text(client.post("/board/new/", {"name": "bell\x07"}))
    assert "Name contains control characters." in page
    assert boards_of(pinner.user_id).items == []


def test_creating_a_board_needs_a_login(client: Client) -> None:
    assert client.get("/board/new/")["Location"] == "/login/?next=/board/new/"


def test_the_board_page_shows_pins_counts_and_owner(pinner: Pinner, client: Client) -> None:
    board = new_board(pinner, "Quiche")
    pins = [new_pin(pinner, board, f"Pin {n}") for n in range(3)]
    follow_board(new_pinner().user_id, board.id)
    page = text(client.get(f"/board/{board.id}/"))
    assert re.findall(r'id="pin-(\d+)"', page) == [str(pin.id) for pin in reversed(pins)]
    assert 'data-count="pins">3<' in page and 'data-count="followers">1<' in page
    assert f'href="/u/{pinner.username}/"' in page


def test_the_board_followers_include_the_owners_followers_with_one_batch_check(
        pinner: Pinner, login: Login) -> None:
    board = new_board(pinner)
    explicit, through_owner, viewer = new_pinner(), new_pinner(), new_pinner()
    follow_board(explicit.user_id, board.id)
    follow_user(through_owner.user_id, pinner.user_id)
    follow_user(viewer.user_id, explicit.user_id)
    response = login(viewer).get(f"/board/{board.id}/followers/")
    assert 'data-count="followers">2<' in text(response)
    assert f"follows {pinner.username}" in text(response)
    assert follow_buttons(response) == {f"/u/{explicit.username}/follow/": "unfollow",
                                         f"/u/{through_owner.username}/follow/": "follow",
                                         f"/board/{board.id}/follow/": "follow"}


def test_following_one_board_of_a_pinner_one_does_not_follow(
        pinner: Pinner, other: Pinner, login: Login) -> None:
    board, elsewhere = new_board(other, "Quiche"), new_board(other, "Garden")
    client = login(pinner)
    client.post(f"/board/{board.id}/follow/", {"action": "follow"})
    assert is_following_board(pinner.user_id, board.id)
    assert not is_following_board(pinner.user_id, elsewhere.id)
    assert follow_kind(pinner.user_id, other.user_id) == "implicit"
    page = client.get(f"/board/{board.id}/")
    assert follow_buttons(page)[f"/board/{board.id}/follow/"] == "unfollow"
    assert 'data-count="followers">1<' in text(page)
    assert "You follow some of" in text(client.get(f"/u/{other.username}/"))


def test_unfollowing_one_board_of_a_followed_pinner(pinner: Pinner, other: Pinner,
                                                    login: Login) -> None:
    board, elsewhere = new_board(other, "Quiche"), new_board(other, "Garden")
    client = login(pinner)
    client.post(f"/u/{other.username}/follow/", {"action": "follow"})
    page = text(client.get(f"/board/{board.id}/"))
    assert "so you follow this board" in page
    response = client.post(f"/board/{board.id}/follow/",
                           {"action": "unfollow", "next": f"/board/{board.id}/"})
    assert response["Location"] == f"/board/{board.id}/"
    assert not is_following_board(pinner.user_id, board.id)
    assert is_following_board(pinner.user_id, elsewhere.id)
    assert follow_kind(pinner.user_id, other.user_id) == "explicit"
    assert follow_buttons(client.get(f"/board/{board.id}/"))[
        f"/board/{board.id}/follow/"] == "follow"


def test_the_owner_cannot_follow_their_own_board(pinner: Pinner, login: Login) -> None:
    board = new_board(pinner)
    client = login(pinner)
    assert follow_buttons(client.get(f"/board/{board.id}/")) == {}
    response = client.post(f"/board/{board.id}/follow/", {"action": "follow"})
    assert response.status_code == 400 and "cannot follow their own board" in text(response)


def test_deleting_a_board_asks_first_then_deletes_it_with_its_pins(pinner: Pinner,
                                                                    login: Login) -> None:
    board = new_board(pinner, "Old")
    pin = new_pin(pinner, board)
    client = login(pinner)
    confirm = text(client.get(f"/board/{board.id}/delete/"))
    assert "Delete the board “Old”?" in confirm and "its 1 pin " in confirm
    assert get_board(board.id) == board
    response = client.post(f"/board/{board.id}/delete/")
    assert response["Location"] == f"/u/{pinner.username}/"
    assert "and its 1 pins deleted" in text(client.get(response["Location"]))
    for gone in (lambda: get_board(board.id), lambda: get_pin(pin.id)):
        try:
            gone()
        except NotFound:
            continue
        raise AssertionError("the board or its pin is still there")


def test_deleting_someone_elses_board_is_the_403_page(pinner: Pinner, other: Pinner,
                                                      login: Login) -> None:
    board = new_board(other)
    client = login(pinner)
    for response in (client.get(f"/board/{board.id}/delete/"),
                     client.post(f"/board/{board.id}/delete/")):
        assert response.status_code == 403
        assert "Only the owner of this board can delete it." in text(response)
    assert get_board(board.id) == board


def test_unknown_board_ids_are_the_404_page(pinner: Pinner, client: Client) -> None:
    board = new_board(pinner)
    for url in [f"/board/{board.id + 4096}/", f"/board/{board.id + 4096}/followers/"]:
        response = client.get(url)
        assert response.status_code == 404, url
        assert "Not found" in text(response)


def test_malformed_and_wrong_type_board_ids_are_the_400_page(pinner: Pinner,
                                                             client: Client) -> None:
    pin = new_pin(pinner, new_board(pinner))
    for url in ["/board/1/", f"/board/{pin.id}/", "/board/99999999999999999999999/",
                f"/board/{pin.id}/followers/"]:
        response = client.get(url)
        assert response.status_code == 400, url
        assert "is not a board ID" in text(response), url


def test_a_board_is_created_and_edited_with_an_interest(pinner: Pinner, login: Login) -> None:
    client = login(pinner)
    form = text(client.get("/board/new/"))
    assert '<option value="food-and-drink">Food and drink</option>' in form
    client.post("/board/new/", {"name": "Dinners", "interest": "food-and-drink"})
    board = boards_of(pinner.user_id, limit=1).items[0]
    assert board.interest == "food-and-drink"
    page = text(client.get(f"/board/{board.id}/"))
    assert 'data-interest="food-and-drink">Food and drink' in page
    assert f'href="/board/{board.id}/edit/"' in page
    edit = text(client.get(f"/board/{board.id}/edit/"))
    assert '<option value="food-and-drink" selected>' in edit
    response = client.post(f"/board/{board.id}/edit/", {"name": "Suppers",
                                                        "interest": "travel"})
    assert response["Location"] == f"/board/{board.id}/"
    changed = get_board(board.id)
    assert (changed.name, changed.interest) == ("Suppers", "travel")
    pin = new_pin(pinner, changed)
    assert 'data-interest="travel">Travel' in text(client.get(f"/pin/{pin.id}/"))


def test_only_the_owner_may_edit_a_board(pinner: Pinner, login: Login) -> None:
    board = new_board(new_pinner())
    assert login(pinner).get(f"/board/{board.id}/edit/").status_code == 403
