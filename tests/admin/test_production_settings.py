"""The production settings pass Django's deployment checks, and refuse to start without a
real secret key or with any of the development stack's credentials."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from devstack import mysql_client, rabbitmq
from pinsite import settings as development_settings
from pinsite.credentials import CREDENTIALS, development_credentials

REPO = Path(__file__).resolve().parents[2]
CREDENTIAL_VARIABLES = [credential.variable for credential in CREDENTIALS]


def _real_credentials() -> dict[str, str]:
    """Accounts and secrets of a real deployment (none is the development stack's)."""
    return {
        "PINSITE_SECRET_KEY": secrets.token_urlsafe(64),
        "PINSITE_MYSQL_USER": "web", "PINSITE_MYSQL_PASSWORD": secrets.token_urlsafe(16),
        "PINSITE_MYSQL_ADMIN_USER": "ops",
        "PINSITE_MYSQL_ADMIN_PASSWORD": secrets.token_urlsafe(16),
        "PINSITE_MYSQL_REPL_USER": "copier",
        "PINSITE_MYSQL_REPL_PASSWORD": secrets.token_urlsafe(16),
        "PINSITE_AMQP_URL": f"amqp://web:{secrets.token_urlsafe(16)}@127.0.0.1:5672/%2F",
    }


def _check_deploy(settings_module: str = "pinsite.production_settings",
                  **variables: str) -> subprocess.CompletedProcess[str]:
    environment = {name: value for name, value in os.environ.items()
                   if name not in CREDENTIAL_VARIABLES}
    environment |= {"DJANGO_SETTINGS_MODULE": settings_module, **variables}
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=REPO,
                          env=environment, capture_output=True, text=True, timeout=120)


def test_check_deploy_reports_no_issues() -> None:
    result = _check_deploy(**_real_credentials())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
    assert "WARNINGS" not in result.stderr


def test_production_needs_a_secret_key() -> None:
    result = _check_deploy(**{**_real_credentials(), "PINSITE_SECRET_KEY": ""})
    assert result.returncode != 0
    assert "PINSITE_SECRET_KEY must be set" in result.stderr


def test_production_refuses_a_short_secret_key() -> None:
    result = _check_deploy(**{**_real_credentials(), "PINSITE_SECRET_KEY": "too-short"})
    assert result.returncode != 0
    assert "PINSITE_SECRET_KEY must be set" in result.stderr


def test_production_refuses_every_development_credential_at_once() -> None:
    """Only a secret key set: every account is the development stack's, and each variable to
    set is named."""
    result = _check_deploy(PINSITE_SECRET_KEY=secrets.token_urlsafe(64))
    assert result.returncode != 0
    for variable in CREDENTIAL_VARIABLES[1:]:
        assert f"{variable} must be set" in result.stderr, variable


@pytest.mark.parametrize(("variable", "development"), [
    ("PINSITE_MYSQL_USER", mysql_client.APP_USER),
    ("PINSITE_MYSQL_PASSWORD", mysql_client.APP_PASSWORD),
    ("PINSITE_MYSQL_ADMIN_USER", mysql_client.ADMIN_USER),
    ("PINSITE_MYSQL_ADMIN_PASSWORD", mysql_client.ADMIN_PASSWORD),
    ("PINSITE_MYSQL_REPL_USER", mysql_client.REPL_USER),
    ("PINSITE_MYSQL_REPL_PASSWORD", mysql_client.REPL_PASSWORD),
    ("PINSITE_AMQP_URL", f"amqp://{rabbitmq.USER}:{rabbitmq.PASSWORD}@mq.internal:5672/%2F"),
    ("PINSITE_AMQP_URL", "amqp://guest:guest@mq.internal:5672/%2F"),
])
def test_production_refuses_one_development_credential(variable: str, development: str) -> None:
    result = _check_deploy(**{**_real_credentials(), variable: development})
    assert result.returncode != 0
    assert f"{variable} must be set" in result.stderr
    others = [name for name in CREDENTIAL_VARIABLES if name != variable]
    assert not any(f"{name} must be set" in result.stderr for name in others)


def test_check_deploy_reports_development_credentials_of_any_settings() -> None:
    """The development settings load (they are the local stack's), and ``check --deploy``
    names each credential to set as an error."""
    result = _check_deploy("pinsite.settings")
    assert result.returncode != 0
    for index, variable in enumerate(CREDENTIAL_VARIABLES, start=1):
        assert f"pinsite.E{index:03d}" in result.stderr and f"set {variable}" in result.stderr


def test_every_development_default_is_known_as_one() -> None:
    """Each credential reads the setting ``pinsite.settings`` fills from its variable, and
    finds it at the development value the settings take when the variable is unset (as for
    the test stack, whose own accounts are those)."""
    found = [credential.variable for credential in development_credentials(development_settings)]
    assert found == CREDENTIAL_VARIABLES
