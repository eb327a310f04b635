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
from typing import Any, Callable, Dict, List, Optional

from mancala import explain as _explain
from mancala import puzzles as _puzzles
from mancala.puzzles import mine, teaching
from mancala.board import Board
from mancala.engine import Engine
from mancala.errors import HistoryError, Refused, RequestError, quote
from mancala.history import History
from mancala.limits import SMALL_HASH_MB
from mancala.geometry import SIDE_NAMES
from mancala.rating import Rating
from mancala.web import api
from mancala.web.api import rating_json
from mancala.web.policy import endpoint, json_body, tab_name

MAX_ATTEMPTS = 256              #: puzzle attempts kept open at once (the oldest is dropped first)
ATTEMPT_CHARS = 32
EXPLAIN_DEFAULT_DEPTH = 3


def own_puzzles(needed: bool = True) -> Optional[List[_puzzles.Puzzle]]:
    """Your own puzzles, the terminal's ``puzzle --mine``'s (:func:`mancala.puzzles.mine.kept`:
    those of the games reviewed since are made first, a search's work). When ``needed``,
    404 when there are none yet and 503 when the history cannot be read; else None then."""
    try:
        found = mine.kept(History())
    except HistoryError as exc:
        if not needed:
            return None
        raise Refused(503, f"your history cannot be read: {' '.join(str(exc).split())}") from None
    if not found and not needed:
        return None
    if not found:
        raise Refused(404, "no puzzles of your own yet: review a game you played (History, "
                           "Review); its mistakes become puzzles")
    return found

#: the packaged files of these pages: URL path -> (file in static/, media type), as app.ASSETS
ASSETS = {
    "/puzzles": ("learn.html", "text/html; charset=utf-8"),
    "/explorer": ("learn.html", "text/html; charset=utf-8"),
    "/learn.js": ("learn.js", "text/javascript; charset=utf-8"),
    "/puzzles.js": ("puzzles.js", "text/javascript; charset=utf-8"),
    "/explorer.js": ("explorer.js", "text/javascript; charset=utf-8"),
    "/learn.css": ("learn.css", "text/css; charset=utf-8"),
}


# -- puzzles -------------------------------------------------------------------------------

def puzzle_rating(rating: Optional[Any], attempts: int) -> Optional[Dict[str, Any]]:
    """A puzzle rating for the page (:func:`mancala.web.server.rating_json`) and the attempts behind it."""
    return rating_json(rating, attempts=attempts)


def line_json(puzzle: _puzzles.Puzzle) -> List[Dict[str, Any]]:
    """The whole solution line: who moves, which pit index, and the move in words
    (:func:`mancala.puzzles.teaching.move_words`: 'South 4 (D), captures 2 seeds')."""
    return [{"player": record.player, "pit_index": record.pit, "words": teaching.move_words(record)}
            for record in teaching.line_records(puzzle)]


