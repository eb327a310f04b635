"""What a search is asked and what it answers: :class:`SearchLimit`,
:class:`SearchResult` and, while it runs, :class:`SearchProgress`.

Plain values, checked when made (:mod:`mancala.limits`): :class:`mancala.Engine`
takes and gives them, and so do the pieces of its work kept beside it
(:mod:`mancala.analysis`, :mod:`mancala.solving`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from mancala.limits import check_depth, check_nodes, check_seconds


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


__all__ = ["SearchLimit", "SearchResult", "SearchProgress"]
