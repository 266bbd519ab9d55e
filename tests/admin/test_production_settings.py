"""The production settings pass Django's deployment checks, and refuse to start without a
real secret key."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _check_deploy(**variables: str) -> subprocess.CompletedProcess[str]:
    environment = {name: value for name, value in os.environ.items()
                   if name != "PINSITE_SECRET_KEY"}
    environment |= {"DJANGO_SETTINGS_MODULE": "pinsite.production_settings", **variables}
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=REPO,
                          env=environment, capture_output=True, text=True, timeout=120)


def test_check_deploy_reports_no_issues() -> None:
    result = _check_deploy(PINSITE_SECRET_KEY=secrets.token_urlsafe(64))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
    assert "WARNINGS" not in result.stderr


def test_production_needs_a_secret_key() -> None:
    result = _check_deploy()
    assert result.returncode != 0
    assert "PINSITE_SECRET_KEY must be set" in result.stderr


def test_production_refuses_a_short_secret_key() -> None:
    result = _check_deploy(PINSITE_SECRET_KEY="too-short")
    assert result.returncode != 0
    assert "PINSITE_SECRET_KEY must be set" in result.stderr
