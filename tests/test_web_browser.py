"""The web app in a real headless Chromium (marker ``browser``): play, undo,
analysis, the position editor, save and load, a position from a link.

The real server runs in a subprocess (``python -m mancala serve --port 0``,
conftest's ``server``) with its own data folder (``server_home``) and an empty
cache; Selenium drives the operating system's chromium and chromedriver, offline
(conftest's ``browser``, one for the session; tests/webtools.py: skipped with the
reason where none is installed). Expected values come from mancala.Board and
mancala.storage, not from the page.

Screenshots go to ``tests/screenshots/`` (git-ignored); with
``MANCALA_DOCS_SCREENSHOTS=1`` the desktop and phone ones are written to
``docs/`` for the README.
"""
import json
import random
import re
import time
from urllib.parse import parse_qs

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[web-test]'")

from conftest import kept_games, serving  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from webtools import (open_page, screenshot, screenshots_folder, slots_shown, text,  # noqa: E402
                      wait, wait_ready)

import mancala  # noqa: E402
from mancala import storage  # noqa: E402


def open_game(browser, server, hash_="", speed="off"):
    """The game page at the position a link's hash describes, moves shown at ``speed``."""
    open_page(browser, f"{server}/?speed={speed}#{hash_}")


def shown_hash(browser):
    return {key: values[0] for key, values in
            parse_qs(browser.execute_script("return location.hash.slice(1)")).items()}


def replay(hash_):
    """The board a link's position describes, by mancala.Board (moves are pits 1..6)."""
    if "board" in hash_:
        board = mancala.Board([int(x) for x in hash_["board"].split(",")], int(hash_["to_move"]),
                              capture=hash_["capture"])
    else:
        board = mancala.Board(seeds=int(hash_["seeds"]), capture=hash_["capture"])
    for pit in (hash_.get("moves") or "").split(","):
        if pit:
            board.push(int(pit) - 1)
    return board


def depth_shown(browser):
    match = re.match(r"Depth (\d+)", text(browser, "analysis-status"))
    return int(match.group(1)) if match else 0


def moves_listed(browser):
    return len(browser.find_elements(By.CSS_SELECTOR, "#move-list li"))


def south_turn_or_over(browser):
    status = text(browser, "status")
    if status.startswith("Game over"):
        return "over"
    if "type or click" in status and browser.find_elements(
            By.CSS_SELECTOR, "#row-south .pit:not([disabled])"):
        return "turn"
    return False


def play_south_to_the_end(browser, rng, moves=300):
    """South's pits clicked at random, each after the computer's reply, until the game ends."""
    for _ in range(moves):
        if wait(browser, south_turn_or_over) == "over":
            break
        before = moves_listed(browser)
        rng.choice(browser.find_elements(By.CSS_SELECTOR, "#row-south .pit:not([disabled])")).click()
        wait(browser, lambda d: moves_listed(d) > before)


def test_play_a_whole_game_against_ai_easy_by_clicking(browser, server):
    open_game(browser, server, "seeds=4&capture=standard&south=human&north=ai:easy")
    play_south_to_the_end(browser, random.Random(1))
    board = replay(shown_hash(browser))
    outcome = board.outcome()
    assert outcome is not None, "the game did not end"
    score = f"{outcome.south}–{outcome.north}"
    expected = f"a draw, {score}" if outcome.winner is None else \
        f"{('South', 'North')[outcome.winner]} wins {score}"
    assert text(browser, "status") == f"Game over: {expected}"
    assert slots_shown(browser) == board.pits
    assert moves_listed(browser) == len(board.move_stack)
    # every move on the list is the board's, in order (pits 1..6, S/N)
    labels = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#move-list li")]
    assert labels == [f"{i}. {'SN'[r.player]} {r.pit + 1}" for i, r in enumerate(board.move_stack, 1)]
    assert browser.find_elements(By.CSS_SELECTOR, ".pit:not([disabled])") == []


def test_two_computers_play_to_the_end_by_themselves(browser, server):
    open_game(browser, server, "seeds=3&capture=none&south=random&north=ai:easy")
    wait(browser, lambda d: text(d, "status").startswith("Game over"))
    board = replay(shown_hash(browser))
    assert board.is_game_over() and slots_shown(browser) == board.pits


