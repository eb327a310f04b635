"""The History view and the review in a real headless Chromium (marker ``browser``):
the games in the player's words, the rating's curve, and a review beside its board,
stepped with the arrow keys, its marks, and "play from here" against a chosen level.

The real server runs in a subprocess (conftest's ``server``, its data folder
``server_home``); Selenium drives the system's chromium (conftest's ``browser``).
Expected values come from a Kalah(6,1) game worked by hand (tests/test_history.py
draws it; mancala.review's docstring works its third move), mancala.Board and the
history file read back with mancala.history.
"""
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[web-test]'")

from conftest import kept_games  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from webtools import open_page, slots_shown, text, wait, wait_ready  # noqa: E402

import mancala  # noqa: E402

# tests/test_history.py's Kalah(6,1) game worked by hand; its third move (North 5) is the
# mistake mancala.review's docstring works: it loses 4 seeds; pits 2, 3, 4 and 6 keep -2
HAND = [5, 4, 4, 3, 3, 2, 5]
HAND_GAME = "seeds=1&capture=standard&moves=6,5,5,4,4,3&south=human&north=human"


def open_view(browser, name):
    browser.find_element(By.CSS_SELECTOR, f'#views a[data-view="{name}"]').click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.view") == name)


def reviewed(browser):
    return browser.find_elements(By.CSS_SELECTOR, "#review-chart svg polyline")


def test_a_finished_casual_game_is_reviewed_beside_its_board_stepped_by_keys(browser, server, server_home):
    open_page(browser, f"{server}/?speed=off#{HAND_GAME}")
    browser.find_element(By.ID, "pit-12").click()          # North's pit 6: the game ends 9-3
    wait(browser, lambda d: d.find_element(By.ID, "result-card").get_attribute("hidden") is None)
    record = kept_games(server_home)[-1]
    assert list(record.pit_indices) == HAND and not record.rated
    assert text(browser, "result-title") == "South won"        # no one person: no "you"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#result-card button.primary")) == 1
    browser.find_element(By.ID, "result-review").click()        # the one Review button
    wait(browser, reviewed)
    assert browser.execute_script("return location.pathname") == "/history"
    points = browser.execute_script(
        "return document.querySelector('#review-chart polyline').getAttribute('points')").split()
    assert len(points) == 8                                   # the start and after each of 7 moves
    third = browser.find_element(By.ID, "review-move-3")
    mark = third.find_element(By.CSS_SELECTOR, ".mark")
    assert mark.text == "?" and "mistake" in mark.get_attribute("class")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-moves .mark")) == 1   # the only loss
    # the moves carry the game's tags (worked by hand: South 6 extra turn, South 5 captures 2)
    first, second = (browser.find_element(By.ID, f"review-move-{n}") for n in (1, 2))
    assert first.find_element(By.CSS_SELECTOR, ".tag").text == "+"
    assert second.find_element(By.CSS_SELECTOR, ".tag").text == "×2"
    assert second.get_attribute("aria-label").startswith("Move 2: South pit 5, captures 2 seeds")
    # the first mark is chosen: the board shows the position after move 3, by mancala.Board
    board = mancala.Board(seeds=1)
    for pit in HAND[:3]:
        board.push(pit)
    wait(browser, lambda d: slots_shown(d, "review-") == board.pits)
    detail = text(browser, "review-detail")
    assert "Move 3: North pit 5 (played by North) leaves South +6 (exact)." in detail
    # one pair of brackets, the terminal's words (MoveReview.better): issue 40, item 6
    assert "Mistake ?: it lost 4 seeds. Better: 2, 3, 4 or 6, South +2 (exact); its line: " in detail
    # the arrow keys step: back to move 2, then on to move 4 (sown on the board)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("\ue012")                                   # ←
    two = mancala.Board(seeds=1)
    for pit in HAND[:2]:
        two.push(pit)
    wait(browser, lambda d: slots_shown(d, "review-") == two.pits)
    # what the move did is named (worked by hand: South's 5 captures 2)
    assert text(browser, "review-detail").startswith("Move 2: South pit 5, captures 2 seeds (played by South)")
    body.send_keys("\ue014")
    body.send_keys("\ue014")                                   # → →
    board.push(HAND[3])
    wait(browser, lambda d: slots_shown(d, "review-") == board.pits)
    assert browser.find_element(By.ID, "review-move-4").get_attribute("aria-current") == "step"
    # play from before move 4 against a level of your choice: a casual game, you to move
    Select(browser.find_element(By.ID, "review-level")).select_by_value("ai:easy")
    browser.find_element(By.ID, "review-play").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.view") == "play")
    three = mancala.Board(seeds=1)
    for pit in HAND[:3]:
        three.push(pit)
    wait(browser, lambda d: slots_shown(d) == three.pits)
    assert text(browser, "game-kind") == "Casual"
    mover = ("South", "North")[three.to_move]
    assert f"you play {mover} against Computer: easy" in text(browser, "announce")
    assert text(browser, f"{mover.lower()}-name").endswith("You")


