"""The web app's API through Starlette's in-process test client: every endpoint,
bad input for each, a cancelled analysis, a finished game, save files both ways.

Expected values come from elsewhere: mancala.Board (the rules), the pure-Python
twin, mancala.storage, Engine.analyse on a fresh engine, or literals worked by hand.
"""
import json
import os
import random
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

from starlette.testclient import TestClient  # noqa: E402

from conftest import assert_refused  # noqa: E402

import mancala  # noqa: E402
from mancala import _reference, records, storage  # noqa: E402
from mancala.board import CAPTURE_WORDS  # noqa: E402
from mancala.players import canonical_spec  # noqa: E402
from mancala.web import app as web  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

START = {"seeds": 4, "capture": "standard", "moves": []}
JSON = {"content-type": "application/json"}     # what the page sends with every POST


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The app, with an empty cache: no endgame database another test built
    turns an analysis into a lookup (one test below builds its own)."""
    old = os.environ.get("MANCALA_CACHE")
    os.environ["MANCALA_CACHE"] = str(tmp_path_factory.mktemp("empty-cache"))
    try:
        with TestClient(web.create_app()) as c:
            yield c
    finally:
        if old is None:
            del os.environ["MANCALA_CACHE"]
        else:
            os.environ["MANCALA_CACHE"] = old


def post(client, path, data):
    return client.post(path, json=data)


def replay(position):
    """The position through mancala.Board, independently of the server."""
    if "board" in position:
        board = mancala.Board(position["board"], position.get("to_move", 0),
                              capture=position.get("capture", "standard"))
    else:
        board = mancala.Board(seeds=position.get("seeds", 4),
                              capture=position.get("capture", "standard"))
    for pit in position.get("moves", []):
        board.push(pit)
    return board


# -- the page and its assets --------------------------------------------------------------

def test_the_page_and_each_asset_come_from_the_package(client):
    for path, (name, media) in web.ASSETS.items():
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].split(";")[0] == media.split(";")[0]
        assert response.content == web._asset(name) and response.content
    page = client.get("/").text
    assert "app.js" in page and "style.css" in page
    assert "http://" not in page and "https://" not in page      # nothing from another host
    assert "default-src 'self'" in client.get("/").headers["content-security-policy"]


@pytest.mark.parametrize("path", ["/../pyproject.toml", "/static/index.html", "/%2e%2e/setup.py",
                                  "/mancala/web/app.py", "/app.js/../../setup.py", "/etc/passwd"])
def test_no_other_path_reaches_a_file(client, path):
    assert_refused(client.get(path), 404, "Not Found")


def test_a_wrong_method_is_a_one_line_405(client):
    assert_refused(client.get("/api/move"), 405)
    assert_refused(client.post("/"), 405)


def test_info_lists_the_levels_and_limits(client):
    info = client.get("/api/info").json()
    assert info["levels"] == ["human", "random", "ai:easy", "ai:medium", "ai:hard", "ai:perfect"]
    # the page names the rules and says them from here (the library's table)
    assert info["capture_rules"] == list(mancala.CAPTURE_RULES)
    assert info["capture_words"] == {name: f"{name}: {words}" for name, words in CAPTURE_WORDS.items()}
    assert info["seeds"] == [1, 12] and info["max_body"] == 64 * 1024
    assert info["default_seeds"] == 4
    assert info["level_names"]["ai:hard"] == "Computer: hard" and list(info["level_names"]) == info["levels"]
    # the page draws its board from this (the rules' numbering, by hand)
    assert info["geometry"]["pit_slots"] == [[0, 1, 2, 3, 4, 5], [7, 8, 9, 10, 11, 12]]
    assert info["geometry"]["stores"] == [6, 13] and info["geometry"]["slots"] == 14


def test_api_answers_say_the_server_time_they_took(client):
    for response in (client.get("/api/info"), post(client, "/api/move", {"position": START})):
        name, duration = response.headers["server-timing"].split(";dur=")
        assert name == "app" and 0 <= float(duration) < 60_000


# -- moves --------------------------------------------------------------------------------

def test_a_move_that_ends_in_the_store_gives_an_extra_turn(client):
    # pit 3 (index 2) of Kalah(6,4): 4 seeds into slots 3, 4, 5 and the store
    answer = post(client, "/api/move", {"position": START, "pit_index": 2}).json()
    assert answer["move"]["path"] == [3, 4, 5, 6]
    assert answer["move"]["extra_turn"] is True and answer["move"]["captured"] == 0
    assert answer["state"]["slots"] == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert answer["state"]["to_move"] == 0 and answer["state"]["position"]["moves"] == [2]
    after = post(client, "/api/move", {"position": answer["state"]["position"], "pit_index": 5})
    assert after.json()["state"]["movers"] == [0, 0]      # the extra turn: South again


def test_a_capture_names_both_pits_and_the_seeds():
    """
        slots  12 11 10  9  8  7
                0  0  0  5  0  0        North
           [0]                    [0]
                0  0  1  0  0  0        South to move
        slots   0  1  2  3  4  5
    South's pit index 2 sows its one seed into empty slot 3, which faces slot 9
    (12 - 3) holding 5: 1 + 5 seeds go to South's store.
    """
    slots = [0, 0, 1, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0]
    with TestClient(web.create_app()) as c:
        answer = post(c, "/api/move", {"position": {"board": slots, "to_move": 0},
                                       "pit_index": 2}).json()
    assert answer["move"]["path"] == [3]
    assert answer["move"]["captured"] == 6 and answer["move"]["capture_slots"] == [3, 9]
    board = mancala.Board(slots)
    board.push(2)
    assert answer["state"]["slots"] == board.pits


def test_sowing_13_seeds_laps_the_board_skipping_the_other_store(client):
    slots = [13, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0]
    answer = post(client, "/api/move", {"position": {"board": slots}, "pit_index": 0}).json()
    # by hand: 1..6 (store), 7..12, then 13 (North's store) skipped, 0 and 1
    assert answer["move"]["path"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0]
    board = mancala.Board(slots)
    board.push(0)
    assert answer["state"]["slots"] == board.pits


def test_paths_and_states_agree_with_the_twin_over_random_games(client):
    rng = random.Random(13)
    for _ in range(6):
        position = {"seeds": rng.randint(1, 8), "capture": rng.choice(mancala.CAPTURE_RULES),
                    "moves": []}
        slots, to_move = ([position["seeds"]] * 6 + [0]) * 2, 0
        capture = mancala.CAPTURE_RULES.index(position["capture"])
        while not _reference.is_game_over(slots):
            pit = rng.choice(_reference.legal_moves(slots, to_move))
            answer = post(client, "/api/move", {"position": position, "pit_index": pit}).json()
            after, next_to_move, captured = _reference.play(slots, to_move, pit, capture)
            sown = list(slots)
            sown[to_move * 7 + pit] = 0
            for slot in answer["move"]["path"]:
                sown[slot] += 1
            # the path's counts are the twin's board before a capture or the end's sweep
            if not captured and not _reference.is_game_over(after):
                assert sown == after
            assert answer["state"]["slots"] == after
            assert answer["state"]["to_move"] == next_to_move or answer["state"]["game_over"]
            assert answer["move"]["captured"] == captured
            position = answer["state"]["position"]
            slots, to_move = after, next_to_move
        assert answer["state"]["game_over"] and answer["move"]["game_over"]


def test_the_move_that_ends_the_game_says_the_sweep_in_the_terminals_words(client):
    """Issue 40, item 6: the end's sweep was never said (North's store jumped 20 -> 25), and
    the web said 'sows pit 6' where the terminal says 'plays 6 (F)'. South's last seed
    (pit 6, 1 seed) lands in its store, its row is empty: North keeps its 5 seeds."""
    #      13 12 11 10  9  8  7      North's pits, its store at 13
    #  20:  3  2  0  0  0  0   10    South's store
    #       0  0  0  0  0  1         South's pits 0..5
    slots = [0, 0, 0, 0, 0, 1, 10, 0, 0, 0, 0, 2, 3, 20]
    answer = post(client, "/api/move", {"position": {"board": slots, "to_move": 0}, "pit_index": 5}).json()
    move = answer["move"]
    assert move["words"] == "6 (F), the game is over, North keeps the 5 seeds left in its row"
    assert move["effects"] == ["the game is over", "North keeps the 5 seeds left in its row"]
    assert answer["state"]["slots"] == [0] * 6 + [11] + [0] * 6 + [25]
    assert answer["state"]["played"][-1]["effects"] == move["effects"]
    capture = post(client, "/api/move", {"position": {"seeds": 4, "moves": [0, 0]}, "pit_index": 4}).json()
    assert capture["move"]["words"].startswith("5 (E)")


def test_a_finished_game(client):
    """The whole game played through the API ends as mancala.Board says, and nothing follows it."""
    rng = random.Random(5)
    position = dict(START, seeds=3)
    state = post(client, "/api/validate", {"position": position}).json()
    while not state["game_over"]:
        pit = rng.choice(state["legal_moves"])
        state = post(client, "/api/move", {"position": position, "pit_index": pit}).json()["state"]
        position = state["position"]
    board = replay(position)
    outcome = board.outcome()
    assert state["outcome"] == {"winner": outcome.winner, "south": outcome.south,
                                "north": outcome.north, "margin": outcome.margin}
    assert state["outcome"]["south"] + state["outcome"]["north"] == 36
    assert state["legal_moves"] == []
    assert_refused(post(client, "/api/move", {"position": position, "pit_index": 0}), 400,
                   "game is over")
    assert_refused(post(client, "/api/ai", {"position": position, "level": "ai:easy"}), 400,
                   "game is over")
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": position})
        assert ws.receive_json()["type"] == "start"
        assert ws.receive_json() == {"type": "done", "reason": "game over"}


BAD_POSITIONS = [
    ([1, 2], "position is a JSON object"),
    ({"seeds": 13}, "seeds per pit is a whole number from 1 to 12, not 13"),
    ({"seeds": 0}, "from 1 to 12"),
    ({"seeds": "4"}, "seeds per pit"),
    ({"seeds": True}, "seeds per pit"),
    ({"capture": "steal"}, "unknown capture rule 'steal'"),
    ({"capture": ["standard"]}, "unknown capture rule"),
    ({"seeds": 4, "colour": "red"}, "unknown field 'colour'"),
    ({"moves": "2,5"}, "moves is a list"),
    ({"moves": [2, 2]}, "move 2: pit 2 is empty"),
    ({"moves": [6]}, "move 1"),
    ({"moves": [2.0]}, "move 1"),
    ({"moves": [0] * 3000}, "at most 2,000"),
    ({"board": [4] * 13}, "a board has 14 slots, not 13"),
    ({"board": [4] * 13 + [-1]}, "fewer than 0"),
    ({"board": [12] * 14}, "at most 144"),
    ({"board": [4] * 14, "to_move": 2}, "the side to move is 0 (South) or 1 (North)"),
    ({"board": "4,4,4"}, "board is a list of 14 seed counts"),
    ({"board": [4] * 14, "seeds": 4}, "unknown field 'seeds'"),
]


@pytest.mark.parametrize("position,words", BAD_POSITIONS)
def test_a_bad_position_is_refused_by_every_endpoint(client, position, words):
    assert_refused(post(client, "/api/validate", {"position": position}), 400, words)
    assert_refused(post(client, "/api/move", {"position": position, "pit_index": 0}), 400, words)
    assert_refused(post(client, "/api/ai", {"position": position, "level": "ai:easy"}), 400, words)
    assert_refused(post(client, "/api/save", {"position": position}), 400, words)
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": position})
        answer = ws.receive_json()
        assert answer["type"] == "error" and words in answer["error"]


@pytest.mark.parametrize("pit,words", [(6, "from 0 to 5, not 6"), (-1, "not -1"), ("3", "not '3'"),
                                       (None, "not None"), (True, "not True"),
                                       (2, None)])
def test_a_bad_pit_is_refused(client, pit, words):
    position = dict(START, moves=[2])       # pit index 2 is empty now
    error = assert_refused(post(client, "/api/move", {"position": position, "pit_index": pit}))
    assert (words or "pit 2 is empty") in error


@pytest.mark.parametrize("body,status,words", [
    (b"", 400, "not JSON"),
    (b"{", 400, "not JSON"),
    (b"\xff\xfe", 400, "not UTF-8"),
    (b"[" * 100000, 413, "larger than 64 KB"),
    (b'{"position": {"seeds": NaN}, "pit_index": 0}', 400, "NaN"),
    (b'{"position": {"seeds": ' + b"9" * 5000 + b'}, "pit_index": 0}', 400, "too long"),
    (b"[" * 5000 + b"]" * 5000, 400, "nested"),
    (b'{"pit_index": 0}', 400, "no 'position' field"),
    (b'{"position": {}, "pit_index": 0, "x": 1}', 400, "unknown field 'x'"),
    (b'"move"', 400, "JSON object"),
])
def test_a_bad_body_is_a_one_line_4xx(client, body, status, words):
    for path in ("/api/move", "/api/validate", "/api/ai", "/api/save"):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        if response.status_code == 400 and words in ("no 'position' field", "unknown field 'x'") \
                and path != "/api/move":
            continue        # those two bodies are about /api/move's fields
        assert_refused(response, status, words)


def test_a_large_body_is_refused_before_it_is_read(client):
    response = client.post("/api/move", content=b"x" * 1000, headers={"content-length": "9999999", **JSON})
    assert_refused(response, 413, "64 KB")


def test_validate_reports_the_state_of_any_position(client):
    slots = [0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0]
    state = post(client, "/api/validate", {"position": {"board": slots, "to_move": 1}}).json()
    assert state["slots"] == slots and state["to_move"] == 1 and state["legal_moves"] == [0]
    assert state["position"] == {"board": slots, "to_move": 1, "capture": "standard", "moves": []}


# -- computer players -----------------------------------------------------------------------

@pytest.mark.parametrize("level", ["random", "ai:easy", "ai:medium", "ai:hard"])
def test_the_computer_replies_with_a_legal_move(client, level):
    position = dict(START, moves=[2, 5])
    answer = post(client, "/api/ai", {"position": position, "level": level}).json()
    assert answer["pit_index"] in replay(position).legal_moves
    assert answer["level"] == level


def test_ai_medium_scores_as_the_twin_does_eight_moves_deep(client):
    position = {"seeds": 3, "capture": "standard", "moves": [2, 4]}
    board = replay(position)
    answer = post(client, "/api/ai", {"position": position, "level": "ai:medium"}).json()
    value, _, _ = _reference.alphabeta(board.pits, board.to_move, 8, 0)
    assert answer["score"] == value and answer["depth"] == 8


@pytest.mark.parametrize("level,words", [("ai:depth=30", "level is one of"), ("human", "not 'human'"),
                                         ('engine:"sh -c true"', "engine:"), (3, "not 3"),
                                         ("minimax:8", "level is one of")])
def test_a_level_the_web_does_not_run_is_refused(client, level, words):
    assert_refused(post(client, "/api/ai", {"position": START, "level": level}), 400, words)


def test_a_bad_tab_is_refused(client):
    assert_refused(post(client, "/api/ai", {"position": START, "level": "random", "tab": 5}),
                   400, "tab is a name")
    assert_refused(post(client, "/api/ai", {"position": START, "level": "random", "tab": "x" * 65}),
                   400, "at most 64")


def test_a_newer_request_from_the_same_tab_stops_the_older_one(client):
    server = client.app.state.server
    slow = {"seeds": 8, "capture": "standard", "moves": []}    # ai:hard thinks for up to a second
    answers = {}

    def ask(name, level, position):
        answers[name] = post(client, "/api/ai", {"position": position, "level": level, "tab": "t1"})

    first = threading.Thread(target=ask, args=("old", "ai:hard", slow))
    first.start()
    deadline = time.monotonic() + 30
    while not (server.tabs.get("t1") and server.tabs["t1"].job and server.tabs["t1"].job.engine):
        assert time.monotonic() < deadline, "the first request never started"
        time.sleep(0.002)
    ask("new", "ai:easy", START)
    first.join(60)
    # the old search was stopped, not finished: its answer is the 409 (a clock said it before,
    # and a clock measures the machine's load as well)
    assert_refused(answers["old"], 409, "newer request from the same tab")
    assert answers["new"].status_code == 200
    assert answers["new"].json()["pit_index"] in mancala.Board().legal_moves


# -- save files ---------------------------------------------------------------------------

def test_a_saved_game_loads_with_mancala_storage(client):
    position = {"seeds": 5, "capture": "empty", "moves": [2, 5, 0]}
    response = post(client, "/api/save", {"position": position,
                                          "players": {"south": "human", "north": "ai:hard"}})
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    game = storage.loads(response.text)
    assert (game.seeds, game.capture, game.moves, game.south, game.north) == \
        (5, "empty", [2, 5, 0], "human", "ai:hard")
    assert game.board() == replay(position)


def test_a_terminal_save_file_loads_in_the_web(client, tmp_path):
    board = mancala.Board(seeds=3, capture="none")
    for pit in (0, 4, 1):
        board.push(pit)
    path = storage.save(storage.SavedGame.from_board(board, 3, "ai:easy", "human"),
                        tmp_path / "game.json")
    answer = client.post("/api/load", content=path.read_bytes(), headers=JSON).json()
    assert answer["players"] == {"south": "ai:easy", "north": "human"} and answer["note"] == ""
    assert answer["state"]["position"] == {"seeds": 3, "capture": "none", "moves": [0, 4, 1]}
    assert answer["state"]["slots"] == board.pits and answer["state"]["to_move"] == board.to_move


def test_a_save_round_trip_through_the_web_keeps_the_game(client):
    position = {"seeds": 4, "capture": "standard", "moves": [2, 5, 1]}
    text = post(client, "/api/save", {"position": position}).text
    answer = client.post("/api/load", content=text.encode(), headers=JSON).json()
    assert answer["state"]["position"] == position
    assert answer["players"] == {"south": "human", "north": "ai:medium"}


def test_a_side_the_web_cannot_run_loads_as_human_and_is_named(client):
    text = storage.dumps(storage.SavedGame(4, "standard", "minimax:3", "ai", [2]))
    answer = client.post("/api/load", content=text.encode(), headers=JSON).json()
    assert answer["players"] == {"south": "human", "north": "ai:medium"}
    assert "minimax:3" in answer["note"]
    text = storage.dumps(storage.SavedGame(4, "standard", "human", 'engine:"rm -rf /"', [2]))
    answer = client.post("/api/load", content=text.encode(), headers=JSON).json()
    assert answer["players"] == {"south": "human", "north": "human"}
    assert "rm -rf" in answer["note"]


def tampered():
    good = json.loads(storage.dumps(storage.SavedGame(4, "standard", "human", "ai", [2, 5])))
    yield json.dumps(dict(good, moves=[2, 2])), "move 2 (pit 2) is not legal"
    yield json.dumps(dict(good, position=dict(good["position"], to_move=0))), "does not match"
    yield json.dumps(dict(good, version=2)), "version 2 is not supported"
    yield json.dumps(dict(good, players={"south": "wizard", "north": "human"})), \
        "unknown south player 'wizard'"
    yield "{", "not JSON"
    yield "", "empty, so not JSON"


@pytest.mark.parametrize("text,words", list(tampered()))
def test_a_bad_save_file_is_refused_with_storages_reason(client, text, words):
    assert_refused(client.post("/api/load", content=text.encode(), headers=JSON), 400, words)
    with pytest.raises(storage.SaveFileError, match=words.split("(")[0].strip()):
        storage.loads(text, players=canonical_spec)


def test_a_board_set_by_hand_cannot_be_saved_and_players_are_checked(client):
    board = {"board": [4] * 12 + [0, 0], "to_move": 0}
    assert_refused(post(client, "/api/save", {"position": board}), 400, "only a game from a start")
    assert_refused(post(client, "/api/save", {"position": START, "players": {"south": "ai"}}),
                   400, "the south player is one of")
    assert_refused(client.post("/api/load", content=b"\xff", headers=JSON), 400, "not UTF-8")


# -- game records (issue 41, section 3) -----------------------------------------------------

def play_through_the_api(client, seeds, seed):
    """A whole game played by requests, as the page plays one: South's moves chosen at random
    among the state's legal pits, North's by /api/ai (random), each played by /api/move."""
    rng = random.Random(seed)
    position = {"seeds": seeds, "capture": "standard", "moves": []}
    state = post(client, "/api/validate", {"position": position}).json()
    while not state["game_over"]:
        if state["to_move"] == 0:
            pit = rng.choice(state["legal_moves"])
        else:
            pit = post(client, "/api/ai", {"position": position, "level": "random"}).json()["pit_index"]
        state = post(client, "/api/move", {"position": position, "pit_index": pit}).json()["state"]
        position = state["position"]
    return position


def test_a_game_played_through_the_api_saved_as_a_record_loads_back_with_the_same_moves(client):
    """Issue 41: the web's Save wrote JSON only. Now it offers the game's record too, the
    text the terminal's ``save NAME.kalah`` writes: read by the library (which replays
    it) it is the same game, and /api/load takes it back to the same moves."""
    position = play_through_the_api(client, 3, 41)
    players = {"south": "human", "north": "random"}
    response = post(client, "/api/save", {"position": position, "players": players,
                                          "format": "record"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["content-disposition"] == 'attachment; filename="mancala-game.kalah"'
    record = records.loads(response.text)
    outcome = replay(position).outcome()
    assert record.moves == position["moves"] and (record.south, record.north) == ("human", "random")
    assert record.result == f"{outcome.south}-{outcome.north}" and outcome.south + outcome.north == 36
    saved = storage.SavedGame(3, "standard", "human", "random", position["moves"])
    assert response.text == storage.dumps(saved, record=True)      # the terminal's save, word for word
    loaded = client.post("/api/load", content=response.content, headers=JSON).json()
    assert loaded["state"]["position"] == position and loaded["players"] == players
    assert loaded["state"]["slots"] == replay(position).pits
    # a game going on, stopped in the middle of a turn (after an extra turn): '*' and the same moves
    going = {"seeds": 4, "capture": "empty", "moves": [2]}          # pit 3 of 4 seeds: into the store
    text = post(client, "/api/save", {"position": going, "format": "record"}).text
    assert text.splitlines()[-1] == "1. C *"
    assert client.post("/api/load", content=text.encode(), headers=JSON).json()["state"]["position"] == going
    json_save = post(client, "/api/save", {"position": going, "format": "json"})
    assert json_save.headers["content-disposition"] == 'attachment; filename="mancala-save.json"'
    assert storage.loads(json_save.text).moves == [2]
    assert_refused(post(client, "/api/save", {"position": going, "format": "pgn"}), 400,
                   "format is json or record, not 'pgn'")


HAND_RECORD = """[Variant "Kalah"]
[South "human"]
[North "random"]
[Seeds "1"]
[Capture "standard"]
[Result "9-3"]

