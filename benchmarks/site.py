"""``manage.py bench site``: the whole site under load over HTTP, beside the same requests
called in process.

1. **Set-up.** What the queues held from before is worked off first (``queues work-off``): a
   backlog left by a seeding or another bench would otherwise be worked during the load and
   its CPU counted as the mix's. Then bench pinners (a board and pins each, following each
   other), each with an API token. A site of its own is started with ``manage.py runsite``
   on a free loopback port (gunicorn, the queue workers; API write throttling lifted for the
   run, so every write is measured rather than refused).
2. **In process.** After a warm-up, each kind of request is made through Django's test client
   in this process: routing, middleware and the view, no HTTP. That is the cost the server
   cannot go below.
3. **One client, keep-alive.** Right after, the same kind of request, one at a time over
   kept-alive connections: the difference to (2) is the HTTP server's own cost per request.
   Before each phase the queues are drained and the machine left to go quiet.
4. **Load.** ``clients`` threads, each a pinner with its own keep-alive session, make the mix
   below for ``seconds`` seconds: requests/s, p50/p99 per kind, 5xx and other failures.
5. **CPU.** From the load's start until the queue work it caused is done: the machine's CPU
   per request and each kind of process's (:mod:`benchmarks.cpu`), beside the CPU the same
   mix costs called in process (2). Of it, what the JVMs' JIT compilers spent (HBase's, while
   they compile code the load reaches first) is also given, and the machine's figure without
   it (``machine_without_jit``): a stack started minutes before pays several milliseconds a
   request of it, an hour-old one less. Before the load, the site and its stack are measured
   for ``IDLE_SECONDS`` with no request (``idle_cpu_ms_per_second``); that rate over the
   load's stretch, a request, is ``idle_cpu_ms_per_request``: the part of the machine's
   figure the stack spends whether requests come or not.
6. **Against the plain peer** (``--peer``): the feed page beside a plain one-database Django +
   DRF implementation of it at two data sizes (:mod:`benchmarks.peer`).
7. **Each kind alone** (``--by-kind``): the same clients make one kind of request only, for
   ``--kind-seconds``, and its CPU is measured as in (5), queue work included. The kinds'
   figures weighted as the mix made them (``mix_from_kinds``) beside the mix's own show what
   the kinds cost when they share the machine, and which kinds make the machine's figure.

The mix: feed 30%, home 15%, profile 15%, board 10%, pin page (HTML) 10%, follow/unfollow 10%,
batch check 5%, pin creation 5%. Loopback only; every figure comes from the same run.
"""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import requests
from django.conf import settings
from django.core.management.base import CommandParser
from django.test import Client
from PIL import Image
from rest_framework.authtoken.models import Token

from benchmarks import cpu
from benchmarks import peer as peers
from benchmarks.measure import (
    Latency,
    closed_loop,
    ratio,
    token_session,
    wait_until_quiet,
    wait_until_serving,
)
from devstack.ports import free_loopback_ports
from graph import actions as graph
from pins.actions import create_board, create_pin, create_pinner
from pinsite.admin.queues import queue_depths
from pinsite.backlog import work_off
from pinsite.serving.layout import web_threads, web_workers
from toolkit.commands import Bounded

MIX: dict[str, float] = {"feed": .30, "home": .15, "profile": .15, "board": .10, "pin_page": .10,
                         "follow": .10, "batch_check": .05, "create_pin": .05}
PINS_PER_PINNER = 3
FOLLOWS_PER_PINNER = 5
WARM_UP = 48  # untimed requests of each kind first: every session connected, every cache warm
IDLE_SECONDS = 10.0  # the site and stack measured with no request, before the load


@dataclass
class BenchPinner:
    user_id: int
    username: str
    token: str
    board_id: int
    pin_ids: list[int]
    following: set[int] = field(default_factory=set)


@dataclass
class Request:
    method: str
    path: str
    data: dict[str, Any] | None = None
    files: dict[str, Any] | None = None
    auth: bool = True


NAME = "site"
HELP = "the whole site over HTTP under a mix of clients, beside the same requests in process"


