"""Engine: the Python face of the compiled search. Its methods read their limits here, at
the edge, into one SearchRequest that travels whole to ``Searcher.search``, and one Found
comes back (these, SearchLimit and SearchResult are :mod:`mancala.search_values`'s)."""
from __future__ import annotations

import functools
import threading
import time as _time
from dataclasses import replace
from typing import Callable, Dict, Optional, Tuple, TypeVar, Union

from mancala import analysis as _analysis
from mancala import endgame as _endgame
from mancala import parallel as _parallel
from mancala import solving as _solving
from mancala._core import (EVALUATIONS, MAX_DEPTH, PLAY_ASPIRATION, PLAY_CLOCK, PLAY_DEEPER_TT, PLAY_PVS,
                           Searcher)
from mancala.analysis import AnalysisProgress
from mancala.board import Board, capture_code
from mancala.endgame.choice import DatabaseChoice
from mancala.errors import InvalidLimitError, InvalidRuleError, quote
from mancala.limits import DEFAULT_DEPTH, DEFAULT_HASH_MB, MB, PLAY_EVALUATION, check_hash_mb, check_threads
from mancala.parallel import Team
from mancala.search_values import Found, SearchLimit, SearchProgress, SearchRequest, SearchResult
from mancala.solving import SOLVE_GUESS_DEPTH  # noqa: F401  (mancala.cluster.solve reads it here)

# A timed search stops at its time limit (the core polls the clock), keeping
# the stopped iteration's move if proven better, and starts a new iteration
# only within a share of the time: a depth costs about twice the one before.
# In play mode the time manager (PLAY_CLOCK, _core_clock.pxi) starts from this
# share and stretches it, up to the whole time, while the best move is unstable
# or the score falls; a forced move (one legal move) gets FORCED_TIME_SHARE.
SOFT_TIME_SHARE = 0.6
FORCED_TIME_SHARE = 0.05
#: play mode's parts (see Engine): each kept because a match showed it gains
PLAY_MODE = PLAY_DEEPER_TT | PLAY_ASPIRATION | PLAY_PVS | PLAY_CLOCK

_Call = TypeVar("_Call", bound=Callable)


def soft_share(board: Board, play: bool) -> float:
    """The share of a timed search's time after which no iteration starts (where
    the time manager starts from, in play mode): less for a forced move."""
    return FORCED_TIME_SHARE if play and len(board.legal_moves) == 1 else SOFT_TIME_SHARE


def _serialised(method: _Call) -> _Call:
    """Run method holding the engine's lock: one call at a time on one engine.

    The lock is reentrant (solve calls search); a call from outside (not from
    another method) starts with the stop flag down, so stop() ends only the
    call that was running when it was made.
    """
    @functools.wraps(method)
    def call(self: "Engine", *args, **kwargs):
        with self._lock:
            if self._calls == 0:
                self._stopping = self._interrupting = False
                self._searcher.abort(False)
            self._calls += 1
            try:
                answer = method(self, *args, **kwargs)
                if self._calls == 1 and self._databases.failed():
                    answer = method(self, *args, **kwargs)     # again, without the database
                return answer
            finally:
                self._calls -= 1
    return call  # type: ignore[return-value]


