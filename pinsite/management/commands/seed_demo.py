"""``manage.py seed_demo``: demo pinners with boards, pins and repins, who follow each other."""

from __future__ import annotations

import time
from argparse import ArgumentTypeError
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from graph.demo import follow_steps, seed_follows
from graph.exceptions import GraphError
from pins.demo import DEMO_PASSWORD, DEMO_USERNAME, DemoPlan, seed_demo
from pins.exceptions import ContentError
from pins.models import Pinner
from sharding.exceptions import ShardingError
from toolkit.commands import one_line_errors, progress


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ArgumentTypeError(f"expected a whole number of 0 or more, got {text!r}")
    return int(text)


class Command(BaseCommand):
    help = ("Create demo pinners with boards, pins and repins (pictures drawn locally) who "
            f"follow each other, and the login {DEMO_USERNAME} / {DEMO_PASSWORD}.")

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = DemoPlan()
        parser.add_argument("--users", type=_count, default=defaults.users)
        parser.add_argument("--boards-per-user", type=_count, default=defaults.boards_per_user)
        parser.add_argument("--pins-per-board", type=_count, default=defaults.pins_per_board)
        parser.add_argument("--repins-per-user", type=_count, default=defaults.repins_per_user)
        parser.add_argument("--follows-per-user", type=_count, default=5)
        parser.add_argument("--seed", type=int, default=defaults.seed,
                            help="makes names and pictures repeatable")
        parser.add_argument("--if-empty", action="store_true",
                            help="do nothing when any pinner exists")
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
        parser.add_argument("--leave-queued", action="store_true",
                            help="leave the messages the seeding sent (fan-outs, feed writes, "
                                 "pool inserts) to the site's queue workers instead of "
                                 "working them off here before returning")

    def handle(self, *args: Any, **options: Any) -> None:
        with one_line_errors(()):
            self._seed(options)

    def _seed(self, options: dict[str, Any]) -> None:
        if options["if_empty"] and Pinner.objects.exists():
            self.stdout.write("Pinners exist already; nothing seeded (--if-empty).")
            return
        plan = DemoPlan(users=options["users"], boards_per_user=options["boards_per_user"],
                        pins_per_board=options["pins_per_board"],
                        repins_per_user=options["repins_per_user"], seed=options["seed"])
        started = time.monotonic()
        follows = options["follows_per_user"]
        steps = plan.steps + follow_steps(plan.users, follows, plan.boards_per_user > 0)
        try:
            with progress(steps, "seeding demo content", not options["quiet"]) as bar:
                report = seed_demo(plan, step=lambda: bar.update(1))
                made = seed_follows(report.boards_of, follows, plan.seed,
                                    step=lambda: bar.update(1))
        except (ContentError, GraphError, ShardingError) as exc:
            raise CommandError(f"Seeding stopped: {exc}") from exc
        self.stdout.write(
            f"Seeded {report.pinners} pinners, {report.boards} boards, {report.pins} pins, "
            f"{report.repins} repins and {made} follows in {time.monotonic() - started:.1f} s.")
        if not options["leave_queued"]:  # the demo whole before the site serves it
            call_command("queues", "work-off", *(["--quiet"] if options["quiet"] else []),
                         stdout=self.stdout)
        if report.demo_created or Pinner.objects.filter(account__username=DEMO_USERNAME).exists():
            self.stdout.write(f"Log in as {DEMO_USERNAME} / {DEMO_PASSWORD}")
