"""Your own puzzles: the mistakes you made in your games, made puzzles by their review.

When a game of your history is reviewed (:mod:`mancala.review`), each of your
moves marked a mistake or a blunder whose position is exact and has one move
alone that keeps its score becomes a puzzle (:func:`from_review`, by
:func:`mancala.puzzles.find`, so it is a puzzle by the same rule as the
shipped ones, with its line and rating). They are kept with the review, in
the game's row of the history (:func:`keep`), and :func:`kept` reads them
all back for ``python -m mancala puzzle --mine`` and the web page.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, List, Optional, Sequence

from mancala.errors import InputError
from mancala.puzzles.finding import SOLVE_NODES, find, unique_best
from mancala.puzzles.shipped import Puzzle
from mancala.review import Review, positions

MARKED = ("mistake", "blunder")     #: the marks whose positions become puzzles


def from_review(review: Review, side: int, engine: Any = None, *,
                nodes: int = SOLVE_NODES, game: Optional[int] = None) -> List[Puzzle]:
    """The puzzles in ``side``'s mistakes and blunders of ``review``: the positions
    where the review is exact and exactly one move keeps the score (by at least
    :data:`mancala.puzzles.MIN_GAP`), each with its line, in the game's order.
    ``game`` is the game's number in the history, named in each puzzle's source."""
    boards = positions(review.seeds, review.capture, [move.pit_index for move in review.moves])
    found = []
    for move, board in zip(review.moves, boards):
        if move.side != side or move.mark not in MARKED or not move.exact \
                or unique_best(dict(move.scores)) is None:
            continue
        if engine is None:
            from mancala.engine import Engine
            engine = Engine(hash_mb=32)
        puzzle = find(board, engine, nodes=nodes)
        if puzzle is not None:
            where = f"move {move.number}" if game is None else f"game {game}, move {move.number}"
            found.append(replace(puzzle, source=f"{where}: you played {move.pit_index + 1}, "
                                                f"a {move.mark}"))
    return found


def keep(history: Any, game_id: int, review: Review, puzzles: Sequence[Puzzle]) -> bool:
    """Keep a game's review and the puzzles made of it, together, in the history
    (a :class:`mancala.history.History`); False if there is no such game."""
    data = review.to_json()
    data["puzzles"] = [puzzle.to_json() for puzzle in puzzles]
    return history.keep_review(game_id, data)


def kept(history: Any) -> List[Puzzle]:
    """Every puzzle kept with the reviews of ``history``'s games, oldest game first
    (one that does not read as a puzzle is passed over). HistoryError if the
    history cannot be read."""
    found = []
    for _, data in sorted(history.reviews().items()):
        if not isinstance(data, dict) or not isinstance(data.get("puzzles"), list):
            continue
        for entry in data["puzzles"]:
            try:
                found.append(Puzzle.from_json(entry))
            except (InputError, ValueError):
                continue
    return found


__all__ = ["from_review", "keep", "kept", "MARKED"]
