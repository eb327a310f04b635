"""Finding puzzles in positions and rating them (:func:`find`, :func:`rating`).

What makes a position a puzzle, and its solution line, is told in
:mod:`mancala.puzzles`; ``bench/make_puzzles.py`` runs :func:`find` over
engine games to make the shipped ones.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from mancala.board import Board
from mancala.engine import Engine
from mancala.geometry import NORTH, SOUTH, store_slot
from mancala.limits import SMALL_HASH_MB
from mancala.puzzles.shipped import Puzzle, puzzle_id
from mancala.review import solved_values

MIN_GAP = 2                     #: every other move loses at least this many seeds
MAX_SOLVER_MOVES = 3            #: no answer after the solver's third move (a chain of extra turns may finish)
SOLVE_NODES = 2_000_000         #: a position's budget for solving its moves (generation)
FIND_DEPTH_LIMIT = 16           #: the deepest search :func:`find_depth` runs
#: the rating's parts (see :func:`rating`)
BASE_RATING, PER_DEPTH, PER_MOVE = 700, 90, 150
GAP_BONUS = {2: 250, 4: 100}    #: seeds the second-best move loses -> added rating
TWO_MOVES = -200                #: only two legal moves at the first step: a coin would solve half
MIN_RATING, MAX_RATING = 400, 2800


def unique_best(values: Dict[int, int], min_gap: int = MIN_GAP) -> Optional[Tuple[int, int]]:
    """(the move, seeds the second-best loses) when exactly one move is best and
    every other loses at least ``min_gap``; None otherwise (one legal move included)."""
    if len(values) < 2:
        return None
    ranked = sorted(values.items(), key=lambda item: -item[1])
    gap = ranked[0][1] - ranked[1][1]
    return (ranked[0][0], gap) if gap >= min_gap else None


def decided(board: Board) -> bool:
    """A store holds more than half the seeds: who wins is known whatever is played."""
    return 2 * max(board.pits[store_slot(SOUTH)], board.pits[store_slot(NORTH)]) > board.seeds


def find(board: Board, engine: Engine, *, nodes: int = SOLVE_NODES,
         searcher: Optional[Engine] = None) -> Optional[Puzzle]:
    """The puzzle at ``board`` (the side to move solves it), or None if it is
    none: the game is decided (:func:`decided`), not exactly one move keeps the
    value, a solve does not finish within ``nodes`` (each position's budget),
    or no line ends where the solver's turn passes. ``engine`` solves (with its
    endgame database, if any); ``searcher`` runs :func:`find_depth` (default: a
    small one with no database)."""
    if board.is_game_over() or decided(board):
        return None
    start = board.copy(stack=False)
    values = solved_values(engine, start, nodes=nodes)
    found = unique_best(values) if values else None
    if found is None:
        return None
    solver = start.to_move
    value = max(values.values())
    line: List[int] = []
    gaps: List[int] = []
    steps: List[Tuple[Board, int]] = []
    ends: List[Tuple[int, int]] = []        # (moves, solver moves) of the line where the turn passes
    position = start.copy(stack=False)
    while found is not None:
        move, gap = found
        steps.append((position.copy(stack=False), move))
        gaps.append(gap)
        line.append(move)
        position.push(move)
        found = None
        if position.is_game_over() or position.to_move != solver:
            ends.append((len(line), len(steps)))
        if position.is_game_over():
            break
        if position.to_move == solver:      # an extra turn: the chain goes on, or the line is cut
            again = solved_values(engine, position, nodes=nodes)
            found = unique_best(again) if again else None
            continue
        if len(steps) >= MAX_SOLVER_MOVES:
            break
        answer = _answer(engine, position, solver, nodes)
        if answer is not None:
            replies, found = answer
            for reply in replies:
                line.append(reply)
                position.push(reply)
    if not ends:                            # every line would end with the solver still to move
        return None
    kept, count = ends[-1]
    line, steps, gaps = line[:kept], steps[:count], gaps[:count]
    searcher = searcher if searcher is not None else Engine(hash_mb=SMALL_HASH_MB, endgame=None)
    depth = max(find_depth(searcher, step, move) for step, move in steps)
    return Puzzle(puzzle_id(start.pits, solver, start.capture), tuple(start.pits), solver,
                  start.capture, tuple(line), rating(depth, len(steps), min(gaps),
                                                    len(start.legal_moves)),
                  value, min(gaps), depth)


def _answer(engine: Engine, board: Board, solver: int, nodes: int
            ) -> Optional[Tuple[List[int], Tuple[int, int]]]:
    """The opponent's moves that keep its value, the first in pit order after
    which the solver has a unique move: (the moves, (that move, its gap))."""
    values = solved_values(engine, board, nodes=nodes)
    if not values:
        return None
    best = max(values.values())
    for reply in sorted(pit for pit, value in values.items() if value == best):
        child = board.copy(stack=False)
        child.push(reply)
        if child.is_game_over():
            continue
        if child.to_move == solver:
            again = solved_values(engine, child, nodes=nodes)
            found = unique_best(again) if again else None
            if found is not None:
                return [reply], found
        else:
            deeper = _answer(engine, child, solver, nodes)
            if deeper is not None:
                return [reply] + deeper[0], deeper[1]
    return None


def find_depth(searcher: Engine, board: Board, move: int, limit: int = FIND_DEPTH_LIMIT) -> int:
    """The smallest depth from which a depth-limited search (``searcher``'s
    evaluation, its table cleared first) plays ``move`` at every depth up to
    ``limit``; ``limit + 1`` if it does not play it at ``limit``."""
    searcher.clear()
    chosen: Dict[int, Optional[int]] = {}
    searcher.search(board, depth=limit,
                    progress=lambda info: chosen.__setitem__(info.depth, info.move))
    last = max(chosen)          # a search that reaches every end stops before the limit
    if chosen[last] != move:
        return limit + 1
    depth = last
    while depth > 1 and chosen.get(depth - 1) == move:
        depth -= 1
    return depth


def rating(depth: int, solver_moves: int, gap: int, legal_moves: int) -> int:
    """A puzzle's rating from what makes it hard, on the players' Elo scale:

    ``BASE_RATING`` (700) + ``PER_DEPTH`` (90) a ply of search depth past the
    first that the solver's moves need (:func:`find_depth`) + ``PER_MOVE`` (150)
    for each solver move past the first + ``GAP_BONUS`` when the second-best
    move loses only 2 seeds (250) or 4 (100) + ``TWO_MOVES`` (-200) when the
    first step has only two legal moves; within 400..2800, to the nearest 10.
    """
    value = (BASE_RATING + PER_DEPTH * (depth - 1) + PER_MOVE * (solver_moves - 1)
             + GAP_BONUS.get(gap, 0) + (TWO_MOVES if legal_moves == 2 else 0))
    return int(round(max(MIN_RATING, min(MAX_RATING, value)), -1))


__all__ = ["find", "find_depth", "rating", "unique_best", "decided", "MIN_GAP", "MAX_SOLVER_MOVES"]
