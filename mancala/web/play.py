"""The game's page: a position's state, a move, the computer's move, a hint, save and
load, and the live analysis (:mod:`mancala.web.analysis`).

==========================  ===============================================
``GET /``, ``/history``     the page (its History view: :mod:`mancala.web.records`)
``GET /api/info``           version, levels, rules, defaults and the server's limits
``POST /api/validate``      a position's state, or why it is refused
``POST /api/move``          a move played: where the seeds went, the new state
``POST /api/ai``            a computer player's move for a position (casual games)
``POST /api/hint``          the best move at :data:`HINT_DEPTH`, in words (casual games)
``POST /api/save``          a game's save file (the terminal game's JSON) or its game record
``POST /api/load``          a save file's or a record's game, checked as the terminal checks it
``WS /api/analyze``         a live analysis, one message per finished depth
==========================  ===============================================

A rated game is not played through these: the server holds it
(:mod:`mancala.web.games`), and the searches here refuse its position while it is
played (:meth:`mancala.web.server.Server.unaided`). The answers are
:mod:`mancala.web.api`'s; every route is an :func:`mancala.web.policy.endpoint`.
"""
from __future__ import annotations

from typing import Any, Dict

from mancala._version import __version__
from mancala.analysis import HINT_DEPTH
from mancala.analysis import hint as suggest
from mancala.engine import Engine
from mancala.errors import RequestError
from mancala.game import LEFT_RULE, RATED_RULES
from mancala.geometry import layout
from mancala.levels import elo_range
from mancala.limits import (DEFAULT_CAPTURE, DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS,
                            SMALL_HASH_MB)
from mancala.web import api
from mancala.web.analysis import analyze
from mancala.web.policy import MAX_BODY, endpoint, json_body, read_body, tab_name
from mancala.web.server import MAX_SEARCHES

HTML = "text/html; charset=utf-8"
SCRIPT = "text/javascript; charset=utf-8"
#: the packaged files of the game's page: URL path -> (file in static/, media type)
ASSETS = {
    "/": ("index.html", HTML),
    "/history": ("index.html", HTML),           # the page, opening its History view
    "/app.js": ("app.js", SCRIPT),
    "/game.js": ("game.js", SCRIPT),            # the game, casual or rated, behind one face
    "/newgame.js": ("newgame.js", SCRIPT),      # the new-game dialog
    "/result.js": ("result.js", SCRIPT),        # the result card
    "/views.js": ("views.js", SCRIPT),          # the page's views, its speed and sound
    "/link.js": ("link.js", SCRIPT),            # a position in the address (the Link, the explorer)
    "/client.js": ("client.js", SCRIPT),        # what every page's script imports
    "/board.js": ("board.js", SCRIPT),          # the board every page draws, and its sowing
    "/sound.js": ("sound.js", SCRIPT),          # its sounds (WebAudio), off unless turned on
    "/analysis.js": ("analysis.js", SCRIPT),    # the live analysis of a casual game
    "/editor.js": ("editor.js", SCRIPT),        # the position editor
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
}


def info() -> Dict[str, Any]:
    """GET /api/info: what every page draws from (levels, rules, defaults, geometry,
    limits); which games can be rated is :func:`mancala.game.can_be_rated`'s answer
    (``POST /api/rated/check`` asks it), shown in its parts: the levels with an Elo
    (``rated_levels``) and the rules they were measured on (``rated_rules``)."""
    return {"version": __version__, "levels": list(api.LEVELS), "level_names": api.LEVEL_NAMES,
            "level_elo": api.level_elo(), "rated_levels": api.rated_levels(),
            "elo_range": list(elo_range()),
            "rated_rules": [{"seeds": seeds, "capture": capture} for seeds, capture in RATED_RULES],
            "left_rule": LEFT_RULE,
            "capture_rules": list(api.CAPTURE_RULES), "capture_words": api.CAPTURE_WORDS,
            "seeds": [MIN_SEEDS, MAX_SEEDS_PER_PIT],
            "default_seeds": DEFAULT_SEEDS, "default_capture": DEFAULT_CAPTURE,
            "default_players": dict(api.DEFAULT_PLAYERS), "geometry": layout(),
            "max_body": MAX_BODY, "max_searches": MAX_SEARCHES,
            "max_analysis_depth": api.MAX_ANALYSIS_DEPTH,
            "max_analysis_seconds": api.MAX_ANALYSIS_SECONDS, "hint_depth": HINT_DEPTH,
            "puzzle_themes": api.theme_list()}


def hint(board: Any, endgame: Any, job: Any = None) -> Dict[str, Any]:
    """The hint of every face (:func:`mancala.analysis.hint`: a search :data:`HINT_DEPTH`
    moves deep on a fresh engine, whose move and score are the analysis's best at that
    depth), read from ``endgame`` (exact) where that database covers the board; ``job``
    (a :class:`mancala.web.server.Job`) can stop it."""
    covered = endgame is not None and endgame.covers(board)
    engine = Engine(hash_mb=SMALL_HASH_MB, endgame=endgame if covered else None)
    if job is not None:
        job.engine = engine
    found = suggest(engine, board, HINT_DEPTH)
    score = found.score
    return {"pit_index": found.pit, "score": score.seeds, "exact": score.exact,
            "depth": score.depth, "text": score.text()}


def searched_position(data: Any, allowed: set, required: set, what: str) -> Any:
    """A request asking for a search of a game not over, and its board (RequestError:
    there is nothing to ``what``)."""
    data = api.fields(data, "the request", allowed, required)
    _, board = api.parse_position(data["position"])
    if board.is_game_over():
        raise RequestError(f"the game is over: there is no move to {what}")
    return data, board


@endpoint
async def info_route(request: Any, server: Any) -> Dict[str, Any]:
    return info()


@endpoint
async def validate(request: Any, server: Any) -> Dict[str, Any]:
    return api.validate(await json_body(request))


@endpoint
async def move(request: Any, server: Any) -> Dict[str, Any]:
    return api.move(await json_body(request))


@endpoint
async def ai(request: Any, server: Any) -> Dict[str, Any]:
    data, board = searched_position(await json_body(request), {"position", "level", "tab"},
                                    {"position", "level"}, "choose")
    server.unaided(board)
    pit, player = await server.choose(request, tab_name(data.get("tab", "")), data["level"], board)
    return api.choice(player, board, pit, data["level"])


@endpoint
async def hint_route(request: Any, server: Any) -> Dict[str, Any]:
    _, board = searched_position(await json_body(request), {"position"}, {"position"}, "hint")
    server.unaided(board)
    return await server.search(request, "", lambda job: hint(board, server.endgame(board.capture), job))


@endpoint
async def save(request: Any, server: Any) -> Any:
    from starlette.responses import Response
    text, media, name = api.save_text(await json_body(request))
    return Response(text, media_type=media, headers={
        "content-disposition": f'attachment; filename="{name}"'})


@endpoint
async def load(request: Any, server: Any) -> Dict[str, Any]:
    return api.load_text(await read_body(request))


#: (path, method, handler) of each route (WS: a WebSocket's)
ROUTES = (("/api/info", "GET", info_route), ("/api/validate", "POST", validate),
          ("/api/move", "POST", move), ("/api/ai", "POST", ai), ("/api/hint", "POST", hint_route),
          ("/api/save", "POST", save), ("/api/load", "POST", load),
          ("/api/analyze", "WS", analyze))


__all__ = ["ASSETS", "ROUTES", "info", "hint", "HINT_DEPTH"]
