"""Solving: the exact perfect-play value by null-window searches (MTD(f)).

This is :meth:`mancala.Engine.solve`'s and :meth:`~mancala.Engine.null_window`'s
work, kept beside the engine: :func:`solve` narrows the value from a first
guess with one null-window search after another; :func:`probe` runs one of
them, on the engine's own searcher or, with helper threads, on all of them
in the shared table (ABDADA: each puts off the subtrees another is in; the
first to finish answers and stops the rest).
"""
from __future__ import annotations

import threading
import time as _time
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from mancala._core import MAX_DEPTH, MAX_SEEDS, Searcher
from mancala._threads import Workers
from mancala.board import Board
from mancala.errors import InvalidLimitError, SearchStoppedError, quote

if TYPE_CHECKING:
    from mancala.engine import Engine, SearchLimit, SearchResult

SOLVE_GUESS_DEPTH = 8   # a cheap depth-limited search seeds the exact one with a first guess

Bounds = Callable[[int, int, int, float], None]


def solve(engine: "Engine", board: Board, limit: "SearchLimit",
          progress: Optional[Bounds]) -> "SearchResult":
    """MTD(f) to the end of the game within ``limit``'s time and nodes (see Engine.solve)."""
    from mancala.engine import SearchResult
    start = _time.perf_counter()
    done = engine._finished(board, start)
    if done is not None:
        return done
    db = engine._databases.use(board, auto=True, wait=True)
    searcher = engine._searcher
    guess, move, _, _ = searcher.search(board, 0, SOLVE_GUESS_DEPTH, True)
    nodes_used, hits = searcher.nodes, searcher.tt_hits
    # final margins have the parity of the seeds on the board: a bound of the other tightens by one
    parity = board.seeds % 2
    lower, upper = -MAX_SEEDS - 1, MAX_SEEDS + 1
    value = guess if (guess - parity) % 2 == 0 else guess + 1
    while lower < upper:
        beta = value + 1 if value == lower else value
        time_left = limit.time - (_time.perf_counter() - start) if limit.time else 0.0
        nodes_left = limit.nodes - nodes_used if limit.nodes else 0
        if (limit.time and time_left <= 0) or (limit.nodes and nodes_left <= 0):
            break
        bound, found, finished, spent, found_hits = probe(engine, board, beta, time_left, nodes_left)
        nodes_used += spent
        hits += found_hits
        if not finished:
            break
        if bound < beta:
            upper = bound if (bound - parity) % 2 == 0 else bound - 1
            value = upper
        else:
            lower = bound if (bound - parity) % 2 == 0 else bound + 1
            value, move = lower, found
        if progress is not None:
            progress(lower, upper, nodes_used, _time.perf_counter() - start)
    return SearchResult(move, value, 0, nodes_used, engine._pv(board, move, MAX_DEPTH),
                        _time.perf_counter() - start, lower == upper, hits, db)


def probe(engine: "Engine", board: Board, beta: int, time_left: float, nodes_left: int
          ) -> Tuple[int, Optional[int], bool, int, int]:
    """One null-window search of solve: (bound, move, finished, nodes, table hits)."""
    main = engine._searcher
    if not engine._helpers:
        bound, found, finished = main.probe(board, beta, time_left, nodes_left)
        return bound, found, finished, main.nodes, main.tt_hits
    searchers = [main] + engine._helpers
    lock = threading.Lock()
    answers: List[Tuple[int, Optional[int], bool]] = []

    def work(searcher: Searcher) -> None:
        answer = searcher.probe(board, beta, time_left, nodes_left, helper=searcher is not main)
        with lock:
            if answer[2] and not answers:
                answers.append(answer)
                main.abort()

    engine._rearm()
    helpers = Workers(work, [(h,) for h in engine._helpers], "mancala solve helper").start()
    try:
        work(main)
    except BaseException:   # Ctrl-C: the helpers stop too
        main.abort()
        raise
    finally:
        helpers.wait(main.abort)      # none may still search when we go on
        engine._rearm()
    spent = sum(s.nodes for s in searchers), sum(s.tt_hits for s in searchers)
    if not answers:
        return (0, None, False) + spent
    return answers[0] + spent


def optimal_moves(engine: "Engine", board: Board, value: Optional[int]) -> Tuple[int, ...]:
    """Every move that keeps the perfect-play value (see Engine.optimal_moves): one
    null-window search per move, cheaper than solving each child."""
    if board.is_game_over():
        return ()
    if value is None:
        solved = engine.solve(board)
        if not solved.exact:
            raise SearchStoppedError("optimal_moves was stopped before it had an answer")
        value = solved.score
    elif isinstance(value, bool) or not isinstance(value, int) or not -MAX_SEEDS <= value <= MAX_SEEDS:
        raise InvalidLimitError(f"the value to keep is a final margin, a whole number from "
                                f"{-MAX_SEEDS} to {MAX_SEEDS}, not {quote(value)}")
    moves = []
    for pit in board.legal_moves:
        child = board.copy(stack=False)
        record = child.push(pit)
        if child.is_game_over():
            keeps = child.outcome().score.pov(board.to_move) >= value
        else:
            engine._databases.use(child, auto=True, wait=True)
            if record.extra_turn:   # the child's value is ours: is it >= value?
                bound, _, finished = engine._searcher.probe(child, value)
                keeps = bound >= value
            else:                   # the child's value is -ours: is it <= -value?
                bound, _, finished = engine._searcher.probe(child, -value + 1)
                keeps = bound < -value + 1
            if not finished:
                raise SearchStoppedError("optimal_moves was stopped before it had an answer")
        if keeps:
            moves.append(pit)
    return tuple(moves)


__all__ = ["solve", "probe", "optimal_moves", "SOLVE_GUESS_DEPTH"]
