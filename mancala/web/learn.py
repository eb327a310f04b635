"""The web app's pages for learners: puzzles and the search-tree explorer.

Thin transport over the library: a puzzle is :mod:`mancala.puzzles`' (chosen by
:func:`mancala.puzzles.choose` near the player's puzzle rating, played out by
:class:`mancala.puzzles.Attempt`, each result kept by
:class:`mancala.puzzles.PuzzleLog` in the same file as the terminal's), a tree is
:func:`mancala.explain.explain`'s (node for node the twin's minimax and
alpha-beta). Routes (docs/web.md has the API):

================================  =============================================
``GET /puzzles``, ``/explorer``   the pages (``learn.html``, ``learn.js``, ``learn.css``)
``GET /api/puzzle[?id=ID]``       a puzzle near the player's rating, and an attempt at it
``POST /api/puzzle/answer``       the solver's move (or giving up): right, wrong or solved
``POST /api/explain``             minimax and alpha-beta trees and every node count
================================  =============================================

The solution line stays on the server until the attempt is over: an answer
tells only whether the move was the line's, and plays the line's replies to it.
An attempt's result is written once, when it ends. The explained searches run
in the server's search slots (pure Python, so at most
:data:`mancala.explain.MAX_DEPTH` moves deep, as in the terminal); a new
request from a tab makes the answer to its older one a 409.
"""
from __future__ import annotations

import random
import secrets
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from mancala import explain as _explain
from mancala import puzzles as _puzzles
from mancala.board import Board
from mancala.errors import HistoryError, RequestError, quote
from mancala.geometry import PovScore, SIDE_NAMES
from mancala.rating import Rating
from mancala.web import api
from mancala.web.server import Job, Refused, Server, Tab

if TYPE_CHECKING:
    from starlette.requests import Request

MAX_ATTEMPTS = 256              #: puzzle attempts kept open at once (the oldest is dropped first)
WRONG_SOLVE_NODES = 2_000_000   #: a wrong move's value is solved within this budget, else not said
ATTEMPT_CHARS = 32
TAB_CHARS = 64                  #: as /api/ai's tab
EXPLAIN_DEFAULT_DEPTH = 3

#: the packaged files of these pages: URL path -> (file in static/, media type), as app.ASSETS
ASSETS = {
    "/puzzles": ("learn.html", "text/html; charset=utf-8"),
    "/explorer": ("learn.html", "text/html; charset=utf-8"),
    "/learn.js": ("learn.js", "text/javascript; charset=utf-8"),
    "/learn.css": ("learn.css", "text/css; charset=utf-8"),
}


# -- puzzles -------------------------------------------------------------------------------

def rating_json(rating: Optional[Any], attempts: int) -> Optional[Dict[str, Any]]:
    """A puzzle rating for the page: value, deviation, its 95% interval, attempts behind it."""
    if rating is None:
        return None
    low, high = rating.interval()
    return {"rating": round(rating.rating, 1), "rd": round(rating.rd, 1),
            "low": round(low, 1), "high": round(high, 1), "attempts": attempts}


def line_json(puzzle: _puzzles.Puzzle) -> List[Dict[str, int]]:
    """The whole solution line: who moves and which pit index, in order."""
    board = puzzle.position()
    line = []
    for pit in puzzle.solution:
        line.append({"player": board.to_move, "pit_index": pit})
        board.push(pit)
    return line


def puzzle_state(attempt: _puzzles.Attempt) -> Dict[str, Any]:
    """The attempt's position as the page draws every position (:func:`api.state`)."""
    puzzle = attempt.puzzle
    spec = {"board": list(puzzle.board), "to_move": puzzle.to_move, "capture": puzzle.capture,
            "moves": [record.pit for record in attempt.board.move_stack]}
    return api.state(spec, attempt.board)