def test_undo_takes_back_the_computers_reply_and_the_move(browser, server):
    open_game(browser, server, "seeds=4&capture=standard&south=human&north=ai:easy")
    browser.find_element(By.ID, "pit-0").click()        # pit 1: no extra turn, North replies
    wait(browser, lambda d: south_turn_or_over(d) == "turn" and moves_listed(d) >= 2)
    played = replay(shown_hash(browser))
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: "moves=&" in d.execute_script("return location.hash"))
    assert slots_shown(browser) == mancala.Board().pits
    assert "viewing move 0" in text(browser, "status")
    browser.find_element(By.ID, "redo").click()       # the line is kept: redo walks it again
    wait(browser, lambda d: "moves=1&" in d.execute_script("return location.hash"))
    board = mancala.Board()
    board.push(0)
    assert slots_shown(browser) == board.pits
    assert moves_listed(browser) == len(played.move_stack)


def test_keys_alone_play_a_move(browser, server):
    open_game(browser, server, "seeds=4&capture=standard&south=human&north=human")
    browser.find_element(By.TAG_NAME, "body").send_keys("3")     # pit 3: an extra turn
    wait(browser, lambda d: moves_listed(d) == 1)
    assert "Extra turn" in text(browser, "announce")
    board = mancala.Board()
    board.push(2)
    assert slots_shown(browser) == board.pits
    browser.find_element(By.TAG_NAME, "body").send_keys("u")
    wait(browser, lambda d: slots_shown(d) == mancala.Board().pits)


def test_the_new_game_dialog_hint_and_resign(browser, server):
    from selenium.webdriver.support.ui import Select
    open_game(browser, server, "seeds=4&capture=standard&south=human&north=ai:easy")
    browser.find_element(By.TAG_NAME, "body").send_keys("n")
    wait(browser, lambda d: d.find_element(By.ID, "new-dialog").is_displayed())
    from mancala.players import level_elo
    options = [option.text for option in Select(browser.find_element(By.ID, "north-player")).options]
    assert f"Computer: medium (Elo {level_elo('ai:medium').elo:.0f})" in options     # each level's Elo
    assert "Human" in options
    Select(browser.find_element(By.ID, "north-player")).select_by_value("human")
    seeds = browser.find_element(By.ID, "seeds")
    seeds.clear()
    seeds.send_keys("5")
    Select(browser.find_element(By.ID, "capture")).select_by_value("none")
    browser.find_element(By.ID, "new-start").click()
    wait(browser, lambda d: shown_hash(d).get("seeds") == "5")
    assert shown_hash(browser)["capture"] == "none" and shown_hash(browser)["north"] == "human"
    assert slots_shown(browser) == mancala.Board(seeds=5, capture="none").pits
    browser.find_element(By.ID, "hint").click()
    wait(browser, lambda d: text(d, "announce").startswith("Hint: pit"))
    pit = int(text(browser, "announce").split("pit ")[1].split()[0])
    assert 1 <= pit <= 6
    assert "hinted" in browser.find_element(By.ID, f"pit-{pit - 1}").get_attribute("class")
    browser.find_element(By.ID, "resign").click()
    assert text(browser, "status") == "South resigned: North wins"
    assert browser.find_elements(By.CSS_SELECTOR, ".pit:not([disabled])") == []


def test_the_analysis_fills_in_and_solves_an_endgame(browser, server):
    open_game(browser, server, "seeds=4&capture=standard&moves=3,6&south=human&north=human")
    wait(browser, lambda d: depth_shown(d) >= 8)
    scores = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "#analysis-rows .score")]
    board = replay(shown_hash(browser))
    assert len(scores) == len(board.legal_moves) and all(s and s != "…" for s in scores)
    # an endgame: +4 for South, worked by hand (docs/perfect-play.md's solve example)
    open_game(browser, server, "board=0,0,0,0,1,1,0,2,0,0,0,0,0,0&to_move=0&capture=standard"
                               "&moves=&south=human&north=human")
    wait(browser, lambda d: text(d, "analysis-status").startswith("Solved"))
    assert "best pit 6, +4 for South" in text(browser, "analysis-status")
    exact = mancala.Engine(hash_mb=4).analyse(
        mancala.Board([0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0]), exact=True)
    for pit, result in exact.items():
        lost = 4 - result.score
        shown = browser.find_element(By.CSS_SELECTOR, f"#analysis-{pit} .score").text
        assert shown == f"{result.score:+d} · " + (f"loses {lost}" if lost else "perfect")
    assert text(browser, "bar-text") == "South +4 (exact)"


