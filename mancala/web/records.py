"""The web app's records: casual games finished in the page kept in the history, the
history with the rating's curve (issue 25, part 2).

A thin transport over the library: :class:`mancala.history.History` keeps and
rates the games (the terminal's database, in the same data folder),
Nothing here decides a result
or a value: the server replays the moves (``History.record`` does, again).
A game the page played by itself is kept *casual*: never rated, whatever it
says, since the page could have made it up; rated games are the server's own
(:mod:`mancala.web.games`), kept as they end.

==============================  ===========================================
``POST /api/finish``            a casual game finished (or resigned) in the page, kept once per id
``GET /api/history``            the games kept and the rating's series
``GET /api/history/export``     every game kept, as game records in one file
==============================  ===========================================

A game between two computers is nobody's: it is not kept (:func:`mancala.game.has_person`,
the terminal's rule), and the answer says so.

The review of a game is :mod:`mancala.web.reviews`'.

:data:`ROUTES` gives them to :func:`mancala.web.app.create_app`; every one is an
:func:`mancala.web.policy.endpoint`. The functions above it read requests and write
answers without the web (JSON in, JSON out, :class:`mancala.errors.InputError` for
bad input), as :mod:`mancala.web.api` does.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from mancala import history as _history
from mancala import records
from mancala.board import Board, rules_words
from mancala.errors import HistoryError, Refused, RequestError, quote
from mancala.game import COMPUTERS_NOT_KEPT, has_person
from mancala.geometry import SIDE_KEYS
from mancala.limits import check_whole, parse_whole
from mancala.levels import level_is_provisional
from mancala.rating import Rating
from mancala.storage import shown_path
from mancala.web import api
from mancala.web.api import kept_answer, rating_json, result_words
from mancala.web.policy import endpoint, json_body

GAME_ID_CHARS = 64          # a game's id (the page makes one per game): at most this long
EXPORT_NAME = f"mancala-history{records.EXTENSION}"   #: the export's file name
KEEP_IDS = 4096             # game ids remembered, so a repeated request records nothing (oldest forgotten)
#: the packaged files of the History view and the review (the page is mancala.web.play's)
ASSETS = {"/history.js": ("history.js", "text/javascript; charset=utf-8"),
          "/review.js": ("review.js", "text/javascript; charset=utf-8"),
          "/chart.js": ("chart.js", "text/javascript; charset=utf-8"),
          "/records.css": ("records.css", "text/css; charset=utf-8")}


# -- POST /api/finish ------------------------------------------------------------------

def finish_request(data: Any) -> Tuple[str, Tuple[str, str], Dict[str, Any], Board, Optional[int]]:
    """``{"position", "players", "game", "resigned"?}``: (game id, (south, north),
    position, board, the side that resigned or None).

    Only a game from a start (the history keeps rules and moves, not a board set
    by hand), finished, or not over and resigned by ``resigned`` ("south" or
    "north"); the players are the page's levels. RequestError or what
    :func:`mancala.web.api.parse_position` raises otherwise.
    """
    data = api.fields(data, "the request", {"position", "players", "game", "resigned"},
                      {"position", "players", "game"})
    game_id = data["game"]
    if not isinstance(game_id, str) or not game_id or len(game_id) > GAME_ID_CHARS:
        raise RequestError(f"game is the page's name for the game, 1 to {GAME_ID_CHARS} "
                           f"characters, not {quote(game_id)}")
    players = api.players(data["players"], required=True)
    spec, board = api.parse_position(data["position"])
    if "board" in spec:
        raise RequestError("only a game from a start is kept in the history "
                           "(it keeps the rules and the moves, not a board set by hand)")
    resigned = data.get("resigned")
    if resigned is not None:
        if resigned not in SIDE_KEYS:
            raise RequestError(f"resigned is south or north, not {quote(resigned)}")
        resigned = SIDE_KEYS.index(resigned)
        if board.is_game_over():
            raise RequestError(f"the game is over after its {len(spec['moves'])} moves: "
                               "nobody can resign it")
    elif not board.is_game_over():
        raise RequestError(f"the game is not over after its {len(spec['moves'])} moves; "
                           "only finished or resigned games are kept")
    return game_id, players, spec, board, resigned


def finish_answer(kept: _history.GameRecord, notices: List[str], new: bool) -> Dict[str, Any]:
    """/api/finish's answer: :func:`kept_answer`, and whether this request kept it."""
    return dict(kept_answer(kept, notices), new=new, not_kept=None)


#: /api/finish's answer for a game between two computers (:func:`mancala.game.has_person`)
NOT_A_PERSONS = {"new": False, "game": None, "not_kept": COMPUTERS_NOT_KEPT}


