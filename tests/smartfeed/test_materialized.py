"""The materialized feed's writes on the real primary and standby clusters: a chunk is added,
older showings of its pins and whatever passes the cap go, in one call when the visit says
which (it read the row), in three when the write must read the row itself."""

from __future__ import annotations

import dramatiq
import pytest
from pytest_django import Settings

from feed.smart import materialized
from feed.smart.schema import Shown
from feed.smart.service import home_page
from tests.feed.helpers import new_user
from tests.polling import wait_until
from tests.smartfeed.test_flow import followed_pins
from tests.smartfeed.test_pools import _thrift_calls
from toolkit.clock import now_us

CAP = 3


@pytest.fixture
def small_cap(settings: Settings) -> None:
    settings.PINSITE_SMARTFEED = {**getattr(settings, "PINSITE_SMARTFEED", {}), "HOME_CAP": CAP}


def _chunk(shown_us: int, pins: list[int]) -> list[Shown]:
    return [Shown(shown_us, position, pin, "following", 0.5)
            for position, pin in enumerate(pins)]


def _pins(user: int) -> list[int]:
    return [entry.pin_id for entry in materialized.read_all("primary", user)]


@pytest.mark.usefixtures("small_cap")
def test_a_write_told_what_goes_puts_and_deletes_in_one_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    user, now = new_user("mat"), now_us()
    materialized.write("primary", user, _chunk(now - 2_000, [11, 12, 13]))
    assert _pins(user) == [11, 12, 13]
    chunk = _chunk(now, [21, 12])  # 12 shown again: its older showing goes
    gone = materialized.excess(chunk + materialized.read_all("primary", user))
    assert [(entry.pin_id, entry.shown_us) for entry in gone] == [(12, now - 2_000),
                                                                  (13, now - 2_000)]
    calls = _thrift_calls(monkeypatch)
    assert materialized.write("primary", user, chunk, gone) == 2
    assert calls == {"mutateRows": 1}
    assert _pins(user) == [21, 12, 11]


@pytest.mark.usefixtures("small_cap")
def test_a_write_not_told_reads_the_row_to_trim_it(monkeypatch: pytest.MonkeyPatch) -> None:
    user, now = new_user("mat"), now_us()
    materialized.write("primary", user, _chunk(now - 2_000, [11, 12, 13]))
    calls = _thrift_calls(monkeypatch)
    assert materialized.write("primary", user, _chunk(now, [21, 12])) == 2
    assert calls == {"mutateRows": 2, "getRowWithColumns": 1}
    assert _pins(user) == [21, 12, 11]


def test_a_chunk_past_the_cap_on_its_own_is_cut_to_it(settings: Settings) -> None:
    settings.PINSITE_SMARTFEED = {**getattr(settings, "PINSITE_SMARTFEED", {}), "HOME_CAP": 2}
    user, chunk = new_user("mat"), _chunk(now_us(), [31, 32, 33])
    gone = materialized.excess(chunk)
    assert materialized.write("primary", user, chunk, gone) == 1
    assert _pins(user) == [31, 32]


@pytest.mark.usefixtures("small_cap")
def test_visits_keep_the_row_at_the_cap_on_both_clusters(worker: dramatiq.Worker) -> None:
    reader, _pins_made = followed_pins(5)
    first = home_page(reader)
    assert len(first.items) == 5 and first.new == 5
    for cluster in ("primary", "standby"):
        assert wait_until(lambda: [entry.pin_id for entry in
                                   materialized.read_all(cluster, reader)]  # noqa: B023
                          == [pin.id for pin in first.items[:CAP]])


def test_two_showings_of_a_pin_read_as_the_last_until_a_trim_drops_the_first() -> None:
    user, now = new_user("mat"), now_us()
    first, second = _chunk(now - 2_000, [41, 42]), _chunk(now, [41, 42])
    materialized.write("primary", user, first, [])  # two visits that read an empty row
    materialized.write("primary", user, second, [])
    assert [entry.shown_us for entry in materialized.read("primary", user)] == [now, now]
    assert len(materialized.read_all("primary", user)) == 4
    third = _chunk(now + 2_000, [43])
    gone = materialized.excess(third + materialized.read_all("primary", user))
    assert {entry.shown_us for entry in gone} == {now - 2_000}
    materialized.write("primary", user, third, gone)
    assert _pins(user) == [43, 41, 42]
