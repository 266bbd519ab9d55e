"""Profiles: a name, a port base and a folder under ``<repo>/var/``.

``dev`` uses ports 13000+, ``test`` 23000+; any other ``[a-z0-9]+`` profile needs
``PINSITE_PORT_BASE``, which also overrides the base of ``dev`` and ``test``.
"""

from __future__ import annotations

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

    def port(self, offset: int) -> int:
        """Return the port ``offset`` above this profile's base."""
        return self.port_base + offset


def resolve_profile(name: str | None = None) -> Profile:
    """Build the profile ``name`` (or ``$PINSITE_PROFILE``, or ``dev``)."""
    name = name or os.environ.get("PINSITE_PROFILE") or DEFAULT_PROFILE
    if not NAME_PATTERN.fullmatch(name):
        raise ProfileError(f"invalid profile name {name!r}: use lowercase letters and digits")
    return Profile(name, _port_base(name), REPO_ROOT / "var" / name)


def _port_base(name: str) -> int:
    raw = os.environ.get("PINSITE_PORT_BASE", "").strip()
    if raw:
        if not raw.isdigit() or not 1024 <= int(raw) <= 64000:
            raise ProfileError(f"PINSITE_PORT_BASE must be an integer in 1024..64000, got {raw!r}")
        return int(raw)
    if name in KNOWN_BASES:
        return KNOWN_BASES[name]
    raise ProfileError(f"profile {name!r} needs PINSITE_PORT_BASE (e.g. PINSITE_PORT_BASE=33000)")