def sown(board: Board, pits: List[int]) -> List[Dict[str, Any]]:
    """Moves played from ``board`` (a copy is played), each as /api/move describes it with
    the slots after it: what the page sows on its board."""
    board = board.copy(stack=False)
    moves = []
    for pit in pits:
        path = api.sowing_path(board.pits, board.to_move, pit)
        record = board.push(pit)
        moves.append({"move": api.describe(record, path), "slots": list(board.pits)})
    return moves


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

    def start(self, puzzle_id: Optional[str], standing: Dict[str, Any],
              theme: Optional[str] = None, own: Optional[List[_puzzles.Puzzle]] = None
              ) -> Dict[str, Any]:
        """GET /api/puzzle: a puzzle (that one, or one near the rating, of ``theme`` when
        given; of ``own``, your own puzzles, when they are given) and a new attempt at it."""
        shipped = _puzzles.load() if own is None else own
        if puzzle_id is not None:
            puzzle = _puzzles.by_id(puzzle_id, shipped)
        else:
            rating = standing["rating"]
            puzzle = _puzzles.choose(shipped, rating.rating if rating else Rating().rating,
                                     standing["tried"], self.rng, theme=theme)
        key = secrets.token_hex(8)
        attempt = self.attempts[key] = _puzzles.Attempt(puzzle, retry=True)
        while len(self.attempts) > MAX_ATTEMPTS:
            self.attempts.popitem(last=False)
        return {"attempt": key,
                "puzzle": {"id": puzzle.id, "board": list(puzzle.board), "to_move": puzzle.to_move,
                           "to_move_name": SIDE_NAMES[puzzle.to_move], "capture": puzzle.capture,
                           "seeds": puzzle.seeds, "rules": puzzle.rules,
                           "rating": puzzle.rating, "value": puzzle.value,
                           "min_gap": _puzzles.MIN_GAP, "goal": teaching.goal(puzzle),
                           "themes": list(puzzle.themes), "source": puzzle.source,
                           "solver_moves": len(puzzle.solver_steps())},
                "theme_names": dict(teaching.THEME_NAMES),
                "state": puzzle_state(attempt),
                "rating": puzzle_rating(standing["rating"], standing["count"]),
                "notices": standing["notices"]}

    def attempt(self, key: Any) -> _puzzles.Attempt:
        if not isinstance(key, str) or len(key) > ATTEMPT_CHARS:
            raise RequestError(f"attempt is the name GET /api/puzzle gave, not {quote(key)}")
        attempt = self.attempts.get(key)
        if attempt is None:
            raise Refused(404, f"no attempt {quote(key)} (it ended long ago, or the server "
                               "restarted): GET /api/puzzle starts a new one")
        return attempt

    def record(self, attempt: _puzzles.Attempt, solved: Optional[bool]) -> Dict[str, Any]:
        """Keep the attempt's result in the log (run in a thread): the rating before and
        after. ``solved`` is :meth:`mancala.puzzles.Attempt.take_result`'s (taken in the
        event loop, so two requests cannot both take it): None, nothing (more) to count."""
        if solved is None:
            return {}
        log = self.log()
        answer: Dict[str, Any] = {"rating": None, "change": None}
        if log is not None:
            try:
                kept = log.record(attempt.puzzle, solved, attempt.played)
                records = log.attempts()
                if kept.counted:
                    answer = {"rating": puzzle_rating(kept.after, len(records)),
                              "change": round(kept.after.rating - kept.before.rating, 1)}
                else:       # a puzzle counts once: the rating stays
                    answer = {"rating": puzzle_rating(records[-1].after if records else Rating(),
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
    (the solver's and the line's replies, each as /api/move describes a move); a wrong
    move is ``tried``: played on a copy for the page to show, the attempt's board as it was."""
    if attempt.result is not None:
        raise Refused(409, f"the attempt is over ({attempt.result}): GET /api/puzzle for another")
    before = attempt.board.copy(stack=False)
    made = len(attempt.board.move_stack)
    result = attempt.play(pit)          # IllegalMoveError (400) for a pit that is not legal here
    if result == "wrong":
        return {"result": result, "moves": [], "tried": sown(before, [pit])[0]}
    moves = sown(before, [record.pit for record in attempt.board.move_stack[made:]])
    return {"result": result, "moves": moves, "state": puzzle_state(attempt)}


def wrong_loss(board: Board, pit: int, value: int, endgame: Callable[[], Any]
               ) -> Optional[Dict[str, Any]]:
    """What a wrong move is worth to the solver (:func:`mancala.puzzles.teaching.wrong_move_value`,
    the terminal's words too) and the seeds it loses against the line's value; None when
    the solve does not finish. ``endgame()`` gives the database for a larger position
    (asked only then: opening it is slow the first time)."""
    worth = teaching.wrong_move_value(board, pit, lambda: Engine(hash_mb=SMALL_HASH_MB, endgame=endgame()))
    return None if worth is None else {"value": worth, "lost": value - worth}


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
    return board, depth, order, table, tab_name(data.get("tab", ""))


def explanation(board: Board, depth: int, order: str, table: bool) -> Dict[str, Any]:
    """The explain JSON (``python -m mancala explain --json``'s) and the page's limits."""
    answer = _explain.explain(board, depth=depth, order=order, table=table).to_json()
    answer.update(max_depth=_explain.MAX_DEPTH, max_tree_nodes=_explain.MAX_TREE_NODES)
    return answer


# -- the routes ------------------------------------------------------------------------------

@endpoint
async def puzzle(request: Any, server: Any) -> Dict[str, Any]:
    unknown = sorted(set(request.query_params) - {"id", "theme"})
    if unknown:
        raise RequestError(f"unknown parameter {quote(unknown[0])}; /api/puzzle takes id, theme")
    puzzle_id = request.query_params.get("id")
    theme = request.query_params.get("theme")
    puzzles = server.part(Puzzles)
    standing = await server.disk(puzzles.standing)
    own = None
    if theme == api.MINE:           # made, the first time: a search's work
        own = await server.search(request, "", lambda job: own_puzzles())
        theme = None
    elif puzzle_id is not None and puzzle_id not in {p.id for p in _puzzles.load()}:
        own = await server.search(request, "", lambda job: own_puzzles(needed=False))
    return puzzles.start(puzzle_id, standing, theme, own)


def give_up(attempt: _puzzles.Attempt) -> Dict[str, Any]:
    """The rest of the line played on the attempt's board, and sown for the page."""
    if attempt.result is not None:
        raise Refused(409, f"the attempt is over ({attempt.result}): GET /api/puzzle for another")
    attempt.give_up()
    rest = list(attempt.puzzle.solution[len(attempt.board.move_stack):])
    reply: Dict[str, Any] = {"result": "given up", "moves": sown(attempt.board, rest)}
    for pit in rest:
        attempt.board.push(pit)
    reply["state"] = puzzle_state(attempt)
    return reply


@endpoint
async def answer(request: Any, server: Any) -> Dict[str, Any]:
    data = answer_request(await json_body(request))
    puzzles = server.part(Puzzles)
    attempt = puzzles.attempt(data["attempt"])
    puzzle = attempt.puzzle
    if "give_up" in data:
        reply = give_up(attempt)
    else:
        before = attempt.board.copy(stack=False)
        reply = play_answer(attempt, data["pit_index"])
        if reply["result"] == "wrong":      # taken back: the solver tries again
            reply["state"] = puzzle_state(attempt)
            reply["loss"] = await server.search(request, "", lambda job: wrong_loss(
                before, data["pit_index"], puzzle.value, lambda: server.endgame(puzzle.capture)))
    reply["over"] = attempt.result is not None
    reply["missed"] = attempt.missed
    if reply["over"]:
        reply["solution"] = line_json(puzzle)
    # the rating counts the attempt once: its first miss, giving up, or a clean solve
    counted = attempt.take_result()
    reply.update(await server.disk(lambda: puzzles.record(attempt, counted)))
    return reply


@endpoint
async def explain(request: Any, server: Any) -> Dict[str, Any]:
    board, depth, order, table, key = explain_request(await json_body(request))
    server.unaided(board)
    return await server.search(request, "explain\n" + key if key else "",
                               lambda job: explanation(board, depth, order, table))


#: (path, method, handler) of each route
ROUTES = (("/api/puzzle", "GET", puzzle), ("/api/puzzle/answer", "POST", answer),
          ("/api/explain", "POST", explain))


__all__ = ["ASSETS", "ROUTES", "Puzzles", "play_answer", "wrong_loss", "explanation",
           "line_json", "puzzle_rating", "own_puzzles", "MAX_ATTEMPTS"]
