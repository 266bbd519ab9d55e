"""A write whose shard moves to another master while its transaction is open: the action
raises :class:`ShardUnavailable`, the API answers a 503 JSON error and the web a 503 page, and
no row of it (object, mapping, outbox event) is left on the old master or the new one.

Each test routes by a shard map of its own (``own_shard_map``) and promotes the pin's master
there while the transaction is open (after one of its statements ran on the master), as a
failover would while the request was blocked on the old master: right before the event is
recorded, or right after the pin's own ``INSERT``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from coordination.documents import WatchedDocument
from pins.actions import create_board, create_pin, create_pinner
from pins.domain import Board
from pins.types import PIN
from sharding import objects
from sharding.exceptions import ShardUnavailable
from sharding.hosts import after_commit, atomic, cursor, schema_name
from sharding.ids import decompose, shard_of
from sharding.outbox import TABLE as OUTBOX
from sharding.shardmap import ShardMap
from sharding.topology import current_map
from tests.api.helpers import error_of, new_caller, upload
from tests.pins.helpers import image_bytes, unique_username
from tests.sharding.helpers import own_shard_map

TITLE = "Written while the shard moved"


@pytest.fixture
def own_map(tmp_path: Path) -> Iterator[WatchedDocument[ShardMap]]:
    with own_shard_map(tmp_path) as document:
        yield document


AFTER_THE_PIN = "pins"
THE_EVENT = OUTBOX  # the last statement before the commit (the mappings are sent unanswered)


@contextmanager
def promoted_after(document: WatchedDocument[ShardMap], board: Board,
                   table: str) -> Iterator[tuple[str, str]]:
    """Promote the replica of ``board``'s master in ``document`` right after the insert into
    ``table`` on ``board``'s shard (or into the outbox, ``OUTBOX``) ran on that master; yields
    ``(master, replica)``."""
    shard = shard_of(board.id)
    found = current_map().range_for(shard)
    assert found.replica is not None
    master, replica = found.master, found.replica
    name = table if table == OUTBOX else f"{schema_name(shard)}.{table}"
    statement = re.compile(rf"INSERT (IGNORE )?INTO {re.escape(name)} ")
    moved: list[bool] = []

    def move_after_insert(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        result = execute(sql, *args)
        if statement.match(sql) and not moved:
            document.update(lambda m: m.promoted(master))
            moved.append(True)
        return result

    with connections[master].execute_wrapper(move_after_insert):
        yield master, replica
    assert moved, f"no insert into {table} ran on {master}"
    assert current_map().master_for(shard) == replica


def rows_left(board: Board, hosts: tuple[str, str]) -> dict[str, tuple[int, int, int]]:
    """Per host: pins of ``board``, its board-has-pins entries and its pin_created events."""
    schema = schema_name(shard_of(board.id))
    found = {}
    for alias in hosts:
        with cursor(alias) as c:
            c.execute(f"SELECT COUNT(*) FROM {schema}.pins "
                      "WHERE JSON_VALUE(data, '$.board_id') = %s", [str(board.id)])
            pins = int(c.fetchone()[0])
            c.execute(f"SELECT COUNT(*) FROM {schema}.board_has_pins WHERE from_id = %s",
                      [board.id])
            entries = int(c.fetchone()[0])
            c.execute(f"SELECT COUNT(*) FROM {OUTBOX} WHERE name = 'pin_created' "
                      "AND JSON_VALUE(payload, '$.board_id') = %s", [str(board.id)])
            events = int(c.fetchone()[0])
        found[alias] = (pins, entries, events)
    return found


NOTHING = (0, 0, 0)


def test_a_pin_whose_shard_moves_before_its_event_is_refused_and_leaves_nothing(
        own_map: WatchedDocument[ShardMap]) -> None:
    pinner = create_pinner(unique_username(), None)
    board = create_board(pinner.user_id, "Moving")
    with promoted_after(own_map, board, THE_EVENT) as hosts, \
            pytest.raises(ShardUnavailable, match="not acknowledged"):
        create_pin(pinner.user_id, board.id, TITLE, "", "", image_bytes())
    assert rows_left(board, hosts) == dict.fromkeys(hosts, NOTHING)


def test_no_statement_of_a_moved_transaction_reaches_the_new_master(
        own_map: WatchedDocument[ShardMap]) -> None:
    pinner = create_pinner(unique_username(), None)
    board = create_board(pinner.user_id, "Moving")
    with promoted_after(own_map, board, AFTER_THE_PIN) as hosts, \
            CaptureQueriesContext(connections[hosts[1]]) as new_master, \
            pytest.raises(ShardUnavailable, match="not acknowledged"):
        create_pin(pinner.user_id, board.id, TITLE, "", "", image_bytes())
    assert [query["sql"] for query in new_master.captured_queries] == []
    assert rows_left(board, hosts) == dict.fromkeys(hosts, NOTHING)


def test_the_api_answers_503_when_the_shard_moves_during_the_write(
        own_map: WatchedDocument[ShardMap]) -> None:
    caller = new_caller()
    board = create_board(caller.user_id, "Moving")
    with promoted_after(own_map, board, THE_EVENT) as hosts:
        response = caller.client.post("/api/v1/pins/", {
            "board_id": str(board.id), "title": TITLE, "image": upload()}, format="multipart")
    assert response.status_code == 503, response.content[:300]
    assert error_of(response)["code"] == "unavailable"
    assert rows_left(board, hosts) == dict.fromkeys(hosts, NOTHING)


def test_the_web_answers_the_503_page_when_the_shard_moves_during_the_write(
        own_map: WatchedDocument[ShardMap]) -> None:
    pinner = create_pinner(unique_username(), None)
    board = create_board(pinner.user_id, "Moving")
    client = Client()
    client.force_login(pinner.account)
    with promoted_after(own_map, board, THE_EVENT) as hosts:
        response = client.post("/pin/new/", {"board": str(board.id), "title": TITLE,
                                              "description": "", "link": "",
                                              "image": upload()})
    assert response.status_code == 503
    assert "Temporarily unavailable" in response.content.decode()
    assert rows_left(board, hosts) == dict.fromkeys(hosts, NOTHING)


def test_a_transaction_opened_by_a_commit_callback_is_checked_as_its_own(
        own_map: WatchedDocument[ShardMap]) -> None:
    master = current_map().masters()[0]
    first, second = current_map().shards_of(master)[:2]
    made: list[int] = []

    def write_while_the_second_shard_moves() -> None:
        with atomic(second):
            made.append(objects.create(PIN, second, {"title": TITLE}))
            own_map.update(lambda m: m.fenced_from(master, second))

    with pytest.raises(ShardUnavailable, match="not acknowledged"), atomic(first) as alias:
        after_commit(alias, write_while_the_second_shard_moves)
    assert made
    with cursor(master) as c:  # rolled back
        c.execute(f"SELECT COUNT(*) FROM {schema_name(second)}.pins WHERE local_id = %s",
                  [decompose(made[0]).local_id])
        assert c.fetchone()[0] == 0
