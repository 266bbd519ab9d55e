"""``manage.py smartfeed``: init, show, rebuild, health, with clear errors on bad input."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from feed.smart import health, pools
from feed.smart.pools import Insert
from graph.actions import follow_board
from pins.selectors import get_user
from pins.types import USER
from sharding.ids import compose
from tests.feed.helpers import new_board, new_pin, new_user
from toolkit.clock import now_us


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("smartfeed", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_init_is_idempotent() -> None:
    assert run("init").splitlines() == ["pools: exists", "primary: exists", "standby: exists"]


def test_show_by_username_and_id_as_text_and_json() -> None:
    reader, owner = new_user("sfc"), new_user("sfc")
    pin = new_pin(owner, new_board(owner), "Shown in show")
    pools.insert([Insert(reader, "interests", pin, 1.5, now_us())])
    name = get_user(reader).username
    text = run("show", name)
    assert "pools following 0, repins 0, interests 1, related 0" in text
    assert "Shown in show" in text and "materialized feed: 0 entries" in text
    state = json.loads(run("show", str(reader), "--json", "--top", "1"))
    assert state["pools"]["sizes"]["interests"] == 1
    assert state["pools"]["top"]["interests"][0]["pin_id"] == str(pin)


def test_rebuild_one_pinner_and_only_empty_ones() -> None:
    owner, reader = new_user("sfc"), new_user("sfc")
    board = new_board(owner)
    follow_board(reader, board)
    pins = [new_pin(owner, board, f"pin {n}") for n in range(2)]
    outcome = json.loads(run("rebuild", str(reader), "--json"))
    assert outcome[str(reader)]["following"] == 2
    assert {c.pin_id for c in pools.best(reader, "following", 10)} == set(pins)
    assert run("rebuild", str(reader), "--empty-only").splitlines() == [
        "0 of 1 pinners rebuilt"]


def test_a_pinner_with_nothing_to_pool_is_rebuilt_by_empty_only_once() -> None:
    loner = new_user("sfc")
    assert run("rebuild", str(loner), "--empty-only").splitlines() == [
        f"{loner}: following 0, repins 0, interests 0, related 0", "1 of 1 pinners rebuilt"]
    assert run("rebuild", str(loner), "--empty-only").splitlines() == [
        "0 of 1 pinners rebuilt"]
    assert json.loads(run("rebuild", str(loner), "--json")) == {
        str(loner): {"following": 0, "repins": 0, "interests": 0, "related": 0}}


def test_health_reports_the_last_hour() -> None:
    health.record("timeout", None)
    summary = json.loads(run("health", "--json"))
    assert summary["outcomes"]["timeout"] >= 1 and summary["fallbacks"] >= 1
    assert "generator ms" in run("health")


@pytest.mark.parametrize("args, message", [
    (("show", "nobody-by-this-name"), "No pinner is called"),
    (("show", "12"), "not a user ID"),
    (("show", str(compose(1, USER.type_id, 987654321))), "No user"),
    (("rebuild", str(compose(1, USER.type_id, 987654321))), "No user"),
    (("show", "demo-x", "--top", "0"), "--top must be at least 1"),
    (("rebuild",), "name one USER or give --all"),
    (("rebuild", "someone", "--all"), "name one USER or give --all"),
])
def test_bad_input_is_a_command_error(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(*args)


@pytest.mark.usefixtures("observations_down")
def test_health_with_the_cache_down_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="cannot be read from the cache"):
        run("health")
