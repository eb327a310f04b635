"""The review of a game on the web: every move's loss against the best, its mark, the
better move and its line (:mod:`mancala.review`'s work, carried).

==========================  ===============================================
``POST /api/review``        every move of a game reviewed (a worker thread)
==========================  ===============================================

``{"position", "tab"?, "stream"?, "game"?}``: the answer is one JSON object; with
``"stream": true`` it is JSON lines as the work goes (``application/x-ndjson``):
``{"type": "start", "total"}``, then ``{"type": "move", ...}`` and ``{"type":
"progress", "done", "total"}`` as each move is reviewed (the library's
:func:`mancala.review.review_game` hands them over the last first: the endgame
solves at once), then ``{"type": "review", ...}`` (the whole answer), or ``{"type":
"error", "error"}``: the page shows the first marks while the rest is computed.
``game`` names the game in the history: its review kept there is answered at once,
with no search, and a review made is kept with it (:func:`mancala.review.kept_review`). The review runs in one of the server's search slots, giving it back
between moves to searches waiting for one; a newer review from the same tab, or
the client going away, stops it, and so does :data:`MAX_REVIEW_SECONDS`.
"""
from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Callable, Dict, Optional, Tuple

from mancala import review as _review
from mancala.errors import InputError, RequestError, SearchStoppedError
from mancala.geometry import SIDE_KEYS
from mancala.limits import check_whole
from mancala.web import api
from mancala.web.server import Job, Refused, Server, endpoint, json_body, replaced, tab_name

ASSETS: Dict[str, tuple] = {}          # the review is drawn by records.js, the History view's
MAX_REVIEW_MOVES = 400      # longer games are not reviewed here (the terminal's review has no cap)
MAX_REVIEW_SECONDS = 180.0  # a review still running after this is stopped (503)


def review_request(data: Any) -> Tuple[Dict[str, Any], str, bool, Any, Optional[int]]:
    """``{"position", "tab"?, "stream"?, "game"?}``: (the game's position, the tab's
    name, streamed, the board the game reached, its id in the history or None)."""
    data = api.fields(data, "the request", {"position", "tab", "stream", "game"}, {"position"})
    game = data.get("game")
    if game is not None:
        game = check_whole(game, "game (its number in the history)", 1, 2 ** 62)
    tab = tab_name(data.get("tab", ""))
    stream = data.get("stream", False)
    if not isinstance(stream, bool):
        raise RequestError(f"stream is true or false, not {stream!r}"[:200])
    spec, board = api.parse_position(data["position"])
    if "board" in spec:
        raise RequestError("only a game from a start can be reviewed "
                           "(the review replays it from its rules)")
    if not spec["moves"]:
        raise RequestError("the game has no moves to review")
    if len(spec["moves"]) > MAX_REVIEW_MOVES:
        raise RequestError(f"the game has {len(spec['moves']):,} moves; the web reviews at most "
                           f"{MAX_REVIEW_MOVES} (python -m mancala review has no limit)")
    return spec, tab, stream, board, game


def move_json(move: Any) -> Dict[str, Any]:
    """A reviewed move as ``review --json`` prints it (its scores from South's view
    included, for the chart), with each score in words for its mover (``text_before``,
    ``text_after``: :class:`mancala.scores.Score`'s)."""
    return dict(move.to_json(), text_before=move.before.text(), text_after=move.after.text())


def review_answer(review: _review.Review, seconds: float, kept: bool = False) -> Dict[str, Any]:
    """The review: each move (:func:`move_json`) and each side's summary; ``kept``: read
    from the history, no search made."""
    return {"seeds": review.seeds, "capture": review.capture,
            "moves": [move_json(move) for move in review.moves],
            "summary": {key: review.summary(side) for side, key in enumerate(SIDE_KEYS)},
            "marks": [{"mark": name, "least": least} for name, least in _review.MARKS],
            "nodes": review.nodes, "depth": review.depth, "seconds": round(seconds, 3),
            "kept": kept}


class Stopped(Exception):
    """A review stopped between two searches (its job cancelled or out of time)."""


class StoppableEngine:
    """The engine a review uses, as :func:`mancala.review.review_game` calls it
    (``solve``, ``analyse``, ``search``), refusing to start a search once the job is
    cancelled or its time is up: ``Engine.stop()`` ends the running search, this ends
    the review."""

    def __init__(self, engine: Any, job: Job) -> None:
        self.engine = engine
        self.job = job

    def check(self) -> None:
        if self.job.cancelled or self.job.timed_out:
            raise Stopped()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.engine, name)
        if name not in ("solve", "analyse", "search"):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            self.check()
            return found(*args, **kwargs)
        return call