class Finished:
    """The games this server has kept, by the page's game id (the last
    :data:`KEEP_IDS`): the same game sent again (a retry, a second click, the
    last move undone and played again) is answered as kept, never kept twice."""

    def __init__(self) -> None:
        self.games: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()

    def claim(self, game_id: str, key: tuple) -> Tuple[Dict[str, Any], bool]:
        """(the entry of ``game_id``, whether this request is the one to record it).

        Refused (409) when the id was kept with other moves or players.
        """
        entry = self.games.get(game_id)
        if entry is not None:
            if entry["key"] != key:
                number = entry["answer"]["game"]["id"] if entry.get("answer") else None
                kept = f" (game {number})" if number else ""
                raise Refused(409, f"this game is already in the history{kept} with other moves; "
                                   "a game is kept once, as it first ended")
            return entry, False
        import anyio
        entry = {"key": key, "done": anyio.Event(), "answer": None, "error": None}
        self.games[game_id] = entry
        while len(self.games) > KEEP_IDS:
            self.games.popitem(last=False)
        return entry, True

    def forget(self, game_id: str) -> None:
        self.games.pop(game_id, None)


# -- GET /api/history ------------------------------------------------------------------

def history_answer(games: List[_history.GameRecord], notices: List[str], path: str,
                   last: Optional[int] = None) -> Dict[str, Any]:
    """The history page's data: the games (``history --json``'s form; the last
    ``last`` of them), the rating now and its series over every rated game."""
    rated = [game for game in games if game.rated]
    series = [rating_json(game.after, id=game.id, finished=game.finished,
                          opponent=game.players[1 - game.human], result=game.result)
              for game in rated]
    shown = games[-last:] if last else games
    return {"file": path, "count": len(games),
            "games": [dict(game.to_json(), words=result_words(game),
                           rules=rules_words(game.seeds, game.capture),
                           rating_shown=None if game.after is None else game.after.shown())
                      for game in shown],
            "rating": rating_json(rated[-1].after) if rated else None,
            "start": rating_json(Rating()), "rated_games": len(rated), "series": series,
            "provisional": level_is_provisional(), "notices": list(notices)}


def history_last(query: Any) -> Optional[int]:
    """The ``last`` query parameter: how many games to list (None: all)."""
    text = query.get("last")
    if text is None:
        return None
    return check_whole(parse_whole(text), "last (games to list)", 1, 10 ** 9, given=text)


# -- the routes --------------------------------------------------------------------------

@endpoint
async def finish(request: Any, server: Any) -> Dict[str, Any]:
    game_id, players, spec, board, resigned = finish_request(await json_body(request))
    if not has_person(*players):
        return dict(NOT_A_PERSONS)
    key = (players, spec["seeds"], spec["capture"], tuple(spec["moves"]), resigned)
    finished = server.part(Finished)
    entry, mine = finished.claim(game_id, key)
    if not mine:
        await entry["done"].wait()
        if entry["error"] is not None:
            raise entry["error"]
        return dict(entry["answer"], new=False)
    try:
        kept, notices = await server.disk(lambda: _history.record_game(
            players[0], players[1], spec["seeds"], spec["capture"], spec["moves"], rated=False,
            resigned=resigned))
        entry["answer"] = finish_answer(kept, notices, True)
    except BaseException as exc:
        finished.forget(game_id)            # not kept: the page may try again
        entry["error"] = (Refused(503, f"the game could not be kept: {exc}")
                          if isinstance(exc, HistoryError) else exc)
        raise entry["error"] from None
    finally:
        entry["done"].set()             # those waiting for the same game read the answer
    return entry["answer"]


async def kept_games(server: Any) -> Tuple[_history.History, List[_history.GameRecord]]:
    """The history and its games, read in a worker thread (503 when it cannot be read)."""
    kept = _history.History()
    try:
        return kept, await server.disk(kept.games)
    except HistoryError as exc:
        raise Refused(503, f"the history cannot be read: {exc}") from None


@endpoint
async def history(request: Any, server: Any) -> Dict[str, Any]:
    last = history_last(request.query_params)
    kept, games = await kept_games(server)
    return history_answer(games, kept.notices, shown_path(kept.path), last)


def export_text(games: List[_history.GameRecord], last: Optional[int] = None) -> str:
    """The games (the last ``last``) as game records, one after another: what
    ``python -m mancala history --export`` writes (:meth:`mancala.records.Record.from_history`)."""
    shown = games[-last:] if last else games
    return records.dumps_all([records.Record.from_history(game) for game in shown])


@endpoint
async def export(request: Any, server: Any) -> Any:
    from starlette.responses import Response
    last = history_last(request.query_params)
    _, games = await kept_games(server)
    return Response(export_text(games, last), media_type="text/plain; charset=utf-8", headers={
        "content-disposition": f'attachment; filename="{EXPORT_NAME}"'})


#: (path, method, handler) of each route
ROUTES = (("/api/finish", "POST", finish), ("/api/history", "GET", history),
          ("/api/history/export", "GET", export))


__all__ = ["ASSETS", "ROUTES", "finish_request", "finish_answer", "history_answer", "Finished",
           "GAME_ID_CHARS", "export_text", "EXPORT_NAME", "NOT_A_PERSONS"]