1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3
"""


def bad_records():
    """(text, the words of its one line) of records that do not add up, worked by hand on
    the Kalah(6,1) game of docs/records.md."""
    yield HAND_RECORD.replace('[Capture "standard"]\n', ""), "lines 1-5: the tags have no Capture tag"
    yield HAND_RECORD.replace("3. D+2", "3. D+3"), "line 8: turn 3 (D+3): D captures 2 seeds, not 3"
    yield HAND_RECORD.replace("1. FE+2 2. K", "1. F 2. E+2 3. K"), \
        "line 8: turn 1 (F): F earns South an extra turn"
    yield HAND_RECORD.replace("2. K", "2. K 3. K"), "line 8: turn 3 (K): K is North's pit"
    yield HAND_RECORD.replace('[Result "9-3"]', '[Result "8-4"]'), "line 8: the moves end with 9-3"
    yield HAND_RECORD.replace("6. L 9-3", "6. L 7. A 9-3"), "line 8: turn 7 (A) comes after the game is over"


@pytest.mark.parametrize("text,words", list(bad_records()))
def test_a_bad_record_is_refused_in_one_line_by_load_and_by_the_review(client, text, words):
    for path in ("/api/load", "/api/review/read"):
        message = assert_refused(client.post(path, content=text.encode(), headers=JSON), 400, words)
        with pytest.raises(storage.SaveFileError) as caught:     # the library's own words
            storage.loads(text)
        assert message == str(caught.value)


def test_the_review_reads_a_record_as_review_file_does(client):
    """A record to review (pasted or opened in the History view): its game, its players as
    written (a record from elsewhere names people as it likes: the review, like
    ``python -m mancala review FILE``, takes any name; Load takes only players it runs)."""
    text = HAND_RECORD.replace('[North "random"]', '[North "Alice"]')
    answer = client.post("/api/review/read", content=text.encode(), headers=JSON).json()
    assert answer == {"position": {"seeds": 1, "capture": "standard", "moves": [5, 4, 4, 3, 3, 2, 5]},
                      "players": {"south": "human", "north": "Alice"}, "human": 0, "game": None}
    assert_refused(client.post("/api/load", content=text.encode(), headers=JSON), 400,
                   "unknown north player 'Alice'")
    saved = post(client, "/api/save", {"position": {"seeds": 2, "capture": "none", "moves": [0, 5]},
                                       "players": {"south": "ai:easy", "north": "ai:hard"}}).text
    answer = client.post("/api/review/read", content=saved.encode(), headers=JSON).json()
    assert answer["position"]["moves"] == [0, 5] and answer["human"] is None
    setup = HAND_RECORD.replace('[Result "9-3"]', '[Result "*"]\n[FEN "1-1-1-1-1-1-0-1-1-1-1-1-1-0-N"]')
    setup = setup.replace("1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3", "1. K *")
    assert_refused(client.post("/api/review/read", content=setup.encode(), headers=JSON), 400,
                   "set-up position")
    empty = HAND_RECORD.replace('[Result "9-3"]', '[Result "*"]').replace(
        "1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3", "*")
    assert_refused(client.post("/api/review/read", content=empty.encode(), headers=JSON), 400,
                   "no moves to review")


# -- analysis -------------------------------------------------------------------------------

def receive_until(ws, kind):
    messages = []
    while True:
        message = ws.receive_json()
        messages.append(message)
        if message["type"] in (kind, "error"):
            return messages


def test_analysis_scores_match_a_fresh_engines_analyse_at_each_depth(client):
    position = {"seeds": 4, "capture": "standard", "moves": [2, 5]}
    board = replay(position)
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": position, "depth": 7})
        messages = receive_until(ws, "done")
    assert messages[0]["type"] == "start" and messages[-1]["reason"] == "depth"
    depths = [m for m in messages if m["type"] == "depth"]
    assert [m["depth"] for m in depths] == [2, 3, 4, 5, 6, 7]
    for update in depths:
        expected = mancala.Engine(hash_mb=4).analyse(board, depth=update["depth"])
        assert {m["pit_index"]: m["score"] for m in update["moves"]} == \
            {pit: r.score for pit, r in expected.items()}
        assert update["score"] == max(r.score for r in expected.values())
        assert update["pv"][0] == update["best"]
    moves = [m for m in messages if m["type"] == "move"]
    assert len(moves) == 6 * len(board.legal_moves)
    # the twin's root value at depth 4 is the best move's score
    value, _, _ = _reference.alphabeta(board.pits, board.to_move, 4, 0)
    assert depths[2]["score"] == value
    # North to move: the bar's score is South's
    assert board.to_move == 1 and depths[-1]["score_south"] == -depths[-1]["score"]


@pytest.mark.parametrize("position", [{"seeds": 4, "capture": "standard", "moves": []},
                                      {"seeds": 4, "capture": "standard", "moves": [2, 5]},
                                      {"seeds": 5, "capture": "empty", "moves": [0]}])
def test_the_hint_and_the_analysis_say_the_same_at_the_hints_depth(client, position):
    """Issue 34: for the first move the web hint said "pit 3 (score +10 for South)" while
    the analysis beside it said +8. The hint is now the analysis at its depth: the same
    move, the same number, the same words, from the same search as a fresh engine's."""
    from mancala.web.play import HINT_DEPTH
    hint = post(client, "/api/hint", {"position": position}).json()
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": position, "depth": HINT_DEPTH})
        messages = receive_until(ws, "done")
    [update] = [m for m in messages if m["type"] == "depth" and m["depth"] == HINT_DEPTH]
    assert (hint["pit_index"], hint["score"], hint["depth"]) == \
        (update["best"], update["score"], HINT_DEPTH)
    assert hint["text"] == update["text"]
    board = replay(position)
    expected = mancala.Engine(hash_mb=4).analyse(board, depth=HINT_DEPTH)
    assert hint["score"] == max(r.score for r in expected.values())
    side = mancala.geometry.SIDE_NAMES[board.to_move if hint["score"] >= 0 else 1 - board.to_move]
    words = "even" if hint["score"] == 0 else f"{side} +{abs(hint['score'])}"
    assert hint["text"] == f"{words} (depth {HINT_DEPTH})"


