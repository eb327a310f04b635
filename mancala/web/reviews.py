"""The review of a game on the web: every move's loss against the best, its mark, the
better move and its line (:mod:`mancala.review`'s work, carried).

==========================  ===============================================
``POST /api/review``        every move of a game reviewed (a worker thread)
``POST /api/review/read``   a game record's (or save file's) game, to review
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
from mancala import storage
from mancala.engine import Engine
from mancala.errors import HistoryError, InputError, Refused, RequestError, SearchStoppedError
from mancala.history import History
from mancala.geometry import SIDE_KEYS
from mancala.limits import REVIEW_HASH_MB, check_whole
from mancala.web import api
from mancala.web.policy import endpoint, json_body, read_body, replaced, tab_name
from mancala.web.server import Job

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

    def __init__(self, engine: Any, job: Job, first: Optional[Callable[[], None]] = None) -> None:
        self.engine = engine
        self.job = job
        self.first = first          # called once, before the first search (opens a database)

    def check(self) -> None:
        if self.job.cancelled or self.job.timed_out:
            raise Stopped()
        if self.first is not None:
            first, self.first = self.first, None
            first()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.engine, name)
        if name not in ("solve", "analyse", "search"):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            self.check()
            return found(*args, **kwargs)
        return call


def reviewing(server: Any, spec: Dict[str, Any], tell: Callable[[Dict[str, Any]], None],
              holder: Optional[Dict[str, Job]] = None):
    """The work of one review in a job (:meth:`mancala.web.server.Server.search`'s, in
    turns): ``tell`` hears each step as it comes; the job is put in ``holder`` once it runs."""
    def work(job: Job, take_turns: Callable[[], None]) -> Optional[_review.Review]:
        if holder is not None:
            holder["job"] = job
        engine = job.engine = Engine(hash_mb=REVIEW_HASH_MB)

        def database() -> None:     # the server's (opened once, shared), when first needed
            engine.endgame = server.endgame(spec["capture"]) or "auto"
        # the last positions on an engine of their own with no database: the first marks
        # come before the server's database is opened
        quick = StoppableEngine(_review.quick_engine(), job)

        def progress(done: int, total: int) -> None:
            tell({"type": "progress", "done": done, "total": total})
            take_turns()            # a long review lets waiting searches run between moves
        try:
            return _review.review_game(
                spec["seeds"], spec["capture"], spec["moves"],
                StoppableEngine(engine, job, first=database),
                progress=progress, on_move=lambda move: tell(dict(move_json(move), type="move")),
                quick=quick)
        except (Stopped, SearchStoppedError):   # stopped between searches, or inside one
            return None
        finally:
            job.engine = None
    return work


def kept(spec: Dict[str, Any], game: Optional[int], review: Any = None) -> Any:
    """The review kept with history game ``game`` (None: none fits), or, given ``review``,
    that review kept with it when the game is this one (run in a worker thread)."""
    if game is None:
        return None
    try:
        history = History()
        if review is None:
            return _review.kept_review(history, game, spec["seeds"], spec["capture"], spec["moves"])
        record = next((g for g in history.games() if g.id == game), None)
        if record is not None and (record.seeds, record.capture, list(record.pit_indices)) \
                == (spec["seeds"], spec["capture"], spec["moves"]):
            _review.keep_review(history, game, review)
    except (HistoryError, RuntimeError):    # no history to read or write: reviewed anew
        return None
    return None


def lines(answers: Any) -> Any:
    """Answers as JSON lines (``application/x-ndjson``), sent as they come."""
    from starlette.responses import StreamingResponse

    async def each():
        async for answer in answers:
            yield json.dumps(answer) + "\n"
    return StreamingResponse(each(), media_type="application/x-ndjson",
                             headers={"cache-control": "no-store"})


async def searched(request: Any, server: Any, spec: Dict[str, Any], tab: str,
                   tell: Callable[[Dict[str, Any]], None] = lambda step: None,
                   holder: Optional[Dict[str, Job]] = None) -> _review.Review:
    """The review of ``spec`` through the server's one entrance for engine work: 409 when a
    newer review from the tab (or the client going) stopped it, 503 past its time."""
    reviewed = await server.search(
        request, tab, reviewing(server, spec, tell, holder), in_turns=True,
        seconds=MAX_REVIEW_SECONDS, too_long=f"the review took more than {MAX_REVIEW_SECONDS:g} s "
                                             "and was stopped; python -m mancala review has no limit")
    if reviewed is None:        # stopped between searches: as 409 says
        raise replaced()
    return reviewed


async def streamed(request: Any, server: Any, spec: Dict[str, Any], tab: str,
                   game: Optional[int], started: float):
    """The review's JSON lines: start, each move and the progress as they come, then the
    whole review (or its error in one line); the work stopped if the client goes."""
    loop = asyncio.get_running_loop()
    steps: "asyncio.Queue[Dict[str, Any]]" = asyncio.Queue()
    holder: Dict[str, Job] = {}
    yield {"type": "start", "total": len(spec["moves"])}
    task = asyncio.ensure_future(searched(
        request, server, spec, tab, lambda step: loop.call_soon_threadsafe(steps.put_nowait, step),
        holder))
    try:
        while True:
            getter = asyncio.ensure_future(steps.get())
            done, _ = await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter in done:
                yield getter.result()
                continue
            getter.cancel()
            if steps.empty():
                break
        try:
            reviewed = task.result()
            answer = dict(review_answer(reviewed, time.monotonic() - started), type="review")
            await server.disk(lambda: kept(spec, game, reviewed))
        except (Refused, InputError) as exc:
            answer = {"type": "error", "error": str(exc)}
        yield answer
    finally:
        if not task.done():             # the client went away: stop the work
            job = holder.get("job")
            if job is not None:
                job.cancelled = True
                job.stop()
            task.cancel()


@endpoint
async def review(request: Any, server: Any) -> Any:
    spec, key, stream, board, game = review_request(await json_body(request))
    server.unaided(board)
    started = time.monotonic()
    found = await server.disk(lambda: kept(spec, game))
    tab = "review\n" + key if key else ""
    if found is not None:           # kept with the game: answered at once, no search
        answer = review_answer(found, time.monotonic() - started, kept=True)
        if not stream:
            return answer

        async def once():
            yield {"type": "start", "total": len(spec["moves"])}
            yield dict(answer, type="review")
        return lines(once())
    if stream:
        return lines(streamed(request, server, spec, tab, game, started))
    reviewed = await searched(request, server, spec, tab)
    await server.disk(lambda: kept(spec, game, reviewed))
    return review_answer(reviewed, time.monotonic() - started)


def read_game(text: Any) -> Dict[str, Any]:
    """POST /api/review/read (a game record's text, or a save file's): the game as the review
    takes it, read as ``python -m mancala review FILE`` reads one (any players' names, a
    set-up refused): its ``position``, ``players`` as written and ``human`` (the one person's
    side, or null). SaveFileError (one line naming the line) for a record that does not add
    up, RequestError for a game the review would refuse (:func:`review_request`)."""
    saved = storage.loads(text, setup=True)         # SaveFileError (400): one line naming the line
    if saved.setup is not None:
        raise RequestError("the game starts from a set-up position (its FEN tag): a review "
                           "goes through a game from the rules' start")
    position = {"seeds": saved.seeds, "capture": saved.capture, "moves": list(saved.moves)}
    review_request({"position": position})
    specs = (saved.south, saved.north)
    return {"position": position, "players": dict(zip(SIDE_KEYS, specs)),
            "human": specs.index("human") if specs.count("human") == 1 else None}


def kept_id(game: Dict[str, Any]) -> Optional[int]:
    """The number in the history of this very game (its rules, moves and players), the
    newest, or None: its review kept there is then found (run in a worker thread)."""
    try:
        games = History().games()
    except (HistoryError, RuntimeError):
        return None
    spec, players = game["position"], (game["players"]["south"], game["players"]["north"])
    for kept in reversed(games):
        if (kept.seeds, kept.capture, list(kept.pit_indices), kept.players) == \
                (spec["seeds"], spec["capture"], spec["moves"], players):
            return kept.id
    return None


@endpoint
async def read(request: Any, server: Any) -> Dict[str, Any]:
    game = read_game(await read_body(request))
    return dict(game, game=await server.disk(lambda: kept_id(game)))


#: (path, method, handler) of each route
ROUTES = (("/api/review", "POST", review), ("/api/review/read", "POST", read))


__all__ = ["ASSETS", "ROUTES", "review_request", "review_answer", "move_json", "StoppableEngine",
           "MAX_REVIEW_MOVES", "MAX_REVIEW_SECONDS"]
