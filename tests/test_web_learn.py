"""The learners' endpoints through Starlette's in-process test client: puzzles
(GET /api/puzzle, POST /api/puzzle/answer) and the search-tree explorer (POST /api/explain).

Expected values come from elsewhere: the shipped puzzle file read with lzma
and json (conftest's shipped_puzzles), mancala.Board (the rules), the pure-Python twin's minimax and
alphabeta, mancala.explain and Engine.solve called directly, and the puzzle
log read back from its file. Every test has its own data folder (MANCALA_HOME):
the real puzzle log is never touched.
"""
import json
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

from starlette.testclient import TestClient  # noqa: E402

from conftest import assert_refused, fuzzed_requests, shipped_puzzles  # noqa: E402

import mancala  # noqa: E402
from mancala import _reference as twin  # noqa: E402
from mancala import explain, rating  # noqa: E402
from mancala.geometry import PovScore  # noqa: E402
from mancala.puzzles import PuzzleLog  # noqa: E402
from mancala.web import app as web  # noqa: E402
from mancala.web import learn  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


SHIPPED = shipped_puzzles()


def first_with(condition):
    return next(p for p in SHIPPED if condition(p))


def solver_moves(puzzle):
    """(place in the line, pit) of each solver move, by replaying the line on mancala.Board."""
    board = mancala.Board(puzzle["board"], puzzle["to_move"], capture=puzzle["capture"])
    found = []
    for index, pit in enumerate(puzzle["solution_indices"]):
        if board.to_move == puzzle["to_move"]:
            found.append((index, pit))
        board.push(pit)
    return found


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path / "cache"))      # no endgame database
    return tmp_path / "home"


@pytest.fixture
def client(home):
    with TestClient(web.create_app()) as c:
        yield c


def start(client, puzzle_id=None):
    response = client.get("/api/puzzle" + (f"?id={puzzle_id}" if puzzle_id else ""))
    assert response.status_code == 200, response.text
    return response.json()


def answer(client, attempt, pit):
    return client.post("/api/puzzle/answer", json={"attempt": attempt, "pit_index": pit})


# -- the pages ------------------------------------------------------------------------------

