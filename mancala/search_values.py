"""What a search is asked and what it answers: :class:`SearchLimit`,
:class:`SearchResult` and, while it runs, :class:`SearchProgress`; below the
engine, the one request the compiled core reads (:class:`SearchRequest`, with
a thread's :class:`SearchRole`) and the one answer it gives (:class:`Found`).

Plain values, checked when made (:mod:`mancala.limits`): :class:`mancala.Engine`
takes and gives them, and so do the pieces of its work kept beside it
(:mod:`mancala.analysis`, :mod:`mancala.solving`, :mod:`mancala.parallel`).
A :class:`SearchLimit` is read only at the engine's edge (python-chess's
``Limit``); what travels below it to ``Searcher.search`` is one
:class:`SearchRequest`, whole (Stockfish's ``LimitsType`` handed to
``start_thinking``), never a row of positional numbers.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from mancala._core import EVALUATIONS, MAX_SEEDS, PLAY_ASPIRATION, PLAY_CLOCK, PLAY_DEEPER_TT, PLAY_PVS
from mancala.errors import InvalidLimitError, InvalidRuleError, quote
from mancala.limits import MAX_DEPTH, MAX_NODES, check_depth, check_nodes, check_seconds, check_whole

#: keyword-only where Python allows it (3.10+): two numbers of one kind cannot swap places
_NAMED = {"kw_only": True} if sys.version_info >= (3, 10) else {}
PLAY_FLAGS = PLAY_DEEPER_TT | PLAY_ASPIRATION | PLAY_PVS | PLAY_CLOCK


@dataclass(frozen=True)
class SearchLimit:
    """When to stop: any combination of depth, time (seconds) and nodes.

    Raises InvalidLimitError (stating the range, see :mod:`mancala.limits`)
    for a depth outside 1..254, a time that is not a positive number of
    seconds, or nodes outside 1..2**63-1.
    """

    depth: Optional[int] = None
    time: Optional[float] = None
    nodes: Optional[int] = None

    def __post_init__(self) -> None:
        if self.depth is not None:
            check_depth(self.depth)
        if self.time is not None:
            check_seconds(self.time)
        if self.nodes is not None:
            check_nodes(self.nodes)

    @property
    def is_empty(self) -> bool:
        return self.depth is None and self.time is None and self.nodes is None


@dataclass(frozen=True)
class SearchResult:
    """What a search found, from the side to move's point of view, in seeds."""

    move: Optional[int]         #: best pit 0..5, None when the game is over
    score: int                  #: value for the side to move (exact: the final margin)
    depth: int                  #: moves searched ahead (0 for a finished game; solve: 0)
    nodes: int                  #: positions visited
    pv: Tuple[int, ...]         #: principal variation, as far as the table holds it
    elapsed: float              #: seconds
    exact: bool                 #: the score is the perfect-play value
    tt_hits: int = 0            #: table probes that found their position
    endgame: Optional[int] = None   #: N of the endgame database the search used, if any

    @property
    def nps(self) -> float:
        """Nodes per second."""
        return self.nodes / self.elapsed if self.elapsed > 0 else 0.0


@dataclass(frozen=True)
class SearchProgress:
    """One finished iteration of ``Engine.search``, handed to its ``progress``."""

    depth: int                  #: moves searched ahead in this iteration
    score: int                  #: value for the side to move, in seeds
    move: Optional[int]         #: best pit 0..5 at this depth
    nodes: int                  #: positions visited so far in this search
    seconds: float              #: time since the search began
    pv: Tuple[int, ...]         #: principal variation, as far as the table holds it
    exact: bool                 #: the score is the perfect-play value


#: progress(depth, score, move, nodes, exact): the core's call after each finished iteration
CoreProgress = Callable[[int, int, Optional[int], int, bool], None]


