"""The data exports' sweep, run in every queue worker process (``dramatiq pinsite.worker``,
and so ``manage.py runsite``): at its boot, then every ``EXPORT_SWEEP_SECONDS``
(:func:`accounts.exports.sweep_exports`). Sweeps of several processes at once are harmless:
each deletion skips what is gone already."""

from __future__ import annotations

import logging
import threading

import dramatiq
from django.db import connections

from accounts import exports
from accounts.conf import accounts_settings
from toolkit.threads import WorkerThread

log = logging.getLogger("pinsite.accounts")
IDLE_SECONDS = 60.0
"""How often a worker looks again at ``EXPORT_SWEEP_SECONDS`` while it is 0 (off)."""


class ExportSweepMiddleware(WorkerThread):
    """Deletes expired data exports, in a thread of each worker."""

    name = "accounts-export-sweep"

    def run(self, worker: dramatiq.Worker, stop: threading.Event) -> None:
        while not stop.is_set():
            every = accounts_settings.decimal("EXPORT_SWEEP_SECONDS")
            if every > 0:
                sweep_once()
            stop.wait(every if every > 0 else IDLE_SECONDS)


def sweep_once() -> None:
    """One sweep; a failure is logged and the next sweep tries again."""
    try:
        exports.sweep_exports()
    except Exception:
        log.exception("the data export sweep failed; trying again at the next")
    finally:
        connections.close_all()
