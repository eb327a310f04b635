"""Engine, SearchLimit, SearchResult: the Python face of the compiled search."""
from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from mancala._core import CAPTURE_RULES, EVALUATIONS, MAX_DEPTH, Searcher, evaluate
from mancala.board import Board
from mancala.errors import InvalidLimitError, InvalidRuleError

DEFAULT_DEPTH = 12
SOLVE_GUESS_DEPTH = 8   # a cheap depth-limited search seeds the exact one with a first guess


@dataclass(frozen=True)
class SearchLimit:
    """When to stop: any combination of depth, time (seconds) and nodes."""

    depth: Optional[int] = None
    time: Optional[float] = None
    nodes: Optional[int] = None

    def __post_init__(self) -> None:
        if self.depth is not None and (
                isinstance(self.depth, bool) or not isinstance(self.depth, int)
                or not 1 <= self.depth <= MAX_DEPTH):
            raise InvalidLimitError(f"depth is a whole number from 1 to {MAX_DEPTH}, not {self.depth!r}")
        if self.time is not None and (
                isinstance(self.time, bool) or not isinstance(self.time, (int, float))
                or not math.isfinite(self.time) or self.time <= 0):
            raise InvalidLimitError(f"time is a positive number of seconds, not {self.time!r}")
        if self.nodes is not None and (
                isinstance(self.nodes, bool) or not isinstance(self.nodes, int)
                or not 1 <= self.nodes < 2 ** 63):
            raise InvalidLimitError(f"nodes is a positive whole number, not {self.nodes!r}")

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

    @property
    def nps(self) -> float:
        """Nodes per second."""
        return self.nodes / self.elapsed if self.elapsed > 0 else 0.0