def test_a_hint_in_an_endgame_is_exact(client):
    slots = [0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0]      # +4 for South, worked by hand
    hint = post(client, "/api/hint", {"position": {"board": slots}}).json()
    assert (hint["pit_index"], hint["score"], hint["text"]) == (5, 4, "South +4 (exact)")


def test_an_endgame_is_solved_and_says_so(client):
    slots = [0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0]      # +4 for South, worked by hand (docs/perfect-play.md)
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": {"board": slots}})
        messages = receive_until(ws, "done")
    assert messages[-1]["reason"] == "solved"
    last = [m for m in messages if m["type"] == "depth"][-1]
    assert last["exact"] and last["score"] == 4 and last["best"] == 5


def test_with_an_endgame_database_cached_the_analysis_is_perfect_play(monkeypatch, tmp_path):
    from mancala import endgame
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    endgame.ensure("standard", 8)
    board = mancala.Board([0, 1, 0, 2, 1, 1, 10, 2, 0, 1, 0, 0, 0, 12], to_move=0)   # 8 in the pits
    expected = mancala.Engine(hash_mb=4, endgame=None).analyse(board, exact=True)   # searched, not read
    with TestClient(web.create_app()) as c, c.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": {"board": board.pits}})
        messages = receive_until(ws, "done")
    assert messages[-1]["reason"] == "solved"
    (update,) = [m for m in messages if m["type"] == "depth"]
    assert update["depth"] == 0 and update["endgame"] == 8 and update["exact"]
    assert {m["pit_index"]: m["score"] for m in update["moves"]} == \
        {pit: r.score for pit, r in expected.items()}
    assert all(r.exact for r in expected.values())


