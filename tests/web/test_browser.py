"""End to end in headless Chromium: two pinners sign up, one pins, the other follows and sees
the pins in the home feed (fanned out by a real queue worker), asks why one is there, then
unfollows one board and its pins leave the feed. Pins of different heights pack into masonry
columns at any window width. Screenshots of the feed, a profile, a board, the "why" page and
the masonry grid go to
``var/<profile>/screenshots/`` (``docs/web.md`` shows current ones).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from itertools import combinations, pairwise
from pathlib import Path

import dramatiq
import pytest
from django.conf import settings
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from pins.actions import create_board, create_pin, create_pinner
from pins.images import generate_demo_image
from pins.models import Pinner
from pinsite.web.paging import PIN_PAGE
from tests.polling import wait_until
from tests.web.browser import (
    browser_installed,
    chromium,
    fill,
    images_loaded,
    live_site,
    screenshot,
    submit,
    text_of,
)
from tests.web.helpers import PASSWORD, many_pins

GARDEN = [("Sweet peas on a cane wigwam", 700, 980), ("Raised beds in April", 900, 640),
          ("Rhubarb forcing pots", 640, 900), ("Seed packets, sorted", 800, 800)]
QUICHE = [("Leek and gruyère quiche", 820, 620), ("Blind-baked pastry case", 640, 860),
          ("Asparagus tart", 760, 1000)]
VARIED = [(f"Pin {n}, {height} high", 600, height) for n, height in enumerate(
    (400, 900, 600, 980, 500, 750, 950, 450, 800, 650, 700, 550, 850, 420))]

CARD_BOXES = """
return Array.from(document.querySelectorAll(".pin-grid .pin-card"), card => {
  const box = card.getBoundingClientRect();
  return {id: card.id, left: box.left, right: box.right,
          top: box.top + window.scrollY, bottom: box.bottom + window.scrollY};
});"""
MISSHAPEN_IMAGES = """
return Array.from(document.querySelectorAll(".pin-grid .pin-card")).filter(card => {
  const image = card.querySelector("img"), shown = image.getBoundingClientRect();
  const ratio = image.getAttribute("height") / image.getAttribute("width");
  return Math.abs(shown.width - card.getBoundingClientRect().width) > 1
      || Math.abs(shown.height - shown.width * ratio) > 1;
}).map(card => card.id);"""
GRID_GAP = 'return getComputedStyle(document.querySelector(".pin-grid")).columnGap;'


@dataclass(frozen=True)
class Box:
    """Where a pin card is on the page, in CSS pixels from the document's top left."""

    id: str
    left: float
    right: float
    top: float
    bottom: float

    def overlaps(self, other: Box) -> bool:
        return (self.left < other.right - 0.5 and other.left < self.right - 0.5
                and self.top < other.bottom - 0.5 and other.top < self.bottom - 0.5)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    if not browser_installed():
        pytest.fail("Chromium is not installed: run `python3 -m devstack packages` as root")
    with live_site() as url:
        yield url


@pytest.fixture
def shots() -> Path:
    return Path(settings.VAR_DIR) / "screenshots"


def demo_png(path: Path, seed: int, width: int = 720, height: int = 900) -> Path:
    """A colourful demo picture from :func:`generate_demo_image`, saved as PNG."""
    Image.open(BytesIO(generate_demo_image(seed, width, height))).save(path, "PNG")
    return path


def sign_up(driver: WebDriver, site: str, username: str, name: str) -> None:
    driver.get(f"{site}/signup/")
    fill(driver, {"username": username, "display_name": name, "password1": PASSWORD,
                  "password2": PASSWORD})
    submit(driver, "Sign up")
    assert driver.find_element(By.TAG_NAME, "h1").text == "Your home feed"


