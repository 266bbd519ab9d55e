"""A command whose store fails ends with one line, not a traceback: the site's own database
(Django's ``default``: the accounts and the pinner index) pointed at a closed port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from tests.addresses import database_at_closed_port


@pytest.fixture
def site_database_down() -> Iterator[None]:
    with database_at_closed_port("default"):
        yield


@pytest.mark.usefixtures("site_database_down")
@pytest.mark.parametrize("command", [("feed", "show", "demo"), ("smartfeed", "show", "demo"),
                                     ("smartfeed", "rebuild", "--all", "--quiet"),
                                     ("seed_demo", "--users", "1", "--quiet")])
def test_a_site_database_that_does_not_answer_is_a_one_line_error(
        command: tuple[str, ...]) -> None:
    with pytest.raises(CommandError, match=r"^the site's database failed: \(2002"):
        call_command(*command)
