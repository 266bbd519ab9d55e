"""The fanout dashboard on the admin's queues page: plots and figures of the last hour that
move when a fanout runs (real queue worker), and a screenshot of it in headless Chromium."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dramatiq
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from selenium.webdriver.common.by import By

from feed import observe
from pinsite.admin.queues import queue_depths
from tests.feed.helpers import board_with_followers, clear_of_a_bucket_edge, new_pin
from tests.polling import wait_until
from tests.web.browser import browser_installed, chromium, fill, live_site, screenshot

PAGE = "/admin/operations/queues/"
pytestmark = pytest.mark.usefixtures("observations_db")


@pytest.fixture
def small_chunks(settings: Any) -> None:
    """Two followers per delivery message, so a fanout has several chunks per cluster."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "FANOUT_CHUNK": 2}


def _cell(content: str, cluster: str, column: str) -> str:
    match = re.search(rf'<tr class="fanout-{cluster}">.*?<td class="{column}">([^<]*)</td>',
                      content, re.S)
    assert match, content[:500]
    return match.group(1)


def _fanned_out(followers: int) -> None:
    owner, board, _ = board_with_followers(followers)
    new_pin(owner, board)


def test_the_queues_page_plots_the_last_hour_and_reloads_itself(superuser: Client) -> None:
    content = superuser.get(PAGE).content.decode()
    charts = content.split('id="fanout-charts">', 1)[1].split("</div>", 1)[0]
    assert charts.count("<svg") == 5 and "Fanout lag (creation → last delivery)" in charts
    assert '<meta http-equiv="refresh" content="10">' in content
    assert "<script" not in charts and "href" not in charts and "src=" not in charts
    assert "Queues" in content and "Dead letters" in content  # the tables stay


def test_the_queues_table_shows_the_retries_workers_hold(superuser: Client) -> None:
    queue = queue_depths()[0].name
    clear_of_a_bucket_edge()
    superuser.get(PAGE)  # samples RabbitMQ's depths into this bucket
    observe.record_held({queue: 7})
    content = superuser.get(PAGE).content.decode()
    row = content.split(f'<tr id="queue-{queue}">', 1)[1].split("</tr>", 1)[0]
    assert '<td class="held">7</td>' in row
    assert "Held by workers" in content


def test_the_dashboard_figures_move_when_a_fanout_runs(
        superuser: Client, worker: dramatiq.Worker, small_chunks: None) -> None:
    before = superuser.get(PAGE).content.decode()
    assert _cell(before, "primary", "fanouts") == "0"
    assert _cell(before, "primary", "deliveries") == "0"
    _fanned_out(5)
    assert wait_until(lambda: _cell(superuser.get(PAGE).content.decode(), "standby",
                                    "fanouts") == "1")
    after = superuser.get(PAGE).content.decode()
    assert _cell(after, "primary", "fanouts") == "1"
    assert _cell(after, "standby", "deliveries") == "5"
    assert _cell(after, "primary", "p99") != "-"
    assert "<polyline" in after or "<circle" in after


def test_the_dashboard_says_so_when_redis_is_down(superuser: Client,
                                                  observations_down: None) -> None:
    response = superuser.get(PAGE)
    assert response.status_code == 200
    assert "observations cannot be reached" in response.content.decode()


@pytest.fixture
def site() -> Iterator[str]:
    if not browser_installed():
        pytest.fail("Chromium is not installed: run `python3 -m devstack packages` as root")
    with live_site() as url:
        yield url


def test_a_screenshot_of_the_dashboard_after_fanouts(
        site: str, worker: dramatiq.Worker, small_chunks: None) -> None:
    name = f"op{uuid.uuid4().hex[:12]}"
    get_user_model().objects.create_superuser(name, "", "operator-password")
    for followers in (4, 7, 10):
        _fanned_out(followers)
    assert wait_until(lambda: observe.figures(5)["summary"]["lag_seconds"]["standby"]
                      ["fanouts"] == 3)
    observe.sample_depths(queue_depths)
    with chromium() as driver:
        driver.get(f"{site}/admin/login/?next={PAGE}")
        fill(driver, {"username": name, "password": "operator-password"})
        driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
        assert wait_until(lambda: "fanout-charts" in driver.page_source, timeout=30)
        assert len(driver.find_elements(By.CSS_SELECTOR, "#fanout-charts svg")) == 5
        assert driver.find_element(By.CSS_SELECTOR, ".fanout-primary .fanouts").text == "3"
        shot = screenshot(driver, Path(settings.VAR_DIR) / "screenshots" /
                          "fanout-dashboard.png")
    assert shot.stat().st_size > 10_000
