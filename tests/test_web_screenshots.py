"""The screenshots the docs show, taken in a real headless Chromium (marker ``browser``):
the game at desktop and phone widths (the README's), a move mid-sowing, a capture's
seeds in flight, the result card, the history and a review, a puzzle after a miss.

They go to ``tests/screenshots/`` (git-ignored); with ``MANCALA_DOCS_SCREENSHOTS=1``
to ``docs/`` (docs/web.md shows them). Each is a picture of something (over 10 kB)
and none scrolls sideways (tests/webtools.py's screenshot). The game's are taken in
every run; the others (what they show is tested elsewhere) are ``slow``. All of them,
into docs/: ``MANCALA_DOCS_SCREENSHOTS=1 python -m pytest -m browser -k screenshot
tests/test_web_screenshots.py tests/test_web_learn_browser.py``.
"""
import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[web-test]'")

from conftest import serving, shipped_puzzles  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from webtools import open_page, screenshot, screenshots_folder, text, wait  # noqa: E402

import mancala  # noqa: E402

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def fresh(browser, server, path):
    browser.get("about:blank")
    browser.get(f"{server}/robots.txt")
    browser.execute_script("sessionStorage.clear(); localStorage.clear()")
    open_page(browser, f"{server}{path}")


def element_shot(browser, element_id, path):
    """One element of the page, as a player sees it (no sideways scroll at this width)."""
    assert browser.find_element(By.ID, element_id).screenshot(str(path))
    assert path.stat().st_size > 10_000


def test_screenshots_of_the_game(browser, server):
    folder = screenshots_folder()
    try:
        for name, size in SIZES.items():         # the README's: a casual game, its analysis
            browser.set_window_size(*size)
            fresh(browser, server, "/?speed=off#seeds=4&capture=standard&moves=3,6,2&south=human&north=ai:medium")
            browser.find_element(By.ID, "analyse").click()      # the analysis, asked for
            wait(browser, lambda d: text(d, "analysis-status").startswith("Depth 1"))
            time.sleep(1.0)
            browser.execute_script("window.scrollTo(0, 0)")    # as the page opens, its top in view
            screenshot(browser, folder / f"web-{name}.png", size[0], "the game")
        browser.set_window_size(*SIZES["desktop"])
        # mid-sowing: South's pit 6 of a position with 9 seeds in it, the hand half-way
        slots = [2, 3, 0, 4, 1, 9, 5, 3, 2, 4, 0, 5, 2, 8]
        fresh(browser, server, f"/?speed=slow#board={','.join(map(str, slots))}&to_move=0"
                               "&capture=standard&south=human&north=human")
        browser.find_element(By.ID, "pit-5").click()
        wait(browser, lambda d: d.execute_script(
            "const h = document.querySelector('.hand'); return h && h.querySelector('.hand-count').textContent === '5'"))
        element_shot(browser, "play", folder / "web-sowing.png")
        # a capture: South's pit 5 (1 seed) lands in empty pit 6, facing North's 6 seeds
        slots = [3, 2, 0, 1, 1, 0, 12, 6, 2, 3, 0, 4, 1, 13]
        fresh(browser, server, f"/?speed=slow#board={','.join(map(str, slots))}&to_move=0"
                               "&capture=standard&south=human&north=human")
        browser.find_element(By.ID, "pit-4").click()
        wait(browser, lambda d: d.execute_script(
            "return document.querySelectorAll('#board-box .fly').length >= 3"), timeout=10)
        time.sleep(0.25)
        element_shot(browser, "play", folder / "web-capture.png")
    finally:
        browser.set_window_size(*SIZES["desktop"])


@pytest.mark.slow
def test_screenshot_of_the_result_card(browser, server):
    folder = screenshots_folder()
    fresh(browser, server, "/?speed=instant")
    browser.find_element(By.ID, "new-game").click()
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element(By.ID, "north-player")).select_by_value("ai:easy")
    seeds = browser.find_element(By.ID, "seeds")
    seeds.clear()
    seeds.send_keys("3")
    browser.find_element(By.ID, "new-start").click()
    for _ in range(200):         # South plays the engine's choice of a depth-6 search
        if browser.find_element(By.ID, "result-card").get_attribute("hidden") is None:
            break
        enabled = browser.find_elements(By.CSS_SELECTOR, "#row-south .pit:not([disabled])")
        if enabled:
            slots = [int(x) for x in browser.execute_script(
                "return [...Array(14).keys()].map(s => document.querySelector("
                "(s === 6 || s === 13 ? '#store-' : '#pit-') + s + ' .count').textContent)")]
            board = mancala.Board(slots, 0)
            pit = mancala.Engine(hash_mb=4).search(board, depth=6).move
            browser.find_element(By.ID, f"pit-{pit}").click()
        time.sleep(0.25)
    wait(browser, lambda d: d.find_element(By.ID, "result-card").is_displayed())
    time.sleep(2.5)              # the end's banner fades
    element_shot(browser, "play", folder / "web-result.png")


