"""The MySQL backend (``sharding.mysql``): transactions open with ``BEGIN`` and leave the
session in autocommit; rollbacks still undo; health checks ping at most once a second."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import cast

import pytest
from django.db import connections, transaction

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
