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
from dataclasses import replace
from typing import Callable, List, Optional, Tuple

from mancala._core import MAX_SEEDS
from mancala._threads import Workers
from mancala.board import Board
from mancala.errors import InvalidLimitError, SearchStoppedError, quote
from mancala.parallel import Team
from mancala.search_values import Found, SearchRequest, SearchResult, SearchRole

# The first guess: a depth-limited search, which also leaves its moves in the table for the
# proof's ordering. Depth 14 against 8 cost fewer nodes on each solve measured (Kalah(6,4)
# 101.0 M -> 98.0 M, five Kalah(6,5) positions 107.4 M -> 66.5 M: docs/perfect-play.md)
SOLVE_GUESS_DEPTH = 14

Bounds = Callable[[int, int, int, float], None]


def mtdf(team: Team, board: Board, request: SearchRequest, progress: Optional[Bounds],
         start: float) -> Found:
    """MTD(f) to the end of the game within ``request``'s time and nodes, counted from
    ``start`` (see Engine.solve): the value (exact, and finished, once the bounds
    meet; else the best bound known), a move that reaches it, nodes and table hits."""
    guess = team.main.search(board, SearchRequest(depth=SOLVE_GUESS_DEPTH))
    move, nodes_used, hits = guess.move, guess.nodes, guess.tt_hits
    # final margins have the parity of the seeds on the board: a bound of the other tightens by one
    parity = board.seeds % 2
    lower, upper = -MAX_SEEDS - 1, MAX_SEEDS + 1
    value = guess.score if (guess.score - parity) % 2 == 0 else guess.score + 1
    while lower < upper:
        beta = value + 1 if value == lower else value
        time_left = request.time - (_time.perf_counter() - start) if request.time else 0.0
        nodes_left = request.nodes - nodes_used if request.nodes else 0
        if (request.time and time_left <= 0) or (request.nodes and nodes_left <= 0):
            break
        found = probe(team, board, replace(request, beta=beta, time=time_left, nodes=nodes_left))
        nodes_used += found.nodes
        hits += found.tt_hits
        if not found.finished:
            break
        bound = found.score
        if bound < beta:
            upper = bound if (bound - parity) % 2 == 0 else bound - 1
            value = upper
        else:
            lower = bound if (bound - parity) % 2 == 0 else bound + 1
            value, move = lower, found.move
        if progress is not None:
            progress(lower, upper, nodes_used, _time.perf_counter() - start)
    return Found(score=value, move=move, exact=lower == upper, finished=lower == upper,
                 nodes=nodes_used, tt_hits=hits)


def probe(team: Team, board: Board, request: SearchRequest) -> Found:
    """One null-window search of solve (``request.beta``): is the value at least beta?
    With helpers, the first thread to settle it answers (nodes: every thread's)."""
    main, helpers = team.main, team.helpers
    if not helpers:
        return main.search(board, request)
    lock = threading.Lock()
    answers: List[Found] = []      # the first settled answer
    spent: List[Found] = []        # every thread's, for the nodes

    def work(searcher) -> None:
        answer = searcher.search(board, request, SearchRole(helper=searcher is not main, defer=True))
        with lock:
            spent.append(answer)
            if answer.finished and not answers:
                answers.append(answer)
                main.abort()

    team.rearm()
    running = Workers(work, [(h,) for h in helpers], "mancala solve helper").start()
    try:
        if running.late is None:    # a Ctrl-C kept by start: wait raises it (not after a whole search)
            work(main)
    except BaseException:   # Ctrl-C: the helpers stop too
        main.abort()
        raise
    finally:
        running.wait(main.abort)      # none may still search when we go on
        team.rearm()
    return replace(answers[0] if answers else Found(), nodes=sum(found.nodes for found in spent),
                   tt_hits=sum(found.tt_hits for found in spent))


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
