"""The web app's records (mancala.web.records) through Starlette's in-process test
client: casual games finished in the page kept in the history, never rated
(/api/finish), the history with the rating's series (/api/history), and the review
of a game (/api/review). Rated games are the server's own: tests/test_web_games.py.

Expected values come from elsewhere: a Kalah(6,1) game worked by hand, the
history database read back with mancala.history (what the terminal's
``history`` reads), and mancala.review called directly on the same literal game.
Every test has its own MANCALA_HOME: the real history is never touched.
"""
import json
import os
import subprocess
import sys
import threading

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

from starlette.testclient import TestClient  # noqa: E402

from conftest import assert_refused, fuzzed_requests, kept_games  # noqa: E402

from mancala import records  # noqa: E402
from mancala import review as library_review  # noqa: E402
from mancala.web import app as web  # noqa: E402
from mancala.web import reviews  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# A whole Kalah(6,1) game worked by hand (tests/test_history.py draws it move by move):
# South 6 (extra turn), South 5 captures 2, North 5, South 4 captures 2, North 4 captures 2,
# South 3 captures 2, North 6 empties North's row: South sweeps 2. South 9, North 3.
GAME = [5, 4, 4, 3, 3, 2, 5]
POSITION = {"seeds": 1, "capture": "standard", "moves": GAME}
PLAYERS = {"south": "human", "north": "random"}


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    monkeypatch.setenv("MANCALA_HOME", str(path))
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path / "empty-cache"))   # no endgame database
    return path


@pytest.fixture
def client(home):
    with TestClient(web.create_app()) as c:
        yield c


def finish(client, game="game-1", position=POSITION, players=PLAYERS):
    return client.post("/api/finish", json={"position": position, "players": players, "game": game})


def first_moves_game(seeds, capture):
    """A finished game (by mancala.Board's rules): each mover's leftmost legal pit."""
    from mancala import Board
    board = Board(seeds=seeds, capture=capture)
    while not board.is_game_over():
        board.push(board.legal_moves[0])
    return [record.pit for record in board.move_stack]


# -- /api/finish ---------------------------------------------------------------------------

def test_a_finished_game_is_kept_casual_with_its_score_and_never_rated(client, home):
    """The page's word for a game is not enough to rate it (issue 31, item 7): a game
    the page played by itself is kept as casual, whatever its players."""
    response = finish(client)
    assert response.status_code == 200, response.text
    answer = response.json()
    game = answer["game"]
    assert answer["new"] is True
    assert game["score"] == {"south": 9, "north": 3} and game["result"] == "south"   # by hand
    assert game["players"] == PLAYERS and game["pit_indices"] == GAME
    assert (game["seeds"], game["capture"], game["human"]) == (1, "standard", 0)
    [record] = kept_games(home)
    assert record.to_json() == game                        # the answer is what the file holds
    assert answer["rated"] is False and not record.rated and record.after is None
    assert (answer["rating"], answer["change"]) == (None, None)
    assert answer["words"] == "You won 9\u20133" and answer["result"] == "won"
    assert answer["margin"] == 6


def test_a_resigned_casual_game_is_kept_as_the_resigners_loss(client, home):
    position = dict(POSITION, moves=GAME[:3])          # South 6, South 5 (captures 2), North 5
    answer = client.post("/api/finish", json={"position": position, "players": PLAYERS,
                                              "game": "r", "resigned": "south"}).json()
    [record] = kept_games(home)
    assert record.resigned == 0 and record.result == "north" and not record.rated
    # the stores as they stood (worked by hand: South 1 + 2 captured, North 0), not a result
    assert answer["words"] == "You lost by resignation, 3\u20130 in the stores"
    assert answer["result"] == "lost"
    over = client.post("/api/finish", json={"position": POSITION, "players": PLAYERS,
                                            "game": "s", "resigned": "north"})
    assert_refused(over, 400, "nobody can resign it")


