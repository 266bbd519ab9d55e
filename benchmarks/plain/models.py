"""Boards, pins and follows of boards, in one database."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Board(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name


class Pin(models.Model):
    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="pins")
    pinner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    link = models.CharField(max_length=2000, blank=True)
    image = models.CharField(max_length=200)
    thumbnail = models.CharField(max_length=200)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    created = models.DateTimeField()
    source_pin = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    interest = models.CharField(max_length=50, null=True, blank=True)  # noqa: DJ001 (as pinsite's)

    class Meta:
        indexes = [models.Index(fields=["board", "-created"])]

    def __str__(self) -> str:
        return self.title


class Follow(models.Model):
    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    board = models.ForeignKey(Board, on_delete=models.CASCADE)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["follower", "board"],
                                               name="one_follow_per_board")]

    def __str__(self) -> str:
        return f"follow {self.pk}"