def a_history(home):
    """Rated and casual games kept by mancala.history: the history the page lists."""
    from mancala.history import History
    history = History(home / "history.sqlite3")
    lost = history.record("ai:easy", "human", 1, "standard", HAND, rated=True)     # North: 3-9
    casual = history.record("human", "random", 1, "standard", HAND, rated=False)
    resigned = history.record("human", "ai:medium", 1, "standard", HAND[:3], resigned=0, rated=True)
    return lost, casual, resigned


def test_the_history_says_each_game_in_the_players_words(browser, server, server_home):
    lost, casual, resigned = a_history(server_home)
    open_page(browser, f"{server}/history")
    wait(browser, lambda d: d.find_elements(By.ID, f"game-{resigned.id}"))

    def row(game):
        return browser.find_element(By.ID, f"game-{game.id}")
    assert row(lost).find_element(By.CSS_SELECTOR, ".words").text == "You lost 3–9"
    assert "Rated" in row(lost).text
    assert row(casual).find_element(By.CSS_SELECTOR, ".words").text == "You won 9–3"
    assert "Casual" in row(casual).text and "casual: not rated" in row(casual).text
    assert row(resigned).find_element(By.CSS_SELECTOR, ".words").text.startswith("You lost by resignation")
    change = round(resigned.after.rating - resigned.before.rating)
    # provisional as the library words it (Rating.shown: '869? ±520'), as the terminal's history
    assert row(resigned).find_element(By.CSS_SELECTOR, ".rating").text == \
        f"{resigned.after.shown()} ({change:+d})"
    assert resigned.after.shown().endswith(f"? ±{2 * resigned.after.rd:.0f}")
    assert "1 seed per pit, standard capture" in row(lost).text       # board.rules_words
    assert text(browser, "rating-line").startswith(f"Your rating: {resigned.after.shown()}, from 2 rated games: provisional")
    rated = [g for g in kept_games(server_home) if g.rated]
    points = browser.execute_script(
        "return document.querySelector('#rating-chart polyline').getAttribute('points')").split()
    assert len(points) == len(rated) + 1                    # the start, then each rated game
    browser.refresh()                                       # the address opens the history view
    wait_ready(browser)
    assert browser.execute_script("return document.body.dataset.view") == "records"


def lines_of(browser, element_id, part):
    """The lines ``part`` of the text of ``element_id`` is drawn on (the tops of its boxes)."""
    return browser.execute_script(
        "const [id, part] = arguments; const root = document.getElementById(id);"
        "const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT); let text = '', nodes = [];"
        "while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }"
        "const at = text.indexOf(part), end = at + part.length; const range = document.createRange();"
        "for (const [node, start] of nodes) {"
        "  if (at >= start && at <= start + node.data.length) range.setStart(node, at - start);"
        "  if (end >= start && end <= start + node.data.length) { range.setEnd(node, end - start); break; } }"
        "return [...new Set([...range.getClientRects()].map(r => Math.round(r.top)))];",
        element_id, part)


