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
==========================  ===============================================

Engine work runs in worker threads (the core releases the GIL), at most
:data:`MAX_SEARCHES` at once across all clients so a 2-core machine stays
responsive; each tab (``tab`` in /api/ai, each WebSocket) has at most one
search, and a new request from it stops the old one (``Engine.stop()``); a
closed WebSocket stops its search. Bad input of any kind is a 4xx with
``{"error": "one line"}``. Only the files listed in :data:`ASSETS` are
served, read once from the package: no path from a request reaches the
file system.

Starlette is imported only when it is installed (the ``web`` extra), so the
package imports without it; :func:`create_app` then raises CommandError.
"""
from __future__ import annotations

import asyncio
import importlib.resources
import threading
import time
from collections import OrderedDict
from typing import Any, Awaitable, Callable, Dict, List, Optional
from urllib.parse import urlsplit

from mancala.errors import CommandError, InputError, RequestError, quote
from mancala.geometry import layout
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS, SMALL_HASH_MB, parse_whole
from mancala.untrusted import read_json
from mancala.web import api

try:
    import anyio
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect
except ImportError as exc:      # the web extra is not installed
    MISSING: Optional[ImportError] = exc
else:
    MISSING = None

MAX_BODY = 64 * 1024            # bytes of a request body or WebSocket message
MAX_SEARCHES = 2                # engine searches running at once, across all clients
MAX_WAITING = 4                 # /api/ai requests waiting for a search slot; past it: 503
RETRY_AFTER = 2                 # seconds a busy server asks a client to wait
MAX_TABS = 16                   # tabs whose computer players are kept...
MAX_TABLE_MB = 1024             # ...while their tables total at most this (idle ones go first)
IDLE_SECONDS = 600.0            # a player unused this long is dropped, its table freed
DISCONNECT_POLL = 0.2           # seconds between looks for a client that has gone
MAX_SOCKETS = 64                # analysis WebSockets open at once
TAB_ID_CHARS = 64
THINKING_EVERY = 0.25           # seconds between "thinking" messages while a move is searched
FIRST_DEPTH = 2                 # the page is shown depths from 2 (depth 1: each move's sowing alone)
INSTALL_HINT = "the web app needs its extra: pip install 'kalah[web]' (or -e '.[web]')"

#: the packaged files the server answers with: URL path -> (file in static/, media type)
ASSETS = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/icon.svg": ("icon.svg", "image/svg+xml"),
}
# the page may load only what the server itself serves: no other host, no inline script
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'self'; img-src 'self' data: blob:; "
                                "connect-src 'self'; object-src 'none'; base-uri 'none'; "
                                "frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


class Refused(Exception):
    """A request answered with an HTTP error status and one line."""

    def __init__(self, status: int, message: str, headers: Optional[Dict[str, str]] = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def decode(raw: bytes) -> Any:
    """A request body as JSON (:func:`mancala.untrusted.read_json`), or RequestError saying why not."""
    try:
        return read_json(raw, RequestError)
    except RequestError as exc:
        raise RequestError(f"the request body: {exc}") from None


async def read_body(request: "Request") -> bytes:
    """The body, refused (413) past :data:`MAX_BODY` bytes before reading it all."""
    length = request.headers.get("content-length")
    if length is not None and (parse_whole(length) is None or int(length) > MAX_BODY):
        raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise Refused(413, f"the request body is larger than {MAX_BODY // 1024} KB")
        chunks.append(chunk)
    return b"".join(chunks)


def same_origin(headers: Any) -> bool:
    """No Origin header (not a browser) or one naming this server's own host:port.

    Another site's page may not drive this server's engine from a visitor's browser.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == (headers.get("host") or "").lower()


class Job:
    """One search a tab asked for: stoppable from the event loop thread."""

    def __init__(self) -> None:
        self.cancelled = False
        self.engine = None

    def stop(self) -> None:
        if self.engine is not None:
            self.engine.stop()


