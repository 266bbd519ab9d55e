"""The feed auditor on the real stack: clean feeds (pushed, trimmed, followed through a user)
are reported clean, and each kind of wrong feed made on purpose is found on the cluster that
holds it, with the reason the records give."""

from __future__ import annotations

import json
import random
import time
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from prometheus_client import REGISTRY

from feed import audit, audit_rounds, storage
from feed.audit import Report
from feed.schema import Entry
from feed.store.pools import CLUSTERS
from graph.actions import follow_user, unfollow_board
from pins.actions import delete_pin
from pins.selectors import get_pin, get_user
from tests.addresses import CLOSED
from tests.feed.helpers import feed_ids, followed_pins, new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.clock import now_us
from toolkit.waiting import until

HOUR_US = 3600 * 1_000_000


def _audit(*users: int, window: int = 0) -> Report:
    return audit.audit_users(users, window=window)


def _entry(pin_id: int) -> Entry:
    return Entry(created_us=get_pin(pin_id).created_us, pin_id=pin_id)


def _kinds(report: Report) -> list[tuple[str, str, int]]:
    return sorted((f.cluster, f.kind, f.pin_id) for f in report.findings)


def test_a_clean_feed_is_reported_clean(running: RunningQueue) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    other = new_user()
    follow_user(follower, other)
    pins.append(new_pin(other, new_board(other, "Tarts")))
    running.settle()
    report = _audit(follower)
    assert report.findings == []
    assert (report.recall(), report.precision()) == (1.0, 1.0)
    for cluster in CLUSTERS:
        tally = report.clusters[cluster]
        assert (tally.required, tally.present, tally.served) == (4, 4, 4)
    assert report.as_json()["clusters"]["primary"]["order_violations"] == 0


def test_a_trimmed_feed_is_clean_down_to_its_horizon(running: RunningQueue,
                                                    small_feed: dict[str, Any]) -> None:
    _owner, follower, _board, _pins = followed_pins(running, count=11)
    assert storage.read_feed("primary", follower).horizon is not None
    report = _audit(follower)
    assert report.findings == []
    assert report.clusters["primary"].required == 6  # the cap


def test_a_dropped_delivery_is_missing_on_its_cluster_only(running: RunningQueue) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    storage.change_feed("standby", follower, now_us(), remove=[_entry(pins[1])])
    report = _audit(follower)
    assert _kinds(report) == [("standby", "missing", pins[1])]
    assert report.clusters["primary"].recall() == 1.0
    assert report.clusters["standby"].recall() == 2 / 3
    [finding] = report.findings
    assert finding.since_us == get_pin(pins[1]).created_us
    assert report.clusters["standby"].as_json()["staleness_seconds"]["max"] > 0


def test_a_missing_entry_inside_the_window_is_pending(running: RunningQueue) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    storage.change_feed("primary", follower, now_us(), remove=[_entry(pins[2])])
    report = _audit(follower, window=HOUR_US)
    assert report.findings == []
    assert report.clusters["primary"].pending == 1
    assert report.recall() == 1.0


def test_an_unfollow_whose_removal_was_lost_is_unexpected(running: RunningQueue) -> None:
    owner, follower = new_user(), new_user()
    kept, dropped = new_board(owner, "Kept"), new_board(owner, "Dropped")
    follow_user(follower, owner)
    stays, goes = new_pin(owner, kept), new_pin(owner, dropped)
    running.settle()
    unfollow_board(follower, dropped)
    running.settle()
    assert feed_ids(follower) == [stays]
    storage.add_entries("primary", {follower: [_entry(goes)]}, now_us())
    report = _audit(follower)
    assert _kinds(report) == [("primary", "unexpected", goes)]
    assert report.findings[0].reason.startswith(f"board {dropped} unfollowed at ")
    assert report.clusters["primary"].precision() == 1 / 2
    assert report.clusters["standby"].precision() == 1.0


def test_an_entry_with_a_wrong_time_is_an_order_violation(running: RunningQueue) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    right = _entry(pins[0])
    wrong = Entry(created_us=right.created_us + HOUR_US, pin_id=pins[0])
    storage.change_feed("primary", follower, now_us(), add=[wrong], remove=[right])
    assert feed_ids(follower)[0] == pins[0]
    report = _audit(follower)
    assert _kinds(report) == [("primary", "misordered", pins[0])]
    [finding] = report.findings
    assert (finding.created_us, finding.true_us) == (wrong.created_us, right.created_us)
    assert report.as_json()["order_violations"] == 1
    assert report.clusters["primary"].recall() == 1.0  # the pin is there, out of place


def test_a_deleted_pin_left_in_a_feed_is_unexpected(running: RunningQueue) -> None:
    owner, follower, _board, pins = followed_pins(running)
    gone = _entry(pins[1])
    delete_pin(owner, pins[1])
    running.settle()
    assert pins[1] not in feed_ids(follower)
    storage.add_entries("standby", {follower: [gone]}, now_us())
    report = _audit(follower)
    assert _kinds(report) == [("standby", "unexpected", pins[1])]
    assert report.findings[0].reason == "pin deleted"


def test_changes_inside_the_window_are_not_counted_as_wrong(running: RunningQueue) -> None:
    owner, follower, _board, pins = followed_pins(running)
    gone = _entry(pins[1])
    delete_pin(owner, pins[1])
    running.settle()
    storage.add_entries("standby", {follower: [gone]}, now_us())
    report = _audit(follower, window=HOUR_US)
    assert report.findings == []
    assert report.clusters["standby"].pending == 1


