"""The documentation site as a reader meets it, in a real headless Chromium (marker
``browser``): opened as files (``site/index.html``, no server), its search box finds the
pages (issue 34: it found nothing, a browser starts no search worker from a file).
The site is built here by ``mkdocs build`` (the docs extra)."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[web-test]'")
if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
    pytest.skip("needs the docs extra: pip install -e '.[docs]'", allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from webtools import wait  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    return folder


def test_the_search_box_finds_pages_from_the_site_opened_as_files(browser, site):
    assert (site / "search" / "search_index.js").is_file()
    browser.get((site / "playing.html").as_uri())
    browser.find_element(By.CSS_SELECTOR, '[data-bs-target="#mkdocs_search_modal"]').click()
    box = browser.find_element(By.ID, "mkdocs-search-query")
    wait(browser, lambda d: box.is_displayed())
    box.send_keys("resign")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#mkdocs-search-results article a"))
    links = [a.get_attribute("href") for a in
             browser.find_elements(By.CSS_SELECTOR, "#mkdocs-search-results article a")]
    assert all(link.startswith("file://") for link in links)
    assert any("/playing.html#" in link for link in links), links     # "resign asks once"
    # a result opens its page, from the file
    target = next(link for link in links if "/playing.html#" in link)
    browser.get(target)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Playing in the terminal"
