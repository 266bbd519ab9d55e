"""``manage.py bench failover``: from a shard master's SIGKILL to the next acknowledged write,
with the orchestrator running and nobody typing a command.

Each run starts a throwaway MariaDB master/replica pair (``devstack.pairs``) with a shard map
of its own (a fresh ZooKeeper root), an orchestrator at its defaults (probes every second,
three failures) and a writer process that creates rows without pause and prints the time of
each acknowledged one. Once the writer is going, the master gets SIGKILL; the figure is the
time from the kill to the first write acknowledged after it (on the promoted replica). The
floor beside it is what detection alone takes at the least: ``(failures - 1) * interval``
(the first failed probe can come right after the kill).

Loopback only; each run takes about 15 s and removes its pair, processes and ZooKeeper root.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings

from coordination.zookeeper import delete_tree
from devstack.ports import free_loopback_ports

REPO = Path(settings.BASE_DIR)
MASTER, REPLICA = "mysqlb1a", "mysqlb1b"
INTERVAL, FAILURES = 1.0, 3
GOAL_SECONDS = 10.0


def run(runs: int = 5, progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    """Kill a master ``runs`` times (a new pair each time); the seconds until the next write."""
    figures = []
    for number in range(1, runs + 1):
        seconds = _one_run()
        progress(f"run {number}: first write {seconds:.2f}s after the SIGKILL\n")
        figures.append(seconds)
    median = statistics.median(figures)
    return {"runs": runs, "seconds_to_first_write": [round(f, 2) for f in figures],
            "median_seconds": round(median, 2),
            "detection_floor_seconds": INTERVAL * (FAILURES - 1),
            "orchestrator": {"interval_seconds": INTERVAL, "failures": FAILURES},
            "goal_seconds": GOAL_SECONDS, "goal_met": median < GOAL_SECONDS}


def _one_run() -> float:
    from devstack.pairs import destroy, mysql_pair

    first, second = free_loopback_ports(2)
    ports = (first, second)
    with tempfile.TemporaryDirectory(prefix="pinsite-bench-failover-") as folder:
        root = Path(folder)
        master, replica = mysql_pair(MASTER, REPLICA, *ports, root)
        zk_root = f"/pinsite-bench-failover-{uuid.uuid4().hex[:8]}"
        environment = {
            **os.environ,
            "PINSITE_SHARD_HOSTS": f"{MASTER}=127.0.0.1:{ports[0]},"
                                   f"{REPLICA}=127.0.0.1:{ports[1]}",
            "PINSITE_SHARD_PAIRS": f"{MASTER}:{REPLICA}", "PINSITE_SHARD_COUNT": "4",
            "PINSITE_ZK_ROOT": zk_root, "PINSITE_VAR": str(root / "var"),
        }
        processes: list[subprocess.Popen[str]] = []
        try:
            manage(environment, "shards", "init", "--quiet")
            processes.append(start(environment, [
                "manage.py", "orchestrator", "run", "--interval", str(INTERVAL),
                "--failures", str(FAILURES)], root / "orchestrator.log"))
            writer = start(environment, ["-m", "benchmarks.writer"], None)
            processes.append(writer)
            return seconds_to_next_write(writer, master)
        finally:
            stop(processes)
            destroy(master, replica)
            delete_tree(zk_root)


def seconds_to_next_write(writer: subprocess.Popen[str], master: Any) -> float:
    """Once ``writer`` has 50 acknowledged writes, SIGKILL ``master`` (a devstack service);
    the seconds from the kill to the writer's next acknowledged write."""
    wait_for_writes(writer, 50)
    master.kill(signal.SIGKILL)
    killed = time.monotonic()
    return first_write_after(writer, killed) - killed


def stop(processes: list[subprocess.Popen[str]]) -> None:
    """Terminate ``processes``, then wait for each."""
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=30)


def start(environment: dict[str, str], args: list[str],
           log: Path | None) -> subprocess.Popen[str]:
    output = subprocess.PIPE if log is None else log.open("w")
    return subprocess.Popen([sys.executable, *args], cwd=REPO, env=environment, text=True,
                            stdout=output, stderr=subprocess.DEVNULL if log is None else output)


def manage(environment: dict[str, str], *args: str, timeout: float = 120) -> str:
    """Run ``manage.py args``; its output. A failure raises with the command's last error
    lines."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"manage.py {' '.join(args)} exited {done.returncode}: {tail}")
    return done.stdout


def wait_for_writes(writer: subprocess.Popen[str], count: int) -> None:
    assert writer.stdout is not None
    seen = 0
    while seen < count:
        line = writer.stdout.readline()
        if not line:
            raise RuntimeError("the bench writer stopped before the kill")
        seen += line.startswith("OK ")


def first_write_after(writer: subprocess.Popen[str], killed: float, limit: float = 60) -> float:
    """The time (``time.monotonic``, shared by the processes) of the first write acknowledged
    after ``killed``."""
    assert writer.stdout is not None
    while time.monotonic() - killed < limit:
        line = writer.stdout.readline()
        if not line:
            break
        status, *fields = line.split()
        if status == "OK" and float(fields[1]) > killed:
            return float(fields[1])
    raise RuntimeError(f"no write was acknowledged within {limit:.0f}s of the kill")


