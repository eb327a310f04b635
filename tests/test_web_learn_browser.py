"""The Puzzles page and the search-tree explorer in a real headless Chromium
(marker ``browser``): a puzzle solved by clicking, a wrong move by keys, the
explorer stepped node by node, and screenshots at desktop and phone widths.

The real server runs in a subprocess (``python -m mancala serve --port 0``)
with its own data folder (MANCALA_HOME) and an empty cache; Selenium drives
the system's chromium and chromedriver, offline (as tests/test_web_browser.py
does; skipped with the reason where none is installed). Expected values come
from the shipped puzzle file, mancala.Board, the twin's minimax and alphabeta,
mancala.explain, and the puzzle log read back from the server's data folder.

Screenshots go to ``tests/screenshots/`` (git-ignored); with
``MANCALA_DOCS_SCREENSHOTS=1`` they are written to ``docs/`` for docs/web.md.
"""
import json
import lzma
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed: pip install -e '.[web-test]'")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

import mancala  # noqa: E402
from mancala import _reference as twin  # noqa: E402
from mancala import explain  # noqa: E402
from mancala.puzzles import PuzzleLog  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(__file__).resolve().parent / "screenshots"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WAIT = 60

RAW = resources.files("mancala.data").joinpath("puzzles.jsonl.xz").read_bytes()
SHIPPED = [json.loads(line) for line in lzma.decompress(RAW).decode().splitlines() if line.strip()]


def solver_moves(puzzle):
    board = mancala.Board(puzzle["board"], puzzle["to_move"], capture=puzzle["capture"])
    found = []
    for pit in puzzle["solution_indices"]:
        if board.to_move == puzzle["to_move"]:
            found.append(pit)
        board.push(pit)
    return found, board


