"""``manage.py`` commands answered by one long-running process of a throwaway stack's settings.

Scenario tests poll operator commands (``orchestrator status``, ``graph vshards show``) while
a failover runs. A ``manage.py`` process per poll starts Django each time (about a second of
CPU on a 2-core machine where the stores, the writer and the orchestrator need it too); this
process starts it once and runs each command with ``call_command``, as ``manage.py`` would:
the same parsing, the same code, the same output.

>>> with Commands(environment) as commands:
...     status = json.loads(commands.run("orchestrator", "status", "--json"))

Commands that change the stack (``init``, ``promote``) still run in a process of their own
(:func:`manage`), as an operator would run them, with the environment of a throwaway
deployment (:func:`deployment`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import subprocess
import sys
import traceback
import uuid
from pathlib import Path
from types import TracebackType

REPO = Path(__file__).resolve().parents[1]


def deployment(root: Path, name: str, **variables: str) -> dict[str, str]:
    """The environment of a throwaway deployment's processes: the test settings, a ZooKeeper
    root (``/pinsite-<name>-…``) and a ``var`` folder under ``root`` of its own, and
    ``variables`` (its hosts)."""
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
            "PINSITE_ZK_ROOT": f"/pinsite-{name}-{uuid.uuid4().hex[:8]}",
            "PINSITE_VAR": str(root / "var"), "PYTHONPATH": str(REPO), **variables}


def manage(environment: dict[str, str], *args: str, timeout: float = 180) -> str:
    """What ``manage.py *args`` prints, run in a process of ``environment``; the test fails
    when the command does."""
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=environment,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return result.stdout


class CommandFailed(AssertionError):
    """The command exited with an error (its stderr says which)."""


class Commands:
    """The serving process for ``environment`` (started on first use)."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.environment = environment
        self.process: subprocess.Popen[str] | None = None

    def run(self, *args: str, timeout: float = 120) -> str:
        """What ``manage.py *args`` prints; :class:`CommandFailed` when it fails."""
        process = self._started()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(args) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], timeout)
        line = process.stdout.readline() if ready else ""
        if not line:
            self.close()
            raise CommandFailed(f"manage.py {' '.join(args)}: no answer in {timeout}s")
        answer = json.loads(line)
        if answer["code"] != 0:
            raise CommandFailed(f"manage.py {' '.join(args)} exited {answer['code']}:\n"
                                f"{answer['stderr']}")
        return str(answer["stdout"])

    def _started(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.commands"], cwd=REPO, env=self.environment,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self.process

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> Commands:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def serve() -> None:
    """Answer one JSON line per command line read (``{"code", "stdout", "stderr"}``)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pinsite.test_settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.db import connections

    answers = sys.stdout
    for line in sys.stdin:
        out, err, code = io.StringIO(), io.StringIO(), 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                call_command(*json.loads(line), stdout=out, stderr=err)
            except CommandError as exc:
                err.write(f"CommandError: {exc}\n")
                code = exc.returncode
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except Exception:  # reported to the test, as manage.py would print it
                err.write(traceback.format_exc())
                code = 1
            finally:
                connections.close_all()
        answers.write(json.dumps({"code": code, "stdout": out.getvalue(),
                                  "stderr": err.getvalue()}) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve()