def test_stop_ends_a_running_analysis_at_once(client):
    server = client.app.state.server
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": {"seeds": 6}, "time": 60})
        # deep enough that one move's search takes over a quarter of a second: the
        # server says what it is searching meanwhile
        thinking = receive_until(ws, "thinking")[-1]
        assert thinking["type"] == "thinking" and thinking["depth"] >= 2
        assert thinking["pit_index"] in mancala.Board(seeds=6).legal_moves
        ws.send_json({"type": "stop"})
        messages = receive_until(ws, "done")
        assert messages[-1] == {"type": "done", "reason": "stopped"}     # not its 60 s' "time"
        assert server.limiter.borrowed_tokens == 0
        ws.send_json({"type": "stop"})
        assert ws.receive_json() == {"type": "done", "reason": "idle"}


def test_a_new_analysis_replaces_the_running_one(client):
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": {"seeds": 6}, "time": 60})
        assert ws.receive_json()["type"] == "start"
        ws.receive_json()
        small = {"seeds": 2, "capture": "none", "moves": [0]}
        ws.send_json({"type": "analyze", "position": small, "depth": 3})
        messages = receive_until(ws, "done")
    starts = [i for i, m in enumerate(messages) if m["type"] == "start"]
    assert starts and messages[starts[-1]]["position"] == small
    after = messages[starts[-1]:]
    assert [m["depth"] for m in after if m["type"] == "depth"] == [2, 3]
    assert after[-1]["reason"] == "depth"


