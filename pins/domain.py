"""The content domain's read models: small frozen values built from the shards' JSON.

>>> pin = Pin.from_json(pin_id, objects.get(pin_id))
>>> pin.title, pin.board_id
('Quiche', 144959613005987841)

Times are stored as ISO 8601 text with microseconds; ``created_us`` is the same instant in
microseconds, the unit of mapping sequences and feed timestamps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from django.core.files.storage import default_storage

if TYPE_CHECKING:  # the managers apps above contribute (toolkit.related): named, not imported
    from accounts.managers import DataExports
    from feed.managers import FollowingFeed
    from feed.smart.managers import HomeFeed
    from graph.actions import FollowChange
    from graph.interests import InterestFollowChange
    from graph.managers import (
        BoardFollowers,
        FollowedBoards,
        Followers,
        Following,
        FollowTarget,
        Interests,
        UnfollowedBoards,
    )
    from pins.managers import Listed, Objects, UserObjects
    from pins.models import Pinner
    from toolkit.related import ClassManager, Related, RelatedObject

JSONObject = dict[str, Any]


def timestamp_text(us: int) -> str:
    """ISO 8601 text (UTC) of a time in microseconds, exact to the microsecond."""
    seconds, micros = divmod(us, 1_000_000)
    return datetime.fromtimestamp(seconds, UTC).replace(microsecond=micros).isoformat()


def parse_timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


def timestamp_us(text: str) -> int:
    """A time in microseconds from :func:`timestamp_text`'s ISO text (exact)."""
    moment = parse_timestamp(text)
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def microseconds(moment: datetime) -> int:
    """A timezone-aware time in microseconds since the epoch (exact, no float rounding)."""
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


class PinnerManagers:
    """A pinner's managers, on the profile object (:class:`User`) and on the account's index
    row (:class:`~pins.models.Pinner`) alike, each given by the app owning its store when
    Django is ready (:mod:`pins.managers`, :mod:`graph.managers`, :mod:`feed.managers`,
    :mod:`feed.smart.managers`). See ``docs/python-api.md``.

    >>> ada.followers.count(), ada.boards.page(limit=10), ada.feed.page(limit=50)
    """

    if TYPE_CHECKING:
        boards: ClassVar[Related[Listed[Board]]]
        pins: ClassVar[Related[Listed[Pin]]]
        followers: ClassVar[Related[Followers]]
        following: ClassVar[Related[Following]]
        followed_boards: ClassVar[Related[FollowedBoards]]
        unfollowed_boards: ClassVar[Related[UnfollowedBoards]]
        interests: ClassVar[Related[Interests]]
        feed: ClassVar[Related[FollowingFeed]]
        home: ClassVar[Related[HomeFeed]]
        exports: ClassVar[Related[DataExports]]

        def follow(self, target: FollowTarget) -> FollowChange | InterestFollowChange: ...

        def unfollow(self, target: FollowTarget) -> FollowChange | InterestFollowChange: ...

        def follows(self, target: User | Pinner | Board | int) -> bool: ...

        def which_followed(self, targets: Sequence[User | Pinner | Board | int]) -> list[int]:
            ...


@dataclass(frozen=True)
class User(PinnerManagers):
    """A pinner's profile object (the ``users`` table on the pinner's shard)."""

    if TYPE_CHECKING:
        objects: ClassVar[ClassManager[UserObjects]]

    id: int
    username: str
    display_name: str
    about: str
    created: datetime

    @classmethod
    def from_json(cls, user_id: int, data: JSONObject) -> User:
        return cls(id=user_id, username=data["username"],
                   display_name=data.get("display_name") or data["username"],
                   about=data.get("about", ""), created=parse_timestamp(data["created"]))

    @property
    def created_us(self) -> int:
        return microseconds(self.created)


@dataclass(frozen=True)
class Board:
    """A board: lives on its owner's shard."""

    if TYPE_CHECKING:
        objects: ClassVar[ClassManager[Objects[Board]]]
        pins: ClassVar[Related[Listed[Pin]]]
        followers: ClassVar[Related[BoardFollowers]]
        owner: ClassVar[RelatedObject[User]]

    id: int
    owner_id: int
    name: str
    description: str
    created: datetime
    interest: str | None = None

    @classmethod
    def from_json(cls, board_id: int, data: JSONObject) -> Board:
        return cls(id=board_id, owner_id=int(data["owner_id"]), name=data["name"],
                   description=data.get("description", ""),
                   created=parse_timestamp(data["created"]), interest=data.get("interest"))

    @property
    def created_us(self) -> int:
        return microseconds(self.created)


@dataclass(frozen=True)
class Pin:
    """A pin: lives on its board's shard; a repin names its source and shares its image."""

    if TYPE_CHECKING:
        objects: ClassVar[ClassManager[Objects[Pin]]]
        repins: ClassVar[Related[Listed[Pin]]]
        board: ClassVar[RelatedObject[Board]]
        pinner: ClassVar[RelatedObject[User]]

    id: int
    board_id: int
    pinner_id: int
    title: str
    description: str
    link: str
    image: str
    thumbnail: str
    width: int
    height: int
    created: datetime
    source_pin_id: int | None
    interest: str | None = None

    @classmethod
    def from_json(cls, pin_id: int, data: JSONObject) -> Pin:
        source = data.get("source_pin_id")
        return cls(id=pin_id, board_id=int(data["board_id"]), pinner_id=int(data["pinner_id"]),
                   title=data.get("title", ""), description=data.get("description", ""),
                   link=data.get("link", ""), image=data["image"], thumbnail=data["thumbnail"],
                   width=int(data["width"]), height=int(data["height"]),
                   created=parse_timestamp(data["created"]),
                   source_pin_id=None if source is None else int(source),
                   interest=data.get("interest"))

    @property
    def created_us(self) -> int:
        return microseconds(self.created)

    @property
    def is_repin(self) -> bool:
        return self.source_pin_id is not None

    @property
    def image_url(self) -> str:
        return default_storage.url(self.image)

    @property
    def thumbnail_url(self) -> str:
        return default_storage.url(self.thumbnail)

