"""Marking rows sent: a flush waits for the one the marker's thread has under way, so a caller
that flushed finds its rows marked."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from events.marker import Marker
from sharding import outbox
from sharding.hosts import cursor
from tests.events.helpers import stale_row


@dataclass(frozen=True)
class Row:
    alias: str
    id: int


def sent(alias: str, row_id: int) -> bool:
    with cursor(alias) as c:
        c.execute(f"SELECT sent_us FROM {outbox.TABLE} WHERE id = %s", [row_id])
        return c.fetchone()[0] is not None


def test_a_flush_waits_for_the_flush_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    entered, release = threading.Event(), threading.Event()
    real = outbox.mark_sent

    def held(alias: str, ids: list[int], at: int) -> int:
        entered.set()
        release.wait(30)
        return real(alias, ids, at)

    monkeypatch.setattr(outbox, "mark_sent", held)
    marker = Marker()
    with stale_row(0) as (alias, row_id):
        marker.add([Row(alias, row_id)])
        under_way = threading.Thread(target=marker.flush, daemon=True)
        under_way.start()
        assert entered.wait(30)  # the row is taken and its UPDATE held
        second = threading.Thread(target=marker.flush, daemon=True)
        second.start()
        second.join(0.5)
        assert second.is_alive(), "the second flush returned before the first one's rows"
        release.set()
        second.join(30)
        assert not second.is_alive() and sent(alias, row_id)
        under_way.join(30)
