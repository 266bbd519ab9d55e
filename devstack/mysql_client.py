"""Run SQL through the ``mariadb`` command-line client (no driver needed before the venv).

``root`` connects through the instance's socket (bootstrap); named users connect over TCP.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from devstack.errors import CommandFailed
from devstack.process import find_program

ADMIN_USER = "pinsite_admin"
ADMIN_PASSWORD = "pinsite_admin"
APP_USER = "pinsite"
APP_PASSWORD = "pinsite"
REPL_USER = "repl"
REPL_PASSWORD = "repl"


@dataclass(frozen=True)
class Login:
    """How to reach one server: over its socket as root, or over TCP as a user."""

    host: str
    port: int
    socket: Path | None = None
    user: str = "root"
    password: str = ""

    def args(self) -> list[str]:
        """Connection arguments for the MariaDB client programs (after ``--no-defaults``)."""
        if self.socket is not None:
            return ["--protocol=socket", f"--socket={self.socket}", f"--user={self.user}"]
        return ["--protocol=tcp", f"--host={self.host}", f"--port={self.port}",
                f"--user={self.user}"]

    def environ(self) -> dict[str, str]:
        """Environment passing the password without showing it on the command line."""
        return {**os.environ, "MYSQL_PWD": self.password}


def run_sql(login: Login, sql: str, timeout: float = 30.0) -> list[dict[str, str]]:
    """Run ``sql`` and return the rows of the last result set as dicts (values as text)."""
    argv = [find_program("mariadb"), "--no-defaults", *login.args(), "--batch",
            "--connect-timeout=5", "--execute", sql]
    result = subprocess.run(argv, capture_output=True, text=True, env=login.environ(),
                            stdin=subprocess.DEVNULL, timeout=timeout, check=False)
    if result.returncode != 0:
        raise CommandFailed(f"SQL on {login.host}:{login.port} failed: {result.stderr.strip()}")
    return parse_batch(result.stdout)


def parse_batch(output: str) -> list[dict[str, str]]:
    """Parse ``mariadb --batch`` output (a header line, then tab-separated rows)."""
    lines = output.splitlines()
    if not lines:
        return []
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=False)) for line in lines[1:]]


def quote(text: str) -> str:
    """Quote ``text`` as an SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
