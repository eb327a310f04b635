"""A live analysis on a WebSocket: :meth:`mancala.Engine.analyse`'s steps, carried.

Each socket of ``/api/analyze`` is an :class:`Analysis`; the messages are in
docs/web.md.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any, Callable, Dict, List, Optional

from mancala.engine import Engine
from mancala.errors import InputError, RequestError, quote
from mancala.limits import SMALL_HASH_MB
from mancala.web import api
from mancala.web.policy import MAX_BODY, cross_site, decode
from mancala.web.server import Job, Refused, Server

try:
    from starlette.websockets import WebSocket, WebSocketDisconnect
except ImportError:     # the web extra is not installed: mancala.web.app says so
    WebSocket = WebSocketDisconnect = None

THINKING_EVERY = 0.25           # seconds between "thinking" messages while a move is searched
MAX_SOCKETS = 64                # analysis WebSockets open at once
FIRST_DEPTH = 2                 # the page is shown depths from 2 (depth 1: each move's sowing alone)


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
                    self.server.unaided(request[1])
                    await self.cancel()
                    self.job = Job()
                    self.task = asyncio.ensure_future(self.analyse(self.job, *request))
                else:
                    raise RequestError(f"a message's type is analyze or stop, not {quote(kind)}")
            except (InputError, Refused) as exc:
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
        database covers the board, solving every move from it) through the server's one
        entrance for engine work (:meth:`mancala.web.server.Server.search`), its steps sent
        as they come."""
        await self.send({"type": "start", "position": spec, "legal_moves": list(board.legal_moves),
                         "to_move": board.to_move})
        if board.is_game_over():
            await self.send({"type": "done", "reason": "game over"})
            return
        db = await self.server.disk(lambda: self.server.endgame(board.capture))
        perfect = db is not None and db.covers(board)
        if self.engine is None:
            self.engine = await self.server.disk(lambda: Engine(hash_mb=SMALL_HASH_MB, endgame=None))
        engine = job.engine = self.engine
        engine.endgame = db if perfect else None        # perfect play: every move read from it
        loop = asyncio.get_running_loop()
        steps: "asyncio.Queue" = asyncio.Queue()
        start = time.perf_counter()

        def work(job: Job, take_turns: Callable[[], None]):
            def report(step) -> None:
                loop.call_soon_threadsafe(steps.put_nowait, step)
                take_turns()            # the searches waiting for a slot go first
            if job.cancelled:
                return None
            if perfect:
                return engine.analyse(board, exact=True, progress=report)
            return engine.analyse(board, depth=depth, time=seconds, deepen=True, progress=report)

        task = asyncio.ensure_future(self.server.search(None, "", work, in_turns=True, job=job))
        last = await self.relay(job, board, steps, task, perfect, db, start)
        try:
            task.result()           # an error in the analysis shows here
        except Refused as exc:      # stopped (409), or a busy server (503)
            if not job.cancelled:
                await self.send({"type": "error", "error": str(exc)})
            return
        reason = "solved" if last is not None and last.exact else \
            "depth" if last is not None and last.depth == depth else "time"
        await self.send({"type": "done", "reason": reason,
                         "seconds": round(time.perf_counter() - start, 4)})

    async def relay(self, job: Job, board, steps: "asyncio.Queue", task: "asyncio.Future",
                    perfect: bool, db: Any, start: float) -> Any:
        """Each step of the analysis sent as it comes (a move's score, a depth's every
        score) and, while a move takes longer, what is searched; the last depth finished."""
        searching = [FIRST_DEPTH, board.legal_moves[0]]     # what the engine is on now
        last = None
        while True:
            getter = asyncio.ensure_future(steps.get())
            done, _ = await asyncio.wait({getter, task}, timeout=THINKING_EVERY,
                                         return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                if task.done() and steps.empty():
                    return last
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
                await self.send(api.move_update(step.depth, step.results[step.move], board.to_move))
                continue
            last = step
            update = api.analysis_update(board, step)
            if perfect:
                update["endgame"] = db.max_seeds
            await self.send(update)


def _next_search(board, step) -> List[int]:
    """[depth, pit] the analysis searches after ``step``: the next move at its depth,
    or the first move one depth deeper."""
    moves = board.legal_moves
    if step.complete:
        return [step.depth + 1, moves[0]]
    following = [pit for pit in moves if pit > step.move]
    return [step.depth, following[0]] if following else [step.depth + 1, moves[0]]


async def analyze(socket: "WebSocket") -> None:
    """``WS /api/analyze``: the endpoints' origin policy (1008), at most :data:`MAX_SOCKETS`
    open (the next accepted and closed with 1013, "try again later"), then an :class:`Analysis`."""
    server = socket.app.state.server
    why = cross_site(socket.headers, socket.url.scheme)
    if why is not None:
        await socket.close(code=1008, reason=why[:120])
        return
    if server.sockets >= MAX_SOCKETS:
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


__all__ = ["Analysis", "analyze", "THINKING_EVERY", "MAX_SOCKETS"]
