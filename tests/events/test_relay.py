"""The relay: in row order, one relay per host, old sent rows purged; ``events show``."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connections
from dramatiq import Message
from pytest_django import Settings

from events.registry import subscribe, unsubscribe
from events.relay import Relay
from pins.events import PIN_CREATED
from sharding import outbox
from sharding.hosts import cursor
from sharding.topology import current_map
from tests.addresses import database_at_closed_port
from tests.broker import rabbitmq_stopped
from tests.events.helpers import recorded, stale_row
from tests.feed.helpers import new_board, new_pin, new_user
from toolkit.clock import now_us

NOW_AND_LATER = 2**62


@pytest.fixture
def backlog(caplog: pytest.LogCaptureFixture) -> Iterator[list[int]]:
    """Five pins whose events the fast path failed to publish: RabbitMQ's broker application
    is stopped (:func:`~tests.broker.rabbitmq_stopped`) while they are made, and the publish
    fails as a broker error."""
    owner = new_user()
    board = new_board(owner)
    with rabbitmq_stopped(), caplog.at_level(logging.WARNING, logger="pinsite.events"):
        pins = [new_pin(owner, board, f"Backlog {n}") for n in range(5)]
    failures = [r for r in caplog.records if r.name == "pinsite.events"]
    assert len(failures) == 5 and all(r.levelno == logging.WARNING for r in failures)
    assert all("the relay will send them" in r.getMessage() for r in failures)
    yield pins


def _relay_everything() -> int:
    relay, sent = Relay(), 0
    for alias in current_map().masters():
        while moved := relay.relay_host(alias, created_before_us=NOW_AND_LATER):
            sent += moved
    return sent


@pytest.mark.alone
def test_the_relay_publishes_a_hosts_rows_in_the_order_they_were_written(
        backlog: list[int]) -> None:
    with recorded(PIN_CREATED) as published:
        assert _relay_everything() >= len(backlog)
    assert [p["pin_id"] for p in published if p["pin_id"] in backlog] == backlog


@pytest.mark.alone
def test_a_relayed_row_is_not_published_again(backlog: list[int]) -> None:
    _relay_everything()
    with recorded(PIN_CREATED) as published:
        _relay_everything()
    assert not {p["pin_id"] for p in published} & set(backlog)


@pytest.mark.alone
def test_rows_younger_than_the_grace_period_are_left_to_the_fast_path(
        backlog: list[int], settings: Settings) -> None:
    settings.PINSITE_EVENTS = {**settings.PINSITE_EVENTS, "RELAY_GRACE_MS": 3_600_000}
    with recorded(PIN_CREATED) as published:
        for alias in current_map().masters():
            Relay().relay_host(alias)
    assert not {p["pin_id"] for p in published} & set(backlog)


@pytest.mark.alone
def test_only_the_relay_holding_a_hosts_lease_works_on_it(backlog: list[int],
                                                          settings: Settings) -> None:
    settings.PINSITE_EVENTS = {**settings.PINSITE_EVENTS, "RELAY_GRACE_MS": 0}
    masters = current_map().masters()
    assert all(outbox.take_lease(alias) for alias in masters)  # this thread's connections
    try:
        with recorded(PIN_CREATED) as published:
            _in_thread(lambda: Relay().run_once())
        assert not {p["pin_id"] for p in published} & set(backlog)
    finally:
        for alias in masters:
            outbox.release_lease(alias)
    with recorded(PIN_CREATED) as published:
        _in_thread(lambda: Relay().run_once())
    assert set(backlog) <= {p["pin_id"] for p in published}


def _in_thread(work: object) -> None:
    def run() -> None:
        try:
            work()  # type: ignore[operator]
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)


def test_sent_rows_are_purged_after_the_retention_period_and_unsent_ones_never() -> None:
    with stale_row(48 * 3600) as (alias, unsent_id), stale_row(48 * 3600) as (_, sent_id):
        outbox.mark_sent(alias, [sent_id], now_us() - 25 * 3600 * 10**6)
        Relay()._purge(alias)
        with cursor(alias) as c:
            c.execute(f"SELECT id FROM {outbox.TABLE} WHERE id IN (%s, %s)",
                      [unsent_id, sent_id])
            assert [row[0] for row in c.fetchall()] == [unsent_id]


def _show(*options: str) -> str:
    out = io.StringIO()
    call_command("events", "show", *options, stdout=out)
    return out.getvalue()


def test_events_show_counts_the_backlog_per_host_and_warns_about_old_rows() -> None:
    with stale_row(120) as (alias, _):
        hosts = {h["alias"]: h for h in json.loads(_show("--json"))["hosts"]}
        assert set(hosts) == set(current_map().masters())
        assert hosts[alias]["unsent"] >= 1 and hosts[alias]["warning"] is True
        assert hosts[alias]["oldest_unsent_seconds"] >= 120
        line = next(line for line in _show().splitlines() if line.startswith(alias))
        assert "WARNING" in line


@pytest.mark.alone
def test_a_fresh_backlog_is_no_warning() -> None:
    _relay_everything()
    with stale_row(1) as (alias, _):
        hosts = {h["alias"]: h for h in json.loads(_show("--json"))["hosts"]}
    assert hosts[alias]["warning"] is False


def _poisoned(payload: dict[str, Any]) -> list[Message[Any]]:
    raise ValueError("a subscriber fails on this row")


@pytest.mark.alone
def test_a_batch_of_rows_no_subscriber_can_handle_does_not_stop_the_rows_after_it(
        settings: Settings) -> None:
    settings.PINSITE_EVENTS = {**settings.PINSITE_EVENTS, "RELAY_BATCH": 3}
    alias = current_map().masters()[0]
    _relay_everything()
    with ExitStack() as rows:
        poison = [rows.enter_context(stale_row(10, "tests_poison"))[1] for _ in range(3)]
        _, fine = rows.enter_context(stale_row(5, "tests_fine"))
        subscribe("tests_poison", _poisoned, uid="tests.poison")
        try:
            assert Relay().relay_host(alias, created_before_us=NOW_AND_LATER) == 1
        finally:
            unsubscribe("tests_poison", "tests.poison")
        unsent = {row.id for row in outbox.unsent(alias, 100, NOW_AND_LATER)}
        assert set(poison) <= unsent and fine not in unsent


@pytest.mark.alone
def test_relay_once_ends_with_an_error_naming_a_host_it_could_not_reach() -> None:
    """``events relay --once`` relays every host it can, then fails naming the one whose
    master did not answer (pointed at a closed port on the connection of the thread it runs
    in, whose end frees the leases it took)."""
    down = current_map().masters()[0]
    out, refused = io.StringIO(), []

    def relay_once() -> None:
        with database_at_closed_port(down):
            try:
                call_command("events", "relay", "--once", stdout=out)
            except CommandError as exc:
                refused.append(str(exc))

    _in_thread(relay_once)
    assert len(refused) == 1
    assert refused[0].startswith(f"some shard hosts were not relayed: {down}: ")
    assert re.fullmatch(r"sent \d+ event\(s\)\n", out.getvalue())
