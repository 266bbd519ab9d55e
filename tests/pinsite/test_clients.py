"""The client address every throttle keys on: ``REMOTE_ADDR`` unless trusted proxies are set,
then the Nth address from the right of ``X-Forwarded-For``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest_django import Settings

from pinsite.serving.clients import client_address

PEER = "10.0.0.7"


def _meta(forwarded: str | None) -> dict[str, str]:
    meta = {"REMOTE_ADDR": PEER}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    return meta


@pytest.fixture
def proxies(settings: Settings) -> Callable[[int], None]:
    def trust(count: int) -> None:
        settings.PINSITE_SERVING = {**settings.PINSITE_SERVING, "TRUSTED_PROXIES": count}
    return trust


@pytest.mark.parametrize("forwarded", [None, "", "203.0.113.9", "6.6.6.6, 203.0.113.9"])
def test_without_trusted_proxies_the_header_is_ignored(forwarded: str | None) -> None:
    assert client_address(_meta(forwarded)) == PEER


@pytest.mark.parametrize(("count", "forwarded", "expected"), [
    (1, "203.0.113.9", "203.0.113.9"),
    (1, "6.6.6.6, 203.0.113.9", "203.0.113.9"),
    (1, "6.6.6.6,203.0.113.9 ", "203.0.113.9"),
    (2, "6.6.6.6, 203.0.113.9, 10.0.0.2", "203.0.113.9"),
    (1, "2001:DB8::1", "2001:db8::1"),
    (2, "203.0.113.9", PEER),          # fewer addresses than proxies: did not pass them all
    (1, "6.6.6.6, not-an-address", PEER),
    (1, "", PEER),
])
def test_behind_n_proxies_the_nth_address_from_the_right_is_the_client(
        proxies: Callable[[int], None], count: int, forwarded: str, expected: str) -> None:
    proxies(count)
    assert client_address(_meta(forwarded)) == expected
