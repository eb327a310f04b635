"""The web app's state and its guards, without the routes: the search slots shared by
every client, each tab's computer players and running job, reading a request, and the
one policy every endpoint answers under (:func:`endpoint`).

:class:`Server` keeps at most :data:`MAX_SEARCHES` searches running at once
(the core releases the GIL: a 2-core machine stays responsive), each tab's
players within :data:`MAX_TABS` tabs and :data:`mancala.limits.WEB_TABLES_MB` of tables, and the
endgame databases every analysis shares. The pages' modules (:mod:`mancala.web.play`,
:mod:`mancala.web.games`, :mod:`mancala.web.records`, :mod:`mancala.web.learn`) route
requests to it, each through :func:`endpoint`; :mod:`mancala.web.analysis` runs the
live analyses in it.

The origin policy: a request whose ``Origin`` names another scheme, host or port than
the request's own, or that a browser marks as sent from another site
(``Sec-Fetch-Site``, in any case), is refused (403)
by every endpoint and the analysis socket, before any work: a page of another
site may not run this server's engine or change what it keeps. A POST's body is
JSON and says so (``Content-Type: application/json``, else 415): the content
types another site's page may send without asking first (a "simple" request)
are refused.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, Optional, Tuple
from urllib.parse import urlsplit

from mancala import endgame
from mancala.errors import InputError, RequestError, quote
from mancala.limits import WEB_TABLES_MB, parse_whole, search_slots
from mancala.untrusted import read_json
from mancala.web import api

if TYPE_CHECKING:
    from starlette.requests import Request

try:
    import anyio
    from starlette.responses import JSONResponse, Response
except ImportError:     # the web extra is not installed: mancala.web.app says so
    anyio = JSONResponse = Response = None

MAX_BODY = 64 * 1024            # bytes of a request body or WebSocket message
MAX_SEARCHES = search_slots()   # engine searches running at once, across all clients: one a core
MAX_TABS = 16                   # tabs whose computer players are kept (their tables: limits.WEB_TABLES_MB)
IDLE_SECONDS = 600.0            # a player unused this long is dropped, its table freed
DISCONNECT_POLL = 0.2           # seconds between looks for a client that has gone
MAX_WAITING = 4                 # searches waiting for a slot past the running ones; past it: 503
RETRY_AFTER = 2                 # seconds a busy server asks a client to wait


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


async def json_body(request: "Request") -> Any:
    """The request's body, read within :data:`MAX_BODY` and decoded as JSON (:func:`decode`)."""
    return decode(await read_body(request))


#: the port an origin or a Host header leaves out, by scheme (a socket's is its page's)
DEFAULT_PORTS = {"http": 80, "https": 443}
PAGE_SCHEMES = {"ws": "http", "wss": "https"}


def _origin(scheme: str, netloc: str) -> Optional[Tuple[str, str, int]]:
    """(scheme, host, port) of an origin, names in lower case and the default port
    written out; None for one that cannot be read (no host, a port that is not one)."""
    scheme = PAGE_SCHEMES.get(scheme.lower(), scheme.lower())
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or scheme not in DEFAULT_PORTS:
        return None
    return scheme, parts.hostname, DEFAULT_PORTS[scheme] if port is None else port


def cross_site(headers: Any, scheme: str = "http") -> Optional[str]:
    """Why a request comes from another site's page (one line), or None when it comes from
    this server's own pages or from a client that is not a browser (no ``Origin``, no
    ``Sec-Fetch-Site``): an ``Origin`` whose scheme, host or port is not the request's
    own (``scheme``: the request's, ``ws`` counting as ``http``; the Host header's host
    and port), or a browser's word that the request was sent from another site (in any case)."""
    origin = headers.get("origin")
    if origin is not None:
        sent = urlsplit(origin)
        own = _origin(scheme, headers.get("host") or "")
        if own is None or _origin(sent.scheme, sent.netloc) != own:
            return f"another site's page ({quote(origin)}) may not use this server"
    site = (headers.get("sec-fetch-site") or "").strip().lower()
    if site in ("cross-site", "same-site"):
        return "another site's page may not use this server"
    return None


def same_origin(headers: Any, scheme: str = "http") -> bool:
    """No word of another site in the headers (:func:`cross_site`)."""
    return cross_site(headers, scheme) is None


def json_type(headers: Any) -> bool:
    """A body said to be JSON: ``application/json``, with or without parameters."""
    media = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    return media == "application/json"


def rating_json(rating: Optional[Any], **more: Any) -> Optional[Dict[str, Any]]:
    """A Glicko-2 rating for a page (a game's or a puzzle's): :meth:`mancala.rating.Rating.to_json`
    (value, deviation, 95% interval, provisional, shown), ``more`` fields beside them; None for None."""
    if rating is None:
        return None
    return dict(rating.to_json(), **more)


def replaced() -> Refused:
    """The answer to a request whose work was stopped by a newer one from its tab (409)."""
    return Refused(409, "stopped: a newer request from the same tab replaced this one, "
                        "or the client went away")


def _error(status: int, message: str) -> "Response":
    return JSONResponse({"error": message}, status_code=status)


def endpoint(handler: Callable[["Request"], Awaitable[Any]]):
    """A JSON endpoint under the app's one policy: another site's request is a 403 and a
    POST whose body is not said to be JSON a 415, before ``handler`` runs; bad input of
    any kind becomes a 4xx with ``{"error": "one line"}``."""
    async def call(request: "Request") -> "Response":
        start = time.perf_counter()
        try:
            why = cross_site(request.headers, request.url.scheme)
            if why is not None:
                raise Refused(403, why)
            if request.method == "POST" and not json_type(request.headers):
                raise Refused(415, "the request body is JSON and says so: "
                                   "Content-Type: application/json")
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
    call.guarded = True         # the tests find every route's handler under this policy
    return call