def _seconds(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise InvalidLimitError(f"{what} is a number of seconds, 0 (none) or more, not {quote(value)}")
    return float(value)


@dataclass(frozen=True, **_NAMED)
class SearchRequest:
    """One search as the compiled core is asked for it, whole: ``Searcher.search(board,
    request)`` copies it into its structs (``Searcher._load``), and nothing else does.

    :class:`mancala.Engine` makes it from a :class:`SearchLimit` and its own mode
    (the times counted to what is left, the soft limit its share); the functions
    below hand it on, or a narrower copy (``dataclasses.replace``). A request with
    ``beta`` is a bound question: one null-window search to the end of the game,
    is the value at least beta? (``depth``, ``iterative``, ``soft_time`` and
    ``progress`` do not apply.)

    Raises InvalidLimitError for a number out of its range, a ``soft_time``
    after ``time`` (the two swapped), InvalidRuleError for an unknown
    evaluation or play flag, ValueError for a beta outside the margins.
    """

    depth: int = MAX_DEPTH          #: the deepest iteration, 1..254
    time: float = 0.0               #: hard limit, seconds from the search's start (0: none)
    soft_time: float = 0.0          #: no iteration starts after it, seconds; at most ``time`` (0: none)
    nodes: int = 0                  #: node limit, every thread's together (0: none)
    evaluation: str = "store"       #: the leaves' evaluation, one of EVALUATIONS
    iterative: bool = True          #: deepen 1, 2, ... (False: ``depth`` alone)
    keep_partial: bool = False      #: a stopped iteration's root move counts once proven better
    play: int = 0                   #: play mode's parts, PLAY_* flags (0: the exact-depth mode)
    progress: Optional[CoreProgress] = None     #: called after each finished iteration
    beta: Optional[int] = None      #: a bound question's beta (None: a deepening search)

    def __post_init__(self) -> None:
        check_depth(self.depth)
        time, soft = _seconds(self.time, "time"), _seconds(self.soft_time, "soft_time")
        if time and soft > time:
            raise InvalidLimitError(f"soft_time {soft:g} s is after time {time:g} s, the hard limit: "
                                    f"a soft limit comes first")
        check_whole(self.nodes, "nodes", 0, MAX_NODES)
        if self.evaluation not in EVALUATIONS:
            raise InvalidRuleError(f"unknown evaluation {quote(self.evaluation)}; "
                                   f"choose one of {', '.join(EVALUATIONS)}")
        if isinstance(self.play, bool) or not isinstance(self.play, int) or self.play & ~PLAY_FLAGS:
            raise InvalidRuleError(f"play is a sum of PLAY_* flags (0..{PLAY_FLAGS}), not {quote(self.play)}")
        if self.beta is not None and (isinstance(self.beta, bool) or not isinstance(self.beta, int)
                                      or not -MAX_SEEDS <= self.beta <= MAX_SEEDS + 1):
            raise ValueError(f"beta is a margin within the seeds on the board, not {quote(self.beta)}")


@dataclass(frozen=True, **_NAMED)
class SearchRole:
    """A thread's part in one search that several threads make at once in one table
    (:mod:`mancala.parallel`'s Lazy SMP, :mod:`mancala.solving`'s ABDADA), apart
    from what is asked (:class:`SearchRequest`): Stockfish keeps its limits apart
    from its threads too. ``SearchRole()``, the default: a thread alone."""

    shared: bool = False    #: its nodes and depths count with its sharers' (the node limit is all of theirs)
    helper: bool = False    #: not the first thread: keeps no time of its own, leaves the table's generation
    defer: bool = False     #: puts off till last the subtrees a sharer is in (ABDADA)
    started: float = 0.0    #: the ``clock()`` reading its times count from (0: the call)


@dataclass(frozen=True, **_NAMED)
class Found:
    """What the core found for one :class:`SearchRequest`, from the side to move's view:
    ``Searcher.search``'s answer, handed up whole (the engine makes its
    :class:`SearchResult` of it). ``Found()`` is nothing found."""

    score: int = 0              #: the value (a bound question: the fail-soft bound)
    move: Optional[int] = None  #: its best pit 0..5 (None: none finished; a bound question failing low)
    depth: int = 0              #: the last finished iteration (0: none; a bound question or solve)
    exact: bool = False         #: the score is the perfect-play value
    finished: bool = False      #: it answered: an iteration finished, a bound question was settled
    nodes: int = 0              #: positions visited (with threads: every thread's)
    tt_hits: int = 0            #: table probes that found their position
    first: bool = False         #: among threads searching together, the first to finish its depth


__all__ = ["SearchLimit", "SearchResult", "SearchProgress", "SearchRequest", "SearchRole", "Found"]
