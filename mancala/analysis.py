"""Analysis: every legal move's score and line, as it improves (MultiPV).

This is :meth:`mancala.Engine.analyse`'s work, kept beside the engine (the
``engine`` each function takes is the one whose call it is): each
legal move's child is searched (or solved) with the engine's own calls and
its score turned to the mover's view (:class:`mancala.geometry.PovScore`). One
pass searches every move once; ``deepen`` searches them all again at each
depth, 1, 2, 3, ..., handing each move's result and each finished depth to
``progress`` as an :class:`AnalysisProgress`, so a face (the web app's live
analysis, a command) only passes them on.

:func:`hint` is the engine's suggestion for the side to move, for every face
(the terminal game's ``hint``, the web page's): a search :data:`HINT_DEPTH`
moves deep, whose score is the best of the analysis at that depth
(:mod:`mancala.scores` says why the two agree).
"""
from __future__ import annotations

import threading
import time as _time
from dataclasses import dataclass
from typing import Any, Callable, Dict, NamedTuple, Optional

from mancala.board import Board
from mancala.errors import GameError
from mancala.geometry import PovScore
from mancala.limits import MAX_DEPTH
from mancala.scores import Score
from mancala.search_values import SearchLimit, SearchResult

HINT_DEPTH = 14        #: a hint's depth: a few milliseconds from any position


@dataclass(frozen=True)
class AnalysisProgress:
    """One step of ``Engine.analyse``, handed to its ``progress``: a move's result at a
    depth, or (``move`` None) that depth finished with every move's result."""

    depth: int                          #: the depth every move is searched to (0: solved exactly)
    move: Optional[int]                 #: the pit whose result just came; None: the depth is complete
    results: Dict[int, SearchResult]  #: the moves with a result at this depth so far, by pit
    nodes: int                          #: positions visited so far, all depths together
    seconds: float                      #: time since the analysis began

    @property
    def complete(self) -> bool:
        """Every legal move has its result at this depth."""
        return self.move is None

    @property
    def best(self) -> Optional[SearchResult]:
        """The best result so far (the lowest pit among equals); None before any."""
        return max(sorted(self.results.items()), key=lambda item: item[1].score,
                   default=(None, None))[1]

    @property
    def exact(self) -> bool:
        """The depth is complete and every score is the perfect-play value."""
        return self.complete and all(result.exact for result in self.results.values())


Progress = Callable[[AnalysisProgress], None]


def move_result(board: Board, pit: int, child: Board, sub: SearchResult) -> SearchResult:
    """The result of ``pit`` from ``board``'s mover's view, given ``sub``, its child's
    search: the score turned to the mover (an extra turn keeps it), one move deeper."""
    return SearchResult(pit, PovScore(sub.score, child.to_move).pov(board.to_move), sub.depth + 1,
                        sub.nodes, (pit,) + sub.pv, sub.elapsed, sub.exact, sub.tt_hits, sub.endgame)


#: the ways to analyse (Engine.analyse's exact and deepen): each move once, each move
#: solved, or every move depth after depth
ONE_PASS, EXACT, DEEPEN = "one pass", "exact", "deepen"


class _Steps:
    """An analysis's steps handed to its ``progress``: each move's result, each finished
    depth, with the nodes and seconds so far."""

    def __init__(self, board: Board, progress: Optional[Progress]) -> None:
        self.board, self.progress = board, progress
        self.start = _time.perf_counter()
        self.nodes = 0

    def searched(self, depth: int, pit: int, results: Dict[int, SearchResult], sub: SearchResult,
                 child: Board) -> None:
        results[pit] = move_result(self.board, pit, child, sub)
        self.nodes += sub.nodes
        self._tell(depth, pit, results)

    def finished(self, depth: int, results: Dict[int, SearchResult]) -> None:
        self._tell(depth, None, results)

    def _tell(self, depth: int, pit: Optional[int], results: Dict[int, SearchResult]) -> None:
        if self.progress is not None:
            self.progress(AnalysisProgress(depth, pit, dict(results), self.nodes,
                                           _time.perf_counter() - self.start))


