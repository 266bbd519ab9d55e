"""Cleaning of pinner input (pure functions)."""

from __future__ import annotations

import pytest

from pins.exceptions import InvalidContent
from pins.validation import clean_description, clean_link, clean_title, clean_username


def test_a_link_is_stripped_and_kept() -> None:
    assert clean_link("  https://example.com/quiche?x=1 ") == "https://example.com/quiche?x=1"


def test_an_empty_link_is_allowed() -> None:
    assert clean_link("") == ""


@pytest.mark.parametrize("link", ["javascript:alert(1)", "ftp://example.com/a", "example.com",
                                  "http://", "https://exa mple.com"])
def test_a_link_that_is_not_http_or_https_is_rejected(link: str) -> None:
    with pytest.raises(InvalidContent, match="not a valid http or https URL") as caught:
        clean_link(link)
    assert caught.value.field == "link"


def test_a_title_over_100_characters_is_rejected() -> None:
    with pytest.raises(InvalidContent, match="at most 100 characters"):
        clean_title("q" * 101)


def test_a_blank_title_is_rejected() -> None:
    with pytest.raises(InvalidContent, match="Title is required"):
        clean_title("   ")


def test_a_title_with_control_characters_is_rejected() -> None:
    with pytest.raises(InvalidContent, match="control characters"):
        clean_title("Leek\x00quiche")


def test_a_description_may_span_lines() -> None:
    assert clean_description("line one\nline two") == "line one\nline two"


def test_text_fields_must_be_strings() -> None:
    with pytest.raises(InvalidContent, match="Title must be text"):
        clean_title(42)


@pytest.mark.parametrize("username", ["ab", "x" * 31, "has space", "semi;colon", ""])
def test_bad_usernames_are_rejected(username: str) -> None:
    with pytest.raises(InvalidContent) as caught:
        clean_username(username)
    assert caught.value.field == "username"


def test_a_good_username_is_kept() -> None:
    assert clean_username("ada.lovelace_1") == "ada.lovelace_1"