class Puzzles:
    """The puzzles' side of the server: the shipped puzzles, the attempts open
    (at most :data:`MAX_ATTEMPTS`, by a name the page holds) and the puzzle log."""

    def __init__(self) -> None:
        self.attempts: "OrderedDict[str, _puzzles.Attempt]" = OrderedDict()
        self.rng = random.Random()
        self._log: Optional[_puzzles.PuzzleLog] = None
        self.log_off: Optional[str] = None        # why the log cannot be used, once it could not

    def log(self) -> Optional[_puzzles.PuzzleLog]:
        """The puzzle log (the terminal's file: ``puzzles.sqlite3`` in the data folder)."""
        if self._log is None and self.log_off is None:
            try:
                self._log = _puzzles.PuzzleLog()
            except RuntimeError as exc:         # no home folder to find the data folder in
                self.log_off = f"puzzle log is off: {exc}"
        return self._log

    def _failed(self, exc: HistoryError) -> None:
        self.log_off = f"puzzle log is off: {' '.join(str(exc).split())}"
        self._log = None

    def _notices(self) -> List[str]:
        log = self._log
        if log is None:
            return [self.log_off] if self.log_off else []
        notices = list(log.notices)
        log.notices.clear()
        return notices

    def standing(self) -> Dict[str, Any]:
        """The player's puzzle rating now and the puzzles tried (reads the log and, the
        first time, the shipped puzzles: run in a thread)."""
        _puzzles.load()
        log = self.log()
        records: List[_puzzles.AttemptRecord] = []
        if log is not None:
            try:
                records = log.attempts()
            except HistoryError as exc:
                self._failed(exc)
        rating = records[-1].after if records else Rating()
        return {"rating": rating if self._log is not None else None,
                "count": len(records), "tried": {record.puzzle for record in records},
                "notices": self._notices()}

    def start(self, puzzle_id: Optional[str], standing: Dict[str, Any]) -> Dict[str, Any]:
        """GET /api/puzzle: a puzzle (that one, or one near the rating) and a new attempt at it."""
        shipped = _puzzles.load()
        if puzzle_id is not None:
            puzzle = _puzzles.by_id(puzzle_id, shipped)
        else:
            rating = standing["rating"]
            puzzle = _puzzles.choose(shipped, rating.rating if rating else Rating().rating,
                                     standing["tried"], self.rng)
        key = secrets.token_hex(8)
        attempt = self.attempts[key] = _puzzles.Attempt(puzzle)
        while len(self.attempts) > MAX_ATTEMPTS:
            self.attempts.popitem(last=False)
        return {"attempt": key,
                "puzzle": {"id": puzzle.id, "board": list(puzzle.board), "to_move": puzzle.to_move,
                           "to_move_name": SIDE_NAMES[puzzle.to_move], "capture": puzzle.capture,
                           "rating": puzzle.rating, "value": puzzle.value,
                           "min_gap": _puzzles.MIN_GAP,
                           "solver_moves": len(puzzle.solver_steps())},
                "state": puzzle_state(attempt),
                "rating": rating_json(standing["rating"], standing["count"]),
                "notices": standing["notices"]}

    def attempt(self, key: Any) -> _puzzles.Attempt:
        if not isinstance(key, str) or len(key) > ATTEMPT_CHARS:
            raise RequestError(f"attempt is the name GET /api/puzzle gave, not {quote(key)}")
        attempt = self.attempts.get(key)
        if attempt is None:
            raise Refused(404, f"no attempt {quote(key)} (it ended long ago, or the server "
                               "restarted): GET /api/puzzle starts a new one")
        return attempt

    def record(self, attempt: _puzzles.Attempt, solved: bool) -> Dict[str, Any]:
        """Keep the attempt's result in the log (run in a thread): the rating before and after."""
        log = self.log()
        answer: Dict[str, Any] = {"rating": None, "change": None}
        if log is not None:
            try:
                kept = log.record(attempt.puzzle, solved, attempt.played)
                records = log.attempts()
                if kept.counted:
                    answer = {"rating": rating_json(kept.after, len(records)),
                              "change": round(kept.after.rating - kept.before.rating, 1)}
                else:       # a puzzle counts once: the rating stays
                    answer = {"rating": rating_json(records[-1].after if records else Rating(),
                                                    len(records)), "change": 0.0}
                    log.notices.append("Already counted: a puzzle moves your rating once, "
                                       "the first time.")
            except HistoryError as exc:
                self._failed(exc)
        answer["notices"] = self._notices()
        return answer


def answer_request(data: Any) -> Dict[str, Any]:
    """POST /api/puzzle/answer's body: ``{"attempt", "pit_index"}`` or ``{"attempt", "give_up": true}``."""
    data = api.fields(data, "the request", {"attempt", "pit_index", "give_up"}, {"attempt"})
    if "give_up" in data:
        if data["give_up"] is not True or "pit_index" in data:
            raise RequestError("give_up is true, alone beside attempt (or send pit_index instead)")
    elif "pit_index" not in data:
        raise RequestError("the request has no \"pit_index\" field (or \"give_up\": true)")
    else:
        data["pit_index"] = api.pit_index(data["pit_index"])
    return data


def play_answer(attempt: _puzzles.Attempt, pit: int) -> Dict[str, Any]:
    """The solver's move played out by the Attempt: what happened and the moves made
    (the solver's and the line's replies, each as /api/move describes a move)."""
    if attempt.result is not None:
        raise Refused(409, f"the attempt is over ({attempt.result}): GET /api/puzzle for another")
    before = attempt.board.copy(stack=False)
    made = len(attempt.board.move_stack)
    result = attempt.play(pit)          # IllegalMoveError (400) for a pit that is not legal here
    moves = []
    replay = before
    for record in attempt.board.move_stack[made:]:
        path = api.sowing_path(replay.pits, replay.to_move, record.pit)
        replay.push(record.pit)
        moves.append({"move": api.describe(record, path), "slots": list(replay.pits)})
    return {"result": result, "moves": moves, "state": puzzle_state(attempt)}


