"""The web app: :mod:`mancala.web.api` on HTTP and a WebSocket (Starlette).

``create_app()`` is the ASGI app ``python -m mancala serve`` runs on uvicorn.
Routes (docs/web.md has the API):

==========================  ===============================================
``GET /``                   the page (and its packaged assets, by name)
``GET /api/info``           version, levels, rules and the server's limits
``POST /api/validate``      a position's state, or why it is refused
``POST /api/move``          a move played: where the seeds went, the new state
``POST /api/ai``            a computer player's move for a position
``POST /api/save``          the save file of a game (the terminal game's format)
``POST /api/load``          a save file's game, checked as the terminal game checks it
``WS /api/analyze``         a live analysis, one message per finished depth
``POST /api/finish``        a game finished in the page, kept in the history
``GET /api/history``        the games kept and the rating's series
``POST /api/review``        every move of a game reviewed
==========================  ===============================================

Engine work runs in worker threads (the core releases the GIL), at most
:data:`MAX_SEARCHES` at once across all clients so a 2-core machine stays
responsive; each tab (``tab`` in /api/ai, each WebSocket) has at most one
search, and a new request from it stops the old one (``Engine.stop()``); a
closed WebSocket stops its search. Bad input of any kind is a 4xx with
``{"error": "one line"}``. Only the files listed in :data:`ASSETS` are
served, read once from the package: no path from a request reaches the
file system.

The state behind the routes (search slots, tabs, players) is
:mod:`mancala.web.server`'s; the live analysis is :mod:`mancala.web.analysis`'s;
the history and the review are :mod:`mancala.web.records`'.
Starlette is imported only when it is installed (the ``web`` extra), so the
package imports without it; :func:`create_app` then raises CommandError.
"""
from __future__ import annotations

import importlib.resources
import time
from typing import Any, Awaitable, Callable, Dict, List, Optional

from mancala._version import __version__
from mancala.errors import CommandError, InputError, RequestError, quote
from mancala.geometry import layout
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS
from mancala.web import api, learn, records
from mancala.web.analysis import Analysis
from mancala.web.server import (MAX_BODY, MAX_SEARCHES, Job, Refused, Server, decode, read_body,
                                 same_origin, tab_name)

try:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket
except ImportError as exc:      # the web extra is not installed
    MISSING: Optional[ImportError] = exc
else:
    MISSING = None

MAX_WAITING = 4                 # /api/ai and /api/review requests waiting for a search slot; past it: 503
RETRY_AFTER = 2                 # seconds a busy server asks a client to wait
MAX_SOCKETS = 64                # analysis WebSockets open at once
INSTALL_HINT = "the web app needs its extra: pip install 'kalah[web]' (or -e '.[web]')"

#: the packaged files the server answers with: URL path -> (file in static/, media type)
ASSETS = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/client.js": ("client.js", "text/javascript; charset=utf-8"),    # what every page's script imports
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
    **learn.ASSETS,         # the puzzles and the search-tree explorer
    "/history": ("index.html", "text/html; charset=utf-8"),     # the page, opening its history view
    "/records.js": ("records.js", "text/javascript; charset=utf-8"),
    "/records.css": ("records.css", "text/css; charset=utf-8"),
}
# the page may load only what the server itself serves: no other host, no inline script
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'self'; img-src 'self' data: blob:; "
                                "connect-src 'self'; object-src 'none'; base-uri 'none'; "
                                "frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def _asset(name: str) -> bytes:
    return (importlib.resources.files("mancala.web") / "static" / name).read_bytes()


def _error(status: int, message: str) -> "JSONResponse":
    return JSONResponse({"error": message}, status_code=status)


