"""Rated games held and played by the server (mancala.web.games), and the one origin
policy of every endpoint (mancala.web.server.endpoint), through Starlette's
in-process test client (issue 31, items 6 and 7; issue 34, "rated means unaided").

Expected values come from elsewhere: every move the server answers is replayed on
mancala.Board, the games kept are read back from the history file with
mancala.history (what the terminal's ``history`` reads), and each test has its
own MANCALA_HOME: the real history is never touched.
"""
import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

from starlette.routing import Route, WebSocketRoute  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from conftest import assert_refused, kept_games  # noqa: E402

import mancala  # noqa: E402
from mancala.web import app as web  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

EVIL = {"origin": "http://evil.example"}
SCORE_WORDS = ("score", "depth", "pv", "nodes", "exact", "note", "value")


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


def new_game(client, south="human", north="random", seeds=1, **more):
    response = client.post("/api/rated/new", json={"players": {"south": south, "north": north},
                                                   "seeds": seeds, **more})
    assert response.status_code == 200, response.text
    return response.json()


def play_out(client, game, choose=lambda legal: legal[0]):
    """The game played to its end: the person's moves chosen by ``choose``, the computer's
    asked of the server. Every answer's move is replayed on a Board of our own; returns
    (the last answer, the answers, our board)."""
    board = mancala.Board(seeds=game["state"]["position"]["seeds"],
                          capture=game["state"]["position"]["capture"])
    answers, answer = [], game
    while not answer["state"]["game_over"]:
        if answer["state"]["to_move"] == game["human"]:
            pit = choose(board.legal_moves)
            answer = client.post("/api/rated/move", json={"game": game["game"], "pit_index": pit}).json()
            assert answer["move"]["pit_index"] == pit
        else:
            answer = client.post("/api/rated/reply", json={"game": game["game"]}).json()
            assert answer["move"]["player"] == 1 - game["human"]
        assert answer["move"]["pit_index"] in board.legal_moves
        board.push(answer["move"]["pit_index"])
        assert answer["state"]["slots"] == list(board.pits)
        answers.append(answer)
    return answer, answers, board


# -- rated games -------------------------------------------------------------------------------

def test_a_rated_game_is_played_by_the_server_and_kept_rated(client, home):
    game = new_game(client)
    assert game["rated"] and game["human"] == 0 and game["level"] == "random"
    last, answers, board = play_out(client, game)
    kept = last["kept"]
    [record] = kept_games(home)
    assert list(record.pit_indices) == [r.pit for r in board.move_stack]
    assert record.rated and record.players == ("human", "random") and record.human == 0
    assert kept["game"] == record.to_json() and kept["rated"]
    assert kept["change"] == round(record.after.rating - record.before.rating, 1)
    outcome = board.outcome()
    mine = {0: "won", 1: "lost", None: "drew"}[outcome.winner]
    assert kept["result"] == mine and kept["margin"] == abs(outcome.south - outcome.north)
    assert kept["words"].startswith(f"You {mine} {outcome.south}\u2013{outcome.north}")
    again = client.post("/api/rated/state", json={"game": game["game"]}).json()
    assert again["kept"] == kept and len(kept_games(home)) == 1       # kept once


def test_the_person_can_play_north_and_the_computer_moves_first(client, home):
    game = new_game(client, south="ai:easy", north="human")
    assert game["human"] == 1 and game["state"]["to_move"] == 0
    assert_refused(client.post("/api/rated/move", json={"game": game["game"], "pit_index": 0}),
                   409, "the computer's")
    last, _, _ = play_out(client, game)
    [record] = kept_games(home)
    assert record.human == 1 and record.rated and last["kept"]["game"]["id"] == record.id


def test_the_computers_replies_show_no_score(client, home):
    """Nothing in a rated game shows a score: a reply is the move alone."""
    game = new_game(client, north="ai:medium", seeds=3)
    client.post("/api/rated/move", json={"game": game["game"], "pit_index": 0})   # no extra turn
    answer = client.post("/api/rated/reply", json={"game": game["game"]})
    assert answer.status_code == 200, answer.text
    text = json.dumps(answer.json())
    for word in SCORE_WORDS:
        assert f'"{word}"' not in text, word


def test_resigning_a_rated_game_is_a_rated_loss_kept(client, home):
    game = new_game(client, north="ai:easy", seeds=4)
    client.post("/api/rated/move", json={"game": game["game"], "pit_index": 0})
    answer = client.post("/api/rated/resign", json={"game": game["game"]}).json()
    [record] = kept_games(home)
    assert record.resigned == 0 and record.result == "north" and record.rated
    assert record.after.rating < record.before.rating
    assert answer["kept"]["result"] == "lost" and answer["kept"]["change"] < 0
    assert answer["kept"]["words"].startswith("You lost by resignation")
    for path, body in (("move", {"pit_index": 1}), ("reply", {}), ("resign", {})):
        assert_refused(client.post(f"/api/rated/{path}", json={"game": game["game"], **body}),
                       409, "the game is over")
    assert len(kept_games(home)) == 1


