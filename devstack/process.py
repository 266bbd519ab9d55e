"""Detached processes tracked by pid files.

Every server runs in its own session (so it outlives the command that started it and its
process group can be signalled as a whole), with stdin from /dev/null and output to a log file.
A pid is trusted only while ``/proc/<pid>/cmdline`` still contains the expected marker, so a
stale pid file whose number was reused never leads to signalling a stranger.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from devstack.errors import DevstackError

POLL_SECONDS = 0.05
# How long a process is given to be gone after SIGKILL.
KILL_WAIT_SECONDS = 10.0


def spawn(argv: Sequence[str], log_path: Path, pid_path: Path, *,
          env: Mapping[str, str] | None = None, cwd: Path | None = None) -> int:
    """Start ``argv`` detached, append its output to ``log_path`` and record its pid."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        child = subprocess.Popen(
            list(argv), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None, cwd=cwd, start_new_session=True,
            close_fds=True,
        )
    write_pid(pid_path, child.pid)
    return child.pid


def write_pid(pid_path: Path, pid: int) -> None:
    """Write ``pid`` to ``pid_path`` atomically."""
    pid_path.parent.mkdir(parents=True, exist_ok=True)
    scratch = pid_path.with_suffix(".tmp")
    scratch.write_text(f"{pid}\n")
    scratch.replace(pid_path)


def read_pid(pid_path: Path) -> int | None:
    """Return the number in ``pid_path``, or None if it is missing or garbled."""
    try:
        text = pid_path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def is_alive(pid: int, marker: str) -> bool:
    """True if ``pid`` is a live process whose command line contains ``marker``.

    A process in the middle of ``exec`` briefly shows an empty command line; it counts as alive.
    So does a zombie main thread whose other threads still run: a killed multi-threaded server
    (Redis, mariadbd) shows its main thread as a zombie while the rest of it is still exiting
    and still holds its files and listening sockets. A zombie of another parent whose threads
    have all exited holds nothing and counts as gone (its parent reaps it when it will).
    """
    _reap(pid)
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        return False
    if _state(stat) in EXITED:
        return _threads_running(pid)
    return marker in cmdline or not cmdline


EXITED = ("Z", "X")


def _state(stat: str) -> str:
    """The state letter of a ``/proc/<pid>/stat`` line (the command may hold spaces)."""
    return stat.rpartition(")")[2].split()[0]


def _thread_states(pid: int) -> list[str]:
    """The state letter of each thread of ``pid``; none once it is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    states = []
    for task in tasks:
        try:
            states.append(_state(Path(f"/proc/{pid}/task/{task}/stat").read_text()))
        except OSError:
            continue  # the thread ended meanwhile
    return states


def _threads_running(pid: int) -> bool:
    """True if a thread of ``pid`` has not exited yet."""
    return any(state not in EXITED for state in _thread_states(pid))


SUSPENDED = ("T", "t")


def wait_suspended(pid: int, timeout: float) -> bool:
    """Wait until every thread of ``pid`` is stopped: a SIGSTOP takes hold of a thread only
    when it next enters the kernel or is scheduled, so a busy server may answer one more
    request after the signal was sent. False on timeout, or if ``pid`` is gone."""
    deadline = time.monotonic() + timeout
    while states := _thread_states(pid):
        if all(state in SUSPENDED or state in EXITED for state in states):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return False


def live_pid(pid_path: Path, marker: str) -> int | None:
    """Return the live pid recorded in ``pid_path``; remove the file if its process is gone."""
    pid = read_pid(pid_path)
    if pid is None:
        return None
    if is_alive(pid, marker):
        return pid
    pid_path.unlink(missing_ok=True)
    return None


def send_signal(pid: int, sig: int, *, group: bool = False) -> None:
    """Send ``sig`` to ``pid`` (or to its process group if it leads one); ignore a gone process."""
    try:
        if group and os.getpgid(pid) == pid:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def wait_gone(pid: int, marker: str, timeout: float) -> bool:
    """Wait until ``pid`` has exited; return False on timeout."""
    deadline = time.monotonic() + timeout
    while is_alive(pid, marker):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True


def terminate(pid: int, marker: str, timeout: float, resend: float | None = None) -> bool:
    """Stop ``pid``: SIGTERM (again every ``resend`` seconds, for a server that may refuse one
    and carry on), then SIGKILL to its process group after ``timeout`` seconds. Returns False
    if it still runs :data:`KILL_WAIT_SECONDS` after the SIGKILL."""
    deadline = time.monotonic() + timeout
    while True:
        send_signal(pid, signal.SIGTERM)
        left = deadline - time.monotonic()
        if wait_gone(pid, marker, min(left, resend) if resend else left):
            return True
        if time.monotonic() >= deadline:
            break
    send_signal(pid, signal.SIGKILL, group=True)
    return wait_gone(pid, marker, KILL_WAIT_SECONDS)


def stop(pid_path: Path, marker: str, timeout: float) -> bool:
    """Stop the process recorded in ``pid_path``; True if one was running."""
    pid = live_pid(pid_path, marker)
    if pid is not None:
        terminate(pid, marker, timeout)
    pid_path.unlink(missing_ok=True)
    return pid is not None


def _reap(pid: int) -> None:
    """Collect ``pid`` if it is an exited child of this process (API users start children)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def file_size(path: Path) -> int:
    """Size of ``path`` in bytes (0 if missing)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def tail(path: Path, lines: int = 15, start: int = 0) -> str:
    """Return the last ``lines`` lines of ``path`` written after byte ``start``."""
    try:
        with open(path, "rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            handle.seek(max(start if start <= end else 0, end - 16384))
            data = handle.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


def find_program(name: str, *extra_dirs: str) -> str:
    """Return the path of program ``name`` (also looking in ``extra_dirs``), or ``name``."""
    path = os.pathsep.join([os.environ.get("PATH", ""), *extra_dirs, "/usr/sbin", "/sbin"])
    return shutil.which(name, path=path) or name


@contextlib.contextmanager
def exclusive(lock_path: Path, timeout: float = 600.0) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_path`` (waits up to ``timeout`` seconds)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise DevstackError(f"another devstack command holds {lock_path}") from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