def wrong_loss(board: Board, pit: int, value: int, endgame: Any) -> Optional[Dict[str, Any]]:
    """What a wrong move is worth to the solver (solved within :data:`WRONG_SOLVE_NODES`)
    and the seeds it loses against the line's value; None when the solve does not finish."""
    from mancala.engine import Engine
    child = board.copy(stack=False)
    child.push(pit)
    solved = Engine(hash_mb=16, endgame=endgame).solve(child, nodes=WRONG_SOLVE_NODES)
    if not solved.exact:
        return None
    worth = PovScore(solved.score, child.to_move).pov(board.to_move)
    return {"value": worth, "lost": value - worth}


# -- the explorer ----------------------------------------------------------------------------

def explain_request(data: Any):
    """POST /api/explain's body: (board, depth, order, table, tab). The depth and the
    order are checked by :func:`mancala.explain.explain` itself (InvalidLimitError)."""
    data = api.fields(data, "the request", {"position", "depth", "order", "table", "tab"},
                      {"position"})
    _, board = api.parse_position(data["position"])
    depth = data.get("depth", EXPLAIN_DEFAULT_DEPTH)
    order = data.get("order", "natural")
    table = data.get("table", False)
    if not isinstance(table, bool):
        raise RequestError(f"table is true or false, not {quote(table)}")
    tab = data.get("tab", "")
    if not isinstance(tab, str) or len(tab) > TAB_CHARS:
        raise RequestError(f"tab is a name of at most {TAB_CHARS} characters, not {quote(tab)}")
    return board, depth, order, table, tab


def explanation(board: Board, depth: int, order: str, table: bool) -> Dict[str, Any]:
    """The explain JSON (``python -m mancala explain --json``'s) and the page's limits."""
    answer = _explain.explain(board, depth=depth, order=order, table=table).to_json()
    answer.update(max_depth=_explain.MAX_DEPTH, max_tree_nodes=_explain.MAX_TREE_NODES)
    return answer


# -- the routes ------------------------------------------------------------------------------

def routes(server: Server) -> list:
    """The routes of these pages, on the app's server (its search slots and tabs)."""
    import anyio
    from starlette.routing import Route
    from mancala.web.app import MAX_WAITING, RETRY_AFTER, endpoint
    from mancala.web.server import MAX_SEARCHES, decode, read_body

    puzzles = Puzzles()
    server.puzzles = puzzles

    @endpoint
    async def puzzle(request: "Request") -> Dict[str, Any]:
        unknown = sorted(set(request.query_params) - {"id"})
        if unknown:
            raise RequestError(f"unknown parameter {quote(unknown[0])}; /api/puzzle takes id")
        puzzle_id = request.query_params.get("id")
        standing = await anyio.to_thread.run_sync(puzzles.standing)
        return puzzles.start(puzzle_id, standing)

    @endpoint
    async def answer(request: "Request") -> Dict[str, Any]:
        data = answer_request(decode(await read_body(request)))
        attempt = puzzles.attempt(data["attempt"])
        puzzle = attempt.puzzle
        if "give_up" in data:
            if attempt.result is not None:
                raise Refused(409, f"the attempt is over ({attempt.result}): "
                                   "GET /api/puzzle for another")
            attempt.result = "given up"
            reply: Dict[str, Any] = {"result": "given up", "moves": [],
                                     "state": puzzle_state(attempt)}
        else:
            before = attempt.board.copy(stack=False)
            reply = play_answer(attempt, data["pit_index"])
            if reply["result"] == "wrong":
                reply["loss"] = await server.run(lambda: wrong_loss(
                    before, data["pit_index"], puzzle.value, server.endgame(puzzle.capture)))
        if attempt.result is not None:   # over: kept once (the result is set before any await)
            reply["solution"] = line_json(puzzle)
            reply.update(await anyio.to_thread.run_sync(
                puzzles.record, attempt, attempt.result == "solved"))
        return reply

    @endpoint
    async def explain(request: "Request") -> Dict[str, Any]:
        board, depth, order, table, key = explain_request(decode(await read_body(request)))
        if server.waiting >= MAX_SEARCHES + MAX_WAITING:
            raise Refused(503, f"busy: {MAX_SEARCHES} searches run and {MAX_WAITING} wait; "
                               f"try again in {RETRY_AFTER} s", {"retry-after": str(RETRY_AFTER)})
        tab = server.tab("explain:" + key) if key else Tab()
        if tab.job is not None:
            tab.job.cancelled = True
        job = tab.job = Job()

        def work() -> Optional[Dict[str, Any]]:
            return None if job.cancelled else explanation(board, depth, order, table)
        server.waiting += 1
        try:
            found = await server.run(work)
        finally:
            server.waiting -= 1
            if tab.job is job:
                tab.job = None
        if job.cancelled or found is None:
            raise Refused(409, "stopped: a newer request from the same tab replaced this one")
        return found

    return [Route("/api/puzzle", puzzle), Route("/api/puzzle/answer", answer, methods=["POST"]),
            Route("/api/explain", explain, methods=["POST"])]


__all__ = ["ASSETS", "routes", "Puzzles", "play_answer", "wrong_loss", "explanation",
           "line_json", "rating_json", "MAX_ATTEMPTS"]
