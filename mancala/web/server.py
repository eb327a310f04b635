"""The web app's state and its guards, without the routes: the search slots shared by
every client, each tab's computer players and running job, and reading a request.

:class:`Server` keeps at most :data:`MAX_SEARCHES` searches running at once
(the core releases the GIL: a 2-core machine stays responsive), each tab's
players within :data:`MAX_TABS` tabs and :data:`MAX_TABLE_MB` of tables, and the
endgame databases every analysis shares. :mod:`mancala.web.app` routes
requests to it; :mod:`mancala.web.analysis` runs the live analyses in it.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple
from urllib.parse import urlsplit

from mancala.errors import RequestError, quote
from mancala.limits import parse_whole, search_slots
from mancala.untrusted import read_json
from mancala.web import api

if TYPE_CHECKING:
    from starlette.requests import Request

try:
    import anyio
except ImportError:     # the web extra is not installed: mancala.web.app says so
    anyio = None

MAX_BODY = 64 * 1024            # bytes of a request body or WebSocket message
MAX_SEARCHES = search_slots()   # engine searches running at once, across all clients: one a core
MAX_TABS = 16                   # tabs whose computer players are kept...
MAX_TABLE_MB = 1024             # ...while their tables total at most this (idle ones go first)
IDLE_SECONDS = 600.0            # a player unused this long is dropped, its table freed
DISCONNECT_POLL = 0.2           # seconds between looks for a client that has gone


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


__all__ = ["Server", "Job", "Tab", "Refused", "decode", "read_body", "same_origin", "tab_name",
           "MAX_BODY", "MAX_SEARCHES", "TAB_ID_CHARS"]