def create_board_in_ui(driver: WebDriver, site: str, name: str) -> int:
    driver.get(site)
    driver.find_element(By.LINK_TEXT, "Create board").click()
    fill(driver, {"name": name, "description": "Savoury tarts worth the pastry."})
    submit(driver, "Create board")
    assert driver.find_element(By.TAG_NAME, "h1").text == name
    return int(driver.current_url.rstrip("/").rsplit("/", 1)[1])


def pin_in_ui(driver: WebDriver, site: str, board_id: int, title: str, image: Path) -> int:
    driver.get(f"{site}/board/{board_id}/")
    driver.find_element(By.LINK_TEXT, "Add a pin").click()
    fill(driver, {"image": str(image), "title": title, "link": "https://example.com/quiche"})
    submit(driver, "Pin it")
    assert driver.find_element(By.TAG_NAME, "h1").text == title
    assert wait_until(lambda: images_loaded(driver), timeout=15)
    return int(driver.current_url.rstrip("/").rsplit("/", 1)[1])


def click_follow(driver: WebDriver, action_path: str, label: str) -> None:
    """Press the follow button posting to ``action_path`` and wait until it reads ``label``;
    the script swaps the button in place, so the page is not reloaded."""
    selector = f"form[data-follow][action='{action_path}'] button"
    driver.execute_script("window.samePage = true;")
    driver.find_element(By.CSS_SELECTOR, selector).click()
    assert wait_until(lambda: text_of(driver, selector) == label, timeout=15), \
        f"the button of {action_path} never read {label!r}"
    assert driver.execute_script("return window.samePage === true;")


def feed_pin_ids(driver: WebDriver, site: str) -> set[int]:
    """The pins on the "Following" tab (the chronological feed)."""
    driver.get(f"{site}/following/")
    cards = driver.find_elements(By.CSS_SELECTOR, ".pin-grid .pin-card")
    return {int(str(card.get_attribute("id")).removeprefix("pin-")) for card in cards}


def scroll_until(driver: WebDriver, selector: str, count: int) -> bool:
    """Scroll to the bottom until at least ``count`` elements match ``selector`` (the next
    page's "More" link may come into range at once, so two pages can land between polls)."""
    def loaded() -> bool:
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight);")
        return len(driver.find_elements(By.CSS_SELECTOR, selector)) >= count

    return wait_until(loaded, timeout=15, every=0.1)


def card_boxes(driver: WebDriver) -> list[Box]:
    """The pin cards of the page's grids, in the order of the document."""
    return [Box(**box) for box in driver.execute_script(CARD_BOXES)]


def columns_of(boxes: list[Box]) -> list[list[Box]]:
    """The cards grouped by their left edge, left to right, each column top to bottom."""
    columns: dict[int, list[Box]] = {}
    for box in boxes:
        columns.setdefault(round(box.left), []).append(box)
    return [sorted(column, key=lambda box: box.top) for _, column in sorted(columns.items())]


def uneven_gaps(columns: list[list[Box]], gap: float) -> list[tuple[str, str, float]]:
    """Cards stacked in one column with other than ``gap`` between them (a row grid's holes)."""
    return [(above.id, below.id, below.top - above.bottom)
            for column in columns for above, below in pairwise(column)
            if abs(below.top - above.bottom - gap) > 1]


def add_demo_pins(owner: Pinner, board_id: int, pins: list[tuple[str, int, int]],
                  seed: int) -> list[int]:
    return [create_pin(owner.user_id, board_id, title, "", "",
                       generate_demo_image(seed + n, width, height)).id
            for n, (title, width, height) in enumerate(pins)]