def test_the_same_game_sent_again_is_kept_once(client, home):
    first = finish(client).json()
    again = finish(client)
    assert again.status_code == 200
    assert again.json()["new"] is False and again.json()["game"] == first["game"]
    assert len(kept_games(home)) == 1


def test_another_ending_under_a_kept_games_id_is_refused(client, home):
    assert finish(client).status_code == 200
    other = {"seeds": 1, "capture": "none", "moves": first_moves_game(1, "none")}
    assert_refused(finish(client, position=other), 409, "already in the history", "game 1")
    assert len(kept_games(home)) == 1
    assert finish(client, game="game-2", position=other).status_code == 200
    assert [g.capture for g in kept_games(home)] == ["standard", "none"]


@pytest.mark.parametrize("body, words", [
    ({"position": dict(POSITION, moves=GAME[:-1]), "players": PLAYERS, "game": "g"},
     ("not over after its 6 moves",)),
    ({"position": dict(POSITION, moves=GAME[:-1]), "players": PLAYERS, "game": "g",
      "resigned": 0}, ("resigned is south or north",)),
    ({"position": POSITION, "players": PLAYERS, "game": "g", "result": "south"},
     ("unknown field 'result'",)),
    ({"position": dict(POSITION, moves=GAME + [0]), "players": PLAYERS, "game": "g"},
     ("move 8",)),
    ({"position": dict(POSITION, moves=[5, 5]), "players": PLAYERS, "game": "g"}, ("move 2",)),
    ({"position": {"board": [0, 0, 0, 0, 0, 0, 10, 1, 0, 0, 0, 0, 0, 1]}, "players": PLAYERS,
      "game": "g"}, ("only a game from a start",)),
    ({"position": POSITION, "players": {"south": "human"}, "game": "g"}, ("no 'north'",)),
    ({"position": POSITION, "players": {"south": "human", "north": "engine:evil"}, "game": "g"},
     ("the north player is one of",)),
    ({"position": POSITION, "players": PLAYERS, "game": ""}, ("game is the page's name",)),
    ({"position": POSITION, "players": PLAYERS, "game": "x" * 65}, ("1 to 64 characters",)),
    ({"position": POSITION, "players": PLAYERS}, ("no 'game'",)),
    ([1, 2], ("a JSON object",)),
])
def test_a_forged_or_bad_finish_is_refused_and_nothing_is_kept(client, home, body, words):
    assert_refused(client.post("/api/finish", json=body), 400, *words)
    assert kept_games(home) == []


# -- a game between two computers: nobody's, in both faces (issue 41, section 1) -------------

COMPUTERS = {"south": "random", "north": "ai:easy"}
NOT_KEPT = "A game between computers: not kept in your history."     # the terminal's words


def test_a_game_between_two_computers_is_not_kept_as_the_terminal_keeps_none(client, home):
    """Issue 41: the terminal keeps a game between two computers out of the history (the
    demo is nobody's game), but /api/finish kept it, as a game of the person's. Now it is
    kept by neither face, and the answer says so in the terminal's words (a real
    ``play`` between two computers, on the same data folder, says the same line)."""
    answer = finish(client, players=COMPUTERS)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"new": False, "game": None, "not_kept": NOT_KEPT}
    resigned = client.post("/api/finish", json={"position": dict(POSITION, moves=GAME[:3]),
                                                "players": COMPUTERS, "game": "r",
                                                "resigned": "south"})
    assert resigned.json()["game"] is None and resigned.json()["not_kept"] == NOT_KEPT
    terminal = subprocess.run([sys.executable, "-m", "mancala", "play", "--south", "random",
                               "--north", "ai:easy", "--seeds", "1"], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, MANCALA_HOME=str(home)))
    assert terminal.returncode == 0, terminal.stderr
    assert NOT_KEPT in terminal.stdout
    assert kept_games(home) == []
    # two people: a person's game, kept, rating nobody (the rule's other side)
    people = finish(client, game="people", players={"south": "human", "north": "human"}).json()
    assert people["game"]["human"] is None and people["not_kept"] is None
    assert [game.players for game in kept_games(home)] == [("human", "human")]


