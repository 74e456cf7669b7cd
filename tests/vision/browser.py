"""A real headless Chromium for the tests that check pages as a person sees them, driven
through Selenium and the system's chromedriver (Debian: ``apt-get install chromium
chromium-driver``; ``make test`` installs them). Skipped, saying why, only where Chromium is
not installed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

BINARIES = ("chromium", "chromium-browser", "google-chrome")


@contextmanager
def headless_chromium(width: int = 1400, height: int = 1200) -> Iterator:
    browser = next((p for p in map(shutil.which, BINARIES) if p), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    chrome = webdriver.Chrome(options=options, service=Service(driver))
    try:
        yield chrome
    finally:
        chrome.quit()