def find(names, fallback=None):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return fallback if fallback and os.access(fallback, os.X_OK) else None


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def server(tmp_path_factory, home):
    env = dict(os.environ, MANCALA_CACHE=str(tmp_path_factory.mktemp("empty-cache")),
               MANCALA_HOME=str(home))
    process = subprocess.Popen([sys.executable, "-m", "mancala", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        assert " on http://" in line, line + process.stderr.read()
        yield line.split(" on ", 1)[1].split()[0].rstrip("/")
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser():
    binary = find(BROWSERS)
    driver_path = find(["chromedriver"], "/usr/bin/chromedriver")
    if binary is None or driver_path is None:
        pytest.skip("no headless Chromium with chromedriver on this machine "
                    "(apt-get install chromium chromium-driver)")
    offline = os.environ.get("SE_OFFLINE")
    os.environ["SE_OFFLINE"] = "true"       # Selenium Manager may not download a browser
    try:
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                         "--disable-gpu", "--window-size=1280,800", "--no-first-run"):
            options.add_argument(argument)
        try:
            driver = webdriver.Chrome(service=Service(driver_path), options=options)
        except WebDriverException as exc:
            pytest.skip(f"chromium did not start: {str(exc).splitlines()[0]}")
        yield driver
        driver.quit()
    finally:
        if offline is None:
            del os.environ["SE_OFFLINE"]
        else:
            os.environ["SE_OFFLINE"] = offline


def wait(browser, condition, timeout=WAIT):
    return WebDriverWait(browser, timeout, poll_frequency=0.02).until(condition)


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text


def open_page(browser, url):
    browser.get("about:blank")
    browser.get(url)
    wait(browser, lambda d: d.execute_script("return document.body.dataset.ready === '1'"))


def puzzle_slots(browser):
    return browser.execute_script(
        "return [...Array(14).keys()].map(s => Number(document.querySelector("
        "(s === 6 || s === 13 ? '#puzzle-store-' : '#puzzle-pit-') + s + ' .count').textContent))")


# -- puzzles ----------------------------------------------------------------------------------

def test_a_puzzle_solved_by_clicking_moves_the_rating(browser, server, home):
    shipped = next(p for p in SHIPPED if len(solver_moves(p)[0]) < len(p["solution_indices"]))
    moves, final = solver_moves(shipped)
    open_page(browser, f"{server}/puzzles?speed=off#id={shipped['id']}")
    assert text(browser, "puzzle-title") == f"Puzzle {shipped['id']}, rated {shipped['rating']}"
    assert puzzle_slots(browser) == shipped["board"]
    assert text(browser, "puzzle-rating").startswith("1500")
    solver = shipped["to_move"]
    for pit in moves:
        slot = pit if solver == 0 else 7 + pit
        browser.find_element(By.ID, f"puzzle-pit-{slot}").click()
        wait(browser, lambda d: text(d, "puzzle-said").startswith("Right"))
    wait(browser, lambda d: d.execute_script("return document.body.dataset.result") == "solved")
    assert text(browser, "puzzle-said").endswith("Solved!")
    assert puzzle_slots(browser) == final.pits           # the whole line played, by mancala.Board
    kept = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert [(a.puzzle, a.solved, list(a.moves)) for a in kept][-1] == (shipped["id"], True, moves)
    after, before = kept[-1].after, kept[-1].before
    shown = re.match(r"(\d+) \(\+(\d+)\), 95% between (\d+) and (\d+)", text(browser, "puzzle-rating"))
    assert shown, text(browser, "puzzle-rating")
    low, high = after.interval()
    for number, expected in zip(shown.groups(), (after.rating, after.rating - before.rating, low, high)):
        assert abs(int(number) - expected) <= 0.5 + 1e-9
    assert "The solution:" in text(browser, "puzzle-solution")


def test_a_wrong_move_typed_shows_the_solution(browser, server, home):
    shipped = SHIPPED[3]
    open_page(browser, f"{server}/puzzles?speed=off#id={shipped['id']}")
    board = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
    wrong = next(pit for pit in board.legal_moves if pit != shipped["solution_indices"][0])
    browser.find_element(By.TAG_NAME, "body").send_keys(str(wrong + 1))
    wait(browser, lambda d: d.execute_script("return document.body.dataset.result") == "wrong")
    assert text(browser, "puzzle-said").startswith(f"Not the move: {wrong + 1} (")
    side = ("South", "North")[shipped["to_move"]]
    assert text(browser, "puzzle-solution").startswith(
        f"The solution: {side} {shipped['solution_indices'][0] + 1} (")
    assert [a.solved for a in PuzzleLog(home / "puzzles.sqlite3").attempts()][-1] is False
    assert browser.find_elements(By.CSS_SELECTOR, "#puzzle-board .pit:not([disabled])") == []
    # the next puzzle is another one
    browser.find_element(By.ID, "puzzle-next").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.puzzle") != shipped["id"])


# -- the explorer -----------------------------------------------------------------------------

def counts_shown(browser):
    return {cell.get_attribute("id"): int(cell.text.replace(",", ""))
            for cell in browser.find_elements(By.CSS_SELECTOR, "#explore-counts td")}


def test_the_explorer_steps_through_the_nodes_and_counts_as_the_twin(browser, server):
    open_page(browser, f"{server}/explorer#seeds=4&capture=standard&moves=3,6&depth=3")
    wait(browser, lambda d: d.execute_script("return document.body.dataset.explored") == "1")
    board = mancala.Board()
    board.push(2)
    board.push(5)
    slots, to_move = list(board.pits), board.to_move
    mm = twin.minimax(slots, to_move, 3, 0)
    ab = twin.alphabeta(slots, to_move, 3, 0)
    shown = counts_shown(browser)
    assert shown["count-minimax-natural-plain"] == mm[2]
    assert shown["count-alphabeta-natural-plain"] == ab[2]
    direct = explain.explain(board, depth=3, order="natural", table=False)
    assert shown == {f"count-{s}-{o}-{k}": direct.counts[s][o][k]
                     for s in ("minimax", "alphabeta") for o in ("natural", "engine")
                     for k in ("plain", "table")}
    assert text(browser, "tree-alphabeta-title") == \
        f"Alpha-beta (natural order): {ab[2]} nodes, value {ab[0]:+d}, best pit {ab[1] + 1}"
    drawn = len(browser.find_elements(By.CSS_SELECTOR, "#tree-minimax .node"))
    assert drawn == mm[2]
    cuts = browser.find_elements(By.CSS_SELECTOR, "#tree-alphabeta li.cut")
    expected_cuts = [n for n in direct.alphabeta.root.walk() if n.cut is not None]
    assert len(cuts) == len(expected_cuts) > 0
    assert "(window [" in cuts[0].get_attribute("textContent")      # inside a closed branch
    # step: the nodes appear in visit order, the current one marked
    browser.find_element(By.ID, "step-start").click()
    for _ in range(3):
        browser.find_element(By.ID, "step").click()
    assert text(browser, "step-text") == \
        f"Step 4. Minimax: node 4 of {mm[2]} · Alpha-beta: node 4 of {ab[2]}"
    visible = [e.get_attribute("id") for e in browser.find_elements(By.CSS_SELECTOR, "#tree-minimax .node")
               if e.is_displayed()]
    assert visible == [f"minimax-node-{n}" for n in range(1, 5)]
    assert "current" in browser.find_element(By.ID, "alphabeta-node-4").get_attribute("class")
    assert "node #4" in text(browser, "node-detail")
    browser.find_element(By.ID, "step-back").click()
    assert text(browser, "step-text").startswith("Step 3.")
    # the engine's order with a table: alpha-beta's tree and count change, as the library's
    Select(browser.find_element(By.ID, "explore-order")).select_by_value("engine")
    browser.find_element(By.ID, "explore-table").click()
    wait(browser, lambda d: "with a table" in text(d, "tree-alphabeta-title"))
    wait(browser, lambda d: d.execute_script("return document.body.dataset.explored") == "1")
    tabled = explain.search_tree(board, depth=3, order="engine", table=True)
    assert text(browser, "tree-alphabeta-title").startswith(
        f"Alpha-beta (engine order, with a table): {tabled.nodes} nodes")
    assert browser.find_element(By.CSS_SELECTOR, "#explore-counts td.shown[id^=count-alphabeta]") \
        .get_attribute("id") == "count-alphabeta-engine-table"
    assert "order=engine" in browser.execute_script("return location.hash")


def test_the_game_links_to_the_explorer_at_its_position(browser, server):
    browser.get("about:blank")
    browser.get(f"{server}/?speed=off#seeds=5&capture=empty&moves=1,2&south=human&north=human")
    wait(browser, lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
    link = browser.find_element(By.ID, "explore-link")
    assert "/explorer#seeds=5&capture=empty&moves=1,2" in link.get_attribute("href")
    link.click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.explored") == "1")
    board = mancala.Board(seeds=5, capture="empty")
    board.push(0)
    board.push(1)
    shown = browser.execute_script(
        "return [...Array(14).keys()].map(s => Number(document.querySelector("
        "(s === 6 || s === 13 ? '#explore-store-' : '#explore-pit-') + s + ' .count').textContent))")
    assert shown == board.pits
    value, best, nodes = twin.minimax(list(board.pits), board.to_move, 3, 1)
    assert counts_shown(browser)["count-minimax-natural-plain"] == nodes
    # a bad depth in a link is refused with the library's line
    open_page(browser, f"{server}/explorer#seeds=4&depth=12")
    wait(browser, lambda d: text(d, "explore-error"))
    assert text(browser, "explore-error") == "An explained search is 1 to 8 moves deep, not 12"


# -- screenshots ------------------------------------------------------------------------------

def test_screenshots_of_the_puzzles_and_the_explorer(browser, server):
    to_docs = os.environ.get("MANCALA_DOCS_SCREENSHOTS") == "1"
    folder = ROOT / "docs" if to_docs else SHOTS
    folder.mkdir(exist_ok=True)
    shipped = next(p for p in SHIPPED if len(solver_moves(p)[0]) < len(p["solution_indices"]))
    pit = shipped["solution_indices"][0]
    slot = pit if shipped["to_move"] == 0 else 7 + pit
    try:
        for name, (width, height) in (("desktop", (1280, 900)), ("phone", (390, 844))):
            for page in ("puzzles", "explorer"):
                browser.set_window_size(width, height)
                if page == "puzzles":       # one right move played, the line's answer shown
                    open_page(browser, f"{server}/puzzles?speed=off#id={shipped['id']}")
                    browser.find_element(By.ID, f"puzzle-pit-{slot}").click()
                    wait(browser, lambda d: text(d, "puzzle-said").startswith("Right"))
                else:                       # twelve nodes into the search, side by side
                    open_page(browser, f"{server}/explorer#seeds=4&capture=standard&moves=3,6&depth=3")
                    wait(browser, lambda d: d.execute_script(
                        "return document.body.dataset.explored") == "1")
                    browser.find_element(By.ID, "step-start").click()
                    for _ in range(11):
                        browser.find_element(By.ID, "step").click()
                    if width > 800:         # tall enough for the trees below the position
                        browser.set_window_size(width, 1250)
                time.sleep(0.3)
                path = folder / f"web-{page}-{name}.png"
                assert browser.save_screenshot(str(path))
                assert path.stat().st_size > 10_000
                width_shown = browser.execute_script("return document.documentElement.scrollWidth")
                assert width_shown <= width, f"{page} scrolls sideways at {width} px"
    finally:
        browser.set_window_size(1280, 800)
