"""The pages built on the managers send no more statements than they did before them: a
profile, a board, the people lists and both feeds, each read cold (just made) and warm."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dramatiq
import pytest
from django.db import connections
from django.test import Client

from feed.selectors import feed_page
from graph.actions import follow_user
from graph.store import reads
from pins.models import Pinner
from tests.polling import wait_until
from tests.sharding.helpers import queries_per_host
from tests.web.helpers import new_board, new_pin

HELD = {  # page → (SQL statements, graph reads) read cold, then warm: as before the managers
    "profile": ((9, 4), (4, 4)),
    "profile-pins": ((6, 3), (4, 3)),
    "profile-followers": ((6, 4), (4, 4)),
    "board": ((4, 3), (2, 3)),
    "board-followers": ((3, 5), (2, 5)),
    "following": ((2, 0), (2, 0)),
    "home": ((2, 0), (2, 0)),
}


def round_trips(client: Client, url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """The SQL statements sent to every database and the graph's Redis reads while ``url``
    was read (the reads counted as they pass through, not replaced)."""
    graph_reads: list[int] = []
    read = reads._read

    def counted(vshard: int, call: Callable[[Any], Any]) -> Any:
        graph_reads.append(vshard)
        return read(vshard, call)

    with monkeypatch.context() as patch, queries_per_host(connections) as captured:
        patch.setattr(reads, "_read", counted)
        response = client.get(url)
    assert response.status_code == 200, url
    return sum(len(capture.captured_queries) for capture in captured.values()), len(graph_reads)


@pytest.mark.parametrize("page", sorted(HELD))
def test_a_page_sends_no_more_statements_than_before(
        page: str, pinner: Pinner, other: Pinner, login: Callable[[Pinner], Client],
        worker: dramatiq.Worker, monkeypatch: pytest.MonkeyPatch) -> None:
    boards = [new_board(pinner, name) for name in ("Tarts", "Soups")]
    for board in boards:
        for n in range(3):
            new_pin(pinner, board, f"{board.name} {n}")
    follow_user(other.user_id, pinner.user_id)
    assert wait_until(lambda: len(feed_page(other.user_id).items) == 6)
    urls = {"profile": f"/u/{pinner.username}/", "profile-pins": f"/u/{pinner.username}/pins/",
            "profile-followers": f"/u/{pinner.username}/followers/",
            "board": f"/board/{boards[0].id}/",
            "board-followers": f"/board/{boards[0].id}/followers/",
            "following": "/following/", "home": "/"}
    client = login(other)
    cold, warm = (round_trips(client, urls[page], monkeypatch) for _ in range(2))
    for measured, held in zip((cold, warm), HELD[page], strict=True):
        assert measured[0] <= held[0] and measured[1] <= held[1], (cold, warm)
