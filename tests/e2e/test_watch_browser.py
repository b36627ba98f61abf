"""The watch page in a real headless browser: Debian's Chromium and its WebDriver (installed by
tools/ensure-chromium.sh when missing; the test skips, saying why, only when that fails), driven by selenium,
against the real app served by uvicorn on a real Redis.

It loads a running game's page and sees the board, receives a move as a live update without the page reloading,
and steps through a finished game's replay with its buttons, the keyboard and the slider. Screenshots of a
desktop and a phone, in English and Czech, go to a temporary folder, or to ``ARTEMIA_SCREENSHOTS`` when set:
``ARTEMIA_SCREENSHOTS=docs/watch tools/with-redis.sh .venv/bin/python -m pytest tests/e2e/test_watch_browser.py``
renders the ones in docs/watch/.
"""

import os
import subprocess
from pathlib import Path

import pytest
import redis
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.pipeline import watch
from service.pipeline.resolution import start_game
from service.web import create_app
from tests.pipeline_support import CONFIG, RealTime, answer_all, make_ctx, run_jobs, table
from tests.serving import serve

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DESKTOP, PHONE = (1280, 900), (400, 860)
WAIT = 30  # seconds a browser may take to show what is asked (the page polls every 3 s)


@pytest.fixture(scope="module")
def chromium() -> tuple[str, str]:
    """(chromium, chromedriver), installed when missing; a skip with the installer's reason when impossible."""
    done = subprocess.run(
        [str(ROOT / "tools" / "ensure-chromium.sh")], capture_output=True, text=True, timeout=1200, check=False
    )
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        pytest.skip("no headless Chromium: " + (said[-1] if said else f"ensure-chromium.sh exit {done.returncode}"))
    binary, driver = done.stdout.split()
    return binary, driver


@pytest.fixture
def browser(chromium):
    binary, driver = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--hide-scrollbars")
    options.add_argument("--force-device-scale-factor=1")
    chrome = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture
def site(redis_url):
    """The app on a real Redis, served on a loopback port: (ctx, base URL)."""
    ctx = make_ctx(redis.Redis.from_url(redis_url), clock=RealTime())
    app = create_app(Env(ctx, Tables(ctx.store.redis), "bot"), "secret")
    with serve(app) as base:
        yield ctx, base


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("ARTEMIA_SCREENSHOTS") or tmp_path)
    folder = folder if folder.is_absolute() else ROOT / folder
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(browser, size: tuple[int, int], path: Path) -> None:
    """The whole page at the width of ``size`` (the window grown to the page's height)."""
    browser.set_window_size(*size)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(size[0], max(size[1], height))
    assert browser.save_screenshot(str(path)), path
    browser.set_window_size(*size)


def watch_url(ctx, base: str, game_id: str, query: str = "") -> str:
    return f"{base}/w/{ctx.store.meta(game_id)['watch']}{query}"


def shown(browser, attribute: str) -> str:
    return browser.find_element(By.ID, "watch").get_attribute(attribute)


def test_a_running_game_is_drawn_and_follows_a_move_without_reloading(browser, site, shots):
    ctx, base = site
    start_game(ctx, "live", {**CONFIG, "players": 4}, table(4, humans=[1, 3]))
    run_jobs(ctx)
    answer_all(ctx, "live")  # into the game a little: something in the log
    browser.set_window_size(*DESKTOP)
    browser.get(watch_url(ctx, base, "live"))
    board = browser.find_element(By.CSS_SELECTOR, "#w-board svg")
    assert board.size["width"] > DESKTOP[0] // 2 and board.find_element(By.ID, "rescue-counter").is_displayed()
    assert shown(browser, "data-live") == "1" and browser.find_element(By.ID, "w-live").is_displayed()
    screenshot(browser, DESKTOP, shots / "live-desktop-en.png")

    version, log = shown(browser, "data-version"), browser.find_element(By.ID, "w-log").text
    browser.execute_script("window.stillHere = true")  # gone if the page reloads
    answer_all(ctx, "live")
    WebDriverWait(browser, WAIT).until(lambda b: shown(b, "data-version") != version)
    assert int(shown(browser, "data-version")) > int(version)
    assert browser.execute_script("return window.stillHere") is True
    assert browser.find_element(By.ID, "w-log").text != log

    browser.get(watch_url(ctx, base, "live", "?lang=cs"))
    assert "Živě" in browser.find_element(By.ID, "w-live").text
    screenshot(browser, PHONE, shots / "live-phone-cs.png")


def test_a_finished_game_steps_through_its_replay(browser, site, shots):
    ctx, base = site
    start_game(ctx, "done", {**CONFIG, "seed": 11}, {**table(3, humans=[]), "lang": "cs"})
    run_jobs(ctx)
    assert ctx.store.load("done").status == "over"
    browser.set_window_size(*DESKTOP)
    browser.get(watch_url(ctx, base, "done", "?step=0&lang=cs"))
    slider = browser.find_element(By.ID, "w-slider")
    steps = int(slider.get_attribute("max")) + 1
    assert (
        steps > 10 and shown(browser, "data-step") == "0" and "Krok 1 z" in browser.find_element(By.ID, "w-where").text
    )

    def at(step: int):
        WebDriverWait(browser, WAIT).until(lambda b: shown(b, "data-step") == str(step))
        assert slider.get_attribute("value") == str(step)
        assert browser.current_url.endswith(f"?step={step}&lang=cs")
        return browser.find_element(By.CSS_SELECTOR, "#w-board svg").get_attribute("outerHTML")

    first = at(0)
    browser.find_element(By.ID, "w-next").click()
    browser.find_element(By.ID, "w-next").click()
    second = at(2)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    at(1)
    browser.execute_script(  # the slider dragged to the end
        "const s = document.getElementById('w-slider'); s.value = s.max; s.dispatchEvent(new Event('input'))"
    )
    last = at(steps - 1)
    assert len({first, second, last}) == 3
    assert browser.find_element(By.ID, "w-next").get_attribute("aria-disabled") == "true"
    assert "Konec hry." in browser.find_element(By.ID, "w-head").text
    screenshot(browser, DESKTOP, shots / "replay-desktop-cs.png")

    browser.get(watch_url(ctx, base, "done", "?step=5&lang=en"))
    assert "Step 6 of" in browser.find_element(By.ID, "w-where").text
    assert not browser.find_elements(By.CSS_SELECTOR, ".hidden")
    screenshot(browser, PHONE, shots / "replay-phone-en.png")

    watch.show_hidden(ctx.store, "done")  # the creator's choice after the game (/reveal)
    browser.get(watch_url(ctx, base, "done", "?step=4&lang=en"))
    assert "Places in hand:" in browser.find_element(By.CSS_SELECTOR, ".hidden").text
    screenshot(browser, DESKTOP, shots / "replay-hidden-desktop-en.png")
