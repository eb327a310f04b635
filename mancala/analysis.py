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
from mancala.search import SearchLimit, SearchResult

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


def analyse(engine: Any, board: Board, limit: SearchLimit, exact: bool, deepen: bool,
            progress: Optional[Progress]) -> Dict[int, SearchResult]:
    """Every legal move's result: one pass, or depth after depth (see Engine.analyse)."""
    start = _time.perf_counter()
    nodes = [0]

    def searched(depth: int, pit: int, results: Dict[int, SearchResult], sub: SearchResult,
                 child: Board) -> None:
        results[pit] = move_result(board, pit, child, sub)
        nodes[0] += sub.nodes
        if progress is not None:
            progress(AnalysisProgress(depth, pit, dict(results), nodes[0], _time.perf_counter() - start))

    def finished(depth: int, results: Dict[int, SearchResult]) -> None:
        if progress is not None:
            progress(AnalysisProgress(depth, None, dict(results), nodes[0], _time.perf_counter() - start))

    if exact or not deepen:
        return _one_pass(engine, board, limit, exact, searched, finished)
    return _deepening(engine, board, limit, searched, finished)


def _child(board: Board, pit: int) -> Board:
    child = board.copy(stack=False)
    child.push(pit)
    return child


def _one_pass(engine: Any, board: Board, limit: SearchLimit, exact: bool,
              searched, finished) -> Dict[int, SearchResult]:
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
        searched(depth, pit, results, sub, child)
    finished(depth, results)
    return results


def _deepening(engine: Any, board: Board, limit: SearchLimit,
               searched, finished) -> Dict[int, SearchResult]:
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
                searched(depth, pit, results, sub, child)
            done = results
            finished(depth, results)
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
