"""``manage.py runsite [ADDR:PORT]``: the development site with a queue worker beside it."""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Serve the site (runserver) with a Dramatiq worker process beside it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--threads", type=int, default=4, help="worker threads")

    def handle(self, *args: Any, addrport: str, threads: int, **options: Any) -> None:
        worker = subprocess.Popen([sys.executable, "-m", "dramatiq", "pinsite.worker",
                                   "--processes", "1", "--threads", str(threads)])
        self.stdout.write(f"queue worker running (pid {worker.pid})")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            call_command("runserver", addrport, use_reloader=False, insecure_serving=True)
        finally:
            worker.terminate()
            worker.wait(timeout=30)