def analyse(engine: Any, board: Board, limit: SearchLimit, way: str,
            progress: Optional[Progress]) -> Dict[int, SearchResult]:
    """Every legal move's result: one pass (``way`` ONE_PASS or EXACT), or depth after
    depth (DEEPEN; see Engine.analyse)."""
    steps = _Steps(board, progress)
    if way == DEEPEN:
        return _deepening(engine, board, limit, steps)
    return _one_pass(engine, board, limit, way == EXACT, steps)


def _child(board: Board, pit: int) -> Board:
    child = board.copy(stack=False)
    child.push(pit)
    return child


def _one_pass(engine: Any, board: Board, limit: SearchLimit, exact: bool,
              steps: _Steps) -> Dict[int, SearchResult]:
    """Each move once: its child to one move less than the limit's depth, or solved;
    a time or node limit shared equally among the moves."""
    moves = board.legal_moves
    depth = 0 if exact else limit.depth or 0
    share = SearchLimit(
        depth=max(1, limit.depth - 1) if limit.depth else None,
        time=limit.time / len(moves) if limit.time and moves else None,
        nodes=max(1, limit.nodes // len(moves)) if limit.nodes and moves else None)
    results: Dict[int, SearchResult] = {}
    for pit in moves:
        child = _child(board, pit)
        if exact:
            sub = engine.solve(child, time=share.time, nodes=share.nodes)
        elif limit.depth == 1 and not child.is_game_over():
            sub = engine._static(child)
        else:
            sub = engine.search(child, share)
        steps.searched(depth, pit, results, sub, child)
    steps.finished(depth, results)
    return results


def _deepening(engine: Any, board: Board, limit: SearchLimit, steps: _Steps) -> Dict[int, SearchResult]:
    """Every move at depth 1, 2, 3, ... up to the limit's depth: the last depth every
    move finished. Time and nodes are the whole analysis's; the depth they (or
    ``Engine.stop()``) interrupt is dropped. Ends early once every score is exact."""
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        engine._interrupt()

    timer = threading.Timer(limit.time, expire) if limit.time else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    spent = 0
    done: Dict[int, SearchResult] = {}
    try:
        for depth in range(1, (limit.depth or MAX_DEPTH) + 1):
            results: Dict[int, SearchResult] = {}
            for pit in board.legal_moves:
                child = _child(board, pit)
                left = limit.nodes - spent if limit.nodes else None
                if expired.is_set() or engine._stopping or (left is not None and left <= 0):
                    return done
                if depth == 1 and not child.is_game_over():
                    sub = engine._static(child)
                else:
                    sub = engine.search(child, depth=max(1, depth - 1), nodes=left)
                spent += sub.nodes
                if expired.is_set() or engine._stopping or (sub.depth < depth - 1 and not sub.exact):
                    return done         # stopped inside this move: its depth is not finished
                steps.searched(depth, pit, results, sub, child)
            done = results
            steps.finished(depth, results)
            if all(result.exact for result in results.values()):
                break
    finally:
        if timer is not None:
            timer.cancel()
    return done


class Hint(NamedTuple):
    """The engine's suggestion for the side to move."""

    pit: int            #: 0..5 from the mover's left
    score: Score        #: the move's score, for the mover, with its kind (exact or depth)
    elapsed: float      #: seconds

    @property
    def depth(self) -> Optional[int]:
        """Moves searched ahead (None when the score is exact)."""
        return self.score.depth


def hint(engine: Any, board: Board, depth: int = HINT_DEPTH) -> Hint:
    """The best move for ``board``'s side to move, searched ``depth`` moves deep by
    ``engine`` (a :class:`mancala.Engine`): the move and score ``engine.analyse(board,
    depth=depth)`` would rank first. GameError (from the engine) if the game is over."""
    if board.is_game_over():
        raise GameError("the game is over")
    result = engine.search(board.copy(stack=False), depth=depth)
    return Hint(result.move, Score.of(result, board.to_move), result.elapsed)


__all__ = ["AnalysisProgress", "analyse", "move_result", "Hint", "hint", "HINT_DEPTH"]
