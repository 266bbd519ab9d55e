"""``manage.py bench``: arguments are checked before anything is created, a store that does
not answer is a command error; the events bench."""

from __future__ import annotations

import inspect
import io
import json
import os
import re
import signal
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django import Settings

from benchmarks import events as events_bench
from benchmarks import feed_unfollow
from benchmarks.events import BENCH_EVENT
from benchmarks.site import mix_from_kinds
from feed.store import pools as connections
from sharding import outbox
from sharding.hosts import cursor
from sharding.topology import current_map
from tests.addresses import CLOSED
from tests.feed.helpers import flush_feed_queues, queued_messages


@pytest.fixture
def sigterm_restored() -> Iterator[None]:
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


@pytest.mark.usefixtures("sigterm_restored")
def test_sigterm_unwinds_a_bench_through_its_cleanup(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a bench started (servers, workers, writers) is stopped in its ``finally`` blocks;
    SIGTERM runs them, as Ctrl-C does, and ends the command with a one-line error."""
    cleaned: list[bool] = []

    def run(**_: Any) -> dict[str, Any]:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            raise AssertionError("SIGTERM did not interrupt the bench")
        finally:
            cleaned.append(True)

    monkeypatch.setattr(events_bench, "run", run)
    with pytest.raises(CommandError, match="interrupted"):
        call_command("bench", "events")
    assert cleaned == [True]


@pytest.mark.parametrize("option", ["--followers", "--samples", "--processes", "--threads",
                                    "--rounds"])
def test_feed_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "feed", option, "0")


@pytest.mark.parametrize("option", ["--samples", "--events"])
def test_events_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "events", option, "0")


@pytest.mark.parametrize("args, message", [
    (("--clients", "0"), "--clients must be at least 1"),
    (("--clients", "4", "65"), "--clients must be at most 64"),
    (("--processes", "0"), "--processes must be at least 1"),
    (("--per-client", "131"), "--per-client must be at most 130"),
    (("--edges", "0"), "--edges must be at least 1"),
])
def test_graph_bad_counts_are_a_command_error(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("bench", "graph", *args)


@pytest.mark.parametrize("option", ["--users", "--workers", "--processes", "--batch"])
def test_import_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "import", option, "0")


@pytest.mark.parametrize("option", ["--inserts", "--samples", "--reads"])
def test_smartfeed_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "smartfeed", option, "0")


@pytest.mark.parametrize(("runs", "message"), [("0", "--runs must be at least 1"),
                                               ("21", "--runs must be at most 20")])
def test_failover_runs_out_of_range_are_a_command_error(runs: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("bench", "failover", "--runs", runs)


def test_the_smartfeed_benchs_stand_ins_take_the_generators_arguments() -> None:
    from benchmarks import smartfeed as bench
    from feed.smart import generator

    wanted = list(inspect.signature(generator.generate).parameters)
    for stand_in in (bench._stalled, bench._failing):
        assert list(inspect.signature(stand_in).parameters) == wanted


@pytest.mark.alone
def test_the_events_bench_reports_both_modes_and_leaves_no_bench_rows() -> None:
    out = io.StringIO()
    call_command("bench", "events", "--json", "--samples", "10", "--events", "300", stdout=out)
    figures = json.loads(out.getvalue())
    for action in ("pin_create", "follow"):
        assert figures[action]["outbox"]["samples"] == figures[action]["no_outbox"]["samples"]
        assert figures[action]["throughput_ratio"] > 0
    assert figures["relay"]["events"] == 300 and figures["relay"]["raw_publish_per_s"] > 0
    for alias in current_map().masters():
        with cursor(alias) as c:
            c.execute(f"SELECT COUNT(*) FROM {outbox.TABLE} WHERE name = %s", [BENCH_EVENT])
            assert c.fetchone()[0] == 0


@pytest.mark.parametrize("option", ["--readers", "--owners", "--boards", "--pins", "--follows",
                                    "--samples"])
def test_audit_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "audit", option, "0")


def test_the_audit_bench_audits_clean_feeds_beside_the_raw_reads() -> None:
    out = io.StringIO()
    call_command("bench", "audit", "--json", "--readers", "3", "--owners", "2", "--boards", "1",
                 "--pins", "4", "--follows", "2", "--samples", "6", stdout=out)
    figures = json.loads(out.getvalue())
    assert figures["set_up_audit"] == {"recall": 1.0, "precision": 1.0, "findings": 0}
    assert figures["expected_entries"] == 8
    assert figures["audit_one"]["samples"] == figures["raw_one"]["samples"] == 6
    assert figures["audit_vs_raw_p50_ratio"] > 0 and figures["round"]["pinners"] == 5


def test_the_unfollow_bench_unfollows_from_a_full_row_beside_the_raw_work(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feed_unfollow, "FOLLOWEES", 3)
    monkeypatch.setattr(feed_unfollow, "PINS_PER_BOARD", 4)
    flush_feed_queues()  # what other tests queued is not this bench's to work off
    out = io.StringIO()
    call_command("bench", "feed", "--json", "--parts", "unfollow", "--samples", "4", stdout=out)
    figures = json.loads(out.getvalue())["unfollow"]
    assert figures["row_entries"] == 12 and figures["followees"] == 3
    assert figures["unfollow"]["samples"] == figures["raw_row_plus_delete"]["samples"] == 4
    assert figures["p50_ratio_vs_raw"] > 0 and figures["cpu_ratio_vs_raw"] > 0
    assert queued_messages() == 0


def test_a_store_that_does_not_answer_is_a_command_error(settings: Settings) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "POOLS": CLOSED}  # a closed port
    connections.reset()
    try:
        host, port = CLOSED
        with pytest.raises(CommandError, match=re.escape(f"HBase pools ({host}:{port}) failed")):
            call_command("bench", "smartfeed", "--json", "--inserts", "10", "--samples", "5",
                         "--reads", "5", stdout=io.StringIO())
    finally:
        connections.reset()


@pytest.mark.parametrize("option", ["--rounds", "--seconds", "--clients", "--samples"])
def test_web_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "web", option, "0")


@pytest.mark.beside
def test_the_web_bench_measures_both_workers_on_both_targets() -> None:
    out = io.StringIO()
    call_command("bench", "web", "--json", "--rounds", "1", "--seconds", "1", "--samples", "5",
                 "--clients", "4", stdout=out)
    figures = json.loads(out.getvalue())
    assert figures["profile_view_in_process_cpu_ms"] > 0
    for target in ("bare", "profile"):
        for worker in ("ThreadedWorker", "gthread"):
            shown = figures[target][worker]
            assert shown["requests_per_second"] > 0 and shown["web_cpu_ms_per_request"] > 0
            assert len(shown["runs_cpu_ms"]) == 1
        assert figures[target]["cpu_ratio_site_worker_to_gthread"] > 0
    assert figures["profile"]["ThreadedWorker"]["web_to_view"] > 0


def test_site_kind_seconds_below_one_are_a_command_error() -> None:
    with pytest.raises(CommandError, match="--kind-seconds must be at least 1"):
        call_command("bench", "site", "--by-kind", "--kind-seconds", "0")


def test_the_site_benchs_mix_from_kinds_weights_each_kind_as_the_mix_made_it() -> None:
    """Three feed pages and one follow: the follow's 20 ms and the pages' 2 ms make a
    predicted 6.5 ms a request, of which the follow is 0.77; a mix measured at 13 ms is
    twice that."""
    alone = {"feed": {"machine": 2.0, "web": 1.0, "view_in_process": 1.0},
             "follow": {"machine": 20.0, "web": 4.0, "view_in_process": 2.0}}
    figures = mix_from_kinds(alone, {"feed": 3, "follow": 1}, {"machine": 13.0, "web": 3.5})
    assert figures["mix_from_kinds"] == {"machine": 6.5, "web": 1.75, "view_in_process": 1.25,
                                         "web_to_view": 1.4}
    assert figures["machine_share_by_kind"] == {"feed": 0.23, "follow": 0.77}
    assert figures["mix_measured_to_from_kinds"] == {"machine": 2.0, "web": 2.0}
