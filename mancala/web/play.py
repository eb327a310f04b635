"""The game's page: a position's state, a move, the computer's move, a hint, save and
load, and the live analysis (:mod:`mancala.web.analysis`).

==========================  ===============================================
``GET /``, ``/history``     the page (its History view: :mod:`mancala.web.records`)
``GET /api/info``           version, levels, rules and the server's limits
``POST /api/validate``      a position's state, or why it is refused
``POST /api/move``          a move played: where the seeds went, the new state
``POST /api/ai``            a computer player's move for a position (casual games)
``POST /api/hint``          the best move at :data:`HINT_DEPTH`, in words (casual games)
``POST /api/save``          the save file of a game (the terminal game's format)
``POST /api/load``          a save file's game, checked as the terminal game checks it
``WS /api/analyze``         a live analysis, one message per finished depth
==========================  ===============================================

A rated game is not played through these: the server holds it
(:mod:`mancala.web.games`), and these endpoints know nothing of it, so a rated
game's page asks for no hint, analysis or computer move here (and the server
would not know it was one). The routes answer JSON in and out through
:mod:`mancala.web.api`; every one is an :func:`mancala.web.server.endpoint`.
"""
from __future__ import annotations

from typing import Any, Dict

from mancala._version import __version__
from mancala.analysis import HINT_DEPTH
from mancala.analysis import hint as suggest
from mancala.engine import Engine
from mancala.game import RATED_RULES
from mancala.errors import RequestError
from mancala.geometry import layout
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS, SMALL_HASH_MB
from mancala.web import api
from mancala.web.analysis import Analysis
from mancala.web.learn import theme_list
from mancala.web.server import (MAX_BODY, MAX_SEARCHES, Server, cross_site, endpoint, json_body,
                                read_body, replaced, tab_name)

MAX_SOCKETS = 64                # analysis WebSockets open at once

HTML = "text/html; charset=utf-8"
SCRIPT = "text/javascript; charset=utf-8"
#: the packaged files of the game's page: URL path -> (file in static/, media type)
ASSETS = {
    "/": ("index.html", HTML),
    "/history": ("index.html", HTML),           # the page, opening its History view
    "/app.js": ("app.js", SCRIPT),
    "/client.js": ("client.js", SCRIPT),        # what every page's script imports
    "/board.js": ("board.js", SCRIPT),          # the board every page draws, and its sowing
    "/sound.js": ("sound.js", SCRIPT),          # its sounds (WebAudio), off unless turned on
    "/analysis.js": ("analysis.js", SCRIPT),    # the live analysis of a casual game
    "/editor.js": ("editor.js", SCRIPT),        # the position editor
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
}


def info() -> Dict[str, Any]:
    """GET /api/info: what every page draws from (levels, rules, geometry, limits); which
    games can be rated is :func:`mancala.game.can_be_rated`'s answer, in its parts: the
    levels with an Elo (``rated_levels``) and the rules they were measured on (``rated_rules``)."""
    return {"version": __version__, "levels": list(api.LEVELS), "level_names": api.LEVEL_NAMES,
            "level_elo": api.level_elo(), "rated_levels": api.rated_levels(),
            "rated_rules": [{"seeds": seeds, "capture": capture} for seeds, capture in RATED_RULES],
            "capture_rules": list(api.CAPTURE_RULES), "capture_words": api.CAPTURE_WORDS,
            "seeds": [MIN_SEEDS, MAX_SEEDS_PER_PIT],
            "default_seeds": DEFAULT_SEEDS, "geometry": layout(),
            "max_body": MAX_BODY, "max_searches": MAX_SEARCHES,
            "max_analysis_depth": api.MAX_ANALYSIS_DEPTH,
            "max_analysis_seconds": api.MAX_ANALYSIS_SECONDS, "hint_depth": HINT_DEPTH,
            "puzzle_themes": theme_list()}


def hint(board: Any, endgame: Any) -> Dict[str, Any]:
    """The hint of every face (:func:`mancala.analysis.hint`: a search :data:`HINT_DEPTH`
    moves deep on a fresh engine, whose move and score are the analysis's best at that
    depth), read from ``endgame`` (exact) where that database covers the board."""
    covered = endgame is not None and endgame.covers(board)
    engine = Engine(hash_mb=SMALL_HASH_MB, endgame=endgame if covered else None)
    found = suggest(engine, board, HINT_DEPTH)
    score = found.score
    return {"pit_index": found.pit, "score": score.seeds, "exact": score.exact,
            "depth": score.depth, "text": score.text()}


def routes(server: Server) -> list:
    """The game page's routes, on the app's server (its search slots and tabs)."""
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket

    @endpoint
    async def info_route(request: Request) -> Dict[str, Any]:
        return info()

    @endpoint
    async def validate(request: Request) -> Dict[str, Any]:
        return api.validate(await json_body(request))

    @endpoint
    async def move(request: Request) -> Dict[str, Any]:
        return api.move(await json_body(request))

    @endpoint
    async def ai(request: Request) -> Dict[str, Any]:
        data = api.fields(await json_body(request), "the request", {"position", "level", "tab"},
                          {"position", "level"})
        _, board = api.parse_position(data["position"])
        if board.is_game_over():
            raise RequestError("the game is over: there is no move to choose")
        server.unaided(board)
        key = tab_name(data.get("tab", ""))
        server.check_room()
        pit, player, job = await server.choose(request, key, data["level"], board)
        if job.cancelled:
            raise replaced()
        return api.choice(player, board, pit, data["level"])

    @endpoint
    async def hint_route(request: Request) -> Dict[str, Any]:
        data = api.fields(await json_body(request), "the request", {"position"}, {"position"})
        _, board = api.parse_position(data["position"])
        if board.is_game_over():
            raise RequestError("the game is over: there is no move to hint")
        server.unaided(board)
        server.check_room()
        server.waiting += 1
        try:
            return await server.run(lambda: hint(board, server.endgame(board.capture)))
        finally:
            server.waiting -= 1

    @endpoint
    async def save(request: Request) -> Response:
        text = api.save_text(await json_body(request))
        return Response(text, media_type="application/json", headers={
            "content-disposition": 'attachment; filename="mancala-save.json"'})

    @endpoint
    async def load(request: Request) -> Dict[str, Any]:
        return api.load_text(await read_body(request))

    async def analyze(socket: WebSocket) -> None:
        why = cross_site(socket.headers, socket.url.scheme)    # the endpoints' origin policy
        if why is not None:
            await socket.close(code=1008, reason=why[:120])
            return
        if server.sockets >= MAX_SOCKETS:   # accepted, then closed: the page sees 1013 "try again later"
            await socket.accept()
            await socket.close(code=1013, reason=f"at most {MAX_SOCKETS} analyses at once")
            return
        server.sockets += 1
        await socket.accept()
        session = Analysis(server, socket)
        try:
            await session.serve()
        finally:
            server.sockets -= 1
            await session.cancel()

    return [
        Route("/api/info", info_route),
        Route("/api/validate", validate, methods=["POST"]),
        Route("/api/move", move, methods=["POST"]),
        Route("/api/ai", ai, methods=["POST"]),
        Route("/api/hint", hint_route, methods=["POST"]),
        Route("/api/save", save, methods=["POST"]),
        Route("/api/load", load, methods=["POST"]),
        WebSocketRoute("/api/analyze", analyze),
    ]


__all__ = ["ASSETS", "routes", "info", "hint", "HINT_DEPTH", "MAX_SOCKETS"]
