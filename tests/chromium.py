"""Headless Debian Chromium (/usr/bin/chromium, from the installer's --with-browser), driven by Playwright,
for every browser test: one place for its flags, for starting and stopping it, and for a page of a fixed size."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1280, "height": 900}
UI_TIMEOUT_MS = 60000  # upper bound for a page to render; guards against hangs only
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium(**launch_options) -> Iterator:
    """A running headless Chromium (a Playwright Browser), closed on exit; `launch_options` go to Playwright's
    `launch` (e.g. `env`)."""
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, **launch_options)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium, closed after the module."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser):
    """A fresh page of the module's Chromium with a fixed viewport, closed after the test."""
    opened = browser.new_page(viewport=VIEWPORT)
    opened.set_default_timeout(UI_TIMEOUT_MS)
    try:
        yield opened
    finally:
        opened.close()
