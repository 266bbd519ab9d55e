"""CPU time by kind of process: a site's web worker, the load generator, the machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from benchmarks import cpu

BURN = ("import sys, time\nwhile time.process_time() < {seconds}: pass\n"
        "print('burnt', flush=True)\nsys.stdin.read()\n")

SITE = """import subprocess, sys
worker = subprocess.Popen([sys.executable, '-c', {burn!r}, 'gunicorn'], stdin=subprocess.PIPE,
                          stdout=sys.stdout)
sys.stdin.read()
worker.communicate()
"""
"""A stand-in for ``runsite``: a child whose command line names gunicorn burns CPU and stays
until its input closes, which the site does once its own input closes (a process that has
ended is not counted)."""


def test_a_site_workers_cpu_counts_as_web_and_the_benchs_own_as_the_load_generator() -> None:
    before = cpu.snapshot()
    site = subprocess.Popen([sys.executable, "-c", SITE.format(burn=BURN.format(seconds=0.5))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert site.stdout is not None and site.stdout.readline() == "burnt\n"
        own = time.process_time()
        while time.process_time() - own < 0.3:
            pass
        use = cpu.used(before, cpu.snapshot(), cpu.groups_of_site(site.pid, os.getpid()))
    finally:
        site.communicate("")
    # processes' CPU is sampled in clock ticks (10 ms), the machine's separately: a margin
    assert use.by_group["web"] >= 450
    assert use.by_group["load generator"] >= 250
    assert use.machine_ms >= 0.8 * (use.by_group["web"] + use.by_group["load generator"])
    assert use.by_group["other"] >= 0


def test_figures_per_operation_include_the_machine_and_every_group() -> None:
    use = cpu.CpuUse(120.0, {"web": 60.0, "other": 6.0})
    assert use.per(12) == {"machine": 10.0, "web": 5.0, "other": 0.5}
    assert use.per(0) == {}


def test_the_machine_is_busy_less_than_it_is_up() -> None:
    busy, total = cpu.machine_ticks()
    assert 0 < busy < total


def test_a_process_renamed_counts_its_difference_and_a_reused_pid_counts_whole() -> None:
    def snap(busy: int, *processes: cpu.Process) -> cpu.Snapshot:
        return cpu.Snapshot(busy, {process.pid: process for process in processes})

    before = snap(1000, cpu.Process(7, 2, "[kworker/1:1-events]", 5000, started=40),
                  cpu.Process(8, 1, "redis-server *:6379", 300, started=50))
    after = snap(1100, cpu.Process(7, 2, "[kworker/1:1-mm_percpu_wq]", 5004, started=40),
                 cpu.Process(8, 1, "redis-server *:6379", 3, started=900))  # pid 8 reused
    use = cpu.used(before, after, cpu.store_of)
    assert use.by_group["kernel"] == 4 * cpu.TICK_MS  # its name follows its work queue
    assert use.by_group["redis"] == 3 * cpu.TICK_MS


def test_a_jvms_jit_compiler_threads_are_given_apart_within_its_group() -> None:
    before = cpu.Snapshot(1000, {9: cpu.Process(9, 1, "java org.apache.hadoop.hbase.Main", 500,
                                                started=60, jit_ticks=200)})
    after = cpu.Snapshot(1100, {9: cpu.Process(9, 1, "java org.apache.hadoop.hbase.Main", 580,
                                               started=60, jit_ticks=230)})
    use = cpu.used(before, after, cpu.store_of)
    assert use.by_group["hbase"] == 80 * cpu.TICK_MS
    assert use.jit_by_group == {"hbase": 30 * cpu.TICK_MS}
    assert use.jit_per(10) == {"hbase": 3 * cpu.TICK_MS}


def test_the_jit_compiler_threads_of_a_running_hbase_jvm_are_read() -> None:
    """The HBase JVMs of the test stack have compiled code since they started."""
    jvms = [p for p in cpu.snapshot().processes.values()
            if cpu.store_of(p) == "hbase" and "java" in p.command]
    assert jvms
    assert all(0 < p.jit_ticks < p.ticks for p in jvms)