def test_a_casual_game_between_two_computers_is_written_down_but_not_kept(client, home):
    """The page's own way to keep its casual games (/api/casual/keep) follows the same rule:
    the game is written down (a reload finds it), and once over kept in no history."""
    keep = client.post("/api/casual/keep", json={"position": POSITION, "players": COMPUTERS})
    answer = keep.json()
    assert keep.status_code == 200, keep.text
    assert (answer["kept"], answer["not_kept"], answer["kept_error"]) == (None, NOT_KEPT, None)
    state = client.post("/api/casual/state", json={"game": answer["game"],
                                                   "token": answer["token"]}).json()
    assert state["state"]["position"]["moves"] == GAME and state["not_kept"] == NOT_KEPT
    assert kept_games(home) == []
    mine = client.post("/api/casual/keep", json={"position": POSITION, "players": PLAYERS,
                                                 "token": answer["token"]}).json()
    assert mine["not_kept"] is None and mine["kept"]["game"]["players"] == PLAYERS
    assert [game.players for game in kept_games(home)] == [("human", "random")]


def test_games_finished_at_once_are_all_kept(client, home):
    count = 8
    answers = [None] * count
    start = threading.Barrier(count)

    def send(index):
        start.wait()
        answers[index] = finish(client, game=f"tab-{index}",
                                players={"south": "human", "north": "ai:easy"})
    threads = [threading.Thread(target=send, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert all(answer is not None and answer.status_code == 200 for answer in answers)
    games = kept_games(home)
    assert len(games) == count and not any(game.rated for game in games)
    assert sorted(answer.json()["game"]["id"] for answer in answers) == [g.id for g in games]


def test_another_sites_page_may_not_keep_a_game(client, home):
    body = {"position": POSITION, "players": PLAYERS, "game": "g"}
    refused = client.post("/api/finish", json=body, headers={"origin": "http://evil.example"})
    assert_refused(refused, 403, "another site's page")
    assert kept_games(home) == []
    same = client.post("/api/finish", json=body, headers={"origin": "http://testserver"})
    assert same.status_code == 200 and len(kept_games(home)) == 1


def test_a_bounded_fuzz_of_the_records_endpoints(client, home):
    """Fixed seed: fields swapped for values of other JSON types; 0 answers of 500,
    one-line errors, and only finished games kept."""
    import random
    rng = random.Random(25)
    values = [None, True, False, 0, -1, 10 ** 30, 2.5, "", "x" * 300, "human", [], [1, 2], {},
              {"south": "human"}, [[]], -0.0]
    base = {
        "/api/finish": {"position": POSITION, "players": PLAYERS, "game": "g"},
        "/api/review": {"position": POSITION, "tab": "fuzz"},
    }
    position_fields = {"seeds": 1, "capture": "standard", "moves": GAME, "board": [1] * 14,
                       "to_move": 0}
    seen = {}
    for path, body in fuzzed_requests(rng, base, values, position_fields, 400, seconds=8, keep=0.7):
        response = client.post(path, content=json.dumps(body),
                               headers={"content-type": "application/json"})
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        assert response.status_code in (200, 400, 409), (path, body, response.text)
        if response.status_code != 200:
            assert_refused(response, response.status_code)
    assert seen.get(400, 0) > 20 and sum(seen.values()) > 60, seen
    for game in kept_games(home):
        assert game.south_store + game.north_store == 12          # Kalah(6,1): every seed home
    for response in (client.get("/api/history?last="), client.get("/api/history?last=%00")):
        assert_refused(response, 400)


def test_a_history_that_cannot_be_written_is_a_one_line_503(client, home):
    home.parent.mkdir(exist_ok=True)
    home.write_text("a file where the data folder should be")
    assert_refused(finish(client), 503, "could not be kept", "game history")
    assert_refused(finish(client), 503, "could not be kept")        # not remembered as kept


# -- /api/history --------------------------------------------------------------------------

def test_the_history_lists_the_games_and_the_ratings_series(client, home):
    from mancala.history import record_game
    empty = client.get("/api/history").json()
    assert (empty["count"], empty["games"], empty["rating"], empty["series"]) == (0, [], None, [])
    assert empty["start"]["rating"] == 940.0 and empty["start"]["low"] == 340.0    # 940 -+ 2 x 300
    assert empty["start"]["provisional"] and empty["start"]["shown"] == "940? ±600"
    record_game("human", "random", 1, "standard", GAME, rated=True)  # rated: as the server keeps them
    finish(client, game="b", players={"south": "human", "north": "human"})     # two people
    finish(client, game="c", players={"south": "human", "north": "ai:easy"})     # casual
    record_game("ai:easy", "human", 1, "standard", GAME, rated=True)
    answer = client.get("/api/history").json()
    games = kept_games(home)
    assert [{k: v for k, v in game.items() if k not in ("words", "rules", "rating_shown")}
            for game in answer["games"]] == [game.to_json() for game in games]
    # the rules and the rating as every face words them (board.rules_words, Rating.shown)
    assert [game["rules"] for game in answer["games"]] == ["1 seed per pit, standard capture"] * 4
    assert [game["rating_shown"] for game in answer["games"]] == \
        [None if game.after is None else game.after.shown() for game in games]
    assert [game["words"] for game in answer["games"]] == \
        ["You won 9\u20133", "South won 9\u20133", "You won 9\u20133", "You lost 3\u20139"]
    assert answer["count"] == 4 and answer["rated_games"] == 2
    assert [game["rated"] for game in answer["games"]] == [True, False, False, True]
    assert [point["id"] for point in answer["series"]] == [1, 4]      # the rated games only
    for point, game in zip(answer["series"], [games[0], games[3]]):
        assert point["rating"] == round(game.after.rating, 1)
        assert point["low"] == round(game.after.rating - 2 * game.after.rd, 1)
        assert point["high"] == round(game.after.rating + 2 * game.after.rd, 1)
    assert answer["series"][1]["opponent"] == "ai:easy"
    assert answer["rating"] == {k: v for k, v in answer["series"][-1].items()
                                if k in ("rating", "rd", "low", "high", "provisional", "shown")}
    assert answer["file"] == str(home / "history.sqlite3")
    last = client.get("/api/history?last=1").json()
    assert [game["id"] for game in last["games"]] == [4] and last["count"] == 4
    assert len(last["series"]) == 2                    # the curve is always the whole


@pytest.mark.parametrize("query", ["last=0", "last=x", "last=-1", "last=1.5", "last=" + "9" * 40])
def test_a_bad_last_is_refused(client, query):
    assert_refused(client.get(f"/api/history?{query}"), 400, "last (games to list)")


# -- /api/history/export ---------------------------------------------------------------------

def test_the_export_is_every_game_as_records_that_replay_to_the_same_moves_and_result(client, home):
    """Issue 41, section 3: the history page offers every game as one records file. Read back
    by the library (mancala.records.loads_all replays each game), every game has the moves,
    rules, players and result (the stores) the history file holds, and the text is what
    the terminal's ``history --export -`` writes from the same data folder."""
    from mancala.history import record_game
    record_game("human", "random", 1, "standard", GAME, rated=True)
    client.post("/api/finish", json={"position": dict(POSITION, moves=GAME[:3]), "players": PLAYERS,
                                     "game": "r", "resigned": "south"})
    finish(client, game="empty", position={"seeds": 3, "capture": "empty",
                                           "moves": first_moves_game(3, "empty")},
           players={"south": "human", "north": "human"})
    record_game("ai:easy", "human", 4, "standard", first_moves_game(4, "standard"))   # rated
    record_game("random", "ai:easy", 2, "none", first_moves_game(2, "none"))   # an old demo's
    response = client.get("/api/history/export")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["content-disposition"] == 'attachment; filename="mancala-history.kalah"'
    read, kept = records.loads_all(response.text), kept_games(home)
    assert len(read) == len(kept) == 5
    assert [game.rated for game in kept] == [True, False, False, True, False]
    for record, game in zip(read, kept):
        assert record.moves == list(game.pit_indices)
        assert (record.seeds, record.capture, record.south, record.north, record.resigned) == \
            (game.seeds, game.capture, game.south, game.north, game.resigned)
        assert record.result == f"{game.south_store}-{game.north_store}"
        if game.resigned is None:
            outcome = record.board().outcome()
            assert (outcome.south, outcome.north) == (game.south_store, game.north_store)
        assert record.tags["Site"] == f"mancala history, game {game.id}"
        assert record.tags.get("Event", "?") == ("Rated game" if game.rated else "?"
                                                 if game.human is None else "Casual game")
    # the hand-worked game as the records page writes it (docs/records.md)
    assert "1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3" in response.text.splitlines()
    assert read[1].resigned == 0 and read[1].result == "3-0"         # worked by hand above
    terminal = subprocess.run([sys.executable, "-m", "mancala", "history", "--export", "-"],
                              capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, MANCALA_HOME=str(home)))
    assert terminal.returncode == 0, terminal.stderr
    assert terminal.stdout == response.text
    last = client.get("/api/history/export?last=2")
    assert records.loads_all(last.text) == read[-2:]
    # an exported game opened in the review is found in the history: its review kept there
    one = records.dumps(read[3])
    found = client.post("/api/review/read", content=one.encode(),
                        headers={"content-type": "application/json"}).json()
    assert (found["game"], found["human"]) == (kept[3].id, 1)


def test_an_empty_history_exports_nothing_and_a_bad_last_is_one_line(client, home):
    empty = client.get("/api/history/export")
    assert empty.status_code == 200 and empty.text == ""
    assert_refused(client.get("/api/history/export?last=0"), 400, "last (games to list)")


# -- /api/review ---------------------------------------------------------------------------

def review(client, position, tab=None):
    body = {"position": position}
    if tab is not None:
        body["tab"] = tab
    return client.post("/api/review", json=body)


WEB_ONLY = ("text_before", "text_after")    # the scores in words


def test_the_review_of_the_hand_worked_game_is_the_librarys(client):
    answer = review(client, POSITION).json()
    direct = library_review.review_game(1, "standard", GAME)
    assert [{k: v for k, v in move.items() if k not in WEB_ONLY}
            for move in answer["moves"]] == [move.to_json() for move in direct.moves]
    # North's first move (move 3, pit 5): every other move keeps -2, it gets -6 (the
    # library's docstring works it); South's view is the negation
    third = answer["moves"][2]
    assert (third["loss"], third["mark"], third["best_indices"]) == (4, "mistake", [1, 2, 3, 5])
    assert (third["south_before"], third["south_after"]) == (2, 6)
    assert answer["summary"]["north"] == direct.summary(1)
    assert answer["summary"]["south"]["moves"] == 4
    assert [m["mark"] for m in answer["marks"]] == ["inaccuracy", "mistake", "blunder"]


def test_the_review_of_an_opening_searched_is_the_librarys_too(client):
    moves = [2, 5, 0, 4]        # Kalah(6,4): too early to solve, searched 14 moves deep
    answer = review(client, {"seeds": 4, "capture": "standard", "moves": moves}).json()
    direct = library_review.review_game(4, "standard", moves)
    assert [move.to_json() for move in direct.moves] == \
        [{k: v for k, v in move.items() if k not in WEB_ONLY}
         for move in answer["moves"]]
    assert any(not move["exact"] for move in answer["moves"])


def test_a_streamed_review_says_its_progress_then_the_same_review(client):
    """The page shows progress (and the first marks) while the rest is computed: JSON
    lines, one per step, then the whole review, the same as the one answer."""
    response = client.post("/api/review", json={"position": POSITION, "stream": True})
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines[0] == {"type": "start", "total": len(GAME)}
    progress = [line for line in lines if line["type"] == "progress"]
    assert [line["done"] for line in progress] == sorted({line["done"] for line in progress})
    assert progress[-1] == {"type": "progress", "done": len(GAME), "total": len(GAME)}
    moves = [line for line in lines if line["type"] == "move"]
    assert sorted(m["number"] for m in moves) == list(range(1, len(GAME) + 1))
    assert moves[0]["number"] == len(GAME)           # the last move first: its solve is instant
    assert lines.index(moves[0]) < lines.index(progress[-1])   # each move as soon as it is known
    last = lines[-1]
    assert last["type"] == "review"
    assert sorted((m for m in moves), key=lambda m: m["number"]) == \
        [dict(m, type="move") for m in last["moves"]]
    whole = review(client, POSITION).json()
    assert last["moves"] == whole["moves"] and last["summary"] == whole["summary"]
    third = last["moves"][2]
    assert (third["text_before"], third["text_after"]) == ("South +2 (exact)", "South +6 (exact)")


def test_a_review_is_kept_with_its_game_and_opened_again_without_a_search(client, home, monkeypatch):
    """Issue 34: the review took as long the second time. Named by its number in the
    history, a game's review is kept with it; asked again, it comes back from the
    file with no search made (the library's review is replaced by one that fails)."""
    from mancala.history import History, record_game
    kept, _ = record_game("human", "random", 1, "standard", GAME)
    first = client.post("/api/review", json={"position": POSITION, "game": kept.id}).json()
    assert first["kept"] is False
    assert History(home / "history.sqlite3").reviews([kept.id])      # kept with the game
    def no_search(*args, **kwargs):
        raise AssertionError("a search was made")
    monkeypatch.setattr(library_review, "review_game", no_search)
    again = client.post("/api/review", json={"position": POSITION, "game": kept.id}).json()
    assert again["kept"] is True and again["moves"] == first["moves"]
    streamed = client.post("/api/review", json={"position": POSITION, "game": kept.id,
                                                "stream": True}).text.splitlines()
    assert json.loads(streamed[-1])["moves"] == first["moves"]


def test_a_review_is_never_kept_with_another_game(client, home):
    from mancala.history import History, record_game
    kept, _ = record_game("human", "random", 1, "standard", GAME)
    other = dict(POSITION, moves=GAME[:4])               # not that game's moves
    assert client.post("/api/review", json={"position": other, "game": kept.id}).status_code == 200
    assert History(home / "history.sqlite3").reviews([kept.id]) == {}
    assert_refused(client.post("/api/review", json={"position": POSITION, "game": 0}), 400, "game")


def test_a_streamed_review_says_an_error_in_one_line(client, monkeypatch):
    monkeypatch.setattr(reviews, "MAX_REVIEW_SECONDS", 0.05)
    lines = client.post("/api/review", json={"position": legal(LONG), "stream": True}).text.splitlines()
    last = json.loads(lines[-1])
    assert last["type"] == "error" and "took more than" in last["error"]


@pytest.mark.parametrize("body, words", [
    ({"position": {"board": [0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0], "moves": [5]}},
     ("only a game from a start",)),
    ({"position": {"seeds": 4, "moves": []}}, ("no moves to review",)),
    ({"position": {"seeds": 4, "moves": [2, 2]}}, ("move 2",)),     # pit 3 ends in the store: 3 again is empty
    ({"position": {"seeds": 13, "moves": [0]}}, ("seeds per pit",)),
    ({"position": POSITION, "tab": 5}, ("tab is a name",)),
    ({"position": POSITION, "nodes": 10 ** 12}, ("unknown field 'nodes'",)),
    ({}, ("no 'position'",)),
])
def test_a_bad_review_request_is_refused(client, body, words):
    assert_refused(client.post("/api/review", json=body), 400, *words)


def test_a_game_longer_than_the_cap_is_refused(client, monkeypatch):
    monkeypatch.setattr(reviews, "MAX_REVIEW_MOVES", 6)
    assert_refused(review(client, POSITION), 400, "7 moves", "at most 6")


# a Kalah(6,6) game's first 24 moves: far from solved, each move a 14-deep search
LONG = {"seeds": 6, "capture": "standard",
        "moves": [0, 5, 1, 0, 2, 3, 1, 4, 0, 5, 2, 1, 3, 0, 4, 5, 1, 2, 0, 3, 4, 1, 5, 0]}


def legal(position):
    from mancala import Board
    board = Board(seeds=position["seeds"])
    played = []
    for pit in position["moves"]:
        if pit not in board.legal_moves:
            pit = board.legal_moves[0]
        board.push(pit)
        played.append(pit)
        if board.is_game_over():
            break
    return dict(position, moves=played)


def test_a_newer_review_from_the_same_tab_stops_the_older_one(client):
    long = legal(LONG)
    answers = {}
    thread = threading.Thread(target=lambda: answers.setdefault("old", review(client, long, "t")))
    thread.start()
    server = client.app.state.server
    for _ in range(500):                # until the old review holds the tab
        if server.tabs.get("review\nt") and server.tabs["review\nt"].job is not None:
            break
        threading.Event().wait(0.01)
    newer = review(client, POSITION, "t")
    thread.join(60)
    assert not thread.is_alive()
    assert newer.status_code == 200
    assert_refused(answers["old"], 409, "stopped")


def test_a_review_past_its_time_is_stopped_with_one_line(client, monkeypatch):
    monkeypatch.setattr(reviews, "MAX_REVIEW_SECONDS", 0.3)
    assert_refused(review(client, legal(LONG)), 503, "took more than 0.3 s")


def test_the_records_page_and_script_are_served(client):
    page = client.get("/history")
    assert page.status_code == 200 and b'id="view-records"' in page.content
    assert b'src="/history.js"' in page.content and b'href="/history"' in page.content
    script = client.get("/history.js")
    assert script.status_code == 200 and b"/api/history" in script.content
    assert b"/api/review" in client.get("/review.js").content
    assert page.headers["content-security-policy"].startswith("default-src 'self'")


def test_a_review_tells_its_last_moves_before_the_database_is_looked_for(client, monkeypatch):
    """Issue 34 (first marks within 1 s): the server's endgame database was opened before
    a review told any move, 8 s on a busy machine. The last positions (at most
    review.QUICK_SEEDS seeds in the pits, 10 here) are solved by an engine with no
    database, so their moves are told before the database is even looked for."""
    import mancala.endgame
    told, looked = [], []
    real_move_json = reviews.move_json

    def telling(move):
        told.append(move.number)
        return real_move_json(move)

    def find(capture, *args, **kwargs):
        looked.append(list(told))
        return None
    monkeypatch.setattr(reviews, "move_json", telling)
    monkeypatch.setattr(mancala.endgame, "find", find)
    monkeypatch.setattr(library_review, "QUICK_SEEDS", 10)
    # Kalah(6,2): seeds in the pits before each move 24 23 20 19 19 18 15 14 13 10 6 2 2 2
    moves = [4, 2, 4, 3, 3, 1, 5, 5, 2, 4, 4, 1, 1, 2]
    lines = client.post("/api/review", json={"position": {"seeds": 2, "capture": "standard",
                                                          "moves": moves}, "stream": True})
    assert json.loads(lines.text.splitlines()[-1])["type"] == "review"
    assert looked and looked[0] == [14, 13, 12, 11, 10], looked    # told before the first look
