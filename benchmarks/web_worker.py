"""``manage.py bench web``: what the web server itself costs a request, with the site's worker
(:mod:`pinsite.serving.threaded`) and with gunicorn's ``gthread``, in alternating rounds.

Each round starts gunicorn once per worker class and target, on a free loopback port, with
the site's layout (workers and threads), and has ``clients`` threads of this process make
requests over kept-alive connections for ``seconds`` seconds after a warm-up. It reports the
web processes' CPU per request (from ``/proc``: the gunicorn master's children) and requests
per second, for two targets:

* **bare**: a WSGI application that answers at once (:mod:`benchmarks.bare_app`): the
  server's own cost, nothing else;
* **profile**: the site (gunicorn's configuration of :mod:`pinsite.serving.gunicorn`, the
  worker class aside) serving a pinner's profile over the API, beside the same request's CPU
  called in process through Django's test client (routing, middleware and the view, no HTTP):
  the ``web ÷ view`` ratio of ``bench site``, for one kind of request.

Figures are medians over the rounds; the load generator runs on the same two cores, so
requests per second are the machine's, while CPU per request is the server's own.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandParser
from django.test import Client
from rest_framework.authtoken.models import Token

from benchmarks import cpu
from benchmarks.measure import (
    closed_loop,
    ratio,
    token_session,
    wait_until_quiet,
    wait_until_serving,
)
from devstack.ports import free_loopback_ports
from pins.actions import create_pinner
from pinsite.serving import gunicorn as site_gunicorn
from pinsite.serving.layout import web_threads, web_workers
from toolkit.commands import Bounded

NAME = "web"
HELP = "the web server's own CPU per request: the site's worker against gunicorn's gthread"
STOCK = "gthread"
WARM_UP = 3.0  # seconds of requests before each measurement: connections open, caches warm


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--rounds", type=int, action=Bounded, maximum=20, default=3,
                        help="rounds, each measuring every worker class and target once")
    parser.add_argument("--seconds", type=float, action=Bounded, maximum=300, default=8.0,
                        help="length of each measurement")
    parser.add_argument("--clients", type=int, action=Bounded, maximum=256, default=16,
                        help="concurrent clients, each on kept-alive connections")
    parser.add_argument("--samples", type=int, action=Bounded, default=300,
                        help="requests of the profile page called in process")


def run(rounds: int, seconds: float, clients: int, samples: int,
        progress: Callable[[str], None]) -> dict[str, Any]:
    classes = [site_gunicorn.worker_class, STOCK]
    pinner = create_pinner(f"benchweb{os.urandom(3).hex()}", None, display_name="Bench web")
    token = Token.objects.get_or_create(user=pinner.account)[0].key
    page = f"/api/v1/users/{pinner.user_id}/"
    view_ms = _in_process(page, token, samples)
    progress(f"the profile page in process: {view_ms:.3f} ms of CPU a request")
    measured: dict[tuple[str, str], list[dict[str, float]]] = {}
    for number in range(rounds):
        order = classes if number % 2 == 0 else classes[::-1]
        for target in ("bare", "profile"):
            for worker_class in order:
                progress(f"round {number + 1}: {target} with {worker_class}")
                figures = _measure(worker_class, target, page, token, clients, seconds)
                measured.setdefault((target, worker_class), []).append(figures)
    result: dict[str, Any] = {"workers": web_workers(), "threads": web_threads(),
                              "clients": clients, "rounds": rounds, "seconds": seconds,
                              "profile_view_in_process_cpu_ms": round(view_ms, 3)}
    for target in ("bare", "profile"):
        shown: dict[str, Any] = {}
        cpu_of: dict[str, float] = {}
        for worker_class in classes:
            runs = measured[target, worker_class]
            cpu_ms = cpu_of[worker_class] = statistics.median(run["cpu_ms"] for run in runs)
            shown[_short(worker_class)] = {
                "web_cpu_ms_per_request": round(cpu_ms, 3),
                "requests_per_second": round(statistics.median(run["per_s"] for run in runs), 1),
                "runs_cpu_ms": [round(run["cpu_ms"], 3) for run in runs],
                **({"web_to_view": ratio(cpu_ms, view_ms)} if target == "profile" else {})}
        shown["cpu_ratio_site_worker_to_gthread"] = ratio(cpu_of[classes[0]], cpu_of[STOCK])
        result[target] = shown
    return result


def _short(worker_class: str) -> str:
    return worker_class.rsplit(".", 1)[-1]


def _in_process(page: str, token: str, samples: int) -> float:
    """The page's CPU a request in this process, through Django's test client."""
    client = Client(headers={"Authorization": f"Token {token}"})
    for _ in range(50):
        if client.get(page).status_code != 200:
            raise RuntimeError(f"{page} did not answer 200 in process")
    started = time.process_time()
    for _ in range(samples):
        client.get(page)
    return (time.process_time() - started) * 1000 / samples


def _measure(worker_class: str, target: str, page: str, token: str, clients: int,
             seconds: float) -> dict[str, float]:
    with _server(worker_class, target) as (url, master):
        path = url + (page if target == "profile" else "/")
        sessions = [token_session(token) for _ in range(clients)]
        counts = [0] * clients
        failures: list[int] = []

        def client(index: int) -> Callable[[Callable[[], bool]], None]:
            def loop(going: Callable[[], bool]) -> None:
                while going():
                    status = sessions[index].get(path, timeout=30).status_code
                    if status != 200:
                        failures.append(status)
                    counts[index] += 1
            return loop

        closed_loop([client(index) for index in range(clients)], WARM_UP)
        wait_until_quiet(idle=0.7, longest=10)  # every worker booted, the load gone
        counts[:] = [0] * clients
        before = cpu.snapshot()
        took = closed_loop([client(index) for index in range(clients)], seconds)
        use = cpu.used(before, cpu.snapshot(), cpu.groups_of_site(master, os.getpid()))
        for session in sessions:
            session.close()
    if failures:
        raise RuntimeError(f"{target} with {worker_class}: {len(failures)} requests failed "
                           f"(first answer {failures[0]})")
    done = sum(counts)
    return {"cpu_ms": use.by_group.get("web", 0.0) / max(1, done), "per_s": done / took}


@contextmanager
def _server(worker_class: str, target: str) -> Iterator[tuple[str, int]]:
    """gunicorn with ``worker_class`` serving ``target`` on a free loopback port, with the
    site's layout: its URL and the master's pid."""
    [port] = free_loopback_ports(1)
    url = f"http://127.0.0.1:{port}"
    log = Path(settings.VAR_DIR) / "bench-web.log"
    app = (["benchmarks.bare_app:application"] if target == "bare"
           else ["-c", "python:pinsite.serving.gunicorn"])
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", *app, "--worker-class", worker_class,
         "--bind", f"127.0.0.1:{port}", "--workers", str(web_workers()),
         "--threads", str(web_threads()), "--keep-alive", "15"],
        cwd=settings.BASE_DIR, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        wait_until_serving(f"gunicorn with {worker_class}", url, process, log)
        yield url, process.pid
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=60)