def test_a_closed_socket_stops_its_search(client):
    server = client.app.state.server
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": {"seeds": 6}, "time": 60})
        for _ in range(20):
            ws.receive_json()
    deadline = time.monotonic() + 40        # the search's own time is 60 s
    while server.sockets or server.limiter.borrowed_tokens:
        assert time.monotonic() < deadline, "the search went on after the socket closed"
        time.sleep(0.01)


@pytest.mark.parametrize("message,words", [
    ({"type": "analyse", "position": START}, "type is analyze or stop"),
    ({"position": START}, "type is analyze or stop"),
    ({"type": "analyze", "position": START, "depth": 1}, "depth is a whole number from 2 to 60"),
    ({"type": "analyze", "position": START, "depth": 3.5}, "not 3.5"),
    ({"type": "analyze", "position": START, "depth": 61}, "not 61"),
    ({"type": "analyze", "position": START, "time": -1}, "time is a positive number"),
    ({"type": "analyze", "position": START, "time": 600}, "at most 60 seconds"),
    ({"type": "analyze", "position": START, "colour": 1}, "unknown field 'colour'"),
    ({"type": "analyze"}, "no 'position' field"),
    ([], "type is analyze or stop"),
])
def test_a_bad_analysis_message_is_answered_with_one_line(client, message, words):
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json(message)
        answer = ws.receive_json()
        assert answer["type"] == "error" and words in answer["error"], answer
        ws.send_text("{" * 10)
        assert "not JSON" in ws.receive_json()["error"]
        ws.send_text("x" * (70 * 1024))
        assert "at most 64 KB" in ws.receive_json()["error"]
        ws.send_json({"type": "analyze", "position": START, "depth": 2})   # still serving
        assert receive_until(ws, "done")[-1]["reason"] == "depth"