def test_the_editor_refuses_an_impossible_position_and_uses_a_possible_one(browser, server):
    open_game(browser, server, "seeds=4&capture=standard&south=human&north=human")
    browser.find_element(By.ID, "edit").click()
    field = browser.find_element(By.CSS_SELECTOR, "#edit-form input[data-slot='3']")
    field.clear()
    field.send_keys("140")
    browser.find_element(By.ID, "edit-use").click()
    wait(browser, lambda d: text(d, "edit-error"))
    assert "at most 144" in text(browser, "edit-error")
    slots = [0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 3]
    for slot, count in enumerate(slots):
        field = browser.find_element(By.CSS_SELECTOR, f"#edit-form input[data-slot='{slot}']")
        field.clear()
        field.send_keys(str(count))
    browser.find_element(By.CSS_SELECTOR, "#edit-form input[name=to_move][value='1']").click()
    browser.find_element(By.ID, "edit-use").click()
    wait(browser, lambda d: shown_hash(d).get("board") == ",".join(map(str, slots)))
    assert slots_shown(browser) == slots
    assert text(browser, "status").startswith("North to move")


def test_save_and_load_back(browser, server, downloads):
    open_game(browser, server, "seeds=5&capture=empty&moves=1,2&south=human&north=human")
    browser.find_element(By.ID, "save").click()
    saved = downloads / "mancala-save.json"
    wait(browser, lambda d: saved.exists() and saved.stat().st_size > 0)
    game = storage.load(saved)          # the terminal game's own check
    assert (game.seeds, game.capture, game.moves) == (5, "empty", [0, 1])
    # a different game, then the file loads back
    open_game(browser, server, "seeds=3&capture=none&south=human&north=human")
    browser.find_element(By.ID, "load-file").send_keys(str(saved))
    wait(browser, lambda d: shown_hash(d).get("seeds") == "5")
    assert slots_shown(browser) == game.board().pits
    assert shown_hash(browser)["moves"] == "1,2"
    # a file the terminal game would refuse is refused with its reason
    bad = downloads / "bad.json"
    bad.write_text(json.dumps(dict(json.loads(saved.read_text()), moves=[0, 0, 0])))
    browser.find_element(By.ID, "load-file").send_keys(str(bad))
    wait(browser, lambda d: text(d, "error"))
    assert text(browser, "error") == \
        "bad.json: move 3 (pit 0) is not legal: that pit is empty"


def test_a_link_opens_its_position(browser, server):
    open_game(browser, server, "seeds=5&capture=empty&moves=3,6&south=human&north=ai:hard")
    board = mancala.Board(seeds=5, capture="empty")
    board.push(2)
    board.push(5)
    assert slots_shown(browser) == board.pits
    assert "North: Computer: hard" in text(browser, "north-name")
    # nothing came from another host
    sources = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    assert sources and all(s.startswith(server + "/") or s.startswith(server.replace("http", "ws") + "/")
                           for s in sources), sources
    open_game(browser, server, "seeds=13&capture=standard")
    assert "The link's position is refused: seeds per pit is a whole number from 1 to 12" \
        in text(browser, "error")


def test_screenshots_at_desktop_and_phone_widths(browser, server):
    folder = screenshots_folder()
    try:
        for name, (width, height) in (("desktop", (1280, 800)), ("phone", (390, 844))):
            browser.set_window_size(width, height)
            open_game(browser, server, "seeds=4&capture=standard&moves=3,6,2&south=human&north=ai:medium",
                      speed="normal")
            wait(browser, lambda d: depth_shown(d) >= 12)
            time.sleep(1.5)
            screenshot(browser, folder / f"web-{name}.png", width, "the page")
    finally:
        browser.set_window_size(1280, 800)


# -- the records: games kept, the history page, the review (mancala.web.records) ----------

def kept_number(browser):
    match = re.match(r"(?:Kept in|Already in) your history as game (\d+)\.", text(browser, "kept-note"))
    return int(match.group(1)) if match else None