def a_history(home, count=9):
    """A history to show: games of Kalah(6,3) and (6,4) a day apart, 'human' played by a
    shallow softmax level against the computer levels (mancala.history keeps them, and rates
    those it can: Kalah(6,4), as every face does)."""
    from mancala.history import History
    from mancala.players import make_player
    from mancala.specs import PlayerSpec
    history = History(home / "history.sqlite3")
    opponents = ["random", "ai:easy", "ai:easy", "ai:medium", "ai:easy", "ai:medium"]
    start = time.mktime((2026, 5, 1, 18, 0, 0, 0, 0, 0))
    for number in range(count):
        me = make_player(PlayerSpec.parse("ai:depth=4,temp=1"), number)
        opponent = opponents[number % len(opponents)]
        them = make_player(PlayerSpec.parse(opponent), number)
        board = mancala.Board(seeds=3 + number % 2)
        while not board.is_game_over():
            board.push((me if board.to_move == 0 else them).choose(board.copy(stack=False)))
        history.record("human", opponent, 3 + number % 2, "standard",
                       [record.pit for record in board.move_stack], start + number * 86400 * 1.3,
                       rated=None if number % 4 != 2 else False)   # rated where it can be: 4 seeds
    return history.games()


@pytest.mark.slow
def test_screenshots_of_the_history_and_the_review(browser, tmp_path):
    folder = screenshots_folder()
    me = tmp_path / "me"                 # a home folder: the page names the file from ~
    home = me / ".local" / "share" / "mancala"
    home.mkdir(parents=True)
    games = a_history(home)
    last = [game for game in games if game.seeds == 3][-1]
    with serving(tmp_path / "empty-cache", home, HOME=str(me)) as served:
        try:
            browser.set_window_size(*SIZES["desktop"])
            fresh(browser, served.url, "/history")
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rating-chart polyline"))
            assert len(browser.find_elements(By.CSS_SELECTOR, "#games-rows tr")) == len(games)
            assert "kept on this machine in ~/.local/share/mancala/history.sqlite3" in \
                browser.find_element(By.TAG_NAME, "body").text
            for name in ("desktop", "phone"):
                browser.set_window_size(*SIZES[name])
                time.sleep(0.5)
                browser.execute_script("document.getElementById('records-rating').scrollIntoView()")
                screenshot(browser, folder / f"web-history-{name}.png", SIZES[name][0], "the history")
            browser.set_window_size(*SIZES["desktop"])
            browser.find_element(By.CSS_SELECTOR, f"#game-{last.id} button.review").click()
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-chart polyline"))
            for name in ("desktop", "phone"):
                browser.set_window_size(*SIZES[name])
                time.sleep(0.8)
                browser.execute_script("document.getElementById('records-review').scrollIntoView()")
                screenshot(browser, folder / f"web-review-{name}.png", SIZES[name][0], "the review")
        finally:
            browser.set_window_size(*SIZES["desktop"])


@pytest.mark.slow
def test_screenshot_of_a_puzzle_after_a_miss(browser, server):
    folder = screenshots_folder()
    shipped = next(p for p in shipped_puzzles() if len(p["solution_indices"]) > 2)
    board = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
    wrong = next(pit for pit in board.legal_moves if pit != shipped["solution_indices"][0])
    fresh(browser, server, f"/puzzles?speed=fast#id={shipped['id']}")
    browser.find_element(By.TAG_NAME, "body").send_keys(str(wrong + 1))
    wait(browser, lambda d: d.execute_script("return document.body.dataset.result") == "retry")
    screenshot(browser, folder / "web-puzzle-retry.png", 1280, "the puzzle")