TAB_ID_CHARS = 64               # a tab's name: at most this long


def tab_name(value: Any) -> str:
    """A request's ``tab`` (a name a browser tab sends with its requests), else RequestError."""
    if not isinstance(value, str) or len(value) > TAB_ID_CHARS:
        raise RequestError(f"tab is a name of at most {TAB_ID_CHARS} characters, not {quote(value)}")
    return value


class Job:
    """One search a tab asked for: stoppable from the event loop thread."""

    def __init__(self) -> None:
        self.cancelled = False          # replaced by the tab's newer request, or its client went away
        self.timed_out = False          # its time ran out
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
        self.assets: Dict[str, tuple] = {}    # URL path -> (bytes, media type): the app's files

    @property
    def limiter(self):
        if self._limiter is None:           # made in the event loop that uses it
            self._limiter = anyio.CapacityLimiter(MAX_SEARCHES)
        return self._limiter

    def unaided(self, board: Any) -> None:
        """Refused (403) when ``board`` is the position of a rated game being played
        (:mod:`mancala.web.games`): a rated game is played without the engine's help."""
        rated = getattr(self, "rated", None)
        if rated is not None and rated.in_play(board):
            raise Refused(403, "this is the position of a rated game being played: no hint, "
                               "analysis or search until it is over")

    def check_room(self) -> None:
        """Refused (503, with Retry-After) when :data:`MAX_SEARCHES` searches run and
        :data:`MAX_WAITING` more wait for a slot: a search asked now would wait too long."""
        if self.waiting >= MAX_SEARCHES + MAX_WAITING:
            raise Refused(503, f"busy: {MAX_SEARCHES} searches run and {MAX_WAITING} wait; "
                               f"try again in {RETRY_AFTER} s", {"retry-after": str(RETRY_AFTER)})

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

    async def run_job(self, request: "Request", key: str, work: Callable[..., Any], *,
                      in_turns: bool = False, seconds: Optional[float] = None) -> Tuple[Any, Job]:
        """``work(job)`` in a worker thread for a tab's request (``key``: its tab, ""
        for none), in one of the search slots; with ``in_turns``, ``work(job,
        take_turns)`` as :meth:`run_in_turns` runs it. The tab's older job is
        stopped (``cancelled``); a client that hangs up stops this one (``cancelled``),
        and so does ``seconds`` passing (``timed_out``). Returns (what ``work``
        returned, the job), and counts the request in :attr:`waiting` meanwhile."""
        tab = self.tab(key) if key else Tab()
        if tab.job is not None:         # this tab's last request is out of date
            tab.job.cancelled = True
            tab.job.stop()
        job = tab.job = Job()

        async def watch() -> None:      # a client that has gone stops its search
            while not await request.is_disconnected():
                await anyio.sleep(DISCONNECT_POLL)
            job.cancelled = True
            job.stop()

        async def clock() -> None:
            await anyio.sleep(seconds)
            job.timed_out = True
            job.stop()

        self.waiting += 1
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(watch)
                if seconds is not None:
                    group.start_soon(clock)
                try:
                    if in_turns:
                        done = await self.run_in_turns(lambda take_turns: work(job, take_turns))
                    else:
                        done = await self.run(lambda: work(job))
                finally:
                    group.cancel_scope.cancel()
        finally:
            self.waiting -= 1
            if tab.job is job:
                tab.job = None
        return done, job

    async def choose(self, request: "Request", key: str, level: Any, board: Any) -> Tuple[int, Any, Job]:
        """A computer level's move on ``board`` (a copy is searched), as :meth:`run_job`
        runs work for tab ``key``: (the pit, the player, the job; a cancelled job's pit
        is -1). RequestError for a level that is not a computer level."""
        player = self.player(key, level, self.busy)

        def work(job: Job) -> int:
            if job.cancelled:
                return -1
            engine = job.engine = getattr(player, "engine", None)
            if engine is not None and engine.endgame is not None:   # one database, shared
                engine.endgame = self.endgame(board.capture) or "auto"
            if job.cancelled:
                return -1
            return player.choose(board.copy(stack=False))

        self.busy.add(id(player))
        try:
            pit, job = await self.run_job(request, key, work)
        finally:
            self.busy.discard(id(player))
        return pit, player, job

    def endgame(self, capture: str):
        """The endgame database cached for a capture rule (None if none is), looked
        for once per rule and shared by every analysis (it is only read)."""
        with self._endgame_lock:
            if capture not in self._endgames:
                self._endgames[capture] = endgame.find(capture)
            return self._endgames[capture]

    def player(self, key: str, level: Any, busy: set):
        """The computer player of a tab at a level (RequestError for a level that is
        not one), kept for the tab's next move within the server's bounds: at most
        MAX_TABS tabs' players, tables of WEB_TABLES_MB in all, none idle past
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
            if (idle or len(tabs) > MAX_TABS or total > WEB_TABLES_MB) and id(entry[0]) not in busy:
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


__all__ = ["Server", "Job", "Tab", "Refused", "decode", "read_body", "cross_site", "same_origin",
           "json_type", "json_body", "endpoint", "rating_json", "replaced", "tab_name",
           "MAX_BODY", "MAX_SEARCHES", "MAX_WAITING", "RETRY_AFTER", "TAB_ID_CHARS"]
