"""CPU time over a stretch of work, for the whole machine and by kind of process, from /proc.

>>> before = snapshot()
>>> ...  # the load
>>> use = used(before, snapshot(), groups_of_site(site_pid, os.getpid()))
>>> use.machine_ms, use.by_group["web"]

The machine's figure is every CPU's busy time (user, system, interrupts: all but idle and I/O
wait) from ``/proc/stat``; the groups sum ``utime + stime`` of the processes alive at the end
(a process started in between counts whole), each put in a group by its command line or by the
process it descends from. ``other`` is the processes of no group and what no process alive
at the end accounts for (processes that ended in between, the kernel's own threads). Linux
only: elsewhere every figure is 0.

Of each group's figure, the part a Java VM's JIT compiler threads spent (``C1 CompilerThread``,
``C2 CompilerThread``) is also given apart (:attr:`CpuUse.jit_by_group`): HBase's JVMs compile
the code a workload reaches for the first time, a cost that fades as they run (a stack started
minutes before a bench pays it in the bench's figures), not one a request makes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 10.0

STORES = (
    ("mysql", ("mariadbd", "mysqld")),
    ("redis", ("redis-server", "redis-sentinel")),
    ("hbase", ("org.apache.hadoop.hbase",)),
    ("zookeeper", ("org.apache.zookeeper",)),
    ("rabbitmq", ("beam.smp", "rabbit", "epmd", "erl_child_setup")),
)
"""Groups of the stores, each with words of their command lines."""


@dataclass(frozen=True)
class Process:
    pid: int
    parent: int
    command: str
    ticks: int
    started: int = 0
    """When it started, in clock ticks since boot: with the PID, what tells a process from one
    that reused its PID (a kernel worker's name changes with the queue it serves)."""
    jit_ticks: int = 0
    """Of ``ticks``, those of a Java VM's JIT compiler threads (0 for other processes)."""


@dataclass(frozen=True)
class Snapshot:
    busy_ticks: int
    processes: dict[int, Process]


@dataclass(frozen=True)
class CpuUse:
    """CPU milliseconds spent between two snapshots."""

    machine_ms: float
    by_group: dict[str, float]
    jit_by_group: dict[str, float] = field(default_factory=dict)
    """Of a group's figure, the part its Java VMs' JIT compiler threads spent (groups with
    none are left out)."""

    def per(self, count: int) -> dict[str, float]:
        """The figures divided by ``count`` (requests, operations): ``machine`` and each
        group's, ``other`` included."""
        shares = {"machine": self.machine_ms, **self.by_group}
        return {name: round(ms / count, 3) for name, ms in shares.items()} if count else {}

    def jit_per(self, count: int) -> dict[str, float]:
        """:attr:`jit_by_group` divided by ``count``."""
        return {name: round(ms / count, 3) for name, ms in self.jit_by_group.items()
                } if count else {}


def snapshot() -> Snapshot:
    if not (PROC / "stat").exists():
        return Snapshot(0, {})
    return Snapshot(machine_ticks()[0], {p.pid: p for p in _processes()})


def used(before: Snapshot, after: Snapshot, group_of: Callable[[Process, dict[int, Process]], str],
         ) -> CpuUse:
    """What was spent from ``before`` to ``after``, by the groups ``group_of`` names."""
    machine = (after.busy_ticks - before.busy_ticks) * TICK_MS
    groups: dict[str, float] = {}
    jit: dict[str, float] = {}
    for process in after.processes.values():
        earlier = before.processes.get(process.pid)
        if earlier is not None and earlier.started != process.started:
            earlier = None  # its pid was reused: a new process
        ticks = process.ticks - (earlier.ticks if earlier else 0)
        jit_ticks = process.jit_ticks - (earlier.jit_ticks if earlier else 0)
        if ticks > 0:
            name = group_of(process, after.processes)
            groups[name] = groups.get(name, 0.0) + ticks * TICK_MS
            if jit_ticks > 0:
                jit[name] = jit.get(name, 0.0) + jit_ticks * TICK_MS
    groups["other"] = groups.get("other", 0.0) + max(0.0, machine - sum(groups.values()))
    return CpuUse(round(machine, 1), {name: round(ms, 1) for name, ms in sorted(groups.items())},
                  {name: round(ms, 1) for name, ms in sorted(jit.items())})


def groups_of_site(site_pid: int, generator_pid: int,
                   ) -> Callable[[Process, dict[int, Process]], str]:
    """Group a process as ``web`` (gunicorn under the site's process), ``queue`` (its
    Dramatiq workers), ``site`` (the supervising command), ``load generator`` (the bench's own
    process), one of :data:`STORES`, ``kernel`` (its threads: loopback networking, disk
    writes), or ``other``."""

    def group_of(process: Process, processes: dict[int, Process]) -> str:
        if process.pid == generator_pid:
            return "load generator"
        for ancestor in _lineage(process, processes):
            if ancestor.parent == site_pid:
                return "web" if "gunicorn" in ancestor.command else "queue"
            if ancestor.pid == site_pid:
                return "site"
        return store_of(process, processes)

    return group_of


def store_of(process: Process, _processes: dict[int, Process] | None = None) -> str:
    """The group of a process outside the site: one of :data:`STORES`, ``kernel`` (its
    threads: loopback networking, disk writes) or ``other``."""
    for name, words in STORES:
        if any(word in process.command for word in words):
            return name
    return "kernel" if process.command.startswith("[") else "other"


def _lineage(process: Process, processes: dict[int, Process]) -> list[Process]:
    """The process and its ancestors among ``processes``, nearest first."""
    chain, seen = [], set()
    current: Process | None = process
    while current is not None and current.pid not in seen:
        chain.append(current)
        seen.add(current.pid)
        current = processes.get(current.parent)
    return chain


def machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs since boot; idle and I/O wait count as not busy
    (guest time is already in user time)."""
    fields = [int(value) for value in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    total = sum(fields[:8])  # user, nice, system, idle, iowait, irq, softirq, steal
    return total - fields[3] - fields[4], total


def _processes() -> list[Process]:
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace")
        except OSError:  # ended meanwhile
            continue
        name, fields = _parsed(stat)  # a kernel thread has no command line
        found.append(Process(int(entry.name), int(fields[1]), command.strip() or f"[{name}]",
                             _ticks(fields), int(fields[19]),
                             _jit_ticks(entry) if name == "java" else 0))
    return found


def _parsed(stat: str) -> tuple[str, list[str]]:
    """A process's or thread's name and the fields after it, of ``/proc/…/stat``: ``pid (name)
    state ppid … utime stime …`` (the name may hold spaces and parentheses)."""
    name_ends = stat.rindex(")")
    return stat[stat.index("(") + 1:name_ends], stat[name_ends + 2:].split()


def _ticks(fields: list[str]) -> int:
    """User and system CPU ticks, of the fields :func:`_parsed` gives."""
    return int(fields[11]) + int(fields[12])


def _jit_ticks(process: Path) -> int:
    """The CPU ticks of a Java VM's JIT compiler threads (``C1 CompilerThread0``, ``C2
    CompilerThread1``: a thread's name is cut to 15 characters)."""
    ticks = 0
    try:
        tasks = list((process / "task").iterdir())
    except OSError:
        return 0
    for task in tasks:
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name, fields = _parsed(stat)
        if name.startswith(("C1 CompilerThre", "C2 CompilerThre")):
            ticks += _ticks(fields)
    return ticks