def open_view(browser, name):
    browser.find_element(By.CSS_SELECTOR, f'#views a[data-view="{name}"]').click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.view") == name)


def test_a_game_won_or_lost_in_the_page_is_in_the_history_with_a_rating(browser, server, server_home):
    open_game(browser, server, "seeds=1&capture=standard&south=human&north=ai:easy")
    play_south_to_the_end(browser, random.Random(7))
    number = wait(browser, kept_number)
    board = replay(shown_hash(browser))
    assert board.is_game_over()
    [game] = [g for g in kept_games(server_home) if g.id == number]
    assert list(game.pit_indices) == [r.pit for r in board.move_stack]     # the page's game
    assert (game.south_store, game.north_store) == (board.outcome().south, board.outcome().north)
    assert game.players == ("human", "ai:easy") and game.rated
    shown = f"{game.after.rating:.0f} ({game.after.rating - game.before.rating:+.0f})"
    assert f"Your rating: {game.after.rating:.0f} (" in text(browser, "kept-note")
    # the history page: the game, its rating, and the curve through every rated game
    open_view(browser, "records")
    assert browser.execute_script("return location.pathname") == "/history"
    wait(browser, lambda d: d.find_elements(By.ID, f"game-{number}"))
    row = browser.find_element(By.ID, f"game-{number}")
    assert row.find_element(By.CSS_SELECTOR, ".rating").text == shown
    rated = [g for g in kept_games(server_home) if g.rated]
    assert text(browser, "rating-line").startswith(f"Your rating: {rated[-1].after.rating:.0f} (95% between")
    points = browser.execute_script(
        "return document.querySelector('#rating-chart polyline').getAttribute('points')").split()
    assert len(points) == len(rated) + 1                    # the start, then each rated game
    assert browser.find_elements(By.CSS_SELECTOR, "#rating-chart polygon.band")
    # a reload of the finished game keeps nothing twice; the address opens the history view
    count = len(kept_games(server_home))
    browser.refresh()
    wait_ready(browser)
    assert browser.execute_script("return document.body.dataset.view") == "records"
    wait(browser, lambda d: d.find_elements(By.ID, f"game-{number}"))
    assert len(kept_games(server_home)) == count


# tests/test_history.py's Kalah(6,1) game worked by hand; its third move (North 5) is the
# mistake mancala.review's docstring works: it loses 4 seeds; pits 2, 3, 4 and 6 keep -2
HAND_GAME = "seeds=1&capture=standard&moves=6,5,5,4,4,3&south=human&north=human"


def test_review_a_game_finished_in_the_page_chart_marks_and_the_better_move(browser, server, server_home):
    open_game(browser, server, HAND_GAME)
    browser.find_element(By.ID, "pit-12").click()          # North's pit 6: the game ends 9-3
    wait(browser, kept_number)
    assert "Not rated: no one side is a person" in text(browser, "kept-note")
    browser.find_element(By.ID, "kept-review").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-chart svg polyline"))
    assert browser.execute_script("return location.pathname") == "/history"
    points = browser.execute_script(
        "return document.querySelector('#review-chart polyline').getAttribute('points')").split()
    assert len(points) == 8                                   # the start and after each of 7 moves
    third = browser.find_element(By.ID, "review-move-3")
    assert third.text.startswith("3. N 5")
    mark = third.find_element(By.CSS_SELECTOR, ".mark")
    assert mark.text == "?" and "mistake" in mark.get_attribute("class")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-moves .mark")) == 1   # the only loss
    assert browser.find_elements(By.CSS_SELECTOR, "#review-chart circle.mark.mistake")
    third.click()
    detail = text(browser, "review-detail")
    assert "Move 3: North pit 5 is worth -6 for North (exact)." in detail
    assert "Mistake ?: it lost 4 seeds. Better: pit 2 or 3 or 4 or 6 (-2)" in detail
    browser.find_element(By.ID, "review-on-board").click()   # the position it was played in
    wait(browser, lambda d: shown_hash(d).get("moves") == "6,5")
    assert browser.execute_script("return document.body.dataset.view") == "play"
    board = mancala.Board(seeds=1)
    board.push(5)
    board.push(4)
    assert slots_shown(browser) == board.pits