def routes(server: Server) -> list:
    """The review's route, on the app's server (its search slots and tabs)."""
    import anyio
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    from mancala.engine import Engine

    def reviewing(spec: Dict[str, Any], tell: Callable[[Dict[str, Any]], None],
                  holder: Optional[Dict[str, Job]] = None):
        """The work of one review in a job: ``tell`` hears each step as it comes; the job
        is put in ``holder`` once it runs."""
        def work(job: Job, take_turns: Callable[[], None]) -> Optional[_review.Review]:
            if holder is not None:
                holder["job"] = job
            engine = job.engine = Engine(hash_mb=_review.REVIEW_HASH_MB)
            engine.endgame = server.endgame(spec["capture"]) or "auto"     # one database, shared

            def progress(done: int, total: int) -> None:
                tell({"type": "progress", "done": done, "total": total})
                take_turns()            # a long review lets waiting searches run between moves
            try:
                return _review.review_game(
                    spec["seeds"], spec["capture"], spec["moves"], StoppableEngine(engine, job),
                    progress=progress, on_move=lambda move: tell(dict(move_json(move), type="move")))
            except (Stopped, SearchStoppedError):   # stopped between searches, or inside one
                return None
            finally:
                job.engine = None
        return work

    def finished(reviewed: Optional[_review.Review], job: Job, started: float) -> Dict[str, Any]:
        if reviewed is None:
            if job.timed_out and not job.cancelled:
                raise Refused(503, f"the review took more than {MAX_REVIEW_SECONDS:g} s and was "
                                   "stopped; python -m mancala review has no limit")
            raise replaced()
        return review_answer(reviewed, time.monotonic() - started)

    async def kept(spec: Dict[str, Any], game: Optional[int], review: Any = None) -> Any:
        """The review kept with history game ``game`` (None: none fits), or, given
        ``review``, that review kept with it when the game is this one."""
        if game is None:
            return None
        from mancala.history import History, HistoryError

        def work() -> Any:
            try:
                history = History()
                if review is None:
                    return _review.kept_review(history, game, spec["seeds"], spec["capture"],
                                               spec["moves"])
                record = next((g for g in history.games() if g.id == game), None)
                if record is not None and (record.seeds, record.capture, list(record.pit_indices)) \
                        == (spec["seeds"], spec["capture"], spec["moves"]):
                    _review.keep_review(history, game, review)
            except (HistoryError, RuntimeError):    # no history to read or write: reviewed anew
                return None
            return None
        return await anyio.to_thread.run_sync(work)

    @endpoint
    async def review(request: Request) -> Any:
        spec, key, stream, board, game = review_request(await json_body(request))
        server.unaided(board)
        started = time.monotonic()
        found = await kept(spec, game)
        if found is not None:           # kept with the game: answered at once, no search
            answer = review_answer(found, time.monotonic() - started, kept=True)
            if not stream:
                return answer
            lines = [{"type": "start", "total": len(spec["moves"])}, dict(answer, type="review")]
            return StreamingResponse(iter([json.dumps(line) + "\n" for line in lines]),
                                     media_type="application/x-ndjson")
        server.check_room()
        tab = "review\n" + key if key else ""
        if not stream:
            reviewed, job = await server.run_job(request, tab, reviewing(spec, lambda step: None),
                                                 in_turns=True, seconds=MAX_REVIEW_SECONDS)
            answer = finished(reviewed, job, started)
            await kept(spec, game, reviewed)
            return answer

        loop = asyncio.get_running_loop()
        steps: "asyncio.Queue[Dict[str, Any]]" = asyncio.Queue()

        def tell(step: Dict[str, Any]) -> None:
            loop.call_soon_threadsafe(steps.put_nowait, step)
        holder: Dict[str, Job] = {}

        async def lines():
            yield json.dumps({"type": "start", "total": len(spec["moves"])}) + "\n"
            task = asyncio.ensure_future(server.run_job(request, tab, reviewing(spec, tell, holder),
                                                        in_turns=True, seconds=MAX_REVIEW_SECONDS))
            try:
                while True:
                    getter = asyncio.ensure_future(steps.get())
                    done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                    if getter in done:
                        yield json.dumps(getter.result()) + "\n"
                        continue
                    getter.cancel()
                    if steps.empty():
                        break
                try:
                    reviewed, job = task.result()
                    answer = dict(finished(reviewed, job, started), type="review")
                    await kept(spec, game, reviewed)
                except (Refused, InputError) as exc:
                    answer = {"type": "error", "error": str(exc)}
                yield json.dumps(answer) + "\n"
            finally:
                if not task.done():             # the client went away: stop the work
                    job = holder.get("job")
                    if job is not None:
                        job.cancelled = True
                        job.stop()
                    task.cancel()

        return StreamingResponse(lines(), media_type="application/x-ndjson",
                                 headers={"cache-control": "no-store"})

    return [Route("/api/review", review, methods=["POST"])]


__all__ = ["ASSETS", "routes", "review_request", "review_answer", "move_json", "StoppableEngine",
           "MAX_REVIEW_MOVES", "MAX_REVIEW_SECONDS"]
