""""Why is this pin on my Home?" on the real stack: a pin a visit showed names its pool and
the score it was shown with, a pin waiting in a pool names its quality and score now, a pin
no source offered says so."""

from __future__ import annotations

import dramatiq

from feed.smart import materialized
from feed.smart.explain import explain_home
from feed.smart.service import home_page
from tests.feed.helpers import new_board, new_pin, new_user
from tests.polling import wait_until
from tests.smartfeed.test_flow import followed_pins, pooled


def test_a_shown_pin_names_its_pool_place_and_score(worker: dramatiq.Worker) -> None:
    reader, _ = followed_pins(3)
    shown = home_page(reader).items
    assert wait_until(lambda: len(materialized.read("primary", reader)) == 3)
    first = shown[0].id
    found = explain_home(reader, first)
    assert found.present is True
    [reason] = [r for r in found.reasons if r.code == "shown"]
    assert reason.detail["pool"] == "following" and reason.detail["position"] == 0
    assert reason.detail["score"] > 0
    assert reason.text.startswith("shown on Home at place 1 of that visit's pins, from the "
                                  "following pool (pins of the boards you follow), with a "
                                  "score of ")


def test_a_pin_waiting_in_a_pool_names_its_quality_and_score(worker: dramatiq.Worker) -> None:
    reader, pins = followed_pins(2)
    found = explain_home(reader, pins[0])
    assert found.present is False
    [reason] = [r for r in found.reasons if r.code == "pooled"]
    assert reason.source == "pools" and reason.detail["pool"] == "following"
    assert reason.detail["score"] <= reason.detail["quality"]


def test_a_pin_no_source_offered_says_so(worker: dramatiq.Worker) -> None:
    reader, stranger = new_user("sfr"), new_user("sfs")
    pin = new_pin(stranger, new_board(stranger))
    found = explain_home(reader, pin)
    assert found.present is False
    assert [r.code for r in found.reasons] == ["not_offered"]
    assert pin not in pooled(reader, "following")
