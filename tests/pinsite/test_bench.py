"""``manage.py bench``: arguments are checked before anything is created; shared tools."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from pinsite.bench import wait_until_quiet


@pytest.mark.parametrize("option", ["--followers", "--samples", "--processes", "--threads",
                                    "--rounds"])
def test_feed_counts_below_one_are_a_command_error(option: str) -> None:
    with pytest.raises(CommandError, match=f"{option} must be at least 1"):
        call_command("bench", "feed", option, "0")


def test_waiting_for_a_quiet_machine_stops_once_it_is_idle_enough() -> None:
    assert 0.1 <= wait_until_quiet(idle=0.0, window=0.1, longest=5) < 5


def test_waiting_for_a_quiet_machine_gives_up_after_the_longest_wait() -> None:
    assert 0.3 <= wait_until_quiet(idle=1.01, window=0.1, longest=0.3) < 2
