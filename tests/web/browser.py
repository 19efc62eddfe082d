"""Headless Chromium (Debian's package, driven by Playwright for Python) on the web page, and
what the tests do on it as a player would: clicks only."""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BUILT = ROOT / "clients" / "web" / "dist" / "index.html"
PHONE = {"width": 390, "height": 844}


def require_browser() -> None:
    """Skip without Chromium, Playwright or the built page; under CI (env CI), fail instead."""
    missing = []
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        missing.append("chromium (Debian package chromium: make tools)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright for Python (make install)")
    if not BUILT.exists():
        missing.append("the web client's build clients/web/dist/ (npm, then make install)")
    if missing:
        why = "browser tests need " + ", ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)


def executable() -> str:
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


# What the page shows -------------------------------------------------------------------------
MOVE_READY = """() => document.querySelector('#final') || document.querySelector('#bids button')
  || document.querySelector('#announce button')
  || document.querySelector('#hand .card.playable')"""


def version(page) -> str:
    return page.get_attribute("#table", "data-version") or ""


def table_id(page) -> str:
    page.wait_for_selector("#table[data-version]")
    return page.get_attribute("#table", "data-table-id")


def remembered(page, tid: str) -> dict:
    return json.loads(page.evaluate(f"() => localStorage.getItem('belote.table.{tid}')") or "{}")


def hand(page) -> list[str]:
    return page.eval_on_selector_all("#hand .card", "cards => cards.map(c => c.dataset.card)")


def create_with_bots(page, base_url: str, name: str = "Ada", target: str = "200",
                     level: str = "easy") -> str:
    page.goto(base_url + "/")
    page.fill("#create-name", name)
    page.fill("#create-target", target)
    page.select_option("#create-level", label=level)
    page.click("#create")
    page.wait_for_selector("#table[data-status]")
    return table_id(page)


CHOICES = "#bids button, #announce button, #hand .card.playable"


def play_one(page, rng: random.Random, timeout_s: float = 30.0, wait: bool = True) -> bool:
    """Wait for a move of this page's seat (unless not `wait`: a page among others, whose move
    may come only after theirs) and make it by a click (a random bid, announcement or playable
    card); False once the game is over."""
    if wait:
        page.wait_for_function(MOVE_READY, timeout=timeout_s * 1000)
    if page.query_selector("#final"):
        return False
    before = version(page)
    choices = page.locator(CHOICES)
    count = choices.count()
    if count:
        try:
            choices.nth(rng.randrange(count)).click(timeout=2000)
        except PlaywrightError:
            return True  # the page changed under the click (a new event): look again
        _wait_changed(page, before)
    return True


def _wait_changed(page, before: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if version(page) != before or page.is_visible("#message"):
            return
        page.wait_for_timeout(20)


def play_until(page, rng: random.Random, done, limit: int = 400) -> None:
    for _ in range(limit):
        if done():
            return
        if not play_one(page, rng):
            return
    raise AssertionError("the game did not get there")