def test_a_follower_sees_pins_in_the_feed_until_unfollowing_their_board(
        site: str, worker: dramatiq.Worker, shots: Path, tmp_path: Path) -> None:
    ada, bea = f"ada{uuid.uuid4().hex[:8]}", f"bea{uuid.uuid4().hex[:8]}"
    with chromium() as pinner_a, chromium() as pinner_b:
        sign_up(pinner_a, site, ada, "Ada Lovelace")
        quiche = create_board_in_ui(pinner_a, site, "Quiche ideas")
        first = pin_in_ui(pinner_a, site, quiche, "My first quiche",
                          demo_png(tmp_path / "1.png", 7))
        owner = Pinner.objects.get(account__username=ada)
        garden = create_board(owner.user_id, "Spring gardens", "What grows where.").id
        garden_pins = add_demo_pins(owner, garden, GARDEN, seed=20)
        quiche_pins = add_demo_pins(owner, quiche, QUICHE, seed=40)

        sign_up(pinner_b, site, bea, "Bea Potter")
        pinner_b.get(f"{site}/u/{ada}/")
        click_follow(pinner_b, f"/u/{ada}/follow/", "Unfollow")
        assert wait_until(lambda: first in feed_pin_ids(pinner_b, site), every=0.2), \
            "following the pinner did not bring their pins into the feed"

        second = pin_in_ui(pinner_a, site, quiche, "Quiche for a crowd",
                           demo_png(tmp_path / "2.png", 11, 800, 640))
        assert wait_until(lambda: second in feed_pin_ids(pinner_b, site), every=0.2), \
            "the new pin was not fanned out to the follower's feed"
        assert {*garden_pins, *quiche_pins} <= feed_pin_ids(pinner_b, site)
        screenshot(pinner_b, shots / "home-feed.png")
        pinner_b.get(f"{site}/following/")
        pinner_b.find_element(By.CSS_SELECTOR, f"#pin-{second} a.why").click()
        assert wait_until(lambda: "Why am I seeing this?" in pinner_b.title, timeout=15)
        assert text_of(pinner_b, "#why-present") == "This pin is in your Following feed."
        reasons = text_of(pinner_b, ".why-reasons") or ""
        assert f"Follows user {owner.user_id}, and so their board {quiche}" in reasons
        assert "In the feed on primary, written by the fanout of the pin" in reasons
        screenshot(pinner_b, shots / "why.png")
        pinner_b.get(f"{site}/u/{ada}/")
        screenshot(pinner_b, shots / "profile.png")

        pinner_b.get(f"{site}/board/{quiche}/")
        assert "so you follow this board" in pinner_b.page_source
        screenshot(pinner_b, shots / "board.png")
        click_follow(pinner_b, f"/board/{quiche}/follow/", "Follow")
        quiche_all = {first, second, *quiche_pins}
        assert wait_until(lambda: not quiche_all & feed_pin_ids(pinner_b, site), every=0.2), \
            "the unfollowed board's pins stayed in the feed"
        assert set(garden_pins) <= feed_pin_ids(pinner_b, site)

        pinner_b.get(f"{site}/u/{ada}/")
        header = pinner_b.find_element(By.CSS_SELECTOR, f"form[action='/u/{ada}/follow/']")
        assert header.text == "Unfollow"

        pinner_b.find_element(By.XPATH, "//button[normalize-space()='Log out']").click()
        assert wait_until(lambda: "Find ideas" in pinner_b.page_source, timeout=15)
        pinner_b.get(f"{site}/login/")
        fill(pinner_b, {"username": bea, "password": PASSWORD})
        submit(pinner_b, "Log in")
        assert set(garden_pins) <= feed_pin_ids(pinner_b, site)


def test_scrolling_down_a_big_board_loads_the_next_pages_in_place(site: str) -> None:
    owner = create_pinner(f"cy{uuid.uuid4().hex[:8]}", PASSWORD)
    board = create_board(owner.user_id, "Everything")
    many_pins(owner, board, PIN_PAGE * 2 + 3)
    with chromium() as driver:
        driver.get(f"{site}/board/{board.id}/")
        cards = ".pin-grid .pin-card"
        assert len(driver.find_elements(By.CSS_SELECTOR, cards)) == PIN_PAGE
        first_page = {(box.id, round(box.left), round(box.top)) for box in card_boxes(driver)}
        driver.execute_script("window.samePage = true;")
        for expected in (PIN_PAGE * 2, PIN_PAGE * 2 + 3):
            assert scroll_until(driver, cards, expected)
        assert len(driver.find_elements(By.CSS_SELECTOR, cards)) == PIN_PAGE * 2 + 3
        assert driver.find_elements(By.CSS_SELECTOR, "[data-more]") == []
        assert driver.execute_script("return window.samePage === true;")
        assert first_page <= {(box.id, round(box.left), round(box.top))
                              for box in card_boxes(driver)}, \
            "loading the next pages moved the first page's pins"


