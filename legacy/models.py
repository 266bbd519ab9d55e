"""What an import has done, in ``default``: every legacy row copied (its pinsite ID and the
fingerprint of what was copied), and the batches of each pass."""

from __future__ import annotations

from django.db import models


class LegacyRecord(models.Model):
    """One legacy row and the pinsite object or follow it became. ``pinsite_id`` is empty
    while a job has claimed the row but not yet created its object, and for a row pinsite
    refused (``rejected`` says why; it is tried again once the row changes)."""

    source = models.CharField(max_length=255)  # HOST:PORT/DATABASE of the legacy site
    kind = models.CharField(max_length=16)
    legacy_id = models.BigIntegerField()
    pinsite_id = models.BigIntegerField(null=True)
    fingerprint = models.CharField(max_length=40)
    rejected = models.TextField(default="")  # why pinsite refused the row as it is

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "kind", "legacy_id"],
                                               name="legacy_record_once")]

    def __str__(self) -> str:
        return f"{self.kind} {self.legacy_id} → {self.pinsite_id or 'claimed'}"


class LegacyBatch(models.Model):
    """A job: the legacy rows of ``kind`` with IDs ``first_id..last_id``, in pass ``pass_id``;
    or, of kind ``feeds``, the following feeds of ``followers`` rebuilt at the end of the
    pass (``first_id..last_id`` their place in its list of followers)."""

    pass_id = models.CharField(max_length=32, db_index=True)
    source = models.TextField()  # HOST:PORT/DATABASE: the URL's credentials are not kept
    kind = models.CharField(max_length=16)
    first_id = models.BigIntegerField()
    last_id = models.BigIntegerField()
    done = models.BooleanField(default=False)
    copied = models.IntegerField(default=0)
    waiting = models.IntegerField(default=0)
    rejected = models.IntegerField(default=0)
    # pinsite user IDs: whose follows the batch copied (cleared once their feeds are
    # rebuilt), or, of a ``feeds`` batch, whose feeds it rebuilds
    followers = models.JSONField(default=list, db_default=[])

    def __str__(self) -> str:
        return f"{self.kind} {self.first_id}-{self.last_id} ({'done' if self.done else 'queued'})"
