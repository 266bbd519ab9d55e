"""``manage.py runsite [ADDR:PORT]``: the whole site in one command, as production runs it.

Starts, as child processes:

- the web server: gunicorn with threaded workers (:mod:`pinsite.serving.gunicorn`), static
  files served by WhiteNoise after a ``collectstatic``;
- the queue workers: ``dramatiq pinsite.worker`` (the outbox relay runs inside them);
- with ``--orchestrator`` (``make run`` gives it), one ``manage.py orchestrator run``: a dead
  shard master failed over, and the graph's masters that Sentinel promoted (also while the
  site was stopped) taken into the vshard map, as a deployment's orchestrators do.

Every child writes its metrics to ``var/<profile>/metrics`` (emptied at start), so the site's
``/metrics`` sums them all. The command writes its pid to ``var/<profile>/runsite.pid`` (``make
stop`` ends it); SIGTERM or Ctrl-C stop the children gracefully. If a child exits on its own,
the others are stopped too and the command fails: a supervisor (systemd, see
``docs/deployment.md``) restarts what it runs.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pinsite import env
from pinsite.serving.layout import web_threads, web_workers
from toolkit.commands import require_counts

STOP_SECONDS = 30


class Command(BaseCommand):
    help = ("Serve the site with gunicorn (threaded workers, WhiteNoise for static files) and "
            "the queue workers beside it; SIGTERM or Ctrl-C stop them all.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--workers", type=int, default=web_workers(),
                            help="web worker processes (default two per core)")
        parser.add_argument("--threads", type=int, default=web_threads(),
                            help="threads per web worker (default 2)")
        parser.add_argument("--queue-processes", type=int, default=1,
                            help="queue worker processes")
        parser.add_argument("--queue-threads", type=int, default=4,
                            help="threads per queue worker process (default 4: here one "
                                 "process serves every queue; a deployment runs one per core "
                                 "with 2 threads, docs/feed.md)")
        parser.add_argument("--orchestrator", action="store_true",
                            help="run an orchestrator beside the site (manage.py orchestrator "
                                 "run): automatic failover of the shard masters, Sentinel's "
                                 "graph promotions followed into the vshard map")

    def handle(self, *args: Any, addrport: str, workers: int, threads: int,
               queue_processes: int, queue_threads: int, orchestrator: bool,
               **options: Any) -> None:
        if ":" not in addrport:
            addrport = f"127.0.0.1:{addrport}"
        require_counts(("--workers", workers), ("--threads", threads),
                       ("--queue-processes", queue_processes),
                       ("--queue-threads", queue_threads))
        var = Path(settings.VAR_DIR)
        metrics_dir = var / "metrics"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir(parents=True)
        call_command("collectstatic", interactive=False, verbosity=0)
        child_env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
                     "dramatiq_prom_db": str(metrics_dir), "dramatiq_prom_host": "127.0.0.1",
                     "dramatiq_prom_port": str(env.port_base() + 191),
                     "PINSITE_BIND": addrport}
        children = {
            "web": subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", "python:pinsite.serving.gunicorn",
                 "--workers", str(workers), "--threads", str(threads)], env=child_env),
            "queue": subprocess.Popen(
                [sys.executable, "-m", "dramatiq", "pinsite.worker", "--processes",
                 str(queue_processes), "--threads", str(queue_threads)], env=child_env),
        }
        if orchestrator:
            children["orchestrator"] = subprocess.Popen(
                [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "orchestrator",
                 "run"], env=child_env)
        pid_file = var / "runsite.pid"
        pid_file.write_text(f"{os.getpid()}\n")
        beside = f"; orchestrator pid {children['orchestrator'].pid}" if orchestrator else ""
        self.stdout.write(f"serving http://{addrport}/ (gunicorn pid {children['web'].pid}, "
                          f"{workers} workers x {threads} threads); queue workers pid "
                          f"{children['queue'].pid}{beside}; metrics at /metrics")
        stopping = False

        def stop(*_: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        failed = None
        try:
            while not stopping and failed is None:
                failed = next((name for name, child in children.items()
                               if child.poll() is not None), None)
                time.sleep(0.2)
        finally:
            _stop(children.values())
            pid_file.unlink(missing_ok=True)
        if failed is not None:
            raise CommandError(f"the {failed} process exited (code {children[failed].returncode});"
                               " every process of the site was stopped")


def _stop(children: Any) -> None:
    """SIGTERM each child (graceful for gunicorn and dramatiq), then SIGKILL the late."""
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