def add_arguments(parser: CommandParser) -> None:
    parser.add_argument("--clients", type=int, action=Bounded, maximum=256, default=16,
                        help="concurrent clients")
    parser.add_argument("--seconds", type=float, action=Bounded, maximum=600, default=20.0,
                        help="length of the load")
    parser.add_argument("--samples", type=int, action=Bounded, default=200,
                        help="requests of each kind timed one at a time")
    parser.add_argument("--workers", type=int, action=Bounded, default=web_workers(),
                        help="web worker processes of the bench's site (default: the site's)")
    parser.add_argument("--threads", type=int, action=Bounded, default=web_threads(),
                        help="threads per web worker (default: the site's)")
    parser.add_argument("--by-kind", action="store_true",
                        help="then each kind of request alone under the same clients: its CPU "
                             "per request by process group, and the mix predicted from them")
    parser.add_argument("--kind-seconds", type=float, action=Bounded, maximum=600, default=10.0,
                        help="length of each kind's load with --by-kind")
    parser.add_argument("--peer", action="store_true",
                        help="then the feed page against a plain one-database Django + DRF "
                             "implementation of it (benchmarks.peer; fills its database once)")


def run(clients: int, seconds: float, samples: int, workers: int, threads: int, peer: bool,
        progress: Callable[[str], None], by_kind: bool = False,
        kind_seconds: float = 10.0) -> dict[str, Any]:
    progress("working off what the queues held from before")
    earlier = work_off()
    pinners = _population(max(clients, 8) * 2, progress)
    image = _png()
    in_process: dict[str, Timed] = {}
    one_client: dict[str, Latency] = {}
    site = _site(workers, threads, progress)
    with site as url:
        for kind in MIX:
            progress(f"{kind}: in process, then over one kept-alive connection")
            _settle()
            in_process[kind] = _in_process(kind, pinners, image, samples)
            _settle()
            one_client[kind] = _one_client(url, kind, pinners, image, samples).latency
        group_of = cpu.groups_of_site(site.pid, os.getpid())
        progress(f"the site and its stack with no requests for {IDLE_SECONDS:g} s")
        _settle()
        idle = _idle(group_of)
        progress(f"{clients} clients for {seconds:g} s")
        load, use, window = _measured(url, pinners[:clients], image, seconds, group_of)
        kinds_alone = ({"by_kind": _by_kind(url, pinners[:clients], image, kind_seconds,
                                            group_of, in_process, load, use, progress)}
                       if by_kind else {})
        against = ({"feed_vs_plain_django": peers.compare(url, clients, seconds, workers, threads,
                                                          image, _settle, progress)}
                   if peer else {})
    return {
        "clients": clients, "seconds": seconds, "web_workers": workers, "web_threads": threads,
        "cores": os.cpu_count(), "worked_off_before": earlier.found,
        "per_kind": {kind: {
            "in_process": in_process[kind].latency.to_json(),
            "keep_alive_one_client": one_client[kind].to_json(),
            "http_overhead_p50_ms": round((one_client[kind].p50_us
                                           - in_process[kind].latency.p50_us) / 1000, 2),
            "cpu_ms_in_process": round(in_process[kind].cpu_ms, 3),
            "under_load": load["kinds"].get(kind)} for kind in MIX},
        "requests_per_second": load["requests_per_second"],
        "requests": load["requests"], "server_errors_5xx": load["server_errors"],
        "other_failures": load["failures"],
        **_cpu_per_request(use, load["requests"], _view_of(load, in_process)),
        **_idle_floor(idle, window, load["requests"]),
        **kinds_alone,
        **against,
    }


def _measured(url: str, clients: list[BenchPinner], image: bytes, seconds: float,
              group_of: Callable[[cpu.Process, dict[int, cpu.Process]], str],
              mix: dict[str, float] = MIX) -> tuple[dict[str, Any], cpu.CpuUse, float]:
    """A load of ``mix`` (:func:`_load`) and the CPU it used by ``group_of``'s groups, from its
    start until the queue work it caused is done, and how many seconds that took."""
    before, started = cpu.snapshot(), time.monotonic()
    load = _load(url, clients, image, seconds, mix)
    _drain()
    return load, cpu.used(before, cpu.snapshot(), group_of), time.monotonic() - started


def _view_of(load: dict[str, Any], in_process: dict[str, Timed]) -> float:
    """The view's CPU in process for the load's mix: each kind's, weighted by how often the
    load made it."""
    made = _made(load)
    return sum(in_process[kind].cpu_ms * count for kind, count in made.items()) / max(
        1, sum(made.values()))


def _made(load: dict[str, Any]) -> dict[str, int]:
    """How many requests of each kind a load made."""
    return {kind: figures["samples"] for kind, figures in load["kinds"].items()}


