"""Settings from the environment: subsystem tuning variables override only when set."""

from __future__ import annotations

import pytest

from pinsite import env


def test_only_the_variables_that_are_set_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINSITE_FEED_CAP", "500")
    monkeypatch.setenv("PINSITE_FEED_SLACK", "")
    monkeypatch.delenv("PINSITE_FEED_FANOUT_CHUNK", raising=False)
    assert env.numbers("PINSITE_FEED_", ["CAP", "SLACK", "FANOUT_CHUNK"]) == {"CAP": 500}


def test_a_value_that_is_not_an_integer_names_its_variable(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINSITE_FEED_CAP", "lots")
    with pytest.raises(ValueError, match="PINSITE_FEED_CAP must be an integer, got 'lots'"):
        env.numbers("PINSITE_FEED_", ["CAP"])
