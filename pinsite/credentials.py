"""The development stack's credentials, which production must never run with.

``pinsite.settings`` defaults every account and secret to the local stack's (``python -m
devstack``), which anyone can read in this repository; the values are kept here once
(:data:`DEVELOPMENT`, the RabbitMQ account). :func:`development_credentials` names the
environment variable of each one a settings object still uses; production settings refuse to
load while any is left (as they do without a secret key), and ``manage.py check --deploy``
reports each as an error (:mod:`pinsite.checks`).

>>> [found.variable for found in development_credentials(settings)]
['PINSITE_MYSQL_PASSWORD', 'PINSITE_AMQP_URL']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

DEVELOPMENT: dict[str, str] = {
    "PINSITE_SECRET_KEY": "pinsite-development-key-never-use-in-production",
    # The MySQL accounts ``python -m devstack`` creates (devstack/mysql_client.py).
    "PINSITE_MYSQL_USER": "pinsite",
    "PINSITE_MYSQL_PASSWORD": "pinsite",
    "PINSITE_MYSQL_ADMIN_USER": "pinsite_admin",
    "PINSITE_MYSQL_ADMIN_PASSWORD": "pinsite_admin",
    "PINSITE_MYSQL_REPL_USER": "repl",
    "PINSITE_MYSQL_REPL_PASSWORD": "repl",
}
"""The development value of each variable, which ``pinsite.settings`` takes when it is unset."""

# The RabbitMQ account ``python -m devstack`` creates (devstack/rabbitmq.py), and RabbitMQ's
# own default one: neither user nor password may be either.
AMQP_USER = AMQP_PASSWORD = "pinsite"
AMQP_DEVELOPMENT = {AMQP_USER, AMQP_PASSWORD, "guest"}


@dataclass(frozen=True)
class Credential:
    """One setting that must not keep its development value."""

    variable: str
    what: str
    read: Callable[[Any], object]
    development: Callable[[object], bool]

    @property
    def refusal(self) -> str:
        """One line: the variable to set, and why."""
        return f"{self.variable} must be set: {self.what} is the development stack's"


def _fixed(variable: str, what: str, read: Callable[[Any], object]) -> Credential:
    """The credential of ``variable``, at its development value when it equals
    :data:`DEVELOPMENT`'s."""
    return Credential(variable, what, read, lambda found: found == DEVELOPMENT[variable])


def _sharding(key: str) -> Callable[[Any], object]:
    return lambda settings: getattr(settings, "PINSITE_SHARDING", {}).get(key)


def _amqp_account(url: object) -> bool:
    parts = urlsplit(str(url))
    return bool({unquote(parts.username or ""), unquote(parts.password or "")}
                & AMQP_DEVELOPMENT)


CREDENTIALS = (
    _fixed("PINSITE_SECRET_KEY", "the secret key", lambda s: s.SECRET_KEY),
    _fixed("PINSITE_MYSQL_USER", "the MySQL application user",
           lambda s: getattr(s, "MYSQL_USER", None)),
    _fixed("PINSITE_MYSQL_PASSWORD", "the MySQL application password",
           lambda s: getattr(s, "MYSQL_PASSWORD", None)),
    _fixed("PINSITE_MYSQL_ADMIN_USER", "the MySQL administration user", _sharding("ADMIN_USER")),
    _fixed("PINSITE_MYSQL_ADMIN_PASSWORD", "the MySQL administration password",
           _sharding("ADMIN_PASSWORD")),
    _fixed("PINSITE_MYSQL_REPL_USER", "the MySQL replication user", _sharding("REPL_USER")),
    _fixed("PINSITE_MYSQL_REPL_PASSWORD", "the MySQL replication password",
           _sharding("REPL_PASSWORD")),
    Credential("PINSITE_AMQP_URL", "the RabbitMQ user and password",
               lambda s: getattr(s, "AMQP_URL", ""), _amqp_account),
)


def development_credentials(settings: Any) -> list[Credential]:
    """The credentials ``settings`` (a settings module or ``django.conf.settings``) still
    holds at their development values."""
    return [credential for credential in CREDENTIALS
            if credential.development(credential.read(settings))]