def test_home_shows_picks_from_a_followed_interest_following_shows_followed_boards(
        site: str, worker: dramatiq.Worker, shots: Path, tmp_path: Path) -> None:
    cy = f"cy{uuid.uuid4().hex[:8]}"
    author = create_pinner(f"au{uuid.uuid4().hex[:8]}", PASSWORD)
    travel = create_board(author.user_id, "Coastal walks", interest="travel").id
    kitchen = create_board(author.user_id, "Weeknight dinners").id
    with chromium() as driver:
        sign_up(driver, site, cy, "Cy Twombly")
        driver.get(f"{site}/interests/travel/")
        click_follow(driver, "/interests/travel/follow/", "Unfollow")
        reader = Pinner.objects.get(account__username=cy)
        driver.get(f"{site}/board/{kitchen}/")
        click_follow(driver, f"/board/{kitchen}/follow/", "Unfollow")
        walks = add_demo_pins(author, travel, GARDEN[:2], seed=60)
        dinners = add_demo_pins(author, kitchen, QUICHE[:2], seed=70)

        def home_ids() -> set[int]:
            driver.get(site)
            return {int(str(card.get_attribute("id")).removeprefix("pin-"))
                    for card in driver.find_elements(By.CSS_SELECTOR, ".pin-grid .pin-card")}

        assert wait_until(lambda: set(walks) | set(dinners) <= home_ids(), every=0.3), \
            f"Home never showed the interest's and the board's pins for {reader.user_id}"
        assert "picked for you" in driver.page_source
        screenshot(driver, shots / "home-smart.png")
        following = feed_pin_ids(driver, site)
        assert set(dinners) <= following and not set(walks) & following
        assert driver.find_element(By.CSS_SELECTOR, ".tabs [aria-current='page']").text == \
            "Following"
        driver.get(f"{site}/interests/travel/")
        cards = {int(str(card.get_attribute("id")).removeprefix("pin-"))
                 for card in driver.find_elements(By.CSS_SELECTOR, ".pin-grid .pin-card")}
        assert set(walks) <= cards
        screenshot(driver, shots / "interest.png")


def test_pins_of_different_heights_pack_into_masonry_columns_at_any_width(
        site: str, shots: Path) -> None:
    owner = create_pinner(f"mo{uuid.uuid4().hex[:8]}", PASSWORD)
    board = create_board(owner.user_id, "Tall and wide").id
    add_demo_pins(owner, board, VARIED, seed=80)
    with chromium() as driver:
        for width, enough in ((1280, range(4, 9)), (600, range(2, 3))):
            driver.set_window_size(width, 960)
            driver.get(f"{site}/board/{board}/")
            screenshot(driver, shots / f"masonry-{width}.png")
            boxes = card_boxes(driver)
            columns = columns_of(boxes)
            gap = float(driver.execute_script(GRID_GAP).removesuffix("px"))
            assert len(boxes) == len(VARIED)
            assert len(columns) in enough, f"{len(columns)} columns at {width} px"
            assert len({round(column[0].top) for column in columns}) == 1, \
                f"the columns start at different heights at {width} px"
            assert uneven_gaps(columns, gap) == [], f"holes between stacked cards at {width} px"
            assert [(a.id, b.id) for a, b in combinations(boxes, 2) if a.overlaps(b)] == []
            assert [box.id for column in columns for box in column] == \
                [box.id for box in boxes], "newest first does not read down the columns"
            assert driver.execute_script(MISSHAPEN_IMAGES) == []
