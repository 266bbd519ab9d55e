"""The plain peer of ``bench site --peer`` serves the page it stands for: with its token, a
user's first feed page holds the newest pins of the boards that user follows, newest first, in
pinsite's pin fields; and a filled database is found filled and kept."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from benchmarks import peer
from sharding.replication import admin_cursor

USERS, FOLLOWS, PINS = 30, 3, 12


@pytest.fixture
def small_peer(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(peer, "USERS", USERS)
    monkeypatch.setattr(peer, "FOLLOWS_PER_USER", FOLLOWS)
    database = peer._filled("testsize", PINS, lambda _: None)
    try:
        yield database
    finally:
        with admin_cursor("default") as c:
            c.execute(f"DROP DATABASE IF EXISTS {database}")


def test_the_plain_feed_page_is_the_newest_pins_of_the_followed_boards(small_peer: str) -> None:
    with peer.plain_site(small_peer, 1, 2, lambda _: None) as url:
        user = 7
        session = requests.Session()
        session.headers["Authorization"] = f"Token {peer._token(small_peer, user)}"
        page = session.get(url + peer.PAGE, timeout=10).json()["results"]
        assert requests.get(url + peer.PAGE, timeout=10).status_code == 401
    followed = {(user - 1 + k) % USERS + 1 for k in range(1, FOLLOWS + 1)}
    assert len(page) == 25
    assert {pin["board"] for pin in page} == followed
    created = [pin["created"] for pin in page]
    assert created == sorted(created, reverse=True)
    assert set(page[0]) == {"id", "board", "pinner", "title", "description", "link",
                            "image_url", "thumbnail_url", "width", "height", "created",
                            "source_pin", "interest"}
    newest = max(followed)
    assert page[0]["title"] == f"Pin {newest}.{PINS - 1}"
    assert page[0]["image_url"].endswith(f"/media/pins/{newest:02x}/{newest}-{PINS - 1}.jpg")


def test_a_filled_database_is_kept(small_peer: str) -> None:
    messages: list[str] = []
    assert peer._filled("testsize", PINS, messages.append) == small_peer
    assert messages == []
