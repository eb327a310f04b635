"""Opening suites for matches: the start and every position a few plies in.

``opening_suite(2)`` is the start of Kalah(6,4) followed by every 2-move
opening: the distinct positions after exactly two plies (two sowings) from the
start. An extra turn means the same player sowed twice (South's pit 3, whose
last seed lands in its store, then any South move), so a 2-move opening is
not always "one move each". Lines that reach the same position (the same 14
slots and the same side to move) count once, kept under their first line in
sorted order; lines that end the game are left out. ``opening_suite(0)`` is
the start alone.

Each opening is the tuple of its pit indices (0..5 from each mover's left);
the arena plays each one twice with sides swapped (a game pair).

    >>> len(opening_suite(0)), opening_suite(0)[0]
    (1, ())
    >>> opening_lines(1)
    [(0,), (1,), (2,), (3,), (4,), (5,)]
"""
from __future__ import annotations

from functools import lru_cache
from typing import Dict, List, Tuple

from mancala.board import Board
from mancala.limits import DEFAULT_SEEDS, check_whole

MAX_OPENING_PLIES = 4       # 6**4 lines at most: a suite, not an opening book

Opening = Tuple[int, ...]


def opening_lines(plies: int, seeds: int = DEFAULT_SEEDS, capture: str = "standard") -> List[Opening]:
    """The distinct unfinished positions exactly ``plies`` plies from the start, as move lines.

    InvalidLimitError unless ``plies`` is 0..4; InvalidRuleError for bad rules.
    """
    check_whole(plies, "opening plies", 0, MAX_OPENING_PLIES)
    return list(_lines(plies, seeds, capture))


@lru_cache(maxsize=16)      # the arena asks for its suite at every game
def _lines(plies: int, seeds: int, capture: str) -> Tuple[Opening, ...]:
    seen: Dict[Tuple[Tuple[int, ...], int], Opening] = {}

    def walk(board: Board, line: Opening) -> None:
        if board.is_game_over():
            return
        if len(line) == plies:
            seen.setdefault((tuple(board.pits), board.to_move), line)
            return
        for pit in board.legal_moves:
            board.push(pit)
            walk(board, line + (pit,))
            board.pop()

    walk(Board(seeds=seeds, capture=capture), ())
    return tuple(sorted(seen.values()))


def opening_suite(plies: int, seeds: int = DEFAULT_SEEDS, capture: str = "standard") -> List[Opening]:
    """The start, then every ``plies``-ply opening (:func:`opening_lines`); just the start for 0."""
    lines = opening_lines(plies, seeds, capture)
    return lines if plies == 0 else [()] + lines


__all__ = ["opening_suite", "opening_lines", "MAX_OPENING_PLIES", "Opening"]