def test_a_game_left_after_a_move_is_kept_resigned_and_one_left_before_is_forgotten(
        client, home, monkeypatch):
    """Leaving is no escape from a loss: when a rated game is dropped (too many held, or
    left too long), the person's resignation is kept once they have moved."""
    from mancala.web import games
    monkeypatch.setattr(games, "MAX_GAMES", 1)
    untouched = new_game(client, north="ai:easy", seeds=4)
    played = new_game(client, north="ai:easy", seeds=4)          # drops the untouched one
    assert kept_games(home) == []
    assert_refused(client.post("/api/rated/state", json={"game": untouched["game"]}), 404)
    client.post("/api/rated/move", json={"game": played["game"], "pit_index": 0})
    new_game(client, north="ai:easy", seeds=4)                   # drops the one played
    [record] = kept_games(home)
    assert record.resigned == 0 and record.rated and record.result == "north"
    assert list(record.pit_indices) == [0]          # the computer had not replied yet


def test_no_endpoint_helps_with_the_position_of_a_rated_game_in_play(client, home):
    """Refused by the server, not just hidden: the hint, the computer's move, the analysis,
    the search trees and the review refuse the position a rated game stands at, however
    it is written (its moves, or its board), until the game is over."""
    game = new_game(client, north="ai:easy", seeds=3)
    client.post("/api/rated/move", json={"game": game["game"], "pit_index": 0})
    moved = client.post("/api/rated/reply", json={"game": game["game"]}).json()
    while moved["state"]["to_move"] != 0:
        moved = client.post("/api/rated/reply", json={"game": game["game"]}).json()
    state = moved["state"]
    as_board = {"board": state["slots"], "to_move": 0, "capture": "standard"}
    for position in (state["position"], as_board):
        for path, body in (("/api/hint", {"position": position}),
                           ("/api/ai", {"position": position, "level": "ai:hard"}),
                           ("/api/explain", {"position": position, "depth": 2})):
            assert_refused(client.post(path, json=body), 403, "rated game being played")
    assert_refused(client.post("/api/review", json={"position": state["position"]}), 403,
                   "rated game being played")
    with client.websocket_connect("/api/analyze") as ws:
        ws.send_json({"type": "analyze", "position": as_board})
        message = ws.receive_json()
        assert message["type"] == "error" and "rated game being played" in message["error"]
    other = dict(state["position"], moves=state["position"]["moves"][:1])     # not where it stands
    assert client.post("/api/hint", json={"position": other}).status_code == 200
    client.post("/api/rated/resign", json={"game": game["game"]})
    assert client.post("/api/hint", json={"position": as_board}).status_code == 200   # over now


@pytest.mark.parametrize("players", [{"south": "human", "north": "human"},
                                     {"south": "ai:easy", "north": "random"},
                                     {"south": "human"}])
def test_only_a_person_against_a_rated_level_is_a_rated_game(client, players):
    response = client.post("/api/rated/new", json={"players": players})
    assert response.status_code == 400, response.text


def test_the_page_cannot_play_the_computers_side_or_feed_a_game(client, home):
    game = new_game(client, south="ai:easy", north="human")
    for body in ({"game": game["game"], "pit_index": 0, "player": 0},
                 {"game": game["game"], "moves": [0, 1]}):
        assert_refused(client.post("/api/rated/move", json=body), 400, "unknown field")
    assert_refused(client.post("/api/rated/move", json={"game": "nope", "pit_index": 0}), 404,
                   "no rated game")
    assert_refused(client.post("/api/rated/reply", json={"game": "x" * 99}), 400)
    assert kept_games(home) == []


def test_a_made_up_win_over_the_strongest_level_is_never_rated(client, home):
    """Issue 31, item 7: a legal finished game whose North moves were random, sent to
    /api/finish as a win over ai:perfect, was kept and rated (+646). Kept casual now."""
    board = mancala.Board(seeds=2)
    while not board.is_game_over():
        board.push(board.legal_moves[-1])
    body = {"position": {"seeds": 2, "capture": "standard",
                         "moves": [r.pit for r in board.move_stack]},
            "players": {"south": "human", "north": "ai:perfect"}, "game": "forged"}
    answer = client.post("/api/finish", json=body).json()
    assert answer["rated"] is False and answer["change"] is None
    [record] = kept_games(home)
    assert not record.rated and record.after is None


# -- one origin policy: every endpoint -----------------------------------------------------

