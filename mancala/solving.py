"""Solving: the exact perfect-play value by null-window searches (MTD(f)).

This is :meth:`mancala.Engine.solve`'s, :meth:`~mancala.Engine.null_window`'s
and :meth:`~mancala.Engine.optimal_moves`' work, on the compiled searchers
the engine holds: :func:`mtdf` narrows the value from a first guess with one
null-window search after another; :func:`probe` runs one of them, on the
main searcher or, with helper threads, on all of them in the shared table
(ABDADA: each puts off the subtrees another is in; the first to finish
answers and stops the rest); :func:`optimal_moves` asks one such question
per move.
"""
from __future__ import annotations

import threading
import time as _time
from typing import Callable, List, Optional, Sequence, Tuple

from mancala._core import MAX_SEEDS, Searcher
from mancala._threads import Workers
from mancala.board import Board
from mancala.errors import InvalidLimitError, SearchStoppedError, quote
from mancala.search_values import SearchLimit, SearchResult

SOLVE_GUESS_DEPTH = 8   # a cheap depth-limited search seeds the exact one with a first guess

Bounds = Callable[[int, int, int, float], None]
#: (bound, move, finished, nodes, table hits) of one null-window search
Probe = Tuple[int, Optional[int], bool, int, int]


def mtdf(main: Searcher, helpers: Sequence[Searcher], board: Board, limit: SearchLimit,
         progress: Optional[Bounds], rearm: Callable[[], None], start: float
         ) -> Tuple[int, Optional[int], bool, int, int]:
    """(value, move, exact, nodes, table hits): MTD(f) to the end of the game within
    ``limit``'s time and nodes, counted from ``start`` (see Engine.solve). ``rearm``
    lets searches run again after the helpers' stop (Engine._rearm)."""
    guess, move, _, _ = main.search(board, 0, SOLVE_GUESS_DEPTH, True)
    nodes_used, hits = main.nodes, main.tt_hits
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
        bound, found, finished, spent, found_hits = probe(main, helpers, board, beta, time_left,
                                                          nodes_left, rearm)
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
    return value, move, lower == upper, nodes_used, hits


def probe(main: Searcher, helpers: Sequence[Searcher], board: Board, beta: int,
          time_left: float, nodes_left: int, rearm: Callable[[], None]) -> Probe:
    """One null-window search of solve: is the value at least ``beta``?"""
    if not helpers:
        bound, found, finished = main.probe(board, beta, time_left, nodes_left)
        return bound, found, finished, main.nodes, main.tt_hits
    searchers = [main, *helpers]
    lock = threading.Lock()
    answers: List[Tuple[int, Optional[int], bool]] = []

    def work(searcher: Searcher) -> None:
        answer = searcher.probe(board, beta, time_left, nodes_left, helper=searcher is not main)
        with lock:
            if answer[2] and not answers:
                answers.append(answer)
                main.abort()

    rearm()
    running = Workers(work, [(h,) for h in helpers], "mancala solve helper").start()
    try:
        if running.late is None:    # a Ctrl-C kept by start: wait raises it (not after a whole search)
            work(main)
    except BaseException:   # Ctrl-C: the helpers stop too
        main.abort()
        raise
    finally:
        running.wait(main.abort)      # none may still search when we go on
        rearm()
    spent = sum(s.nodes for s in searchers), sum(s.tt_hits for s in searchers)
    if not answers:
        return (0, None, False) + spent
    return answers[0] + spent


def optimal_moves(board: Board, value: Optional[int], solve: Callable[[Board], SearchResult],
                  null_window: Callable[[Board, int], Tuple[int, bool]]) -> Tuple[int, ...]:
    """Every move that keeps the perfect-play value (see Engine.optimal_moves): one
    null-window search per move, cheaper than solving each child. ``solve(board)``
    finds the value when it is not given; ``null_window(child, beta)`` is
    (fail-soft bound, finished) of the child's value against ``beta``."""
    if board.is_game_over():
        return ()
    if value is None:
        solved = solve(board)
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
            # after an extra turn the child's value is ours: is it >= value? else it is
            # -ours: is it <= -value, below -value + 1?
            ours = record.extra_turn
            beta = value if ours else -value + 1
            bound, finished = null_window(child, beta)
            if not finished:
                raise SearchStoppedError("optimal_moves was stopped before it had an answer")
            keeps = bound >= beta if ours else bound < beta
        if keeps:
            moves.append(pit)
    return tuple(moves)


__all__ = ["mtdf", "probe", "optimal_moves", "SOLVE_GUESS_DEPTH"]
