"""Big boards cost what small ones do: every list is read one page at a time."""

from __future__ import annotations

import re

from django.db import connections
from django.test import Client

from pins.models import Pinner
from pinsite.web.paging import PIN_PAGE
from tests.sharding.helpers import queries_per_host
from tests.web.helpers import many_pins, new_board, next_fragment, text

BIG = 3000
SMALL = PIN_PAGE * 2


def page_and_statements(client: Client, url: str) -> tuple[str, list[str]]:
    """The page at ``url``, read for the first time, and the SQL statements that read it on
    every database, with every number written ``N`` and every string ``'S'`` (so that only
    their shape is compared: an ``IN`` list keeps its length)."""
    with queries_per_host(connections) as captured:
        response = client.get(url)
    assert response.status_code == 200
    statements = [re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'S'", query["sql"]))
                  for capture in captured.values() for query in capture.captured_queries]
    return text(response), sorted(statements)


def test_a_board_of_thousands_of_pins_is_read_like_one_of_two_pages(
        pinner: Pinner, other: Pinner, client: Client) -> None:
    """The same statements, with the same limits and as many IDs, read the first page of a
    board of 3,000 pins and of one of 60, and the same for their pinners' pins."""
    big, small = new_board(pinner), new_board(other)
    many_pins(pinner, big, BIG)
    many_pins(other, small, SMALL)
    for big_url, small_url in ((f"/board/{big.id}/", f"/board/{small.id}/"),
                               (f"/u/{pinner.username}/pins/", f"/u/{other.username}/pins/")):
        page, statements = page_and_statements(client, big_url)
        assert len(re.findall(r'class="pin-card"', page)) == PIN_PAGE, big_url
        assert 'rel="next"' in page and f">{BIG}<" in page, big_url
        assert statements == page_and_statements(client, small_url)[1], big_url
        lists = [sql for sql in statements if "_has_pins" in sql and "COUNT(*)" not in sql]
        assert lists and all(" LIMIT N" in sql for sql in lists), lists


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
        url = next_fragment(page)
    assert len(seen) == len(set(seen)) == count
