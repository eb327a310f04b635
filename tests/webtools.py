"""What the browser tests (tests/test_web_browser.py, tests/test_web_learn_browser.py)
share: a headless Chromium driven by Selenium, and the few ways they read a page.

Selenium is imported here at the top: import this module only after
``pytest.importorskip("selenium.webdriver")``, as those modules do (the ``browser``
fixture in tests/conftest.py does the same). The server they talk to is
conftest's ``serving``.
"""
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(__file__).resolve().parent / "screenshots"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WAIT = 60


def find(names, fallback=None):
    """The first of ``names`` on the PATH, else ``fallback`` if it can be run, else None."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return fallback if fallback and os.access(fallback, os.X_OK) else None


@contextlib.contextmanager
def chromium(downloads):
    """The operating system's headless chromium and chromedriver (``apt-get install
    chromium chromium-driver``) at 1280x800, files it downloads going to ``downloads``;
    Selenium Manager kept offline: nothing is downloaded. Skips the test, with the
    reason, where there is none or it does not start."""
    binary = find(BROWSERS)
    driver_path = find(["chromedriver"], "/usr/bin/chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("no headless Chromium with chromedriver on this machine "
                    "(apt-get install chromium chromium-driver)")
    offline = os.environ.get("SE_OFFLINE")
    os.environ["SE_OFFLINE"] = "true"       # Selenium Manager may not download a browser
    # the profile and chromium's own temporary files (its singleton socket's folder,
    # left in /tmp when it is stopped) in one folder removed after
    scratch = tempfile.mkdtemp(prefix="kalah-chromium-")
    try:
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--disable-gpu", "--window-size=1280,800", "--no-first-run",
                         f"--user-data-dir={scratch}/profile"):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                                  "download.prompt_for_download": False})
        try:
            driver = webdriver.Chrome(service=Service(driver_path, env={**os.environ, "TMPDIR": scratch}),
                                      options=options)
        except WebDriverException as exc:
            pytest.skip(f"chromium did not start: {str(exc).splitlines()[0]}")
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads)})
        try:
            yield driver
        finally:
            driver.quit()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if offline is None:
            del os.environ["SE_OFFLINE"]
        else:
            os.environ["SE_OFFLINE"] = offline


def wait(browser, condition, timeout=WAIT):
    return WebDriverWait(browser, timeout, poll_frequency=0.02).until(condition)


def wait_ready(browser):
    """Until the page's script says it has drawn what it was opened with."""
    wait(browser, lambda d: d.execute_script("return document.body.dataset.ready === '1'"))


def open_page(browser, url):
    """``url`` opened afresh (by way of about:blank: a new hash alone would not reload it)."""
    browser.get("about:blank")
    browser.get(url)
    wait_ready(browser)


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text


def slots_shown(browser, prefix=""):
    """The 14 counts a drawn board shows, by slot: ``#{prefix}pit-N`` and ``#{prefix}store-N``."""
    return browser.execute_script(
        "const prefix = arguments[0];"
        "return [...Array(14).keys()].map(s => Number(document.querySelector("
        "'#' + prefix + (s === 6 || s === 13 ? 'store-' : 'pit-') + s + ' .count').textContent))",
        prefix)


def screenshots_folder():
    """tests/screenshots/ (git-ignored), or docs/ with ``MANCALA_DOCS_SCREENSHOTS=1``."""
    folder = ROOT / "docs" if os.environ.get("MANCALA_DOCS_SCREENSHOTS") == "1" else SHOTS
    folder.mkdir(exist_ok=True)
    return folder


def screenshot(browser, path, width, what):
    """The page saved to ``path``, a picture of something (over 10 kB), and not wider than
    ``width``: ``what`` does not scroll sideways."""
    assert browser.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    width_shown = browser.execute_script("return document.documentElement.scrollWidth")
    assert width_shown <= width, f"{what} scrolls sideways at {width} px"


def axe_source():
    """axe-core's axe.min.js (4.x) from the PyPI package that carries it
    (``axe-selenium-python-nhsuk``, the web-test extra): nothing fetched at run time.
    Skips the test, with the reason, where it is not installed."""
    import importlib.resources
    try:
        script = (importlib.resources.files("axe_selenium_python") / "node_modules" / "axe-core"
                  / "axe.min.js").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        pytest.skip("axe-core is not installed: pip install -e '.[web-test]'")
    return script


AXE_RULES = ("color-contrast", "target-size")


def axe_violations(browser, rules=AXE_RULES):
    """axe-core run in the page as it is now, ``rules`` only: the violations, each as
    (rule, [(target, summary) of each node])."""
    if not browser.execute_script("return typeof window.axe === 'object'"):
        browser.execute_script(axe_source())
    version = browser.execute_script("return axe.version")
    assert int(version.split(".")[0]) >= 4, f"axe-core {version}: target-size needs 4.x"
    found = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'rule', values: arguments[0]}, resultTypes: ['violations']})"
        ".then(r => done(r.violations.map(v => [v.id, v.nodes.map(n => [n.target.join(' '), n.failureSummary])])))"
        ".catch(e => done([['axe failed', [[String(e), '']]]]));", list(rules))
    return found


def small_targets(browser, least=44):
    """Every visible control smaller than ``least`` px either way: buttons, selects, the pages'
    bar links, inputs but checkboxes and radios (their labels are the targets), and anything
    with role=button; as (what, width, height)."""
    return browser.execute_script(
        "const least = arguments[0];"
        "return [...document.querySelectorAll('button, select, a.button, #views a, [role=button], "
        "input:not([type=checkbox]):not([type=radio]):not([type=file]), label.check')]"
        ".filter(e => e.offsetParent !== null && !e.closest('[hidden]') && getComputedStyle(e).visibility !== 'hidden')"
        ".map(e => { const r = e.getBoundingClientRect();"
        " return [e.id || e.className || e.tagName, Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10]; })"
        ".filter(([, w, h]) => w < least - 0.5 || h < least - 0.5)", least)
