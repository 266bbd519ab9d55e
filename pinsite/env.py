"""Parse the environment variables that configure pinsite.

Every address comes from the environment (see ``docs/configuration.md``); the defaults are the
local development stack of ``python -m devstack``. Nothing here assumes localhost in production:
set the variables and the same code talks to real clusters.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

LOCAL = "127.0.0.1"


def text(name: str, default: str) -> str:
    """Return the variable ``name``, or ``default`` when unset or empty."""
    return os.environ.get(name) or default


def flag(name: str, default: bool) -> bool:
    """Return a boolean variable: 1/true/yes/on are true."""
    raw = os.environ.get(name)
    if not raw:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def number(name: str, default: int) -> int:
    """Return an integer variable."""
    raw = os.environ.get(name)
    return int(raw) if raw else default


def numbers(prefix: str, names: list[str]) -> dict[str, int]:
    """The integer variables ``prefix + name`` that are set, by name (for settings whose
    defaults live in a subsystem's ``conf.py``: unset ones keep that default)."""
    found = {}
    for name in names:
        raw = os.environ.get(prefix + name)
        if raw:
            try:
                found[name] = int(raw)
            except ValueError:
                raise ValueError(f"{prefix + name} must be an integer, got {raw!r}") from None
    return found


def address(value: str) -> tuple[str, int]:
    """Split ``host:port`` into its parts."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected host:port, got {value!r}")
    return host, int(port)


def addresses(value: str) -> list[tuple[str, int]]:
    """Parse ``host:port,host:port`` (empty: none) into a list."""
    return [address(part.strip()) for part in value.split(",") if part.strip()]


def named_addresses(value: str) -> dict[str, tuple[str, int]]:
    """Parse ``name=host:port,name=host:port`` into a dict, keeping its order."""
    hosts: dict[str, tuple[str, int]] = {}
    for item in filter(None, (part.strip() for part in value.split(","))):
        name, _, where = item.partition("=")
        hosts[name.strip()] = address(where.strip())
    return hosts


def pairs(value: str) -> list[tuple[str, str | None]]:
    """Parse ``master:replica,master:replica`` (replica optional) into tuples."""
    result: list[tuple[str, str | None]] = []
    for item in filter(None, (part.strip() for part in value.split(","))):
        master, _, replica = item.partition(":")
        result.append((master.strip(), replica.strip() or None))
    return result


def redis_location(url: str, db: int) -> str:
    """Return ``url`` pointing at database ``db``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/{db}"


def port_base() -> int:
    """Port base of the local stack profile (dev 13000, test 23000)."""
    profile = text("PINSITE_PROFILE", "dev")
    return number("PINSITE_PORT_BASE", 23000 if profile == "test" else 13000)
