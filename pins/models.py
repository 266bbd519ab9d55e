"""Django models of the content domain, on the ``default`` database.

Everything a pinner makes lives on the shards; ``default`` keeps only what must be globally
unique: the username → user ID index, joined to Django's auth user for logins, and the small
map of the shards holding slices of an interest's pin list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from pins.domain import PinnerManagers

if TYPE_CHECKING:
    from pins.domain import User
    from toolkit.related import RelatedObject


class Pinner(PinnerManagers, models.Model):
    """The global index row of a pinner: auth account ↔ 64-bit user object ID on a shard.
    It carries a pinner's managers (``request.user.pinner.followers.count()``) and the
    profile object (``pinner.profile``, loaded on first use).

    >>> Pinner.objects.get(account__username="ada").user_id
    2522015791327477761
    """

    if TYPE_CHECKING:
        profile: ClassVar[RelatedObject[User]]

    account = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="pinner")
    user_id = models.BigIntegerField(unique=True,
                                     help_text="ID of the user object on its shard")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.username} ({self.user_id})"

    @property
    def username(self) -> str:
        return str(self.account.get_username())


class InterestPinSlice(models.Model):
    """Shard ``shard`` holds (or held) pins of interest ``interest_id`` (``interest_has_pin``)."""

    interest_id = models.BigIntegerField()
    shard = models.IntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["interest_id", "shard"],
                                               name="interest_pin_slice_unique")]

    def __str__(self) -> str:
        return f"pins of interest {self.interest_id} on shard {self.shard}"
