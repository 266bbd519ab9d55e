"""Profiles: a name, a port base and a folder under ``<repo>/var/``.

``dev`` uses ports 13000+, ``test`` 23000+; any other ``[a-z0-9]+`` profile needs
``PINSITE_PORT_BASE``, which also overrides the base of ``dev`` and ``test``.

Servers bind 127.0.0.1 unless ``PINSITE_BIND_HOST`` names another IPv4 address: either one
address for every service, or ``pattern=address`` entries matched against service names in
order (``mysql*=10.231.0.2,*=10.231.0.3``), so that one value describes a stack spread over
several hosts, and ``up SERVICE ...`` on each host starts the services that live there.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import os
import re
from dataclasses import dataclass
from pathlib import Path

from devstack.errors import ProfileError

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROFILE = "dev"
KNOWN_BASES = {"dev": 13000, "test": 23000}
NAME_PATTERN = re.compile(r"[a-z0-9]+")
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Profile:
    """Where one stack lives: its name, port base and data folder."""

    name: str
    port_base: int
    var_dir: Path
    bind_hosts: tuple[tuple[str, str], ...] = ()

    def port(self, offset: int) -> int:
        """Return the port ``offset`` above this profile's base."""
        return self.port_base + offset

    def host(self, service: str) -> str:
        """The address ``service`` binds to: its first matching ``bind_hosts`` entry, or
        127.0.0.1."""
        for pattern, address in self.bind_hosts:
            if fnmatch.fnmatchcase(service, pattern):
                return address
        return HOST


def resolve_profile(name: str | None = None) -> Profile:
    """Build the profile ``name`` (or ``$PINSITE_PROFILE``, or ``dev``)."""
    name = name or os.environ.get("PINSITE_PROFILE") or DEFAULT_PROFILE
    if not NAME_PATTERN.fullmatch(name):
        raise ProfileError(f"invalid profile name {name!r}: use lowercase letters and digits")
    return Profile(name, _port_base(name), REPO_ROOT / "var" / name, _bind_hosts())


def is_loopback(host: str) -> bool:
    """True if ``host`` is a loopback address (only this machine can reach it)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def parse_bind_hosts(raw: str) -> tuple[tuple[str, str], ...]:
    """Parse ``PINSITE_BIND_HOST``: one address, or ``pattern=address`` entries."""
    entries = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        pattern, _, address = item.rpartition("=")
        pattern, address = pattern.strip() or "*", address.strip()
        try:
            ipaddress.IPv4Address(address)
        except ValueError:
            raise ProfileError(f"PINSITE_BIND_HOST: {address!r} is not an IPv4 address "
                               "(use ADDRESS or PATTERN=ADDRESS,...)") from None
        entries.append((pattern, address))
    return tuple(entries)


def _bind_hosts() -> tuple[tuple[str, str], ...]:
    return parse_bind_hosts(os.environ.get("PINSITE_BIND_HOST", ""))


def _port_base(name: str) -> int:
    raw = os.environ.get("PINSITE_PORT_BASE", "").strip()
    if raw:
        if not raw.isdigit() or not 1024 <= int(raw) <= 64000:
            raise ProfileError(f"PINSITE_PORT_BASE must be an integer in 1024..64000, got {raw!r}")
        return int(raw)
    if name in KNOWN_BASES:
        return KNOWN_BASES[name]
    raise ProfileError(f"profile {name!r} needs PINSITE_PORT_BASE (e.g. PINSITE_PORT_BASE=30000)")