def test_a_server_for_this_machine_answers_only_its_names():
    with TestClient(web.create_app(allowed_hosts=["127.0.0.1", "localhost", "[::1]"]),
                    base_url="http://127.0.0.1:8000") as c:
        assert c.get("/api/info").status_code == 200
        assert c.get("http://localhost:8000/").status_code == 200
        assert c.get("http://[::1]:8000/api/info").status_code == 200
        assert_refused(c.get("/api/info", headers={"host": "evil.example:8000"}), 400,
                       "this server answers to 127.0.0.1, localhost, [::1], not 'evil.example:8000'")
        from starlette.websockets import WebSocketDisconnect
        with pytest.raises(WebSocketDisconnect):
            with c.websocket_connect("/api/analyze", headers={"host": "evil.example"}) as ws:
                ws.receive_json()


def test_another_sites_page_may_not_open_the_socket(client):
    from starlette.websockets import WebSocketDisconnect
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/api/analyze", headers={"origin": "http://evil.example"}):
            pass
    assert refused.value.code == 1008
    with client.websocket_connect("/api/analyze", headers={"origin": "http://testserver"}) as ws:
        ws.send_json({"type": "stop"})
        assert ws.receive_json()["reason"] == "idle"


# -- the command ----------------------------------------------------------------------------