def _cpu_per_request(use: cpu.CpuUse, requests: int, view: float) -> dict[str, Any]:
    """A load's CPU per request (the queue work it caused included): the machine's (with and
    without the JVMs' compilers), the web processes', and ``view``, the same requests' CPU
    called in process."""
    per_request, jit = use.per(requests), use.jit_per(requests)
    web, machine = per_request.get("web", 0.0), per_request.get("machine", 0.0)
    return {"cpu_ms_per_request": {"machine": machine, "web": web,
                                   "view_in_process": round(view, 3),
                                   "web_to_view": ratio(web, view),
                                   "machine_without_jit": round(machine - sum(jit.values()), 3)},
            "cpu_ms_per_request_by_group": per_request,
            "jit_compilers_ms_per_request_by_group": jit}


def _idle(group_of: Callable[[cpu.Process, dict[int, cpu.Process]], str]) -> cpu.CpuUse:
    """The CPU the site and its stack spend over ``IDLE_SECONDS`` with no request: the JVMs'
    timers, the replicas and sentinels, the queue workers' relay and samplers."""
    before = cpu.snapshot()
    time.sleep(IDLE_SECONDS)
    return cpu.used(before, cpu.snapshot(), group_of)


def _idle_floor(idle: cpu.CpuUse, window: float, requests: int) -> dict[str, Any]:
    """The idle CPU a second (the machine's and each group's), and what that rate costs over
    the load's stretch, ``window`` seconds, divided by its requests."""
    if not requests:
        return {}
    per_second = {name: round(ms / IDLE_SECONDS, 1)
                  for name, ms in {"machine": idle.machine_ms, **idle.by_group}.items()}
    idle_share = idle.machine_ms / IDLE_SECONDS * window / requests
    return {"idle_cpu_ms_per_second": per_second,
            "idle_cpu_ms_per_request": round(idle_share, 3)}


def _by_kind(url: str, clients: list[BenchPinner], image: bytes, seconds: float,
             group_of: Callable[[cpu.Process, dict[int, cpu.Process]], str],
             in_process: dict[str, Timed], mix_load: dict[str, Any], mix_use: cpu.CpuUse,
             progress: Callable[[str], None]) -> dict[str, Any]:
    """Each kind alone under ``clients`` for ``seconds`` (after a short warm-up), its CPU
    measured until the queue work it caused is done; then the kinds' figures weighted by how
    often the mix's load made each (:func:`mix_from_kinds`); the mix's own figures divided by
    that prediction are what the kinds add to each other's cost when they share the machine."""
    kinds: dict[str, Any] = {}
    for kind in MIX:
        progress(f"{kind} alone: {len(clients)} clients for {seconds:g} s")
        _settle()
        _load(url, clients, image, min(3.0, seconds), {kind: 1.0})
        _settle()
        load, use, _ = _measured(url, clients, image, seconds, group_of, {kind: 1.0})
        kinds[kind] = {"requests_per_second": load["requests_per_second"],
                       "server_errors_5xx": load["server_errors"],
                       "other_failures": load["failures"],
                       **_cpu_per_request(use, load["requests"], in_process[kind].cpu_ms)}
    return {"seconds": seconds, "kinds": kinds,
            **mix_from_kinds({kind: figures["cpu_ms_per_request"]
                              for kind, figures in kinds.items()},
                             _made(mix_load), mix_use.per(mix_load["requests"]))}


def mix_from_kinds(alone: dict[str, dict[str, float]], made: dict[str, int],
                   measured: dict[str, float]) -> dict[str, Any]:
    """The mix predicted from each kind's CPU a request alone (``alone``: kind → ``machine``,
    ``web``, ``view_in_process``), weighted by how many requests of each kind the mix made:
    each kind's share of the predicted machine figure, the prediction, and the ``measured``
    mix's figures (``machine``, ``web``) divided by it."""
    total = max(1, sum(made.values()))

    def weighted(figure: str) -> float:
        return round(sum(alone[kind][figure] * count for kind, count in made.items()) / total,
                     3)

    predicted = {figure: weighted(figure) for figure in ("machine", "web", "view_in_process")}
    return {
        "machine_share_by_kind": {kind: ratio(alone[kind]["machine"] * count / total,
                                              predicted["machine"])
                                  for kind, count in made.items()},
        "mix_from_kinds": {**predicted,
                           "web_to_view": ratio(predicted["web"], predicted["view_in_process"])},
        "mix_measured_to_from_kinds": {figure: ratio(measured.get(figure, 0.0),
                                                     predicted[figure])
                                       for figure in ("machine", "web")},
    }


