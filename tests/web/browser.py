"""A headless Chromium driven by Selenium, against a live server on the real stack.

Debian's ``chromium`` and ``chromium-driver`` are used as installed (``python3 -m devstack
packages``); Selenium is told both paths, so it never downloads a browser or a driver.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.test.testcases import LiveServerThread
from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from tests.polling import wait_until

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WINDOW = (1280, 960)
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def browser_installed() -> bool:
    return CHROMIUM.exists() and CHROMEDRIVER.exists()


@contextmanager
def live_site() -> Iterator[str]:
    """Serve the site (with static files from the finders and media from ``MEDIA_ROOT``) on
    a free port in a thread of this process; yields its base URL."""
    server = LiveServerThread("127.0.0.1", StaticFilesHandler)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    if server.error:
        raise server.error
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.terminate()


@contextmanager
def chromium() -> Iterator[WebDriver]:
    """A fresh headless Chromium with a throw-away profile."""
    profile = tempfile.mkdtemp(prefix="pinsite-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                 f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def images_loaded(driver: WebDriver) -> bool:
    """Every ``<img>`` in the window has finished loading and decoded to a real picture
    (lazy images further down are not fetched yet)."""
    return _every_image_in_the_window(driver, "i.complete && i.naturalWidth > 0")


def images_settled(driver: WebDriver) -> bool:
    """Every ``<img>`` in the window has loaded or failed to: the suite's pins of other tests
    keep their images in those tests' own media folders, so a feed may show broken ones."""
    return _every_image_in_the_window(driver, "i.complete")


def _every_image_in_the_window(driver: WebDriver, holds: str) -> bool:
    """Whether the JavaScript condition ``holds`` (on image ``i``) holds for every image in
    the window."""
    return bool(driver.execute_script(
        "return Array.from(document.images)"
        ".filter(i => i.getBoundingClientRect().top < window.innerHeight)"
        f".every(i => {holds});"))


def text_of(driver: WebDriver, selector: str) -> str | None:
    """The text of the element ``selector`` finds, or ``None`` while it is being replaced."""
    try:
        return str(driver.find_element(By.CSS_SELECTOR, selector).text)
    except (NoSuchElementException, StaleElementReferenceException):
        return None


def fill(driver: WebDriver, values: dict[str, str]) -> None:
    """Type into the form fields named in ``values`` (file inputs take a path)."""
    for name, value in values.items():
        field = driver.find_element(By.NAME, name)
        if field.get_attribute("type") != "file":
            field.clear()
        field.send_keys(value)


def submit(driver: WebDriver, label: str) -> None:
    """Click the submit button whose text is ``label`` and wait for the next page."""
    button = driver.find_element(By.XPATH, f"//main//button[normalize-space()='{label}']")
    old = driver.find_element(By.TAG_NAME, "html")
    button.click()
    wait_until(lambda: _stale(old), timeout=30, every=0.05)


def screenshot(driver: WebDriver, path: Path) -> Path:
    """Save a PNG of the page as the window shows it, once its images have settled."""
    assert wait_until(lambda: images_settled(driver), timeout=15, every=0.1), \
        "images of the page are still loading"
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    return path


def _stale(element: WebElement) -> bool:
    """Whether the page ``element`` belongs to has gone (Chromium sometimes says so with an
    inspector error instead of a stale-element error)."""
    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as exc:
        if "does not belong to the document" in str(exc):
            return True
        raise
    return False
