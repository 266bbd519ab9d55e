"""The operator audit log's one table, in ``default`` (Django's database, not a shard)."""

from __future__ import annotations

from django.db import models

RUNNING, OK, FAILED = "running", "ok", "failed"


class AuditEntry(models.Model):
    """One operation: written when it starts (``running``), completed when it ends (``ok``,
    or ``failed`` with the error). An entry still ``running`` long after it started is an
    operation whose process died (``process`` says which)."""

    class Outcome(models.TextChoices):
        RUNNING = RUNNING
        OK = OK
        FAILED = FAILED

    class ActorKind(models.TextChoices):
        ADMIN = "admin"
        COMMAND = "command"
        ORCHESTRATOR = "orchestrator"
        PROCESS = "process"

    action = models.CharField(max_length=64, db_index=True)  # "shards.promote"
    target = models.CharField(max_length=255, blank=True, db_index=True)
    arguments = models.JSONField(default=dict, blank=True)
    actor_kind = models.CharField(max_length=16, choices=ActorKind.choices, db_index=True)
    actor = models.CharField(max_length=150)  # username, OS user, orchestrator host:pid
    actor_detail = models.TextField(blank=True)  # the request, the command line
    process = models.CharField(max_length=255)  # host:pid that ran the operation
    started = models.DateTimeField(db_index=True)
    finished = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, default=RUNNING,
                               db_index=True)
    error = models.TextField(blank=True)
    result = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-started", "-id"]
        verbose_name = "audit entry"
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.action} {self.target} by {self.actor_kind} {self.actor}: {self.outcome}"
