"""The casual game's help in a real headless Chromium (marker ``browser``): the analysis is
off until asked for, every row of it says its score's side and kind, the bar never shows
the score of the position before, the hint says the analysis's number (one question, one
search), and a pit's key plays after the speed was chosen.

The analysis socket is replaced in the page by a fake one (installed before the page's
scripts run) so the test decides what the server says and when: the messages are the
shapes mancala.web.analysis sends, written here by hand. The hint is the real server's.
"""
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[web-test]'")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from webtools import open_page, slots_shown, text, wait  # noqa: E402

import mancala  # noqa: E402

FAKE_SOCKET = """
window.__sockets = [];
class FakeSocket {
  constructor(url) {
    this.url = url; this.readyState = 0; this.sent = []; this.listeners = {};
    window.__sockets.push(this);
    setTimeout(() => { this.readyState = 1; this.emit("open"); }, 0);
  }
  addEventListener(type, listener) { (this.listeners[type] = this.listeners[type] || []).push(listener); }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.readyState = 3; }
  emit(type, data) {
    for (const listener of this.listeners[type] || []) listener(data === undefined ? {} : { data: JSON.stringify(data) });
  }
}
FakeSocket.CONNECTING = 0; FakeSocket.OPEN = 1; FakeSocket.CLOSING = 2; FakeSocket.CLOSED = 3;
window.WebSocket = FakeSocket;
"""
# two people, South to move again after its pit 3 (an extra turn): the page analyses
GAME = "seeds=4&capture=standard&moves=3&south=human&north=human"
LEGAL = [0, 1, 3, 4, 5]


@pytest.fixture
def faked(browser):
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAKE_SOCKET})
    yield browser
    browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                            {"identifier": script["identifier"]})


def analyzed(browser):
    """The position the page asked the (fake) socket to analyse, once it has, as JSON
    text (the page compares positions as text: its keys' order kept)."""
    return browser.execute_script(
        "const s = window.__sockets.at(-1); const m = s && s.sent.filter(m => m.type === 'analyze').at(-1);"
        "return m ? JSON.stringify(m.position) : null;")


def say(browser, message):
    browser.execute_script("window.__sockets.at(-1).emit('message', arguments[0])", message)


def depth_message(depth, scores):
    """A finished depth, as the server sends it: every move's score for South (to move)."""
    best = max(scores, key=scores.get)
    words = {pit: f"South +{score} (depth {depth})" for pit, score in scores.items()}
    return {"type": "depth", "depth": depth, "best": best, "score": scores[best], "exact": False,
            "endgame": None, "nps": 2_000_000, "seconds": 1.0, "pv": [best, 0],
            "score_south": scores[best], "text": words[best],
            "moves": [{"pit_index": pit, "score": score, "text": words[pit]}
                      for pit, score in scores.items()]}


def score_cell(browser, pit):
    return browser.find_element(By.CSS_SELECTOR, f"#analysis-{pit} .score").text


def analysis_on(browser):
    browser.find_element(By.ID, "analyse").click()
    wait(browser, analyzed)


def test_the_analysis_is_off_until_asked_for_and_every_row_says_its_kind(faked, server):
    """Issue 40, item 3: the analysis was on from the first move of a casual game (a star on
    the best pit, every move's score); lichess shows no engine lines in a game against the
    computer unless asked. Off now, one click away. Issue 34 then 40: a row's score said
    'South +7' with its kind only in the status line; now every row says it."""
    browser = faked
    open_page(browser, f"{server}/?speed=off#{GAME}")
    assert not browser.find_element(By.ID, "analyse").is_selected()
    assert analyzed(browser) is None and text(browser, "bar-text") == "no score: analysis off"
    assert text(browser, "analysis-status").startswith("Analysis off")
    assert not browser.find_elements(By.CSS_SELECTOR, "#analysis-rows tr")
    analysis_on(browser)
    position = analyzed(browser)
    browser.execute_script("window.__sockets.at(-1).emit('message', "
                           "{type: 'start', position: JSON.parse(arguments[0])})", position)
    say(browser, depth_message(15, {0: 3, 1: 7, 3: 2, 4: 5, 5: 13}))
    assert text(browser, "analysis-status").startswith("Depth 15: best pit 6, South +13 (depth 15)")
    assert score_cell(browser, 1) == "South +7 (depth 15)"
    say(browser, {"type": "move", "depth": 16, "pit_index": 1, "text": "South +14 (depth 16)",
                  "pv": [1, 5]})
    assert score_cell(browser, 1) == "South +14 (depth 16)"
    assert score_cell(browser, 0) == "South +3 (depth 15)"


def test_the_hint_says_the_analysiss_number_and_the_bar_never_the_last_positions(faked, server):
    """Issue 40, item 3: the hint and the bar gave two numbers for one question ("pit 3,
    South +7 (depth 14)" beside "South +8 (depth 18)"), and while the next position was
    searched the bar kept the last one's score (+8 after a mistake the review scored +3).
    The hint is now the analysis's best at its depth, and a new position clears the bar."""
    browser = faked
    open_page(browser, f"{server}/?speed=off#{GAME}")
    analysis_on(browser)
    position = analyzed(browser)
    browser.execute_script("window.__sockets.at(-1).emit('message', "
                           "{type: 'start', position: JSON.parse(arguments[0])})", position)
    say(browser, depth_message(18, {0: 3, 1: 7, 3: 2, 4: 5, 5: 8}))
    assert text(browser, "bar-text") == "South +8 (depth 18)"
    browser.find_element(By.ID, "hint").click()
    wait(browser, lambda d: text(d, "announce").startswith("Hint: "))
    assert text(browser, "announce") == "Hint: pit 6, South +8 (depth 18)."
    browser.find_element(By.ID, "pit-0").click()             # a move: another position
    wait(browser, lambda d: analyzed(d) != position)
    assert text(browser, "bar-text") == "no score yet"       # not the +8 of the position before
    assert "South +8" not in browser.find_element(By.ID, "bar").get_attribute("aria-label")


def test_a_pits_key_plays_after_the_speed_was_chosen(browser, server):
    """A player who chose a speed and pressed 6 saw nothing happen: the select kept the
    key. Its options start with no digit, so the pit's key plays from it."""
    open_page(browser, f"{server}/?speed=off#seeds=4&capture=standard&moves=&south=human&north=human")
    speed = browser.find_element(By.ID, "speed")
    browser.execute_script("arguments[0].focus()", speed)      # reached by Tab, or clicked
    before = Select(speed).first_selected_option.get_attribute("value")
    keys = ActionChains(browser)
    keys.send_keys(Keys.ARROW_DOWN if before != "instant" else Keys.ARROW_UP).perform()
    chosen = Select(speed).first_selected_option.get_attribute("value")
    assert chosen != before and browser.execute_script("return document.activeElement.id") == "speed"
    ActionChains(browser).send_keys("3").perform()             # South's pit 3: an extra turn
    board = mancala.Board(seeds=4)
    board.push(2)
    wait(browser, lambda d: slots_shown(d) == board.pits)
    assert Select(speed).first_selected_option.get_attribute("value") == chosen