def test_the_pages_come_from_the_package_with_the_security_headers(client):
    for path in ("/puzzles", "/explorer"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.content == web._asset("learn.html")
        assert response.headers["content-security-policy"].startswith("default-src 'self'")
    assert b'src="/learn.js"' in client.get("/puzzles").content
    assert client.get("/learn.js").content == web._asset("learn.js")
    assert client.get("/learn.css").headers["content-type"].startswith("text/css")
    # the game page links to both
    page = client.get("/").text
    assert 'href="/puzzles"' in page and 'href="/explorer"' in page


# -- puzzles ----------------------------------------------------------------------------------

def test_a_puzzle_is_a_shipped_one_near_a_newcomers_rating_without_its_solution(client):
    got = start(client)
    puzzle = got["puzzle"]
    shipped = {p["id"]: p for p in SHIPPED}[puzzle["id"]]
    assert (puzzle["board"], puzzle["to_move"], puzzle["capture"], puzzle["rating"], puzzle["value"]) == \
        (shipped["board"], shipped["to_move"], shipped["capture"], shipped["rating"], shipped["value"])
    # puzzles.choose: among the 10 nearest a newcomer's 940
    nearest = sorted(SHIPPED, key=lambda p: (abs(p["rating"] - 940), p["id"]))[:10]
    assert puzzle["id"] in {p["id"] for p in nearest}
    assert "solution" not in json.dumps(got) and "solution_indices" not in json.dumps(got)
    board = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
    assert got["state"]["slots"] == board.pits and got["state"]["legal_moves"] == list(board.legal_moves)
    assert got["rating"] == {"rating": 940.0, "rd": 300.0, "low": 340.0, "high": 1540.0, "attempts": 0,
                             "provisional": True, "shown": "940? ±600"}
    assert puzzle["solver_moves"] == len(solver_moves(shipped))
    # issue 40, item 4: the seeds per pit (the shipped file's) and the rules, in words
    words = {"standard": "standard capture", "empty": "empty-pit capture", "none": "no captures"}
    assert puzzle["seeds"] == shipped["seeds"] == sum(shipped["board"]) // 12
    assert puzzle["rules"] == f"{shipped['seeds']} seed{'s' if shipped['seeds'] != 1 else ''} per pit, " \
                              f"{words[shipped['capture']]}"


def test_the_right_moves_from_the_shipped_file_solve_it_and_the_line_answers(client, home):
    shipped = first_with(lambda p: len(p["solution_indices"]) >= 3
                         and len(solver_moves(p)) < len(p["solution_indices"]))   # the engine answers
    got = start(client, shipped["id"])
    board = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
    line = shipped["solution_indices"]
    steps = solver_moves(shipped)
    for number, (index, pit) in enumerate(steps):
        reply = answer(client, got["attempt"], pit).json()
        last = number == len(steps) - 1
        assert reply["result"] == ("solved" if last else "right")
        upto = steps[number + 1][0] if not last else len(line)
        assert [m["move"]["pit_index"] for m in reply["moves"]] == line[index:upto]
        for step in reply["moves"]:             # each move's board after it, by mancala.Board
            board.push(step["move"]["pit_index"])
            assert step["move"]["player"] == board.move_stack[-1].player
            assert step["slots"] == board.pits
        assert reply["state"]["slots"] == board.pits
        if not last:                            # the line stays on the server until the end
            assert "solution" not in reply and "rating" not in reply
    assert [(m["player"], m["pit_index"]) for m in reply["solution"]] == \
        list(zip([r.player for r in board.move_stack], line))
    for move, record in zip(reply["solution"], board.move_stack):      # each move in words
        assert move["words"].startswith(f"{('South', 'North')[record.player]} {record.pit + 1} (")
        assert ("captures" in move["words"]) == bool(record.captured)
    assert reply["over"] and not reply["missed"]
    expected = rating.update(rating.Rating(), [(shipped["rating"], 0.0, 1.0)])
    assert reply["rating"]["rating"] == pytest.approx(expected.rating, abs=0.05)
    assert reply["change"] == pytest.approx(expected.rating - 940, abs=0.05)
    # kept in the terminal's puzzle log, in the data folder
    kept = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert [(a.puzzle, a.solved, list(a.moves)) for a in kept] == \
        [(shipped["id"], True, [pit for _, pit in steps])]
    # the attempt is over: one more answer is refused and nothing more is kept
    assert_refused(answer(client, got["attempt"], steps[-1][1]), 409, "over")
    assert len(PuzzleLog(home / "puzzles.sqlite3").attempts()) == 1


def test_a_wrong_move_is_taken_back_counted_once_and_tried_again(client, home):
    """Issue 34: a wrong answer took 170 rating points and ended the puzzle. Now the wrong
    move is shown (played on a copy), taken back, and the solver tries again; the rating
    hears of the miss once, and a solve after it moves nothing."""
    shipped = first_with(lambda p: len(solver_moves(p)) == 1)
    got = start(client, shipped["id"])
    board = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
    wrong = next(pit for pit in board.legal_moves if pit != shipped["solution_indices"][0])
    reply = answer(client, got["attempt"], wrong).json()
    assert reply["result"] == "wrong" and reply["moves"] == [] and not reply["over"]
    assert reply["missed"] and "solution" not in reply
    child = board.copy()
    child.push(wrong)
    assert reply["tried"]["move"]["pit_index"] == wrong and reply["tried"]["slots"] == child.pits
    assert reply["state"]["slots"] == board.pits            # taken back
    assert reply["state"]["legal_moves"] == list(board.legal_moves)
    solved = mancala.Engine(hash_mb=4, endgame=None).solve(child)
    worth = PovScore(solved.score, child.to_move).pov(board.to_move)
    assert reply["loss"] == {"value": worth, "lost": shipped["value"] - worth}
    assert reply["loss"]["lost"] >= 2                       # every other move loses 2 or more
    expected = rating.update(rating.Rating(), [(shipped["rating"], 0.0, 0.0)])
    assert reply["rating"]["rating"] == pytest.approx(expected.rating, abs=0.05)
    assert reply["change"] < 0
    again = answer(client, got["attempt"], wrong).json()    # the same miss again: nothing more
    assert again["result"] == "wrong" and "rating" not in again
    right = answer(client, got["attempt"], shipped["solution_indices"][0]).json()
    assert right["result"] == "solved" and right["over"] and right["missed"]
    assert "rating" not in right and "change" not in right           # counted at the miss
    kept = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert [(a.puzzle, a.solved) for a in kept] == [(shipped["id"], False)]


def test_a_theme_chosen_gives_a_puzzle_of_that_theme_with_its_goal_in_words(client):
    info = client.get("/api/info").json()
    assert [t["key"] for t in info["puzzle_themes"]] == ["capture", "extra-turn", "starving", "endgame",
                                                        "mine"]         # mine: your own mistakes
    for theme in ("capture", "extra-turn", "starving", "endgame"):
        got = client.get(f"/api/puzzle?theme={theme}").json()
        puzzle = got["puzzle"]
        assert theme in puzzle["themes"]
        shipped = {p["id"]: p for p in SHIPPED}[puzzle["id"]]
        line = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
        records = [line.push(pit) for pit in shipped["solution_indices"]]
        solver = shipped["to_move"]
        if theme == "capture":          # checked against the line, replayed here
            assert any(r.captured and r.player == solver for r in records)
        if theme == "extra-turn":
            assert any(r.extra_turn and r.player == solver for r in records[:-1])
        assert puzzle["goal"].startswith("Find the move that")
    assert_refused(client.get("/api/puzzle?theme=forks"), 400, "unknown theme 'forks'")


def test_giving_up_shows_the_solution_and_counts_as_missed(client, home):
    shipped = SHIPPED[1]
    got = start(client, shipped["id"])
    reply = client.post("/api/puzzle/answer", json={"attempt": got["attempt"], "give_up": True}).json()
    assert reply["result"] == "given up" and reply["over"]
    assert [s["pit_index"] for s in reply["solution"]] == shipped["solution_indices"]
    board = mancala.Board(shipped["board"], shipped["to_move"], capture=shipped["capture"])
    for step, pit in zip(reply["moves"], shipped["solution_indices"]):    # the line, on the board
        board.push(pit)
        assert step["move"]["pit_index"] == pit and step["slots"] == board.pits
    assert len(reply["moves"]) == len(shipped["solution_indices"])
    assert reply["state"]["slots"] == board.pits        # the position after the solution
    assert [a.solved for a in PuzzleLog(home / "puzzles.sqlite3").attempts()] == [False]
    # the next puzzle is chosen near the new rating, among the untried ones
    after = reply["rating"]["rating"]
    nxt = start(client)
    assert nxt["rating"]["attempts"] == 1 and nxt["rating"]["rating"] == after
    nearest = sorted((p for p in SHIPPED if p["id"] != shipped["id"]),
                     key=lambda p: (abs(p["rating"] - after), p["id"]))[:10]
    assert nxt["puzzle"]["id"] in {p["id"] for p in nearest}


def test_two_answers_at_once_to_the_last_move_keep_one_result(client, home):
    shipped = first_with(lambda p: len(solver_moves(p)) == 1)
    got = start(client, shipped["id"])
    statuses = []
    barrier = threading.Barrier(2)

    def send():
        barrier.wait()
        statuses.append(answer(client, got["attempt"], shipped["solution_indices"][0]).status_code)
    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409]
    assert len(PuzzleLog(home / "puzzles.sqlite3").attempts()) == 1