# --- Requests --------------------------------------------------------------------------------

def _request(kind: str, me: BenchPinner, pinners: list[BenchPinner], image: bytes,
             rng: random.Random) -> Request:
    other = rng.choice([p for p in pinners if p.user_id != me.user_id])
    if kind == "feed":
        return Request("GET", "/api/v1/me/feed/?limit=25")
    if kind == "home":
        return Request("GET", "/api/v1/me/home/?limit=25")
    if kind == "profile":
        return Request("GET", f"/api/v1/users/{other.user_id}/")
    if kind == "board":
        return Request("GET", f"/api/v1/boards/{other.board_id}/pins/?limit=25")
    if kind == "pin_page":
        return Request("GET", f"/pin/{rng.choice(other.pin_ids)}/", auth=False)
    if kind == "follow":
        path = f"/api/v1/users/{other.user_id}/follow/"
        if other.user_id in me.following:
            me.following.discard(other.user_id)
            return Request("DELETE", path)
        me.following.add(other.user_id)
        return Request("PUT", path)
    if kind == "batch_check":
        ids = ",".join(str(p.user_id) for p in rng.sample(pinners, min(20, len(pinners))))
        return Request("GET", f"/api/v1/me/follows/?users={ids}")
    if kind == "create_pin":
        return Request("POST", "/api/v1/pins/", data={"board_id": str(me.board_id),
                                                      "title": "Bench pin"},
                       files={"image": ("bench.png", image, "image/png")})
    raise ValueError(kind)


@dataclass(frozen=True)
class Timed:
    latency: Latency
    cpu_ms: float
    """This process's mean CPU time per request (every thread of it)."""


def _timed(kind: str, pinners: list[BenchPinner], image: bytes, samples: int,
           rng: random.Random, prepared: Callable[[Request, BenchPinner], Callable[[], int]],
           where: str) -> Timed:
    """``samples`` requests of ``kind`` (after a warm-up) one at a time, each made ready by
    ``prepared`` outside the timing and sent by the callable it returns (the status code)."""
    timings, cpu_ns = [], 0
    for index in range(-WARM_UP, samples):
        me = pinners[index % len(pinners)]
        request = _request(kind, me, pinners, image, rng)
        send = prepared(request, me)
        started, cpu_started = time.perf_counter_ns(), time.process_time_ns()
        status = send()
        if index >= 0:
            timings.append((time.perf_counter_ns() - started) / 1000)
            cpu_ns += time.process_time_ns() - cpu_started
        if status >= 400:
            raise RuntimeError(f"{kind}: {request.method} {request.path} answered {status} "
                               f"{where}")
    return Timed(Latency.of(timings), cpu_ns / 1e6 / max(1, samples))


def _in_process(kind: str, pinners: list[BenchPinner], image: bytes, samples: int) -> Timed:
    client = Client()

    def prepared(request: Request, me: BenchPinner) -> Callable[[], int]:
        headers = {"Authorization": f"Token {me.token}"} if request.auth else {}
        data: Any = request.data
        if request.files:
            name, content, _ = request.files["image"]
            upload = io.BytesIO(content)
            upload.name = name
            data = {**(request.data or {}), "image": upload}
        if request.method == "POST":
            return lambda: client.post(request.path, data, headers=headers).status_code
        return lambda: client.generic(request.method, request.path, headers=headers).status_code

    return _timed(kind, pinners, image, samples, random.Random(kind), prepared, "in process")


def _one_client(url: str, kind: str, pinners: list[BenchPinner], image: bytes,
                samples: int) -> Timed:
    sessions = {p.user_id: token_session(p.token) for p in pinners}
    anonymous = requests.Session()

    def prepared(request: Request, me: BenchPinner) -> Callable[[], int]:
        session = sessions[me.user_id] if request.auth else anonymous
        return lambda: session.request(request.method, url + request.path, data=request.data,
                                       files=request.files, timeout=30).status_code

    return _timed(kind, pinners, image, samples, random.Random(kind + "http"), prepared,
                  "over HTTP")