def bodies(client):
    """A request each endpoint would answer with work (or a change of state) from this
    server's own page: method and JSON body by path."""
    game = new_game(client, north="random", seeds=4)["game"]
    attempt = client.get("/api/puzzle").json()["attempt"]
    start = {"seeds": 2, "capture": "standard", "moves": []}
    board = mancala.Board(seeds=1)
    while not board.is_game_over():
        board.push(board.legal_moves[0])
    finished = {"seeds": 1, "capture": "standard", "moves": [r.pit for r in board.move_stack]}
    return {
        "/api/info": ("GET", None),
        "/api/history": ("GET", None),
        "/api/puzzle": ("GET", None),
        "/api/validate": ("POST", {"position": start}),
        "/api/move": ("POST", {"position": start, "pit_index": 0}),
        "/api/ai": ("POST", {"position": start, "level": "ai:easy"}),
        "/api/hint": ("POST", {"position": start}),
        "/api/save": ("POST", {"position": start}),
        "/api/load": ("POST", json.loads(client.post("/api/save", json={"position": start}).text)),
        "/api/finish": ("POST", {"position": finished, "players": {"south": "human",
                                                                   "north": "random"},
                                 "game": "g"}),
        "/api/review": ("POST", {"position": finished}),
        "/api/puzzle/answer": ("POST", {"attempt": attempt, "give_up": True}),
        "/api/explain": ("POST", {"position": start, "depth": 2}),
        "/api/rated/new": ("POST", {"players": {"south": "human", "north": "random"}}),
        "/api/rated/move": ("POST", {"game": game, "pit_index": 0}),
        "/api/rated/reply": ("POST", {"game": game}),
        "/api/rated/state": ("POST", {"game": game}),
        "/api/rated/resign": ("POST", {"game": game}),
    }


def api_routes(app):
    return {route.path: route for route in app.routes
            if isinstance(route, Route) and route.path.startswith("/api/")}


def send(client, method, path, body, headers):
    if method == "GET":
        return client.get(path, headers=headers)
    return client.post(path, content=json.dumps(body),
                       headers={"content-type": "application/json", **headers})


def test_every_endpoint_refuses_another_sites_page_before_any_work(client, home):
    """Issue 31, item 6: with Origin: http://evil.example, /api/explain, /api/review,
    /api/ai and /api/puzzle/answer answered 200 and did the work. Every route of the
    app is listed here (a new one fails this test until it is), refused with a
    one-line 403, and its same request from the app's own page is answered."""
    table = bodies(client)
    routes = api_routes(client.app)
    assert set(routes) == set(table), "an endpoint without its request in this test"
    for path, route in routes.items():
        assert getattr(route.endpoint, "guarded", False), f"{path} is not an endpoint()"
    log = home / "puzzles.sqlite3"
    before = log.stat().st_size if log.exists() else 0
    for headers in (EVIL, {"sec-fetch-site": "cross-site"}, {"origin": "null"}):
        for path, (method, body) in table.items():
            assert_refused(send(client, method, path, body, headers), 403,
                           "another site's page")
    assert kept_games(home) == []                          # no game kept, none resigned
    assert (log.stat().st_size if log.exists() else 0) == before   # no puzzle given up
    server = client.app.state.server
    assert server.waiting == 0 and len(server.rated.games) == 1      # no game started
    for path, (method, body) in table.items():                     # the same, from our own page
        response = send(client, method, path, body, {"origin": "http://testserver",
                                                     "sec-fetch-site": "same-origin"})
        assert response.status_code == 200, (path, response.text)
    assert len(kept_games(home)) == 2                      # the casual game, the resigned one


def test_every_post_takes_json_said_so(client):
    """A body of another type (text/plain: what a page may send to any site without
    asking first) is a one-line 415, before any work."""
    for path, route in api_routes(client.app).items():
        if "POST" not in route.methods:
            continue
        for kind in ("text/plain", "application/x-www-form-urlencoded", None):
            headers = {} if kind is None else {"content-type": kind}
            response = client.post(path, content=b'{"position": {}}', headers=headers)
            assert_refused(response, 415, "Content-Type: application/json")
    charset = client.post("/api/validate", content=b'{"position": {}}',
                          headers={"content-type": "application/json; charset=utf-8"})
    assert charset.status_code == 200


def test_the_analysis_socket_has_the_same_policy(client):
    from starlette.websockets import WebSocketDisconnect
    sockets = [route for route in client.app.routes if isinstance(route, WebSocketRoute)]
    assert [route.path for route in sockets] == ["/api/analyze"]
    for headers in (EVIL, {"sec-fetch-site": "cross-site"}):
        with pytest.raises(WebSocketDisconnect) as closed:
            with client.websocket_connect("/api/analyze", headers=headers) as ws:
                ws.receive_json()
        assert closed.value.code == 1008
