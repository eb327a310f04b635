"""The web app's state and its one entrance for work: the search slots shared by every
client, each tab's computer players and running job, the rated games it guards, and the
pages' own parts.

:class:`Server` keeps at most :data:`MAX_SEARCHES` searches running at once
(the core releases the GIL: a 2-core machine stays responsive), each tab's players within
:data:`MAX_TABS` tabs and :data:`mancala.limits.WEB_TABLES_MB` of tables, and the endgame
databases every analysis shares. Every page asks it for work in two ways only:

- :meth:`Server.search` for engine work (a move, a hint, a tree, a review, an analysis):
  the room check (503), the count of searches waiting, the tab's older job stopped, the
  client's hanging up watched, and the 409 of a job stopped;
- :meth:`Server.disk` for file and history work (a worker thread, no search slot).

The rated games (:class:`mancala.web.rated.RatedGames`) are the server's own, made with
it: :meth:`Server.unaided` refuses help with a position one stands at. The policy every
endpoint answers under is :mod:`mancala.web.policy`'s.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Dict, Optional, Type, TypeVar

from mancala import endgame
from mancala.errors import Refused
from mancala.limits import WEB_TABLES_MB, search_slots
from mancala.unfinished import Unfinished
from mancala.web import api
from mancala.web.policy import decode, replaced
from mancala.web.rated import RatedGames

try:
    import anyio
except ImportError:     # the web extra is not installed: mancala.web.app says so
    anyio = None

MAX_SEARCHES = search_slots()   # engine searches running at once, across all clients: one a core
MAX_TABS = 16                   # tabs whose computer players are kept (their tables: limits.WEB_TABLES_MB)
IDLE_SECONDS = 600.0            # a player unused this long is dropped, its table freed
DISCONNECT_POLL = 0.2           # seconds between looks for a client that has gone
MAX_WAITING = 4                 # searches waiting for a slot past the running ones; past it: 503
RETRY_AFTER = 2                 # seconds a busy server asks a client to wait

Part = TypeVar("Part")


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


def games_file() -> Optional[Unfinished]:
    """Where the games not over are written down: the history's file (None when there is no
    data folder to find it in: the games then last as long as the server)."""
    try:
        return Unfinished()
    except RuntimeError:
        return None


class Server:
    """The app's state: tabs, open sockets, the cap on searches, the rated games."""

    def __init__(self) -> None:
        self.tabs: "OrderedDict[str, Tab]" = OrderedDict()
        # (tab, level) -> [player, megabytes of its table, last used]: least recent first
        self.players: "OrderedDict[tuple, list]" = OrderedDict()
        self.waiting = 0                    # searches waiting for a slot or searching
        self.busy: set = set()              # ids of the players searching now
        self.sockets = 0
        self.unfinished = games_file()      # where the games not over are written down
        self.rated = RatedGames(self.unfinished)    # the rated games it holds and guards
        self._parts: Dict[type, Any] = {}
        self._limiter = None
        self._endgames: Dict[str, Any] = {}
        self._endgame_lock = threading.Lock()
        self.assets: Dict[str, tuple] = {}    # URL path -> (bytes, media type): the app's files

    @property
    def limiter(self):
        if self._limiter is None:           # made in the event loop that uses it
            self._limiter = anyio.CapacityLimiter(MAX_SEARCHES)
        return self._limiter

    def part(self, kind: Type[Part]) -> Part:
        """The one ``kind()`` this server keeps for a page (its puzzles' attempts, the games
        it kept), made at first use."""
        if kind not in self._parts:
            self._parts[kind] = kind()
        return self._parts[kind]

    def unaided(self, board: Any) -> None:
        """Refused (403) when ``board`` is the position of a rated game being played
        (:meth:`mancala.web.rated.RatedGames.in_play`): a rated game is played unaided."""
        if self.rated.in_play(board):
            raise Refused(403, "this is the position of a rated game being played: no hint, "
                               "analysis or search until it is over")

    def check_room(self) -> None:
        """Refused (503, with Retry-After) when :data:`MAX_SEARCHES` searches run and
        :data:`MAX_WAITING` more wait for a slot: a search asked now would wait too long."""
        if self.waiting >= MAX_SEARCHES + MAX_WAITING:
            raise Refused(503, f"busy: {MAX_SEARCHES} searches run and {MAX_WAITING} wait; "
                               f"try again in {RETRY_AFTER} s", {"retry-after": str(RETRY_AFTER)})

    async def disk(self, work: Callable[[], Any]) -> Any:
        """``work()`` (reading or writing a file: the history, the puzzle log) in a worker
        thread, beside the searches: it takes no search slot."""
        return await anyio.to_thread.run_sync(work)

    async def search(self, request: Any, tab: str, work: Callable[..., Any], *,
                     in_turns: bool = False, seconds: Optional[float] = None,
                     too_long: str = "the search took too long and was stopped",
                     job: Optional[Job] = None) -> Any:
        """The one entrance for engine work: ``work(job)`` in a worker thread holding one
        of the search slots (with ``in_turns``, ``work(job, take_turns)``, which gives the
        slot back to the searches waiting at each ``take_turns()``). In turn:

        1. refused (503, Retry-After) when the slots and the queue are full (:meth:`check_room`);
        2. counted in :attr:`waiting` while it waits for a slot and runs;
        3. the older job of ``tab`` (a tab's name and the kind of work; "" for none) stopped:
           its request answers 409;
        4. stopped when ``request``'s client hangs up (None: the caller stops ``job``, one it
           made) or ``seconds`` pass;
        5. what ``work`` returned; a job stopped by 3 or 4 answers 409 (:func:`replaced`),
           one out of time 503 (``too_long``).
        """
        self.check_room()
        owner = self.tab(tab) if tab else Tab()
        if owner.job is not None:           # this tab's last request is out of date
            owner.job.cancelled = True
            owner.job.stop()
        job = owner.job = job or Job()
        self.waiting += 1
        failed: Optional[Exception] = None
        try:
            async with anyio.create_task_group() as group:
                if request is not None:
                    group.start_soon(self._watch, request, job)
                if seconds is not None:
                    group.start_soon(self._clock, seconds, job)
                try:
                    done = await self._run(work, job, in_turns)
                except Exception as exc:    # raised as itself, not in the group's ExceptionGroup
                    failed = exc
                finally:
                    group.cancel_scope.cancel()
        finally:
            self.waiting -= 1
            if owner.job is job:
                owner.job = None
        if failed is not None:
            raise failed
        if job.timed_out and not job.cancelled:
            raise Refused(503, too_long)
        if job.cancelled:
            raise replaced()
        return done

    @staticmethod
    async def _watch(request: Any, job: Job) -> None:
        """A client that has gone stops its search."""
        while not await request.is_disconnected():
            await anyio.sleep(DISCONNECT_POLL)
        job.cancelled = True
        job.stop()

    @staticmethod
    async def _clock(seconds: float, job: Job) -> None:
        await anyio.sleep(seconds)
        job.timed_out = True
        job.stop()

    async def _run(self, work: Callable[..., Any], job: Job, in_turns: bool) -> Any:
        """``work`` in a worker thread holding a slot; in turns, giving it back at each
        ``take_turns()`` and waiting for it again, behind the searches already waiting."""
        limiter = self.limiter
        if not in_turns:
            return await anyio.to_thread.run_sync(lambda: work(job), limiter=limiter)

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
                return work(job, take_turns)
            finally:
                if held[0]:
                    anyio.from_thread.run_sync(limiter.release_on_behalf_of, token)
        return await anyio.to_thread.run_sync(in_thread)

    async def choose(self, request: Any, tab: str, level: Any, board: Any) -> tuple:
        """A computer level's move on ``board`` (a copy is searched), through
        :meth:`search` for ``tab``: (the pit, the player). RequestError for a level that
        is not a computer level."""
        player = self.player(tab, level, self.busy)

        def work(job: Job) -> int:
            engine = job.engine = getattr(player, "engine", None)
            if engine is not None and engine.endgame is not None:   # one database, shared
                engine.endgame = self.endgame(board.capture) or "auto"
            return -1 if job.cancelled else player.choose(board.copy(stack=False))

        self.busy.add(id(player))
        try:
            return await self.search(request, tab, work), player
        finally:
            self.busy.discard(id(player))

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


__all__ = ["Server", "Job", "Tab", "Refused", "decode", "MAX_SEARCHES", "MAX_WAITING",
           "RETRY_AFTER"]
