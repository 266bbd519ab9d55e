"""Helpers for stack-manager tests: a stack of a profile of its own."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from devstack.stack import Stack


@contextmanager
def own_stack(monkeypatch: pytest.MonkeyPatch, profile: str, port_base: int) -> Iterator[Stack]:
    """A stack of profile ``profile`` on ports ``port_base`` and up (below the ephemeral
    ports), from an empty folder; whatever a test starts in it is stopped and its folder
    removed afterwards."""
    monkeypatch.setenv("PINSITE_PORT_BASE", str(port_base))
    folder = Stack(profile).profile.var_dir
    shutil.rmtree(folder, ignore_errors=True)
    try:
        yield Stack(profile)
    finally:
        Stack(profile).down()
        shutil.rmtree(folder, ignore_errors=True)