def test_bad_puzzle_requests_are_refused_with_one_line(client):
    got = start(client, SHIPPED[0]["id"])
    attempt = got["attempt"]
    assert_refused(client.get("/api/puzzle?id=nope"), 400, "no puzzle 'nope'")
    assert_refused(client.get("/api/puzzle?level=3"), 400, "unknown parameter 'level'")
    url = "/api/puzzle/answer"
    assert_refused(client.post(url, json={"attempt": "0" * 16, "pit_index": 0}), 404, "GET /api/puzzle")
    assert_refused(client.post(url, json={"attempt": 5, "pit_index": 0}), 400, "attempt")
    assert_refused(client.post(url, json={"attempt": attempt}), 400, "pit_index")
    assert_refused(client.post(url, json={"attempt": attempt, "pit_index": 6}), 400, "0 to 5")
    assert_refused(client.post(url, json={"attempt": attempt, "pit_index": True}), 400)
    assert_refused(client.post(url, json={"attempt": attempt, "give_up": "yes"}), 400, "give_up")
    assert_refused(client.post(url, json={"attempt": attempt, "pit_index": 0, "x": 1}), 400, "unknown field")
    assert_refused(client.post(url, content=b"{not json", headers={"content-type": "application/json"}), 400)
    assert_refused(client.post(url, json=[1]), 400, "JSON object")
    board = mancala.Board(SHIPPED[0]["board"], SHIPPED[0]["to_move"], capture=SHIPPED[0]["capture"])
    empty = next(pit for pit in range(6) if pit not in board.legal_moves)
    assert_refused(answer(client, attempt, empty), 400, "not legal")
    # an illegal pit is not an attempt: the right move still solves it
    first = answer(client, attempt, SHIPPED[0]["solution_indices"][0]).json()
    assert first["result"] in ("right", "solved")


