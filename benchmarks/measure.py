"""Shared measuring tools for the ``manage.py bench`` commands.

Every benchmark prints its figures beside the raw ceiling of the store underneath, measured in
the same run; quote medians and ratios, since the machines are shared and noisy.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from benchmarks.cpu import PROC, machine_ticks


@dataclass(frozen=True)
class Latency:
    """Latency percentiles in microseconds over ``samples`` calls."""

    samples: int
    p50_us: float
    p99_us: float
    mean_us: float

    @classmethod
    def of(cls, timings: list[float]) -> Latency:
        """The percentiles of ``timings`` (microseconds, in any order)."""
        ordered = sorted(timings)
        return cls(len(ordered), percentile(ordered, 0.50), percentile(ordered, 0.99),
                   sum(ordered) / len(ordered))

    def to_json(self) -> dict[str, Any]:
        return {"samples": self.samples, "p50_us": round(self.p50_us, 1),
                "p99_us": round(self.p99_us, 1), "mean_us": round(self.mean_us, 1)}


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def latency(call: Callable[[int], object], samples: int) -> Latency:
    """Time ``call(i)`` for ``i`` in ``range(samples)``."""
    timings = []
    for index in range(samples):
        start = time.perf_counter_ns()
        call(index)
        timings.append((time.perf_counter_ns() - start) / 1000)
    return Latency.of(timings)


def rate(call: Callable[[int], object], count: int) -> float:
    """Calls per second of ``call(i)`` for ``i`` in ``range(count)``."""
    start = time.perf_counter()
    for index in range(count):
        call(index)
    return count / (time.perf_counter() - start)


def closed_loop(clients: Sequence[Callable[[Callable[[], bool]], None]], seconds: float,
                ) -> float:
    """Run each of ``clients`` on a thread of its own, all released at once; each loops while
    the ``going()`` it is given says so (``seconds`` from the release). Returns the seconds
    from the release until the last client finished."""
    start = threading.Barrier(len(clients) + 1)
    deadline = 0.0

    def going() -> bool:
        return time.perf_counter() < deadline

    def run(client: Callable[[Callable[[], bool]], None]) -> None:
        start.wait()
        client(going)

    threads = [threading.Thread(target=run, args=(client,), daemon=True) for client in clients]
    for thread in threads:
        thread.start()
    deadline = time.perf_counter() + seconds
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began


def token_session(token: str) -> requests.Session:
    """An HTTP session (kept-alive connections) that sends the API token ``token``."""
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    return session


def wait_until_serving(name: str, url: str, process: subprocess.Popen[bytes], log: Path,
                       longest: float = 60.0) -> None:
    """Wait until the server ``process`` answers ``url``/healthz; RuntimeError (naming
    ``name`` and its ``log``) if it exits first or does not answer within ``longest`` s."""
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited: see {log}")
        try:
            if requests.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} did not answer within {longest:g} s: see {log}")


def ratio(value: float, ceiling: float) -> float:
    return round(value / ceiling, 2) if ceiling else float("nan")


def wait_until_quiet(idle: float = 0.7, window: float = 0.5, longest: float = 30.0) -> float:
    """Wait until the machine's CPUs were at least ``idle`` idle over ``window`` seconds (at
    most ``longest`` seconds), so that work started before (a set-up's 10,000 inserts being
    flushed by MySQL, say) does not land in the measurement; returns the seconds waited.
    Without ``/proc/stat`` (not Linux) it returns at once."""
    if not (PROC / "stat").exists():
        return 0.0
    started = time.monotonic()
    before = machine_ticks()
    while time.monotonic() - started < longest:
        time.sleep(window)
        after = machine_ticks()
        busy, total = after[0] - before[0], after[1] - before[1]
        if total and (total - busy) / total >= idle:
            break
        before = after
    return round(time.monotonic() - started, 1)


