"""``manage.py queues work-off``: work every queue in this process until none holds a message.

``make run`` ends its set-up with it, so the site starts with nothing queued in front of a
pinner's first action: what the demo's seeding, the Home rebuilds of empty pools and any
earlier bench left (:mod:`pinsite.backlog`). The queues' depths are on the admin's queues page
and in ``manage.py feed lag``.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import CommandParser

from pinsite.backlog import BacklogNotWorkedOff, WorkedOff, work_off
from toolkit.commands import Bounded, SubcommandCommand, progress
from toolkit.errors import StoreUnavailable


class Command(SubcommandCommand):
    help = "The site's queues: work them off in this process before the site serves."
    error_types = (StoreUnavailable, BacklogNotWorkedOff)

    def add_subcommands(self, subparsers: Any, parent: CommandParser) -> None:
        working = self.add_subparser(
            subparsers, parent, "work-off",
            "publish what this process holds and work every queue here until none holds a "
            "message (ready, delayed or in progress); what is left after --seconds stays queued")
        working.add_argument("--seconds", type=float, action=Bounded, default=600,
                             maximum=86_400, help="give up after this long (default 600)")
        working.add_argument("--quiet", action="store_true", help="no progress bar")

    def handle_work_off(self, seconds: float, quiet: bool, **_: Any) -> None:
        started = time.monotonic()
        with progress(0, "queued messages worked off", not quiet) as bar:
            def tick(so_far: WorkedOff) -> None:
                bar.update(so_far.worked - bar.n)
            done = work_off(tick, seconds)
        if not done.found:
            self.stdout.write("Nothing was queued.")
            return
        self.stdout.write(f"Worked off {done.worked:,} queued messages ({done.found:,} at the "
                          f"start, the rest sent by their work) in "
                          f"{time.monotonic() - started:.1f} s.")
