"""The whole suite as ``make test`` runs it: three pytest sessions on the one test stack.

1. The main session: every test not marked ``beside`` or ``alone``.
2. Beside it, at the same time, the tests marked ``beside``. They do their work on servers
   of their own (throwaway pairs, stacks of other profiles) and touch the shared stores only
   for pinners of their own, so the two sessions do not disturb each other; much of their
   time is spent waiting for servers to start, fail and fail over, which the main session's
   work fills on a machine of few cores.
3. Then, with nothing beside them, the tests marked ``alone``, which stop or kill a server of
   the shared stack, or check a whole shared store.

Arguments go to every session (``python -m tests tests/graph -q``); a ``-m`` expression is
combined with each session's own, and ``--junitxml=PATH`` writes one report per session
(``PATH`` with the session's name before its suffix). A session that selects no test counts
as passed. The second session's report is printed after the main session's. The exit status
is the first failing session's, or 5, pytest's "no tests collected", if no session selected
any test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

NO_TESTS = 5
"""pytest's exit status when a session selected no test."""

_ENVIRONMENT = {name: value for name, value in os.environ.items()
                if name != "PYTHONDONTWRITEBYTECODE"}
"""The sessions' environment: pytest keeps the test modules it rewrote for its assertions
(where ``PYTHONDONTWRITEBYTECODE`` is set, every session rewrites them all again: half of the
18 s that collecting the suite takes)."""


@dataclass(frozen=True)
class Session:
    name: str
    markers: str


MAIN = Session("main", "not beside and not alone")
BESIDE = Session("beside", "beside and not alone")
ALONE = Session("alone", "alone")


def _options(argv: list[str]) -> tuple[list[str], str | None, str | None]:
    """``argv`` without its ``-m`` expression and its JUnit report path, and those two."""
    rest: list[str] = []
    expression = report = None
    given = iter(argv)
    for arg in given:
        if arg == "-m":
            expression = next(given, "")
        elif arg.startswith("-m"):
            expression = arg[2:]
        elif arg in ("--junitxml", "--junit-xml"):
            report = next(given, "")
        elif arg.startswith(("--junitxml=", "--junit-xml=")):
            report = arg.partition("=")[2]
        else:
            rest.append(arg)
    return rest, expression, report


def command(session: Session, argv: list[str]) -> list[str]:
    """The pytest command line of ``session`` given the suite's arguments ``argv``."""
    rest, expression, report = _options(argv)
    markers = session.markers if expression is None else f"({expression}) and ({session.markers})"
    own_report = []
    if report:
        path = Path(report)
        own_report = [f"--junitxml={path.with_name(f'{path.stem}.{session.name}{path.suffix}')}"]
    return [sys.executable, "-m", "pytest", *rest, *own_report, "-m", markers]


def _start(session: Session, argv: list[str], output: IO[str] | None = None,
           ) -> subprocess.Popen[bytes]:
    line = command(session, argv)
    print(f"=== {session.name} session: pytest -m '{line[-1]}'", flush=True)
    return subprocess.Popen(line, stdout=output, stderr=output, env=_ENVIRONMENT)


@dataclass
class Outcome:
    session: Session
    status: int
    seconds: float

    def __str__(self) -> str:
        said = {0: "passed", NO_TESTS: "no tests selected"}.get(self.status,
                                                                 f"failed (exit {self.status})")
        return f"{self.session.name:12} {said:22} {self.seconds:7.1f} s"


def _finished(process: subprocess.Popen[bytes], session: Session, since: float) -> Outcome:
    return Outcome(session, process.wait(), time.monotonic() - since)


def _timed(process: subprocess.Popen[bytes], session: Session,
           since: float) -> Callable[[], Outcome]:
    """Wait for ``process`` in a thread of its own, so that its time is its own however late
    it is asked for; the returned call gives its outcome."""
    outcomes: list[Outcome] = []
    waiter = threading.Thread(target=lambda: outcomes.append(_finished(process, session, since)),
                              daemon=True)
    waiter.start()

    def outcome() -> Outcome:
        waiter.join()
        return outcomes[0]
    return outcome


def _sessions(argv: list[str]) -> Iterator[Outcome]:
    """Run the main and beside sessions side by side, then the alone session."""
    with tempfile.TemporaryFile("w+") as aside:
        since = time.monotonic()
        beside = _start(BESIDE, argv, aside)
        beside_outcome = _timed(beside, BESIDE, since)
        try:
            yield _finished(_start(MAIN, argv), MAIN, since)
            yield beside_outcome()
        finally:
            if beside.poll() is None:
                beside.terminate()
                beside.wait()
        aside.seek(0)
        print(f"=== {BESIDE.name} session's report", flush=True)
        sys.stdout.write(aside.read())
    since = time.monotonic()
    yield _finished(_start(ALONE, argv), ALONE, since)


def main(argv: list[str]) -> int:
    started = time.monotonic()
    outcomes = list(_sessions(argv))
    print("=== sessions")
    for outcome in outcomes:
        print(outcome)
    print(f"{'all':12} {'':22} {time.monotonic() - started:7.1f} s", flush=True)
    failed = [o.status for o in outcomes if o.status not in (0, NO_TESTS)]
    if failed:
        return failed[0]
    return NO_TESTS if all(o.status == NO_TESTS for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