def _command(*args: str) -> str:
    out = StringIO()
    call_command("feed", "audit", *args, stdout=out)
    return out.getvalue()


def test_the_command_audits_one_pinner_as_json(running: RunningQueue) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    storage.change_feed("primary", follower, now_us(), remove=[_entry(pins[0])])
    found = json.loads(_command("--user", get_user(follower).username, "--window", "0",
                                "--json"))
    assert (found["users"], found["warning"]) == (1, True)
    assert found["clusters"]["primary"]["recall"] == 2 / 3
    assert found["clusters"]["standby"]["recall"] == 1.0
    assert found["recall"] == 5 / 6 and found["precision"] == 1.0
    assert [(f["kind"], f["pin_id"]) for f in found["findings"]] == [("missing", pins[0])]
    newest = audit_rounds.latest()
    assert newest is not None and newest["source"] == "command"


def test_the_command_prints_figures_and_warns_below_the_mark(running: RunningQueue) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    storage.change_feed("standby", follower, now_us(), remove=[_entry(pins[2])])
    text = _command("--user", str(follower), "--window", "0")
    assert "primary: recall 100.0000% (3 of 3)" in text
    assert "standby: recall 66.6667% (2 of 3)" in text
    assert "warning: recall 83.3333% is below 99.99%" in text
    assert f"user {follower}  missing     pin {pins[2]}" in text


def test_the_command_audits_a_random_sample() -> None:
    found = json.loads(_command("--users", "3", "--json"))
    assert found["users"] == 3
    assert set(found["clusters"]) == set(CLUSTERS)


@pytest.mark.parametrize("args", [("--users", "0"), ("--user", "nobody-at-all"),
                                  ("--users", "2", "--user", "x"), ("--window", "-1")])
def test_bad_audit_input_is_a_command_error(args: tuple[str, ...]) -> None:
    with pytest.raises(CommandError):
        _command(*args)


def test_the_workers_audit_a_sample_on_schedule(running: RunningQueue, settings: Any) -> None:
    _owner, _follower, _board, _pins = followed_pins(running)
    since = time.time()
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "AUDIT_EVERY_SECONDS": 1,
                             "AUDIT_SAMPLE": 2}

    def scheduled() -> list[dict[str, Any]]:
        return [point for point in audit_rounds.history(hours=1)
                if point["source"] == "schedule" and point["at_us"] >= since * 1e6]

    assert until(scheduled, seconds=30), "no scheduled audit round"
    rounds = scheduled()
    assert rounds[0]["users"] == 2 and set(rounds[0]["clusters"]) == set(CLUSTERS)


def test_one_process_runs_each_round(settings: Any) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "AUDIT_EVERY_SECONDS": 3600,
                             "AUDIT_SAMPLE": 1}
    at = (time.time() // 3600 + 100 + random.randrange(10**9)) * 3600  # a round unclaimed
    assert audit_rounds.run_round(now=at) is True
    assert audit_rounds.run_round(now=at + 1) is False


def test_metrics_show_the_newest_round(running: RunningQueue, client: Client) -> None:
    _owner, follower, _board, pins = followed_pins(running)
    storage.change_feed("standby", follower, now_us(), remove=[_entry(pins[1])])
    audit_rounds.record(_audit(follower), "command")
    text = client.get("/metrics").content.decode()
    assert 'pinsite_feed_audit_recall{cluster="standby"} 0.6666' in text
    assert 'pinsite_feed_audit_recall{cluster="primary"} 1.0' in text
    assert 'pinsite_feed_audit_missing{cluster="standby"} 1.0' in text
    assert 'pinsite_feed_audit_users 1.0' in text


def test_a_cluster_that_cannot_be_read_is_unreadable_not_wrong(
        running: RunningQueue, settings: Any, fresh_pools: None) -> None:
    followers = [followed_pins(running)[1] for _ in range(2)]
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "PRIMARY": CLOSED}
    report = audit.audit_users(followers, window=0)
    primary, standby = report.clusters["primary"], report.clusters["standby"]
    assert (primary.unreadable, primary.feeds, primary.required) == (2, 0, 0)
    assert (standby.unreadable, standby.feeds, standby.recall()) == (0, 2, 1.0)
    assert report.findings == [] and report.recall() == 1.0


def _hbase_calls(cluster: str) -> int:
    """Calls this process made to ``cluster`` (``toolkit.metrics``' store-call timer)."""
    return int(REGISTRY.get_sample_value(
        "pinsite_store_call_seconds_count", {"backend": "hbase", "instance": cluster}) or 0)


def test_a_cluster_down_is_asked_once_a_run(running: RunningQueue, settings: Any,
                                            fresh_pools: None, monkeypatch: Any) -> None:
    followers = [followed_pins(running)[1] for _ in range(3)]
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "PRIMARY": CLOSED}
    monkeypatch.setattr(audit, "BATCH", 1)
    before = {cluster: _hbase_calls(cluster) for cluster in CLUSTERS}
    report = audit.audit_users(followers, window=0)
    asked = [cluster for cluster in CLUSTERS
             for _ in range(_hbase_calls(cluster) - before[cluster])]
    assert asked.count("primary") == 1 and asked.count("standby") == 3
    assert report.clusters["primary"].unreadable == 3