def _load(url: str, clients: list[BenchPinner], image: bytes, seconds: float,
          mix: dict[str, float] = MIX) -> dict[str, Any]:
    kinds, weights = list(mix), list(mix.values())
    timings: dict[str, list[float]] = {kind: [] for kind in mix}
    counts = {"server_errors": 0, "failures": 0}
    lock = threading.Lock()

    def client(me: BenchPinner, seed: int, going: Callable[[], bool]) -> None:
        rng = random.Random(seed)
        session, anonymous = token_session(me.token), requests.Session()
        mine: dict[str, list[float]] = {kind: [] for kind in mix}
        server_errors = failures = 0
        while going():
            kind = rng.choices(kinds, weights)[0]
            request = _request(kind, me, clients, image, rng)
            began = time.perf_counter_ns()
            try:
                response = (session if request.auth else anonymous).request(
                    request.method, url + request.path, data=request.data,
                    files=request.files, timeout=30)
            except requests.RequestException:
                failures += 1
                continue
            mine[kind].append((time.perf_counter_ns() - began) / 1000)
            if response.status_code >= 500:
                server_errors += 1
            elif response.status_code >= 400:
                failures += 1
        with lock:
            for kind, values in mine.items():
                timings[kind].extend(values)
            counts["server_errors"] += server_errors
            counts["failures"] += failures

    elapsed = closed_loop([partial(client, me, n) for n, me in enumerate(clients)], seconds)
    total = sum(len(values) for values in timings.values())
    return {"requests": total, "requests_per_second": round(total / elapsed, 1),
            "kinds": {kind: {**Latency.of(values).to_json(),
                             "per_second": round(len(values) / elapsed, 1)}
                      for kind, values in timings.items() if values},
            **counts}


def _settle() -> None:
    """Wait until the site's queue workers have nothing left (the work the last phase's
    writes caused) and the machine is quiet, so no phase pays for the one before."""
    _drain()
    wait_until_quiet()


def _drain(longest: float = 120.0) -> None:
    """Wait until the site's queue workers have nothing ready or delayed (deliveries' counts
    wait a second in the delay queue)."""
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline and any(depth.waiting
                                              for depth in queue_depths()):
        time.sleep(0.2)


# --- Set-up ----------------------------------------------------------------------------------

def _population(count: int, progress: Callable[[str], None]) -> list[BenchPinner]:
    """``count`` new pinners with a board, pins and a token; each follows a few others."""
    progress(f"creating {count} bench pinners with {PINS_PER_PINNER} pins each")
    image = _png()
    run_id = uuid.uuid4().hex[:6]
    pinners = []
    for n in range(count):
        pinner = create_pinner(f"bench{run_id}{n}", None, display_name=f"Bench {n}")
        board = create_board(pinner.user_id, "Bench board")
        pins = [create_pin(pinner.user_id, board.id, f"Bench pin {k}", "", "", image).id
                for k in range(PINS_PER_PINNER)]
        token, _ = Token.objects.get_or_create(user=pinner.account)
        pinners.append(BenchPinner(pinner.user_id, pinner.username, token.key, board.id, pins))
    rng = random.Random(run_id)
    for me in pinners:
        for other in rng.sample([p for p in pinners if p is not me], FOLLOWS_PER_PINNER):
            graph.follow_user(me.user_id, other.user_id)
            me.following.add(other.user_id)
    return pinners


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 120, 40)).save(out, "PNG")
    return out.getvalue()


class _site:
    """``manage.py runsite`` on a free loopback port, for the bench only."""

    def __init__(self, workers: int, threads: int, progress: Callable[[str], None]) -> None:
        self.workers, self.threads, self.progress = workers, threads, progress
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None, "the site is not started"
        return self.process.pid

    def __enter__(self) -> str:
        [port] = free_loopback_ports(1)
        url = f"http://127.0.0.1:{port}"
        var = Path(settings.VAR_DIR) / "bench-site"
        var.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PINSITE_VAR": str(var), "PINSITE_MEDIA_ROOT": str(
            settings.MEDIA_ROOT), "PINSITE_API_WRITE_RATE": "1000000/minute"}
        self.progress(f"starting the site on {url} ({self.workers} workers x {self.threads} "
                      "threads)")
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "runsite", f"127.0.0.1:{port}", "--workers",
             str(self.workers), "--threads", str(self.threads)],
            cwd=settings.BASE_DIR, env=env, stdout=(var / "runsite.log").open("wb"),
            stderr=subprocess.STDOUT)
        try:
            wait_until_serving("the bench site", url, self.process, var / "runsite.log")
        except RuntimeError:
            self.__exit__()
            raise
        return url

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)