class Engine:
    """The compiled alpha-beta engine with its transposition table.

    ``Engine(hash_mb=64)`` is the full engine. The table keeps what it learnt
    between searches (so a game's later moves are faster); ``clear()`` forgets
    it, and a fresh engine gives the same node counts run after run.
    ``Engine(plain=True)`` is the textbook alpha-beta (no table, natural move
    order, no futility cuts, no iterative deepening): node for node the tree of
    ``mancala._reference.alphabeta``.
    """

    def __init__(self, hash_mb: float = 64, *, evaluation: str = "store",
                 ordering: bool = True, futility: bool = True, plain: bool = False) -> None:
        if isinstance(hash_mb, bool) or not isinstance(hash_mb, (int, float)) \
                or not math.isfinite(hash_mb) or hash_mb < 0:
            raise ValueError(f"hash_mb is a size in megabytes (0 for no table), not {hash_mb!r}")
        if evaluation not in EVALUATIONS:
            raise InvalidRuleError(
                f"unknown evaluation {evaluation!r}; choose one of {', '.join(EVALUATIONS)}")
        if plain:
            hash_mb, ordering, futility = 0, False, False
        self.plain = plain
        self.evaluation = evaluation
        self._searcher = Searcher(hash_mb, ordering, futility)
        self._capture: Optional[str] = None

    def __repr__(self) -> str:
        if self.plain:
            return "Engine(plain=True)"
        mb = self._searcher.table_bytes / 2 ** 20
        return f"Engine(hash_mb={mb:g}, evaluation={self.evaluation!r})"

    @property
    def hash_mb(self) -> float:
        return self._searcher.table_bytes / 2 ** 20

    def clear(self) -> None:
        """Forget everything the table holds."""
        self._searcher.clear()

    def hashfull(self) -> int:
        """Table use, per mille (sampled)."""
        return self._searcher.hashfull()

    # -- searching

    def search(self, board: Board, limit: Optional[SearchLimit] = None, *,
               depth: Optional[int] = None, time: Optional[float] = None,
               nodes: Optional[int] = None) -> SearchResult:
        """Best move and score within the limits (depth 12 when none is given).

        A search stopped by time or nodes answers with the last depth it finished.
        """
        limit = self._limit(limit, depth, time, nodes)
        start = _time.perf_counter()
        done = self._finished(board, start)
        if done is not None:
            return done
        args = self._position(board)
        iterative = not self.plain or limit.depth is None
        score, move, reached, exact = self._searcher.search(
            *args, EVALUATIONS.index(self.evaluation), limit.depth or MAX_DEPTH, iterative,
            limit.time or 0.0, limit.nodes or 0)
        nodes_used, hits = self._searcher.nodes, self._searcher.tt_hits
        if move is None:
            # stopped before depth 1 finished: a depth-1 search always gives a move
            score, move, reached, exact = self._searcher.search(
                *args, EVALUATIONS.index(self.evaluation), 1, False)
            nodes_used += self._searcher.nodes
            hits += self._searcher.tt_hits
        return SearchResult(move, score, reached, nodes_used, self._pv(args, move, reached),
                            _time.perf_counter() - start, exact, hits)

    def solve(self, board: Board, *, time: Optional[float] = None,
              nodes: Optional[int] = None) -> SearchResult:
        """The exact perfect-play value (the final margin) and a move that reaches it.

        Null-window searches to the end of the game. With a time or node limit
        the answer may come back unfinished: then ``exact`` is False.
        """
        limit = self._limit(None, None, time, nodes, default_depth=None)
        start = _time.perf_counter()
        done = self._finished(board, start)
        if done is not None:
            return done
        args = self._position(board)
        guess, _, _, _ = self._searcher.search(*args, 0, SOLVE_GUESS_DEPTH, True)
        nodes_used, hits = self._searcher.nodes, self._searcher.tt_hits
        score, move, exact = self._searcher.solve(*args, guess, limit.time or 0.0, limit.nodes or 0)
        nodes_used += self._searcher.nodes
        hits += self._searcher.tt_hits
        if move is None:
            move = board.legal_moves[0]
        return SearchResult(move, score, 0, nodes_used, self._pv(args, move, MAX_DEPTH),
                            _time.perf_counter() - start, exact, hits)

    def analyse(self, board: Board, limit: Optional[SearchLimit] = None, *,
                depth: Optional[int] = None, time: Optional[float] = None,
                nodes: Optional[int] = None, exact: bool = False) -> Dict[int, SearchResult]:
        """A result for every legal move, scored from the side to move's view.

        Each move's child is searched to one move less than the limit's depth
        (or solved exactly with ``exact=True``); a time or node limit is shared
        equally among the moves.
        """
        limit = self._limit(limit, depth, time, nodes)
        moves = board.legal_moves
        results: Dict[int, SearchResult] = {}
        for pit in moves:
            child = board.copy(stack=False)
            record = child.push(pit)
            share = SearchLimit(
                depth=max(1, limit.depth - 1) if limit.depth else None,
                time=limit.time / len(moves) if limit.time else None,
                nodes=max(1, limit.nodes // len(moves)) if limit.nodes else None)
            if exact:
                sub = self.solve(child, time=share.time, nodes=share.nodes)
            elif limit.depth == 1 and not child.is_game_over():
                sub = self._static(child)
            else:
                sub = self.search(child, share)
            sign = 1 if record.extra_turn or child.to_move == board.to_move else -1
            results[pit] = SearchResult(
                pit, sign * sub.score, sub.depth + 1, sub.nodes, (pit,) + sub.pv,
                sub.elapsed, sub.exact, sub.tt_hits)
        return results

    # -- helpers

    def _limit(self, limit: Optional[SearchLimit], depth, time, nodes,
               default_depth: Optional[int] = DEFAULT_DEPTH) -> SearchLimit:
        if limit is None:
            limit = SearchLimit(depth, time, nodes)
        elif not isinstance(limit, SearchLimit):
            raise InvalidLimitError(f"limit is a SearchLimit, not {limit!r}")
        elif (depth, time, nodes) != (None, None, None):
            raise InvalidLimitError("give a SearchLimit or depth/time/nodes, not both")
        if limit.is_empty and default_depth is not None:
            limit = SearchLimit(depth=default_depth)
        return limit

    def _position(self, board: Board) -> tuple:
        if board.capture != self._capture:
            # table entries hold for one rule set only
            if self._capture is not None:
                self._searcher.clear()
            self._capture = board.capture
        return (board.pits, board.to_move, CAPTURE_RULES.index(board.capture))

    @staticmethod
    def _finished(board: Board, start: float) -> Optional[SearchResult]:
        if not isinstance(board, Board):
            raise TypeError(f"search a mancala.Board, not {board!r}")
        outcome = board.outcome()
        if outcome is None:
            return None
        margin = outcome.margin if board.to_move == 0 else -outcome.margin
        return SearchResult(None, margin, 0, 0, (), _time.perf_counter() - start, True)

    def _static(self, board: Board) -> SearchResult:
        score = evaluate(*self._position(board), EVALUATIONS.index(self.evaluation))
        return SearchResult(None, score, 0, 1, (), 0.0, False)

    def _pv(self, args: tuple, move: int, depth: int) -> Tuple[int, ...]:
        pv = self._searcher.principal_variation(*args, limit=depth)
        if not pv or pv[0] != move:
            return (move,)
        return tuple(pv)