def test_an_unusable_puzzle_log_leaves_the_puzzles_playable(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MANCALA_HOME", str(blocker / "home"))     # a folder under a file: cannot be made
    shipped = first_with(lambda p: len(solver_moves(p)) == 1)
    with TestClient(web.create_app()) as client:
        got = start(client, shipped["id"])      # nothing to read yet: a newcomer's rating
        reply = answer(client, got["attempt"], shipped["solution_indices"][0]).json()
        assert reply["result"] == "solved"          # the write fails: said in one line
        assert reply["rating"] is None and reply["notices"][0].startswith("puzzle log is off")
        assert "\n" not in reply["notices"][0]
        again = start(client)                       # and the page says the rating is off
    assert again["rating"] is None and again["notices"][0].startswith("puzzle log is off")


def test_attempts_kept_open_are_bounded(client):
    puzzles = client.app.state.server.part(learn.Puzzles)
    first = start(client, SHIPPED[0]["id"])["attempt"]
    for _ in range(learn.MAX_ATTEMPTS):
        puzzles.start(SHIPPED[0]["id"], {"rating": None, "count": 0, "tried": set(), "notices": []})
    assert len(puzzles.attempts) == learn.MAX_ATTEMPTS
    assert_refused(answer(client, first, SHIPPED[0]["solution_indices"][0]), 404)


# -- the explorer ----------------------------------------------------------------------------

ENDGAME = [0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0]


def test_explain_gives_the_librarys_trees_and_the_twins_counts(client):
    position = {"board": [2, 0, 3, 1, 0, 4, 7, 1, 2, 0, 3, 1, 2, 10], "to_move": 1,
                "capture": "empty", "moves": [1]}
    board = mancala.Board(position["board"], 1, capture="empty")
    board.push(1)
    for depth, order, table in ((3, "natural", False), (4, "engine", True)):
        got = client.post("/api/explain", json={"position": position, "depth": depth,
                                                "order": order, "table": table}).json()
        direct = explain.explain(board, depth=depth, order=order, table=table).to_json()
        assert got == dict(direct, max_depth=explain.MAX_DEPTH, max_tree_nodes=explain.MAX_TREE_NODES)
        slots, to_move, capture = list(board.pits), board.to_move, twin.CAPTURE_RULES.index("empty")
        for search, reference in (("minimax", twin.minimax), ("alphabeta", twin.alphabeta)):
            value, best, nodes = reference(slots, to_move, depth, capture)
            assert got["counts"][search]["natural"]["plain"] == nodes
            if search == "minimax" or order == "natural" and not table:
                assert (got[search]["value"], got[search]["best_index"], got[search]["nodes"]) == \
                    (value, best, nodes)


def test_explain_a_tree_worked_by_hand(client):
    # South: pit 5 (index 4) sows into pit 6; pit 6 (index 5) puts its seed in the store.
    # North has 2 seeds in pit 1 (H). docs/explain.md's example is this position: +4, pit 6 best.
    got = client.post("/api/explain", json={"position": {"board": ENDGAME}, "depth": 2}).json()
    assert (got["alphabeta"]["value"], got["alphabeta"]["best_index"], got["alphabeta"]["nodes"]) == (4, 5, 5)
    root = got["alphabeta"]["root"]
    assert (root["role"], root["alpha"], root["beta"]) == ("max", None, None)
    assert got["depth"] == 2 and got["max_player"] == 0


def test_explain_a_finished_game_and_the_default_depth(client):
    over = [0, 0, 0, 0, 0, 0, 30, 1, 0, 0, 0, 0, 0, 17]
    got = client.post("/api/explain", json={"position": {"board": over}}).json()
    assert got["depth"] == learn.EXPLAIN_DEFAULT_DEPTH
    assert got["minimax"]["nodes"] == 1 and got["minimax"]["root"]["kind"] == "end"
    assert got["minimax"]["value"] == 30 - 18       # North's seed goes to North: 30 - 18


def test_bad_explain_requests_are_refused_with_one_line(client):
    url = "/api/explain"
    start_ = {"seeds": 4}
    assert_refused(client.post(url, json={"position": start_, "depth": 9}), 400, "1 to 8")
    assert_refused(client.post(url, json={"position": start_, "depth": 0}), 400, "1 to 8")
    assert_refused(client.post(url, json={"position": start_, "depth": "3"}), 400, "'3'")
    assert_refused(client.post(url, json={"position": start_, "depth": True}), 400)
    assert_refused(client.post(url, json={"position": start_, "order": "best"}), 400, "natural, engine")
    assert_refused(client.post(url, json={"position": start_, "table": "yes"}), 400, "true or false")
    assert_refused(client.post(url, json={"position": start_, "tab": ["x"]}), 400, "tab")
    assert_refused(client.post(url, json={"position": {"board": [1] * 13}}), 400)
    assert_refused(client.post(url, json={"position": {"seeds": 4, "moves": [0, 0, 0]}}), 400, "move 3")
    assert_refused(client.post(url, json={"depth": 2}), 400, "'position'")
    assert_refused(client.post(url, json={"position": start_, "why": 1}), 400, "unknown field")


def test_two_tabs_finishing_puzzles_at_once_are_both_kept(client, home):
    one, two = [p for p in SHIPPED if len(solver_moves(p)) == 1][:2]
    attempts = [(start(client, p["id"])["attempt"], p["solution_indices"][0]) for p in (one, two)]
    barrier = threading.Barrier(2)
    results = []

    def send(attempt, pit):
        barrier.wait()
        results.append(answer(client, attempt, pit).json()["result"])
    threads = [threading.Thread(target=send, args=pair) for pair in attempts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["solved", "solved"]
    kept = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert sorted(a.puzzle for a in kept) == sorted([one["id"], two["id"]])
    assert kept[1].before == kept[0].after          # the second read the first's rating


def test_a_bounded_fuzz_of_the_learners_endpoints(client):
    """Fixed seed: fields swapped for values of other JSON types; never a 500, one-line errors."""
    import random
    rng = random.Random(25)
    values = [None, True, False, 0, -1, 10 ** 30, 2.5, "", "x" * 300, [], [1, 2], {}, {"a": 1},
              "natural", "engine", 3]
    attempt = start(client, SHIPPED[0]["id"])["attempt"]
    base = {"/api/explain": {"position": {"seeds": 3}, "depth": 2, "order": "engine", "table": True},
            "/api/puzzle/answer": {"attempt": attempt, "pit_index": 0}}
    fields = {"seeds": 3, "capture": "standard", "moves": [2], "board": [1] * 14, "to_move": 1}
    seen = {}
    for path, body in fuzzed_requests(rng, base, values, fields, 300, field_share=0.5,
                                      extra=("extra", "give_up")):
        response = client.post(path, json=body)
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        assert response.status_code < 500, (path, body, response.text[:200])
        if response.status_code >= 400:
            assert "\n" not in response.json()["error"], (path, body)
    assert seen.get(200, 0) >= 3 and seen.get(400, 0) > 50, seen     # some pass, most are refused


def test_a_newer_explain_from_the_same_tab_replaces_the_older(client):
    answers = {}

    def ask(name, depth):
        answers[name] = client.post("/api/explain", json={"position": {"seeds": 4}, "depth": depth,
                                                          "tab": "learner"})
    slow = threading.Thread(target=ask, args=("slow", 7))      # about a second of pure Python
    slow.start()
    deadline = time.monotonic() + 60        # returns as soon as the slow one is in
    while client.app.state.server.waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    ask("quick", 1)
    slow.join()
    assert answers["quick"].status_code == 200 and answers["quick"].json()["minimax"]["nodes"] == 7
    assert_refused(answers["slow"], 409, "newer request from the same tab")


def test_your_own_puzzles_are_served_on_the_web_made_of_your_reviewed_games(client, home):
    """Issue 34: "mistakes you made become your own puzzles" was the terminal's alone
    (puzzle --mine). The page's themes offer your own mistakes: the first ask makes them
    from your reviewed games (mancala.puzzles.mine, the terminal's own), each saying where
    it came from; none yet is one line."""
    from mancala.history import History
    from mancala.puzzles import mine
    from mancala.review import keep_review, review_game
    assert {"key": "mine", "name": "your own mistakes"} in client.get("/api/info").json()["puzzle_themes"]
    assert_refused(client.get("/api/puzzle?theme=mine"), 404, "no puzzles of your own yet")
    moves = [4, 2, 5, 0, 2, 3, 1, 1, 3, 4, 2, 0, 5, 0, 3]   # South errs at 1, 7, 12, 14 (test_review)
    history = History(home / "history.sqlite3")
    game = history.record("human", "ai:easy", 1, "standard", moves)
    review = review_game(1, "standard", moves)
    assert keep_review(history, game.id, review)             # reviewed, its puzzles not made yet
    got = client.get("/api/puzzle?theme=mine")
    assert got.status_code == 200, got.text
    shown = got.json()["puzzle"]
    own = {p.id: p for p in mine.kept(History(home / "history.sqlite3"))}
    assert mine.waiting(history) == {} and shown["id"] in own
    number = int(shown["source"].split("move ")[1].split(":")[0])
    assert shown["source"].startswith(f"game {game.id}, move {number}: you played")
    assert number in mine.candidates(review, 0)
    assert shown["board"] == list(own[shown["id"]].board) and shown["to_move"] == 0
    again = client.get(f"/api/puzzle?id={shown['id']}").json()["puzzle"]     # the page's #id=
    assert again["id"] == shown["id"] and again["source"] == shown["source"]
    assert_refused(client.get("/api/puzzle?id=nosuch00"), 400, "no puzzle")
