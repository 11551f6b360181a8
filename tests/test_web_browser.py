"""The browser table in a real browser: the machine's own headless Chromium (Debian's ``chromium`` and
``chromium-driver``), driven by Selenium, against ``war-play --web``'s server on a free local port.

A person's round, desktop-sized (mouse clicks, the keyboard, touch taps) and phone-sized (touch only):
the round waits, a press in the bot's turn is a false start, a war comes (seed 20 ties in its second
battle), and the round is played to its popup. Screenshots go to a temporary folder, or to
``$WAR_SCREENSHOT_DIR`` when set (``WAR_SCREENSHOT_DIR=docs`` remakes docs/web-*.png).
Skipped, with the reason, where Chromium, its driver or Selenium is missing (``make browser`` installs
Chromium and its driver; CI's ``.ci/run`` calls it before ``make test``).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the dev extra)")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
    pytest.skip(
        "no Chromium here: `apt-get install chromium chromium-driver` or `make browser`; CI's .ci/run does it",
        allow_module_level=True,
    )

from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from war_env.web.app import TableSettings, make_server  # noqa: E402

SEED = 20
"""The bot draws first; the second battle ties: a war comes early."""
SETTINGS = TableSettings(opponent="fixed:ticks=4", seed=SEED, rules={"target_points": 5})
PHONE = {"width": 390, "height": 844, "pixelRatio": 2, "touch": True}
ROUND_SECONDS = 120


@pytest.fixture(scope="module")
def server():
    server = make_server(SETTINGS, port=0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server
    server.stop()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("WAR_SCREENSHOT_DIR")
    return Path(folder) if folder else tmp_path_factory.mktemp("screenshots")


def chromium(tmp_path: Path, phone: bool = False):
    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    if phone:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


class Page:
    """The table as a person sees it in the browser, and their hands."""

    def __init__(self, driver, url: str):
        self.driver = driver
        driver.get(url)
        # Count what reaches the page: pointer types and touch events, seen before the page's own handlers.
        driver.execute_script(
            "window.seen = {pointers: [], touches: 0};"
            "document.addEventListener('pointerdown', e => seen.pointers.push(e.pointerType), true);"
            "document.addEventListener('touchstart', () => { seen.touches += 1; }, true);"
        )
        self.wait(lambda: self.text("#connection") == "Connected" and self.label("turn") == "Start round")

    def wait(self, condition, seconds: float = 10.0):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.03)
        raise AssertionError(f"the page did not get there in {seconds} s; it shows: {self.text('#table')!r}")

    def text(self, selector: str) -> str:
        return self.driver.find_element(By.CSS_SELECTOR, selector).text

    def button(self, command: str):
        return self.driver.find_element(By.CSS_SELECTOR, f'.controls button[data-command="{command}"]')

    def label(self, command: str) -> str:
        return self.button(command).find_element(By.CLASS_NAME, "label").text

    def enabled(self, command: str) -> bool:
        return self.button(command).get_attribute("aria-disabled") == "false"

    def shown(self, selector: str) -> bool:
        return any(element.is_displayed() for element in self.driver.find_elements(By.CSS_SELECTOR, selector))

    # --- the three ways to press ----------------------------------------------------------------
    def click(self, command: str) -> None:
        self.button(command).click()

    def tap(self, command: str) -> None:
        finger = PointerInput(interaction.POINTER_TOUCH, "finger")
        actions = ActionBuilder(self.driver, mouse=finger)
        actions.pointer_action.move_to(self.button(command)).pointer_down().pointer_up()
        actions.perform()

    def key(self, key: str) -> None:
        webdriver.ActionChains(self.driver).send_keys(key).perform()

    def screenshot(self, path: Path) -> Path:
        self.driver.save_screenshot(str(path))
        return path

    def severe_console_messages(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]


def play_round(page: Page, presses, shots: Path, prefix: str) -> dict:
    """Start the round, make one false start, press "Turn cards" in each of your turns (cycling through
    ``presses``), photograph the first war and the popup. Returns what was seen."""
    table_before = page.text("#seat-0 .turn-pill") + page.text("#seat-1 .turn-pill")
    time.sleep(1.0)
    assert page.text("#seat-0 .turn-pill") + page.text("#seat-1 .turn-pill") == table_before  # no timer runs
    assert "Press Space" in page.text("#notice")
    page.screenshot(shots / f"{prefix}-waiting.png")
    presses[0]("turn")  # start: the bot draws first (seed 20)
    page.wait(lambda: "waiting" not in page.driver.find_element(By.ID, "table").get_attribute("class"))
    presses[0]("turn")  # in the bot's turn: a false start
    page.wait(lambda: page.text("#notice").startswith("False start!"))
    page.wait(lambda: "1 false start" in page.text("#seat-0 .false-starts"))
    seen = {"war": False, "presses": 0}
    deadline = time.monotonic() + ROUND_SECONDS
    while not page.shown("#popup"):
        assert time.monotonic() < deadline, "the round did not end"
        if not seen["war"] and page.shown("#seat-0 .bubble") and page.shown("#seat-1 .bubble"):
            seen["war"] = True
            page.screenshot(shots / f"{prefix}-war.png")
            assert page.text("#trick").startswith("Both laid a")
        if page.enabled("turn"):
            presses[seen["presses"] % len(presses)]("turn")
            seen["presses"] += 1
            page.wait(lambda: not page.enabled("turn") or page.shown("#popup"))
        time.sleep(0.05)
    page.screenshot(shots / f"{prefix}-popup.png")
    seen["headline"] = page.text("#popup-headline")
    seen["false_starts"] = page.text("#seat-0 .false-starts")
    return seen


def test_a_round_on_the_desktop_by_mouse_keyboard_and_touch(server, shots, tmp_path):
    driver = chromium(tmp_path)
    try:
        page = Page(driver, server.url)
        assert page.text("#guide h2") == "How to play War here" and "3 seconds" in page.text("#guide")
        seen = play_round(page, [page.click, lambda command: page.key(Keys.SPACE), page.tap], shots, "desktop")
        assert seen["war"] and seen["presses"] >= 5
        assert seen["headline"] in ("You win round 1!", "Bot wins round 1")
        assert seen["false_starts"] == "1 false start"  # the deliberate one: no press was ever sent twice
        pointers = driver.execute_script("return seen")
        assert {"mouse", "touch"} <= set(pointers["pointers"]) and pointers["touches"] >= 2
        page.key("n")  # New round by the keyboard: a new deal, waiting again, the scoreboard kept
        page.wait(lambda: not page.shown("#popup") and page.label("turn") == "Start round")
        assert page.text("#score-draws") == "0" and page.text("#round-title").lower() == "round 2"
        assert page.severe_console_messages() == []
    finally:
        driver.quit()


def test_a_round_on_a_phone_by_touch(server, shots, tmp_path):
    driver = chromium(tmp_path, phone=True)
    try:
        page = Page(driver, server.url)
        width = driver.execute_script("return document.documentElement.clientWidth")
        scroll = driver.execute_script("return document.documentElement.scrollWidth")
        assert width == PHONE["width"] and scroll <= width  # nothing sticks out sideways
        for command in ("turn", "autoplay", "new_round"):
            box = page.button(command).rect
            assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["height"] >= 44  # a finger's size
        seen = play_round(page, [page.tap], shots, "phone")
        assert seen["war"] and seen["false_starts"] == "1 false start"
        pointers = driver.execute_script("return seen")
        assert set(pointers["pointers"]) == {"touch"} and pointers["touches"] == seen["presses"] + 2
        page.tap("autoplay")  # on the popup: nothing to play, the round is over
        page.tap("new_round")
        page.wait(lambda: not page.shown("#popup"))
        page.tap("autoplay")  # Play 10 battles starts the new round and plays it for you
        page.wait(lambda: page.label("autoplay").startswith("Bot plays"))
        page.wait(lambda: page.text("#battle").startswith("Battle 3"))
        page.screenshot(shots / "phone-autoplay.png")
        assert page.severe_console_messages() == []
    finally:
        driver.quit()