def test_two_tabs_finishing_games_are_both_kept_and_an_undone_end_is_kept_once(browser, server, server_home):
    first = browser.current_window_handle
    open_game(browser, server, HAND_GAME)
    browser.switch_to.new_window("tab")
    second = browser.current_window_handle
    try:
        open_game(browser, server, HAND_GAME)
        before = len(kept_games(server_home))
        for handle in (first, second):      # each tab's last move, one right after the other
            browser.switch_to.window(handle)
            browser.find_element(By.ID, "pit-12").click()
        numbers = []
        for handle in (first, second):
            browser.switch_to.window(handle)
            numbers.append(wait(browser, kept_number))
        assert len(set(numbers)) == 2 and len(kept_games(server_home)) == before + 2
        # the last move taken back and played again: the same game, kept once
        browser.find_element(By.ID, "undo").click()
        wait(browser, lambda d: moves_listed(d) == 7 and "viewing move 6" in text(d, "status"))
        browser.find_element(By.ID, "pit-12").click()
        wait(browser, lambda d: text(d, "kept-note").startswith("Already in your history"))
        assert kept_number(browser) == numbers[1] and len(kept_games(server_home)) == before + 2
    finally:
        browser.switch_to.window(second)
        browser.close()
        browser.switch_to.window(first)


def a_history(home, count=9):
    """A history to show: games of Kalah(6,3) and (6,4) a day apart, 'human' played by a
    shallow softmax level against the computer levels (mancala.history keeps and rates them)."""
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
                       [record.pit for record in board.move_stack], start + number * 86400 * 1.3)
    return history.games()


def test_screenshots_of_the_history_and_the_review(browser, tmp_path):
    """The history page and a review at desktop and phone widths (docs/web.md shows them)."""
    folder = screenshots_folder()
    me = tmp_path / "me"                 # a home folder: the page names the file from ~
    home = me / ".local" / "share" / "mancala"
    home.mkdir(parents=True)
    games = a_history(home)
    last = [game for game in games if game.seeds == 3][-1]
    sizes = {"desktop": (1280, 800), "phone": (390, 844)}

    def shoot(page, name):          # at a width (the charts redraw to fit), then no sideways scroll
        browser.set_window_size(*sizes[name])
        time.sleep(0.5)
        if page == "review":
            browser.execute_script("document.getElementById('records-review').scrollIntoView()")
        screenshot(browser, folder / f"web-{page}-{name}.png", sizes[name][0], f"the {page} page")

    with serving(tmp_path / "empty-cache", home, HOME=str(me)) as served:
        try:
            browser.set_window_size(*sizes["desktop"])
            browser.get("about:blank")
            browser.get(f"{served.url}/history")
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rating-chart polyline"))
            assert len(browser.find_elements(By.CSS_SELECTOR, "#games-rows tr")) == len(games)
            assert "kept on this machine in ~/.local/share/mancala/history.sqlite3" in \
                browser.find_element(By.TAG_NAME, "body").text
            shoot("history", "desktop")
            shoot("history", "phone")
            browser.find_element(By.CSS_SELECTOR, f"#game-{last.id} button.review").click()
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-chart polyline"))
            shoot("review", "phone")
            shoot("review", "desktop")
        finally:
            browser.set_window_size(1280, 800)


def test_review_a_loaded_save_file(browser, server, tmp_path):
    game = storage.SavedGame(1, "standard", "human", "ai:easy", [5, 4, 4, 3, 3, 2, 5])
    saved = tmp_path / "hand-game.json"
    saved.write_text(storage.dumps(game))
    open_game(browser, server, "seeds=4&capture=standard&south=human&north=human")
    assert browser.find_element(By.ID, "review-game").get_attribute("disabled")   # no moves yet
    browser.find_element(By.ID, "load-file").send_keys(str(saved))
    wait(browser, lambda d: shown_hash(d).get("seeds") == "1")
    browser.find_element(By.ID, "review-game").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-chart svg polyline"))
    assert text(browser, "review-title") == "Review: This game (7 moves)"
    marks = browser.find_elements(By.CSS_SELECTOR, "#review-moves .mark")
    assert [m.get_attribute("class") for m in marks] == ["mark mistake"]    # move 3, worked by hand
    assert "Move 3: North pit 5" in text(browser, "review-detail")         # the first mark chosen
