"""The "Following" tab: the following feed, newest first, paged, fed by a real queue worker
(the smart feed on Home is tested in ``tests/smartfeed``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import dramatiq
import pytest
from django.test import Client

from feed.selectors import feed_page
from pins.models import Pinner
from pinsite.web import home
from tests.polling import wait_until
from tests.web.helpers import new_board, new_pin, next_fragment, text

Login = Callable[[Pinner], Client]


def feed_ids(client: Client, url: str = "/following/") -> list[int]:
    return [int(found) for found in re.findall(r'id="pin-(\d+)"', text(client.get(url)))]


def test_a_new_pinner_sees_an_empty_feed_with_a_hint(pinner: Pinner, login: Login) -> None:
    client = login(pinner)
    assert "Nothing here yet" in text(client.get("/"))
    page = text(client.get("/following/"))
    assert "Your home feed" in page and "Your following feed is empty" in page


def test_followed_pins_arrive_newest_first_and_leave_with_the_unfollowed_board(
        pinner: Pinner, other: Pinner, login: Login, worker: dramatiq.Worker) -> None:
    quiche, garden = new_board(other, "Quiche"), new_board(other, "Garden")
    older = new_pin(other, quiche, "Older")
    client = login(pinner)
    client.post(f"/u/{other.username}/follow/", {"action": "follow"})
    newer, flowers = new_pin(other, quiche, "Newer"), new_pin(other, garden, "Flowers")
    assert wait_until(lambda: feed_ids(client) == [flowers.id, newer.id, older.id])
    client.post(f"/board/{quiche.id}/follow/", {"action": "unfollow"})
    assert wait_until(lambda: feed_ids(client) == [flowers.id])


def test_the_feed_is_paged_with_a_more_link_and_fragments(
        pinner: Pinner, other: Pinner, login: Login, worker: dramatiq.Worker,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(home, "PIN_PAGE", 2)
    board = new_board(other)
    client = login(pinner)
    client.post(f"/board/{board.id}/follow/", {"action": "follow"})
    pins = [new_pin(other, board, f"Pin {n}") for n in range(3)]
    assert wait_until(lambda: len(feed_page(pinner.user_id).items) == 3)
    first = text(client.get("/following/"))
    assert re.findall(r'id="pin-(\d+)"', first) == [str(pins[2].id), str(pins[1].id)]
    more = next_fragment(first)
    assert more is not None
    fragment = text(client.get(more))
    assert "<html" not in fragment and 'rel="next"' not in fragment
    assert re.findall(r'id="pin-(\d+)"', fragment) == [str(pins[0].id)]


def test_home_shows_the_smart_feeds_picks_and_keeps_them_on_later_visits(
        pinner: Pinner, other: Pinner, login: Login, worker: dramatiq.Worker) -> None:
    board = new_board(other)
    client = login(pinner)
    client.post(f"/board/{board.id}/follow/", {"action": "follow"})
    pin = new_pin(other, board, "Picked")
    shown: set[int] = set()

    def picked() -> bool:
        page = text(client.get("/"))
        shown.update(int(found) for found in re.findall(r'id="pin-(\d+)"', page))
        return pin.id in shown

    assert wait_until(picked)
    assert wait_until(lambda: feed_ids(client, "/") == [pin.id])  # now from the materialized feed
    page = text(client.get("/"))
    assert 'aria-current="page">For you' in page and "picked for you" not in page


def test_infinite_scroll_goes_on_past_the_feeds_cap_by_pull(
        pinner: Pinner, other: Pinner, login: Login, worker: dramatiq.Worker,
        monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "CAP": 4, "SLACK": 2}
    monkeypatch.setattr(home, "PIN_PAGE", 3)
    board = new_board(other)
    client = login(pinner)
    client.post(f"/board/{board.id}/follow/", {"action": "follow"})
    pins = [new_pin(other, board, f"Pin {n}") for n in range(5 * 4 + 2)]
    expected = [pin.id for pin in reversed(pins)]

    def scrolled() -> list[int]:
        """What the script shows: the page, then each fragment its "More" link names."""
        page = text(client.get("/following/"))
        shown = [int(found) for found in re.findall(r'id="pin-(\d+)"', page)]
        while (more := next_fragment(page)) is not None:
            page = text(client.get(more))
            shown += [int(found) for found in re.findall(r'id="pin-(\d+)"', page)]
        return shown

    assert wait_until(lambda: scrolled() == expected, timeout=30)


def test_why_am_i_seeing_this_explains_a_following_feed_pin(
        pinner: Pinner, other: Pinner, login: Login, worker: dramatiq.Worker) -> None:
    board = new_board(other, "Quiche")
    client = login(pinner)
    client.post(f"/board/{board.id}/follow/", {"action": "follow"})
    pin = new_pin(other, board, "Leek quiche")
    assert wait_until(lambda: feed_ids(client) == [pin.id])
    link = f'href="/pin/{pin.id}/why/?feed=following"'
    assert link in text(client.get("/following/"))
    why = f"/pin/{pin.id}/why/?feed=following"
    # The follow's backfill, queued before the pin was made, may run after it and write the
    # entry first; the fanout's write, at the pin's own time, then wins.
    assert wait_until(lambda: "written by the fanout of the pin" in text(client.get(why)))
    page = text(client.get(why))
    assert 'data-present="yes"' in page and "This pin is in your <strong>Following" in page
    assert f"Follows board {board.id} one by one" in page
    assert 'data-code="delivered"' in page and "written by the fanout of the pin" in page


def test_why_am_i_seeing_this_says_why_a_pin_is_not_in_the_feed(
        pinner: Pinner, other: Pinner, login: Login) -> None:
    pin = new_pin(other, new_board(other), "Tart")
    page = text(login(pinner).get(f"/pin/{pin.id}/why/?feed=following"))
    assert 'data-present="no"' in page and 'data-code="not_followed"' in page
    home_page = text(login(pinner).get(f"/pin/{pin.id}/why/?feed=home"))
    assert 'data-code="not_offered"' in home_page


def test_why_needs_a_known_feed_and_a_pinner(pinner: Pinner, login: Login, client: Client) -> None:
    assert login(pinner).get("/pin/1/why/?feed=elsewhere").status_code == 400
    assert client.get("/pin/1/why/")["Location"].startswith("/login/")