def test_a_score_in_the_history_is_never_split_over_two_lines(browser, server, server_home):
    """Issue 40, item 6: on a 390 px phone the history split "11-" / "37" across lines. The
    result's words are narrowed until their line breaks: it breaks before the score, which
    goes to the next line whole (before: right after the dash)."""
    lost, _, _ = a_history(server_home)
    try:
        browser.set_window_size(390, 844)
        open_page(browser, f"{server}/history")
        row = f"game-{lost.id}"
        wait(browser, lambda d: d.find_elements(By.ID, row))
        words = browser.find_element(By.CSS_SELECTOR, f"#{row} .words")
        words_id = browser.execute_script("arguments[0].id = 'squeezed'; return arguments[0].id", words)
        browser.execute_script(      # narrowed a pixel at a time until its line breaks first
            "const words = document.getElementById('squeezed'); words.style.display = 'inline-block';"
            "const line = words.getBoundingClientRect().height;"
            "for (let width = words.scrollWidth; width > 0 && words.getBoundingClientRect().height <= line; width--)"
            "  words.style.width = width + 'px';")
        assert len(lines_of(browser, words_id, "3–9")) == 1
        assert len(lines_of(browser, words_id, "You lost 3–9")) == 2       # it broke: before the score
    finally:
        browser.set_window_size(1280, 800)


def test_the_reviews_move_list_does_not_jump_when_the_chart_comes(browser, server, server_home):
    """Issue 40, item 6: the moves were listed at once and pushed down when the chart (and
    the summary) came. The review's answer is held back a second and a half: the list stays
    where it was drawn."""
    a_history(server_home)
    slow = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        "const fetched = window.fetch.bind(window);"
        "window.fetch = (url, ...rest) => String(url).includes('/api/review')"
        " ? new Promise((done) => setTimeout(() => done(fetched(url, ...rest)), 1500)) : fetched(url, ...rest);")})
    try:
        open_page(browser, f"{server}/history")
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#games-rows button.review"))
        browser.find_element(By.CSS_SELECTOR, "#games-rows button.review").click()
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-moves button"))
        assert not reviewed(browser)
        top = browser.execute_script("return document.getElementById('review-moves').getBoundingClientRect().top")
        wait(browser, reviewed)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-summary p"))
        assert browser.execute_script(
            "return document.getElementById('review-moves').getBoundingClientRect().top") == top
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", slow)


HAND_RECORD = """[Variant "Kalah"]
[South "human"]
[North "Alice"]
[Seeds "1"]
[Capture "standard"]
[Result "9-3"]

1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3
"""


def test_a_pasted_record_is_reviewed_and_every_game_is_exported_as_records(browser, server, server_home,
                                                                          downloads):
    """Issue 41, section 3: the review took only games of the history or the page. A record
    pasted in the History view (any players' names, as ``review FILE`` takes) is reviewed
    beside its board; a bad one is said in one line naming its line; and Export all games
    downloads the history as records that the library reads back to the history's games."""
    from mancala import records
    from mancala.history import record_game
    record_game("human", "random", 1, "standard", HAND, server_home / "history.sqlite3")
    open_page(browser, f"{server}/history?speed=off")
    wait(browser, lambda d: d.find_element(By.ID, "export-line").get_attribute("hidden") is None)
    pasted = browser.find_element(By.ID, "record-text")
    pasted.send_keys(HAND_RECORD.replace("3. D+2", "3. D+3"))
    browser.find_element(By.ID, "record-review").click()
    wait(browser, lambda d: text(d, "record-error"))
    assert text(browser, "record-error") == \
        "The pasted record: line 8: turn 3 (D+3): D captures 2 seeds, not 3"
    pasted.clear()
    pasted.send_keys(HAND_RECORD)
    browser.find_element(By.ID, "record-review").click()
    wait(browser, reviewed)
    assert text(browser, "review-title") == "Review: the pasted record, Human vs Alice"
    assert text(browser, "record-error") == ""
    third = browser.find_element(By.ID, "review-move-3")       # North's 5: the worked mistake
    assert third.find_element(By.CSS_SELECTOR, ".mark").text == "?"
    exported = downloads / "mancala-history.kalah"
    exported.unlink(missing_ok=True)
    browser.find_element(By.ID, "export-games").click()
    wait(browser, lambda d: exported.exists() and exported.stat().st_size > 0)
    games = kept_games(server_home)
    read = records.loads_all(exported.read_text(encoding="utf-8"))
    assert [(r.moves, r.south, r.north, r.result) for r in read] == \
        [(list(g.pit_indices), g.south, g.north, f"{g.south_store}-{g.north_store}") for g in games]