def test_serve_on_a_free_port_prints_its_url_and_stops_on_ctrl_c(tmp_path):
    import signal
    import subprocess
    import sys
    import urllib.request

    process = subprocess.Popen([sys.executable, "-m", "mancala", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=tmp_path)
    try:
        line = process.stdout.readline()
        assert line.startswith("mancala: serving the web app on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].split()[0]
        with urllib.request.urlopen(url + "api/info", timeout=30) as response:
            assert json.load(response)["levels"][0] == "human"
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130       # as every command ends on Ctrl-C
        assert process.stderr.read() == "mancala: interrupted\n"
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("argv,words", [(["--port", "70000"], "port is a whole number from 0 to 65,535"),
                                        (["--port", "http"], "not 'http'")])
def test_serve_refuses_a_bad_port_with_one_line(capsys, argv, words):
    from mancala.cli import main
    with pytest.raises(SystemExit) as exit_:
        main(["serve"] + argv)
    assert exit_.value.code == 2
    assert words in capsys.readouterr().err


def test_serve_warns_in_one_line_when_listening_on_all_interfaces(capsys, monkeypatch):
    import uvicorn
    from mancala.cli import main
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: None)
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "warning: listening on all interfaces" in err
    assert "serving the web app on http://127.0.0.1:" in out
