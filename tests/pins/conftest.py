"""Content-domain test set-up: fast password hashing and a private media folder per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_django import Settings


@pytest.fixture(autouse=True)
def _content_settings(settings: Settings, tmp_path: Path) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"
