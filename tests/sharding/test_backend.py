"""The MySQL backend (``sharding.mysql``): transactions open with ``BEGIN`` and leave the
session in autocommit; rollbacks still undo; health checks ping at most once a second;
statements sent unanswered take effect at once and report their errors at the next use."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import cast

import pytest
from django.db import connections, transaction

from sharding import hosts
from sharding.exceptions import ShardUnavailable
from sharding.mysql import pipeline
from sharding.mysql.base import DatabaseWrapper

ALIAS = "mysql001a"
TABLE = "pinsite_events.test_backend_rows"


@pytest.fixture
def table() -> Iterator[str]:
    with connections[ALIAS].cursor() as c:
        c.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INT PRIMARY KEY) ENGINE=InnoDB")
        c.execute(f"DELETE FROM {TABLE}")
    yield TABLE
    with connections[ALIAS].cursor() as c:
        c.execute(f"DROP TABLE IF EXISTS {TABLE}")


def session(name: str) -> int:
    with connections[ALIAS].cursor() as c:
        c.execute("SHOW SESSION STATUS LIKE %s", [name])
        return int(c.fetchone()[1])


def rows() -> list[int]:
    with connections[ALIAS].cursor() as c:
        c.execute(f"SELECT id FROM {TABLE} ORDER BY id")
        return [row[0] for row in c.fetchall()]


def test_a_transaction_costs_no_autocommit_switches(table: str) -> None:
    before = session("Com_set_option"), session("Com_begin")
    with transaction.atomic(using=ALIAS), connections[ALIAS].cursor() as c:
        c.execute(f"INSERT INTO {table} VALUES (1)")
    assert (session("Com_set_option"), session("Com_begin")) == (before[0], before[1] + 1)
    with connections[ALIAS].cursor() as c:
        c.execute("SELECT @@autocommit")
        assert c.fetchone()[0] == 1
    assert rows() == [1]


def test_a_failed_transaction_still_rolls_back(table: str) -> None:
    with pytest.raises(RuntimeError), transaction.atomic(using=ALIAS):
        with connections[ALIAS].cursor() as c:
            c.execute(f"INSERT INTO {table} VALUES (2)")
        raise RuntimeError("undo")
    with transaction.atomic(using=ALIAS):
        with connections[ALIAS].cursor() as c:
            c.execute(f"INSERT INTO {table} VALUES (3)")
        with pytest.raises(RuntimeError), transaction.atomic(using=ALIAS):  # a savepoint
            with connections[ALIAS].cursor() as c:
                c.execute(f"INSERT INTO {table} VALUES (4)")
            raise RuntimeError("undo the inner block")
    assert rows() == [3]


def test_a_connection_checked_within_a_second_is_not_pinged_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    connection = cast(DatabaseWrapper, connections[ALIAS])
    connection.ensure_connection()
    pings: list[bool] = []
    real = connection.is_usable

    def counted() -> bool:
        pings.append(real())
        return pings[-1]

    monkeypatch.setattr(connection, "health_check_enabled", True)
    monkeypatch.setattr(connection, "is_usable", counted)
    connection.health_check_done = False
    connection._checked_at = time.monotonic()
    connection.close_if_health_check_failed()
    assert pings == [] and connection.health_check_done
    connection.health_check_done = False
    connection._checked_at = time.monotonic() - 2
    connection.close_if_health_check_failed()
    assert pings == [True] and connection.connection is not None


def other_session_value(sql: str) -> object:
    """``sql``'s value read on a connection of its own (not this thread's)."""
    from benchmarks.shards import raw_connection

    connection = raw_connection(ALIAS)
    try:
        with connection.cursor() as c:
            c.execute(sql)
            return c.fetchone()[0]
    finally:
        connection.close()


def test_an_unanswered_statement_takes_effect_before_its_answer_is_read() -> None:
    connection = cast(DatabaseWrapper, connections[ALIAS])
    with connections[ALIAS].cursor() as c:
        c.execute("SELECT GET_LOCK('pinsite.test.unanswered', 5)")
        assert c.fetchone()[0] == 1
    assert other_session_value("SELECT IS_FREE_LOCK('pinsite.test.unanswered')") == 0
    hosts.send_unanswered(ALIAS, "DO RELEASE_LOCK('pinsite.test.unanswered')")
    assert len(pipeline.owed(connection.connection)) == 1
    deadline = time.monotonic() + 5  # the server releases it without our reading the answer
    while other_session_value("SELECT IS_FREE_LOCK('pinsite.test.unanswered')") != 1:
        assert time.monotonic() < deadline, "the lock was not released"
        time.sleep(0.01)
    with connections[ALIAS].cursor() as c:  # the next statement reads the answer first
        c.execute("SELECT 7")
        assert c.fetchone()[0] == 7
    assert pipeline.owed(connection.connection) == []


def test_an_unanswered_statement_reports_its_error_at_the_next_use(table: str) -> None:
    hosts.send_unanswered(ALIAS, f"DO (SELECT id FROM {table}_missing LIMIT 1)")
    with pytest.raises(ShardUnavailable, match="doesn't exist"), hosts.cursor(ALIAS) as c:
        c.execute("SELECT 1")
    with hosts.cursor(ALIAS) as c:  # and the connection serves again afterwards
        c.execute("SELECT 2")
        assert c.fetchone()[0] == 2


def test_a_transaction_begun_unanswered_commits_and_rolls_back(table: str) -> None:
    with transaction.atomic(using=ALIAS):
        assert len(pipeline.owed(connections[ALIAS].connection)) == 1  # the BEGIN
        with connections[ALIAS].cursor() as c:
            c.execute(f"INSERT INTO {table} VALUES (5)")
        assert other_session_value(f"SELECT COUNT(*) FROM {table}") == 0  # not committed
    with pytest.raises(RuntimeError), transaction.atomic(using=ALIAS):
        raise RuntimeError("nothing ran in it")
    assert rows() == [5]


def test_an_answer_sent_ahead_is_read_with_the_next_statement(table: str) -> None:
    with transaction.atomic(using=ALIAS):
        added = hosts.send_for_answer(ALIAS, f"INSERT IGNORE INTO {table} VALUES (%s)", [6])
        again = hosts.send_for_answer(ALIAS, f"INSERT IGNORE INTO {table} VALUES (%s)", [6])
        rows_of = hosts.send_for_answer(ALIAS, f"SELECT id, %s FROM {table}", ["it's"])
        with pytest.raises(RuntimeError, match="not been read"):
            added.changed  # noqa: B018
        with connections[ALIAS].cursor() as c:  # one wait for all three answers and its own
            c.execute("SELECT 8")
            assert c.fetchone()[0] == 8
        assert (added.changed, again.changed) == (1, 0)
        assert rows_of.rows == ((6, "it's"),)
    assert rows() == [6]


def test_a_statement_after_an_answer_must_follow_it_unread(table: str) -> None:
    with transaction.atomic(using=ALIAS):
        first = hosts.send_for_answer(ALIAS, f"INSERT INTO {table} VALUES (7)")
        hosts.send_unanswered(ALIAS, "DO 1")
        with pytest.raises(RuntimeError, match="must follow"):
            hosts.send_for_answer(ALIAS, "SELECT ROW_COUNT()", after=first)
        follows = hosts.send_for_answer(ALIAS, f"INSERT INTO {table} VALUES (8)")
        counted = hosts.send_for_answer(ALIAS, "SELECT ROW_COUNT()", after=follows)
        hosts.read_answers(ALIAS)
        assert counted.rows == ((1,),)
        with pytest.raises(RuntimeError, match="must follow"):  # read already
            hosts.send_for_answer(ALIAS, "SELECT ROW_COUNT()", after=counted)
    with pytest.raises(RuntimeError, match="needs a transaction"):
        hosts.send_for_answer(ALIAS, "SELECT 1")
    assert rows() == [7, 8]
