"""The publisher thread: the graph's follows return without waiting for RabbitMQ, and their
events are still published in order and marked sent; a failing batch does not stop the
thread."""

from __future__ import annotations

from typing import Any

import pytest

from events import publisher, record
from graph import actions
from graph.events import FOLLOW_CHANGED
from sharding import outbox
from sharding.hosts import cursor
from tests.events.helpers import recorded
from tests.graph.helpers import new_user


def sent_rows(follower: int) -> list[tuple[str, bool]]:
    """The follower's follow events in the outbox of every host: (payload, sent)."""
    from sharding.topology import current_map

    found = []
    for alias in current_map().masters():
        with cursor(alias) as c:
            c.execute(f"SELECT payload, sent_us IS NOT NULL FROM {outbox.TABLE} "
                      "WHERE name = %s AND payload LIKE %s ORDER BY id",
                      [FOLLOW_CHANGED, f'%"follower_id":{follower},%'])
            found += [(str(payload), bool(sent)) for payload, sent in c.fetchall()]
    return found


def test_follows_are_published_in_order_and_marked_sent() -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    with recorded(FOLLOW_CHANGED) as got:
        actions.follow_user(ann, bob)
        actions.follow_user(ann, cat)
        actions.unfollow_user(ann, bob)
    assert [(p["target_id"], p["action"]) for p in got] == [
        (bob, "follow"), (cat, "follow"), (bob, "unfollow")]
    from events import marker

    marker.flush()
    rows = sent_rows(ann)
    assert len(rows) == 3 and all(sent for _, sent in rows)


def test_a_failing_batch_leaves_its_rows_to_the_relay_and_the_thread_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    real_send = record.send_all

    def broken(messages: Any) -> None:
        raise RuntimeError("a bug in one batch")

    monkeypatch.setattr(record, "send_all", broken)
    actions.follow_user(ann, bob)
    assert publisher.flush()
    monkeypatch.setattr(record, "send_all", real_send)
    with recorded(FOLLOW_CHANGED) as got:
        actions.follow_user(ann, cat)
    assert [p["target_id"] for p in got] == [cat]
    from events import marker

    marker.flush()
    rows = sent_rows(ann)
    assert [sent for _, sent in rows] == [False, True]  # the first one waits for the relay
