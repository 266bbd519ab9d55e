"""The account app's one table in ``default``: the pinners' data exports and their state.

A row is the durable record of one export (:mod:`accounts.exports`): a queue worker that dies
half-way leaves it ``preparing``, and the message delivered again rebuilds the file from
scratch. The zip itself is a file named by the row's ID (:mod:`accounts.export_files`).
"""

from __future__ import annotations

from datetime import datetime

from django.db import models
from django.utils import timezone


class DataExport(models.Model):
    """One export of everything pinsite holds about the pinner ``user_id``.

    >>> DataExport.objects.filter(user_id=ada.user_id).first().state
    'ready'
    """

    class State(models.TextChoices):
        PREPARING = "preparing", "being prepared"
        READY = "ready", "ready to download"
        FAILED = "failed", "failed"

    user_id = models.BigIntegerField(db_index=True, help_text="ID of the pinner's user object")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PREPARING)
    requested = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True,
                                    help_text="When it became ready, or failed")
    expires = models.DateTimeField(null=True, blank=True, db_index=True,
                                   help_text="When it is deleted, file and row")
    size = models.BigIntegerField(null=True, blank=True, help_text="Bytes of the zip")
    attempts = models.PositiveIntegerField(default=0,
                                           help_text="Builds started, each from scratch")
    error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-requested"]
        indexes = [models.Index(fields=["state", "requested"], name="export_state_requested")]

    def __str__(self) -> str:
        return f"export {self.pk} of {self.user_id} ({self.state})"

    def expired(self, now: datetime | None = None) -> bool:
        """Whether the export's time is up (it is deleted on sight then)."""
        return self.expires is not None and self.expires <= (now or timezone.now())
