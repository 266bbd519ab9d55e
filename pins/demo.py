"""Demo content: pinners with boards, pins and repins, images drawn locally (no network).

>>> report = seed_demo(DemoPlan(users=20, boards_per_user=3, pins_per_board=8))
>>> report.pins
480

The first pinner is the login ``demo`` / ``pinsite-demo`` (skipped when it exists already).
Pins reuse a small set of generated pictures, so seeding is quick.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile

from pins.actions import create_board, create_pin, create_pinner, repin
from pins.exceptions import InvalidContent
from pins.images import generate_demo_image
from pins.models import Pinner

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "pinsite-demo"
PICTURE_COUNT = 20
PICTURE_WIDTH = 600
PICTURE_HEIGHTS = (400, 500, 600, 750, 900)

NAMES = ("ada", "alan", "grace", "edsger", "barbara", "donald", "margaret", "ken", "frances",
         "dennis", "radia", "linus", "sophie", "tim", "hedy", "claude", "katherine", "john")
TOPICS = {
    "Weeknight dinners": ("quiche", "ramen", "risotto", "tacos", "curry", "galette"),
    "Small gardens": ("herb spiral", "balcony tomatoes", "window box", "fern corner"),
    "Cozy interiors": ("reading nook", "linen curtains", "plant shelf", "tiled hearth"),
    "Trips to take": ("coastal walk", "mountain hut", "old town", "night market"),
    "Things to make": ("paper lantern", "knitted hat", "clay mug", "bird feeder"),
    "Watercolour": ("sunset wash", "wet-on-wet sky", "botanical study", "harbour sketch"),
    "Street style": ("rain jacket", "canvas tote", "wool coat", "bright sneakers"),
    "Buildings": ("brutalist stair", "glass atrium", "timber pavilion", "brick arches"),
}
INTEREST_OF_TOPIC = {
    "Weeknight dinners": "food-and-drink", "Small gardens": "gardening",
    "Cozy interiors": "home-decor", "Trips to take": "travel", "Things to make": "diy-and-crafts",
    "Watercolour": "art", "Street style": "fashion", "Buildings": "architecture",
}
ADJECTIVES = ("easy", "bright", "quiet", "bold", "simple", "lovely", "rustic", "tiny", "golden")


@dataclass(frozen=True)
class DemoPlan:
    """How much demo content to create; ``seed`` makes names and pictures repeatable."""

    users: int = 20
    boards_per_user: int = 3
    pins_per_board: int = 8
    repins_per_user: int = 2
    seed: int = 1

    @property
    def steps(self) -> int:
        per_user = 1 + self.boards_per_user * (1 + self.pins_per_board) + self.repins_per_user
        return self.users * per_user


@dataclass
class DemoReport:
    """What :func:`seed_demo` created."""

    pinners: int = 0
    boards: int = 0
    pins: int = 0
    repins: int = 0
    demo_created: bool = False
    boards_of: dict[int, list[int]] = field(default_factory=dict)
    """The boards created for each pinner (user ID → board IDs), in creation order."""


def seed_demo(plan: DemoPlan, step: Callable[[], object] = lambda: None) -> DemoReport:
    """Create the planned content through the ordinary actions; ``step`` ticks per write."""
    rng = random.Random(plan.seed)
    pictures = demo_pictures(plan.seed)
    report = DemoReport()
    pin_ids: list[tuple[int, int]] = []
    board_ids: dict[int, list[int]] = {}
    for index in range(plan.users):
        user_id = _demo_pinner(rng, report, first=index == 0)
        step()
        board_ids[user_id] = _demo_boards(plan, rng, user_id, pictures, pin_ids, report, step)
        report.boards_of[user_id] = board_ids[user_id]
    for user_id, boards in board_ids.items():
        _demo_repins(plan, rng, user_id, boards, pin_ids, report, step)
    return report


def demo_pictures(seed: int) -> list[bytes]:
    """The small set of JPEGs the demo pins share, drawn from ``seed``."""
    return [generate_demo_image(seed * 1000 + index, PICTURE_WIDTH,
                                PICTURE_HEIGHTS[index % len(PICTURE_HEIGHTS)])
            for index in range(PICTURE_COUNT)]


def _demo_pinner(rng: random.Random, report: DemoReport, first: bool) -> int:
    if first and not get_user_model().objects.filter(username__iexact=DEMO_USERNAME).exists():
        pinner = create_pinner(DEMO_USERNAME, DEMO_PASSWORD, email="demo@example.com",
                               display_name="Demo Pinner")
        report.demo_created = True
    else:
        pinner = _pinner_with_free_name(rng)
    report.pinners += 1
    return pinner.user_id


def _pinner_with_free_name(rng: random.Random, attempts: int = 50) -> Pinner:
    for _ in range(attempts):
        name = rng.choice(NAMES)
        try:
            return create_pinner(f"{name}{rng.randrange(10, 100_000)}", None,
                                 display_name=name.capitalize())
        except InvalidContent as exc:
            if exc.field != "username":
                raise
    raise InvalidContent(f"No free demo username found in {attempts} attempts.",
                         field="username")


def _demo_boards(plan: DemoPlan, rng: random.Random, user_id: int, pictures: list[bytes],
                 pin_ids: list[tuple[int, int]], report: DemoReport,
                 step: Callable[[], object]) -> list[int]:
    boards = []
    topics = rng.sample(sorted(TOPICS), k=min(plan.boards_per_user, len(TOPICS)))
    for number in range(plan.boards_per_user):
        topic = topics[number % len(topics)]
        name = topic if number < len(topics) else f"{topic} {number // len(topics) + 1}"
        board = create_board(user_id, name, f"Ideas for {topic.lower()}.",
                             INTEREST_OF_TOPIC[topic])
        report.boards += 1
        step()
        boards.append(board.id)
        for _ in range(plan.pins_per_board):
            pin_ids.append((user_id, _demo_pin(rng, user_id, board.id, topic, pictures)))
            report.pins += 1
            step()
    return boards


def _demo_pin(rng: random.Random, user_id: int, board_id: int, topic: str,
              pictures: list[bytes]) -> int:
    subject = rng.choice(TOPICS[topic])
    title = f"{rng.choice(ADJECTIVES).capitalize()} {subject}"
    link = f"https://example.com/{subject.replace(' ', '-')}" if rng.random() < 0.7 else ""
    picture = ContentFile(rng.choice(pictures), name="demo.jpg")
    return create_pin(user_id, board_id, title, f"A {title.lower()} to remember.", link,
                      picture).id


def _demo_repins(plan: DemoPlan, rng: random.Random, user_id: int, boards: list[int],
                 pin_ids: list[tuple[int, int]], report: DemoReport,
                 step: Callable[[], object]) -> None:
    others = [pin_id for owner, pin_id in pin_ids if owner != user_id]
    for _ in range(plan.repins_per_user):
        if boards and others:
            repin(user_id, rng.choice(others), rng.choice(boards))
            report.repins += 1
        step()