class Engine:
    """The compiled alpha-beta engine with its transposition table.

    ``Engine(hash_mb=64)`` is the full engine. The table keeps what it learnt
    between searches (so a game's later moves are faster); ``clear()`` forgets
    it, and a fresh engine gives the same node counts run after run.
    ``Engine(plain=True)`` is the textbook alpha-beta (no table, natural move
    order, no futility cuts, no iterative deepening): node for node the tree of
    ``mancala._reference.alphabeta``.

    ``threads``: every search runs on this many threads sharing one table
    (:mod:`mancala.parallel`, :mod:`mancala.solving`): ``solve``'s null-window
    searches, and ``search`` (and so ``analyse``) under any limit, each
    thread reading what the others store and putting off the subtrees
    another is searching (Lazy SMP with ABDADA's deferral). With more than one,
    node counts, and under a time limit the depth and move, vary from run to
    run; a depth-limited search's score and an exact value never do
    (``reproducible=True`` keeps ``search`` on one thread).

    ``endgame``: ``"auto"`` (the default) lets ``solve`` and timed searches
    (play mode, below) answer positions with few seeds from a cached endgame
    database for the board's rules, when one has been built (``python -m
    mancala solve --endgame N``); an ``EndgameDatabase`` is used by ``search``
    and ``solve`` alike; ``None`` uses none. Depth- and node-limited searches
    stay pure unless given a database.

    Threads: one engine may be shared between threads. Its calls (``search``,
    ``solve``, ``analyse``, ``optimal_moves``, ``clear``, ``hashfull``) are
    serialised by a lock: a call waits for the one another thread is making,
    then runs alone, so each answer is the one it would be with the calls made
    one after another. Give each thread its own engine to search in parallel.
    ``stop()`` takes no lock: from any thread it ends the running call at once
    (``search`` answers with its last finished depth, as a time limit does;
    ``solve`` and ``analyse`` with what they proved, ``exact=False``;
    ``optimal_moves`` raises ``SearchStoppedError``); later calls are not
    affected. Ctrl-C stops a search within milliseconds, on all its threads,
    and raises ``KeyboardInterrupt``; the engine stays usable.

    Two modes. A search with only a depth and/or node limit is exact-depth
    and reproducible: a fresh engine visits the same nodes run after run (the
    bench signature and the same-tree proof against the twin rest on it). A
    search with a time limit is in play mode: table entries from deeper
    searches answer shallower probes, the deepening searches the root in an
    aspiration window around the last score, and children after the first
    are tried with a null window first (PVS) -- stronger per second, the same
    values at a finished depth up to the table's deeper knowledge.
    ``reproducible=True`` keeps time-limited searches in the exact-depth mode
    too (the time limits still apply), and every ``search`` on one thread.

    ``evaluation`` scores the leaves. By default (None) each mode has its own:
    play mode the learned evaluation (:data:`mancala.limits.PLAY_EVALUATION`),
    the strongest, the one the players' timed levels and the engine protocol
    play with, so ``Engine().search(board, time=0.1)`` plays as they do; the
    exact-depth mode the store difference, so depth- and node-limited searches
    and ``reproducible=True`` visit the nodes they always did. A name
    (``"store"``, ``"positional"``, ``"learned"``) is used by every search.

    Raises InvalidLimitError for a table size outside 0..what the machine can
    give (:func:`mancala.limits.check_hash_mb`) or threads outside 1..64, and
    InvalidRuleError for an unknown evaluation or endgame choice.
    """

    def __init__(self, hash_mb: float = DEFAULT_HASH_MB, *, evaluation: Optional[str] = None,
                 ordering: bool = True, futility: bool = True, plain: bool = False,
                 endgame: Union[None, str, _endgame.EndgameDatabase] = "auto",
                 threads: int = 1, reproducible: bool = False) -> None:
        hash_mb = check_hash_mb(hash_mb)
        if evaluation is not None and evaluation not in EVALUATIONS:
            raise InvalidRuleError(
                f"unknown evaluation {quote(evaluation)}; choose one of {', '.join(EVALUATIONS)}")
        if endgame is not None and not isinstance(endgame, _endgame.EndgameDatabase) \
                and not (isinstance(endgame, str) and endgame == "auto"):
            raise InvalidRuleError(f"endgame is 'auto', None or an EndgameDatabase, not {quote(endgame)}")
        check_threads(threads)
        if plain:
            hash_mb, ordering, futility, endgame = 0, False, False, None
        self.plain = plain
        self.threads = threads
        self.reproducible = bool(reproducible)
        self._play = 0 if plain or reproducible else PLAY_MODE   # PLAY_* flags of timed searches
        self.evaluation = evaluation        # None: each mode's own (see the class docstring)
        self._lock = threading.RLock()      # held by every call: the core's state is one C struct
        self._calls = 0                     # calls in progress (nested ones included), under the lock
        self._stopping = False              # stop() was called during the running call
        self._interrupting = False          # _interrupt() was: the searches stay stopped
        self._searcher = Searcher(hash_mb, ordering, futility)
        # solve's helpers: they search beside this one, in its table
        self._helpers = [Searcher(0, ordering, futility) for _ in range(threads - 1)]
        for helper in self._helpers:
            helper.share_table(self._searcher)
        self._databases = DatabaseChoice(endgame, [self._searcher] + self._helpers)

    @property
    def endgame(self) -> Union[None, str, _endgame.EndgameDatabase]:
        """The endgame setting: "auto", None or an EndgameDatabase (may be set)."""
        return self._databases.setting

    @endgame.setter
    def endgame(self, setting: Union[None, str, _endgame.EndgameDatabase]) -> None:
        self._databases.setting = setting

    def __repr__(self) -> str:
        if self.plain:
            return "Engine(plain=True)"
        evaluation = "" if self.evaluation is None else f", evaluation={self.evaluation!r}"
        threads = "" if self.threads == 1 else f", threads={self.threads}"
        return f"Engine(hash_mb={self.hash_mb:g}{evaluation}{threads})"

    @property
    def hash_mb(self) -> float:
        """The table's size in megabytes (0 without one)."""
        return self._searcher.table_bytes / MB

    def stop(self) -> None:
        """End the running call at once; safe from any thread (it takes no lock).

        The call answers as if it had hit a limit (see the class docstring);
        a call started after this one is not affected.
        """
        self._stopping = True
        self._searcher.abort()

    @_serialised
    def clear(self) -> None:
        """Forget everything the table holds. Raises nothing."""
        self._searcher.clear()

    @_serialised
    def hashfull(self) -> int:
        """Table use, per mille (sampled). Raises nothing."""
        return self._searcher.hashfull()

    # -- searching

    @_serialised
    def search(self, board: Board, limit: Optional[SearchLimit] = None, *,
               depth: Optional[int] = None, time: Optional[float] = None,
               nodes: Optional[int] = None,
               progress: Optional[Callable[[SearchProgress], None]] = None,
               threads: Optional[int] = None) -> SearchResult:
        """Best move and score within the limits (depth 12 when none is given).

        A search stopped by nodes answers with the last depth it finished. A
        time limit is a hard one (overrun by a millisecond or so): no depth
        starts after ``SOFT_TIME_SHARE`` of it, and the stopped iteration's
        move is played if it was proven better than the last finished depth's
        (score: its value at the deeper depth; ``depth``: the last finished).
        ``progress(info)`` is called with a :class:`SearchProgress` after each
        finished iteration (depths increasing; the last is the result's); an
        exception it raises stops the search and propagates from here; with
        threads it may be called from any of them (one call at a time).
        ``threads``: this search's threads, 1..the engine's (default: all).
        Raises InvalidLimitError for a limit out of range (see :class:`SearchLimit`)
        or threads beyond the engine's, and TypeError if ``board`` is not a
        :class:`mancala.Board`.
        """
        limit = self._limit(limit, depth, time, nodes)
        helpers = self._helpers if threads is None else \
            self._helpers[:check_threads(threads, most=self.threads) - 1]
        start = _time.perf_counter()
        done = self._finished(board, start)
        if done is not None:
            return done
        # play mode uses a cached endgame database too ("auto"): perfect values near the end
        # (found in the background the first time: loading it never eats a move's time)
        play = bool(limit.time and self._play)
        db = self._databases.use(board, auto=play, wait=False)
        report = None
        if progress is not None:
            def report(depth: int, score: int, move: Optional[int], nodes: int, exact: bool) -> None:
                progress(SearchProgress(depth, score, move, nodes, _time.perf_counter() - start,
                                        self._pv(board, move, depth) if move is not None else (),
                                        exact))
        request = self._request(board, limit, report, start)
        found = self._deepen(board, request, helpers)
        if not found.finished:
            # stopped before depth 1 finished: a depth-1 search always gives a move
            first = self._searcher.search(board, SearchRequest(depth=1, evaluation=request.evaluation,
                                                               iterative=False))
            found = replace(first, nodes=found.nodes + first.nodes, tt_hits=found.tt_hits + first.tt_hits)
        return SearchResult(found.move, found.score, found.depth, found.nodes,
                            self._pv(board, found.move, found.depth), _time.perf_counter() - start,
                            found.exact, found.tt_hits, db)

    @_serialised
    def solve(self, board: Board, *, time: Optional[float] = None,
              nodes: Optional[int] = None,
              progress: Optional[Callable[[int, int, int, float], None]] = None) -> SearchResult:
        """The exact perfect-play value (the final margin) and a move that reaches it.

        MTD(f): null-window searches to the end of the game, each halving what
        the value can be, from a first guess by a short depth-limited search.
        Final margins have the parity of the seeds on the board, so a bound
        of the other parity tightens by one. ``progress(lower, upper, nodes,
        seconds)`` is called after each search. With a time or node limit the
        answer may come back unfinished: then ``exact`` is False and the score
        is the best bound known. Raises InvalidLimitError for a limit out of
        range and TypeError if ``board`` is not a :class:`mancala.Board`.
        """
        limit = self._limit(None, None, time, nodes, default_depth=None)
        start = _time.perf_counter()
        done = self._finished(board, start)
        if done is not None:
            return done
        db = self._databases.use(board, auto=True, wait=True)
        request = SearchRequest(time=limit.time or 0.0, nodes=limit.nodes or 0)
        found = _solving.mtdf(self._team(), board, request, progress, start)
        return SearchResult(found.move, found.score, 0, found.nodes, self._pv(board, found.move, MAX_DEPTH),
                            _time.perf_counter() - start, found.exact, found.tt_hits, db)

    @_serialised
    def null_window(self, board: Board, beta: int, *, time: Optional[float] = None,
                    nodes: Optional[int] = None) -> Tuple[Optional[int], int]:
        """Is the perfect-play value of board at least beta? One of solve's
        null-window searches, to the end of the game: (bound, nodes searched).

        The bound is fail-soft: at least beta means the value is at least the
        bound, below beta means it is at most the bound. With a time or node
        limit the search may stop first: then the bound is None. A cluster
        solve's jobs are these (:mod:`mancala.cluster.solve`); a finished game's
        value is its final margin, answered without a search. Raises
        InvalidLimitError for a limit out of range, ValueError for a beta
        outside the margins.
        """
        limit = self._limit(None, None, time, nodes, default_depth=None)
        if board.is_game_over():
            return board.outcome().score.pov(board.to_move), 0
        request = SearchRequest(beta=beta, time=limit.time or 0.0, nodes=limit.nodes or 0)
        self._databases.use(board, auto=True, wait=True)
        found = _solving.probe(self._team(), board, request)
        return (found.score if found.finished else None), found.nodes

    @_serialised
    def optimal_moves(self, board: Board, value: Optional[int] = None) -> Tuple[int, ...]:
        """Every move that keeps the perfect-play value (solved first if not given).

        One null-window search per move: cheaper than solving each child.
        Raises SearchStoppedError if ``stop()`` ends it, InvalidLimitError for
        a ``value`` that is not a final margin (-144..144).
        """
        def null_window(child: Board, beta: int) -> Tuple[int, bool]:
            self._databases.use(child, auto=True, wait=True)
            found = self._searcher.search(child, SearchRequest(beta=beta))
            return found.score, found.finished
        return _solving.optimal_moves(board, value, self.solve, null_window)

    @_serialised
    def analyse(self, board: Board, limit: Optional[SearchLimit] = None, *,
                depth: Optional[int] = None, time: Optional[float] = None,
                nodes: Optional[int] = None, exact: bool = False, deepen: bool = False,
                progress: Optional[Callable[[AnalysisProgress], None]] = None
                ) -> Dict[int, SearchResult]:
        """A result for every legal move, scored from the side to move's view (MultiPV).

        Each move's child is searched to one move less than the depth (or
        solved exactly with ``exact=True``); a move's ``pv`` starts with it.
        One pass by default: a time or node limit is shared equally among
        the moves (depth 12 when no limit is given). ``deepen=True`` searches
        every move at depth 1, 2, 3, ... up to the limit's depth (with none,
        until ``stop()``) and answers with the last depth every move finished;
        a time or node limit is then the whole analysis's, the depth it
        interrupts is dropped, and the analysis ends once every score is
        exact. Its searches are exact-depth ones (the time is kept by a
        timer, not by the search), so a depth's scores are the same on any
        engine. ``progress(info)`` is called with an
        :class:`~mancala.analysis.AnalysisProgress` after each move's result
        and after each finished depth; an exception it raises stops the
        analysis and propagates from here. Raises InvalidLimitError for a
        limit out of range and TypeError if ``board`` is not a
        :class:`mancala.Board`.
        """
        limit = self._limit(limit, depth, time, nodes, default_depth=None if deepen else DEFAULT_DEPTH)
        if not isinstance(board, Board):
            raise TypeError(f"analyse a mancala.Board, not {quote(board)}")
        way = _analysis.EXACT if exact else _analysis.DEEPEN if deepen else _analysis.ONE_PASS
        return _analysis.analyse(self, board, limit, way, progress)

    # -- helpers

    def _request(self, board: Board, limit: SearchLimit, report, start: float) -> SearchRequest:
        """What ``search`` asks the core, read from ``limit`` here and nowhere below: the times
        left since ``start``, the soft limit (:func:`soft_share`), the mode (class docstring)."""
        play = bool(limit.time and self._play)
        time_left = soft_left = 0.0
        if limit.time:
            spent = _time.perf_counter() - start
            time_left = max(limit.time - spent, 1e-9)
            soft_left = max(soft_share(board, play) * limit.time - spent, 1e-9)
        return SearchRequest(depth=limit.depth or MAX_DEPTH, time=time_left, soft_time=soft_left,
                             nodes=limit.nodes or 0, evaluation=self._evaluation(play),
                             iterative=not self.plain or limit.depth is None,
                             keep_partial=bool(limit.time), play=self._play if limit.time else 0,
                             progress=report)

    def _deepen(self, board: Board, request: SearchRequest, helpers) -> Found:
        """The core's iterative deepening, on the main searcher and ``helpers`` unless it
        keeps one thread's tree (reproducible, plain) or is too short to share
        (:data:`mancala.parallel.MIN_DEPTH`)."""
        if helpers and not self.reproducible and not self.plain and request.depth >= _parallel.MIN_DEPTH:
            return _parallel.search(self._team(helpers), board, request)
        return self._searcher.search(board, request)

    def _team(self, helpers=None) -> Team:     # the main searcher and helpers (default: all)
        return Team(self._searcher, self._helpers if helpers is None else helpers, self._rearm)

    def _interrupt(self) -> None:
        """End the searching now running, and any the call starts after, as a
        limit does, without stop()'s mark: what the call does next is its own
        (an analysis's timer)."""
        self._interrupting = True
        self._searcher.abort()

    def _rearm(self) -> None:
        """Let searches run again after the helpers' abort, unless stop() or
        _interrupt() was called.

        Both raise the flag after their mark: whichever order the two
        threads take, a stop is never lost.
        """
        self._searcher.abort(False)
        if self._stopping or self._interrupting:
            self._searcher.abort()

    def _limit(self, limit: Optional[SearchLimit], depth, time, nodes,
               default_depth: Optional[int] = DEFAULT_DEPTH) -> SearchLimit:
        if limit is None:
            limit = SearchLimit(depth, time, nodes)
        elif not isinstance(limit, SearchLimit):
            raise InvalidLimitError(f"limit is a SearchLimit, not {quote(limit)}")
        elif (depth, time, nodes) != (None, None, None):
            raise InvalidLimitError("give a SearchLimit or depth/time/nodes, not both")
        if limit.is_empty and default_depth is not None:
            limit = SearchLimit(depth=default_depth)
        return limit

    @_serialised
    def prepare(self, capture: str = "standard") -> Optional[int]:
        """Find and load now the cached endgame database that timed searches
        and solves under this capture rule use (``endgame="auto"``).

        A timed search never waits for it: the first one under a rule starts
        the look in the background and searches without a database till it
        is loaded (opening one reads and checks all of it: a second for 20
        seeds, more for 24). Call this first (the engine protocol does, at
        ``isready``) so the first moves use it too. Returns the database's seed
        count, or None if none is cached or ``endgame`` is not "auto".
        Raises InvalidRuleError for an unknown capture rule.
        """
        capture_code(capture)
        if self.endgame != "auto":
            return None
        db = self._databases.found(capture, wait=True)
        return db.max_seeds if db else None

    @staticmethod
    def _finished(board: Board, start: float) -> Optional[SearchResult]:
        if not isinstance(board, Board):
            raise TypeError(f"search a mancala.Board, not {quote(board)}")
        outcome = board.outcome()
        if outcome is None:
            return None
        return SearchResult(None, outcome.score.pov(board.to_move), 0, 0, (),
                            _time.perf_counter() - start, True)

    def _static(self, board: Board) -> SearchResult:
        score = self._searcher.evaluate(board, EVALUATIONS.index(self._evaluation(play=False)))
        return SearchResult(None, score, 0, 1, (), 0.0, False)

    def _evaluation(self, play: bool) -> str:
        """The evaluation a search uses: the engine's, else its mode's."""
        return self.evaluation or (PLAY_EVALUATION if play else "store")

    def _pv(self, board: Board, move: int, depth: int) -> Tuple[int, ...]:
        pv = self._searcher.principal_variation(board, limit=depth)
        if not pv or pv[0] != move:
            return (move,)
        return tuple(pv)