class Tab:
    """What the server keeps for one browser tab: its running job."""

    def __init__(self) -> None:
        self.job: Optional[Job] = None


def table_mb(player: Any) -> float:
    """The megabytes a player's table takes (made now if it was not yet)."""
    engine = getattr(player, "engine", None)
    return engine.hash_mb if engine is not None else 0.0


class Server:
    """The app's state: tabs, open sockets and the cap on searches."""

    def __init__(self) -> None:
        self.tabs: "OrderedDict[str, Tab]" = OrderedDict()
        # (tab, level) -> [player, megabytes of its table, last used]: least recent first
        self.players: "OrderedDict[tuple, list]" = OrderedDict()
        self.waiting = 0                    # /api/ai requests waiting for a slot or searching
        self.busy: set = set()              # ids of the players searching now
        self.sockets = 0
        self._limiter = None
        self._endgames: Dict[str, Any] = {}
        self._endgame_lock = threading.Lock()
        self.assets = {path: (_asset(name), media) for path, (name, media) in ASSETS.items()}

    @property
    def limiter(self):
        if self._limiter is None:           # made in the event loop that uses it
            self._limiter = anyio.CapacityLimiter(MAX_SEARCHES)
        return self._limiter

    async def run(self, work: Callable[[], Any]) -> Any:
        """``work()`` in a worker thread, waiting for one of the search slots."""
        return await anyio.to_thread.run_sync(work, limiter=self.limiter)

    async def run_in_turns(self, work: Callable[[Callable[[], None]], Any]) -> Any:
        """``work(take_turns)`` in a worker thread holding one of the search slots,
        for long work (an analysis): each ``take_turns()`` gives the slot back and
        waits for it again, behind the searches already waiting for one."""
        limiter = self.limiter

        def in_thread() -> Any:
            token = object()
            anyio.from_thread.run(limiter.acquire_on_behalf_of, token)
            held = [True]

            def take_turns() -> None:
                held[0] = False
                anyio.from_thread.run_sync(limiter.release_on_behalf_of, token)
                anyio.from_thread.run(limiter.acquire_on_behalf_of, token)
                held[0] = True
            try:
                return work(take_turns)
            finally:
                if held[0]:
                    anyio.from_thread.run_sync(limiter.release_on_behalf_of, token)
        return await anyio.to_thread.run_sync(in_thread)

    def endgame(self, capture: str):
        """The endgame database cached for a capture rule (None if none is), looked
        for once per rule and shared by every analysis (it is only read)."""
        from mancala import endgame
        with self._endgame_lock:
            if capture not in self._endgames:
                self._endgames[capture] = endgame.find(capture)
            return self._endgames[capture]

    def player(self, key: str, level: Any, busy: set):
        """The computer player of a tab at a level (RequestError for a level that is
        not one), kept for the tab's next move within the server's bounds: at most
        MAX_TABS tabs' players, tables of MAX_TABLE_MB in all, none idle past
        IDLE_SECONDS (the least recently used go first; never one in ``busy``,
        searching now). The players share the server's endgame databases."""
        player = api.computer(level)            # checks level (any JSON value) before any lookup
        entry = self.players.get((key, level)) if key else None
        now = time.monotonic()
        if entry is None:
            entry = [player, table_mb(player), now]
            if key:
                self.players[(key, level)] = entry
        entry[2] = now
        if key:
            self.players.move_to_end((key, level))
            self._evict(now, busy)
        return entry[0]

    def _evict(self, now: float, busy: set) -> None:
        tabs = {key for key, _ in self.players}
        total = sum(entry[1] for entry in self.players.values())
        for name, entry in list(self.players.items())[:-1]:      # the newest stays
            idle = now - entry[2] > IDLE_SECONDS
            if (idle or len(tabs) > MAX_TABS or total > MAX_TABLE_MB) and id(entry[0]) not in busy:
                del self.players[name]
                total -= entry[1]
                if not any(key == name[0] for key, _ in self.players):
                    tabs.discard(name[0])

    def tab(self, key: str) -> Tab:
        tab = self.tabs.get(key)
        if tab is None:
            tab = self.tabs[key] = Tab()
            while len(self.tabs) > MAX_TABS:
                self.tabs.popitem(last=False)
        self.tabs.move_to_end(key)
        return tab


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

    async def page(request: Request) -> Response:
        body, media = server.assets[request.url.path]
        return Response(body, media_type=media,
                        headers=dict(SECURITY_HEADERS, **{"cache-control": "no-cache"}))

    @endpoint
    async def info(request: Request) -> Dict[str, Any]:
        from mancala.cli import version
        return {"version": version(), "levels": list(api.LEVELS), "level_names": api.LEVEL_NAMES,
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
        key = data.get("tab", "")
        if not isinstance(key, str) or len(key) > TAB_ID_CHARS:
            raise RequestError(f"tab is a name of at most {TAB_ID_CHARS} characters, not {quote(key)}")
        if server.waiting >= MAX_SEARCHES + MAX_WAITING:
            raise Refused(503, f"busy: {MAX_SEARCHES} searches run and {MAX_WAITING} wait; "
                               f"try again in {RETRY_AFTER} s", {"retry-after": str(RETRY_AFTER)})
        tab = server.tab(key) if key else Tab()
        player = server.player(key, data["level"], server.busy)
        if tab.job is not None:         # this tab's last request is out of date
            tab.job.cancelled = True
            tab.job.stop()
        job = tab.job = Job()

        def work() -> int:
            if job.cancelled:
                return -1
            engine = job.engine = getattr(player, "engine", None)
            if engine is not None and engine.endgame is not None:   # one database, shared
                engine.endgame = server.endgame(board.capture) or "auto"
            if job.cancelled:
                return -1
            return player.choose(board.copy(stack=False))

        async def watch() -> None:      # a client that has gone stops its search
            while not await request.is_disconnected():
                await anyio.sleep(DISCONNECT_POLL)
            job.cancelled = True
            job.stop()

        server.waiting += 1
        server.busy.add(id(player))
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(watch)
                try:
                    pit = await server.run(work)
                finally:
                    group.cancel_scope.cancel()
        finally:
            server.waiting -= 1
            server.busy.discard(id(player))
            if tab.job is job:
                tab.job = None
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


class Analysis:
    """One WebSocket's live analysis: at most one running, replaced or stopped on request.

    Messages in: ``{"type": "analyze", "position", "depth"?, "time"?}`` and
    ``{"type": "stop"}``. Out: ``start``; for each depth from 2, a ``move``
    as each move's score is found (and a ``thinking`` every
    :data:`THINKING_EVERY` seconds while one takes longer), then a ``depth``
    with all of them (a position an endgame database covers: every move's
    perfect-play value, depth 0, ``endgame``: the database's seeds); then
    ``done`` with a reason (solved, depth, time, game over), or ``error``
    with one line. The analysis is :meth:`mancala.Engine.analyse`'s
    (``deepen=True``); this class only carries its steps.
    """

    def __init__(self, server: Server, socket: "WebSocket") -> None:
        self.server = server
        self.socket = socket
        self.engine = None
        self.task: Optional[asyncio.Task] = None
        self.job: Optional[Job] = None

    async def serve(self) -> None:
        while True:
            message = await self.socket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("bytes") or (message.get("text") or "").encode("utf-8", "replace")
            try:
                if len(raw) > MAX_BODY:
                    raise RequestError(f"a message is at most {MAX_BODY // 1024} KB")
                data = decode(raw)
                kind = data.get("type") if isinstance(data, dict) else None
                if kind == "stop":
                    stopped = await self.cancel()
                    await self.send({"type": "done", "reason": "stopped" if stopped else "idle"})
                elif kind == "analyze":
                    request = api.analysis_request(data)
                    await self.cancel()
                    self.job = Job()
                    self.task = asyncio.ensure_future(self.analyse(self.job, *request))
                else:
                    raise RequestError(f"a message's type is analyze or stop, not {quote(kind)}")
            except InputError as exc:
                await self.send({"type": "error", "error": str(exc)})

    async def send(self, data: Dict[str, Any]) -> None:
        try:
            await self.socket.send_json(data)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass        # the tab went away: serve() sees the disconnect and cancels

    async def cancel(self) -> bool:
        """Stop the running analysis and wait for its thread; whether one was running."""
        task, job = self.task, self.job
        self.task = None
        if task is None or task.done():
            return False
        job.cancelled = True
        while not task.done():
            job.stop()          # again and again: a stop just before a call starts is reset by it
            await asyncio.wait({task}, timeout=0.02)
        return True

    async def analyse(self, job: Job, spec: Dict[str, Any], board, depth: int,
                      seconds: float) -> None:
        """The analysis of one position: ``Engine.analyse`` deepening (or, where an endgame
        database covers the board, solving every move from it), its steps sent as they come."""
        from mancala.engine import Engine

        await self.send({"type": "start", "position": spec, "legal_moves": list(board.legal_moves),
                         "to_move": board.to_move})
        if board.is_game_over():
            await self.send({"type": "done", "reason": "game over"})
            return
        db = await self.server.run(lambda: self.server.endgame(board.capture))
        perfect = db is not None and db.covers(board)
        if self.engine is None:
            self.engine = await self.server.run(lambda: Engine(hash_mb=SMALL_HASH_MB, endgame=None))
        engine = job.engine = self.engine
        engine.endgame = db if perfect else None        # perfect play: every move read from it
        loop = asyncio.get_running_loop()
        steps: "asyncio.Queue" = asyncio.Queue()
        start = time.perf_counter()

        def work(take_turns: Callable[[], None]):
            def report(step) -> None:
                loop.call_soon_threadsafe(steps.put_nowait, step)
                take_turns()            # the searches waiting for a slot go first
            if job.cancelled:
                return None
            if perfect:
                return engine.analyse(board, exact=True, progress=report)
            return engine.analyse(board, depth=depth, time=seconds, deepen=True, progress=report)

        task = asyncio.ensure_future(self.server.run_in_turns(work))
        searching = [FIRST_DEPTH, board.legal_moves[0]]     # what the engine is on now
        last = None
        while True:
            getter = asyncio.ensure_future(steps.get())
            done, _ = await asyncio.wait({getter, task}, timeout=THINKING_EVERY,
                                         return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                if task.done() and steps.empty():
                    break
                if not done and not job.cancelled and not perfect:
                    await self.send({"type": "thinking", "depth": searching[0],
                                     "pit_index": searching[1],
                                     "seconds": round(time.perf_counter() - start, 2)})
                continue
            step = getter.result()
            searching[:] = _next_search(board, step)
            if job.cancelled or (not perfect and step.depth < FIRST_DEPTH):
                continue
            if not step.complete:
                await self.send(api.move_update(step.depth, step.results[step.move]))
                continue
            last = step
            update = api.analysis_update(board, step)
            if perfect:
                update["endgame"] = db.max_seeds
            await self.send(update)
        task.result()           # an error in the analysis shows here
        if job.cancelled:
            return
        reason = "solved" if last is not None and last.exact else \
            "depth" if last is not None and last.depth == depth else "time"
        await self.send({"type": "done", "reason": reason,
                         "seconds": round(time.perf_counter() - start, 4)})


def _next_search(board, step) -> List[int]:
    """[depth, pit] the analysis searches after ``step``: the next move at its depth,
    or the first move one depth deeper."""
    moves = board.legal_moves
    if step.complete:
        return [step.depth + 1, moves[0]]
    following = [pit for pit in moves if pit > step.move]
    return [step.depth, following[0]] if following else [step.depth + 1, moves[0]]


__all__ = ["create_app", "MAX_BODY", "MAX_SEARCHES", "ASSETS", "INSTALL_HINT", "MISSING"]