def endpoint(handler: Callable[["Request"], Awaitable[Any]]):
    """A JSON endpoint: bad input of any kind becomes a 4xx with one line."""
    async def call(request: "Request") -> "Response":
        start = time.perf_counter()
        try:
            answer = await handler(request)
            response = answer if isinstance(answer, Response) else JSONResponse(answer)
        except Refused as exc:
            response = _error(exc.status, str(exc))
            response.headers.update(exc.headers)
        except InputError as exc:
            response = _error(400, str(exc))
        # the time the server spent (waiting for a search slot included), for bench/web_load.py
        response.headers["server-timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.2f}"
        return response
    call.__name__ = handler.__name__
    return call


def create_app(allowed_hosts: Optional[List[str]] = None) -> "Starlette":
    """The ASGI app. Raises CommandError naming the extra if Starlette is missing.

    ``allowed_hosts``: the Host headers answered (others get 400), so a page
    whose domain name is made to point at this machine cannot use the server
    from a visitor's browser; None answers any (the test client's ``testserver``).
    """
    if MISSING is not None:
        raise CommandError(f"{INSTALL_HINT} ({MISSING})")
    server = Server()
    server.assets = {path: (_asset(name), media) for path, (name, media) in ASSETS.items()}

    async def page(request: Request) -> Response:
        body, media = server.assets[request.url.path]
        return Response(body, media_type=media,
                        headers=dict(SECURITY_HEADERS, **{"cache-control": "no-cache"}))

    @endpoint
    async def info(request: Request) -> Dict[str, Any]:
        return {"version": __version__, "levels": list(api.LEVELS), "level_names": api.LEVEL_NAMES,
                "level_elo": api.level_elo(),
                "capture_rules": list(api.CAPTURE_RULES), "seeds": [MIN_SEEDS, MAX_SEEDS_PER_PIT],
                "default_seeds": DEFAULT_SEEDS, "geometry": layout(),
                "max_body": MAX_BODY, "max_searches": MAX_SEARCHES,
                "max_analysis_depth": api.MAX_ANALYSIS_DEPTH,
                "max_analysis_seconds": api.MAX_ANALYSIS_SECONDS}

    async def body(request: Request) -> Any:
        return decode(await read_body(request))

    @endpoint
    async def validate(request: Request) -> Dict[str, Any]:
        return api.validate(await body(request))

    @endpoint
    async def move(request: Request) -> Dict[str, Any]:
        return api.move(await body(request))

    @endpoint
    async def ai(request: Request) -> Dict[str, Any]:
        data = api.fields(await body(request), "the request", {"position", "level", "tab"},
                          {"position", "level"})
        _, board = api.parse_position(data["position"])
        if board.is_game_over():
            raise RequestError("the game is over: there is no move to choose")
        key = tab_name(data.get("tab", ""))
        if server.waiting >= MAX_SEARCHES + MAX_WAITING:
            raise Refused(503, f"busy: {MAX_SEARCHES} searches run and {MAX_WAITING} wait; "
                               f"try again in {RETRY_AFTER} s", {"retry-after": str(RETRY_AFTER)})
        player = server.player(key, data["level"], server.busy)

        def work(job: Job) -> int:
            if job.cancelled:
                return -1
            engine = job.engine = getattr(player, "engine", None)
            if engine is not None and engine.endgame is not None:   # one database, shared
                engine.endgame = server.endgame(board.capture) or "auto"
            if job.cancelled:
                return -1
            return player.choose(board.copy(stack=False))

        server.busy.add(id(player))
        try:
            pit, job = await server.run_job(request, key, work)
        finally:
            server.busy.discard(id(player))
        if job.cancelled:
            raise Refused(409, "stopped: a newer request from the same tab replaced this one, "
                               "or the client went away")
        return api.choice(player, board, pit, data["level"])

    @endpoint
    async def save(request: Request) -> Response:
        text = api.save_text(await body(request))
        return Response(text, media_type="application/json", headers={
            "content-disposition": 'attachment; filename="mancala-save.json"'})

    @endpoint
    async def load(request: Request) -> Dict[str, Any]:
        return api.load_text(await read_body(request))

    async def analyze(socket: WebSocket) -> None:
        if not same_origin(socket.headers):
            await socket.close(code=1008, reason="another site's page may not use this server")
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

    async def not_found(request: Request, exc: HTTPException) -> Response:
        return _error(exc.status_code, f"{exc.detail}: {request.method} {quote(request.url.path)}")

    async def failed(request: Request, exc: Exception) -> Response:
        return _error(500, f"internal error ({type(exc).__name__}); the server goes on")

    routes = [Route(path, page) for path in ASSETS]
    routes += [
        Route("/api/info", info),
        Route("/api/validate", validate, methods=["POST"]),
        Route("/api/move", move, methods=["POST"]),
        Route("/api/ai", ai, methods=["POST"]),
        Route("/api/save", save, methods=["POST"]),
        Route("/api/load", load, methods=["POST"]),
        WebSocketRoute("/api/analyze", analyze),
    ]
    routes += learn.routes(server)      # /api/puzzle, /api/puzzle/answer, /api/explain
    routes += records.routes(server)        # the history and the review: mancala.web.records
    middleware = []
    if allowed_hosts is not None:
        from starlette.middleware import Middleware
        middleware.append(Middleware(HostCheck, hosts=tuple(allowed_hosts)))
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={HTTPException: not_found, Exception: failed})
    app.state.server = server
    return app


def host_name(header: str) -> str:
    """The name in a Host header, without the port (``[::1]:8000`` -> ``[::1]``)."""
    if header.startswith("["):
        return header[:header.find("]") + 1]
    return header.split(":", 1)[0]


class HostCheck:
    """ASGI middleware: requests whose Host is not one of ``hosts`` get a one-line 400
    (a WebSocket is closed with 1008)."""

    def __init__(self, app, hosts: tuple) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if host_name(host).lower() not in self.hosts:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                message = f"this server answers to {', '.join(self.hosts)}, not {quote(host)}"
                await _error(400, message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


__all__ = ["create_app", "MAX_BODY", "MAX_SEARCHES", "ASSETS", "INSTALL_HINT", "MISSING"]
