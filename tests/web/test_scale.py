"""Pages stay fast on big boards: every list is read one page at a time."""

from __future__ import annotations

import re
import time

from django.test import Client

from pins.models import Pinner
from pinsite.web.paging import PIN_PAGE
from tests.web.helpers import many_pins, new_board, text

BIG = 3000
FAST_SECONDS = 1.0


def timed_get(client: Client, url: str) -> tuple[str, float]:
    client.get(url)
    started = time.perf_counter()
    response = client.get(url)
    assert response.status_code == 200
    return text(response), time.perf_counter() - started


def test_a_board_of_thousands_of_pins_shows_one_fast_page_at_a_time(
        pinner: Pinner, client: Client) -> None:
    board = new_board(pinner)
    many_pins(pinner, board, BIG)
    for url in (f"/board/{board.id}/", f"/u/{pinner.username}/pins/"):
        page, seconds = timed_get(client, url)
        assert len(re.findall(r'class="pin-card"', page)) == PIN_PAGE, url
        assert 'rel="next"' in page and f">{BIG}<" in page, url
        assert seconds < FAST_SECONDS, f"{url} took {seconds:.2f} s"


def test_following_the_more_links_walks_the_board_without_repeats(
        pinner: Pinner, client: Client) -> None:
    board = new_board(pinner)
    count = PIN_PAGE * 2 + 5
    many_pins(pinner, board, count)
    seen: list[str] = []
    url: str | None = f"/board/{board.id}/?fragment=1"
    while url:
        page = text(client.get(url))
        seen += re.findall(r'id="pin-(\d+)"', page)
        more = re.search(r'href="([^"]+)" rel="next"', page)
        url = more.group(1).replace("&amp;", "&") + "&fragment=1" if more else None
    assert len(seen) == len(set(seen)) == count
