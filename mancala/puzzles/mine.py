"""Your own puzzles: the mistakes you made in your games, made puzzles by their review.

When a game of your history is reviewed (:mod:`mancala.review`), each of your
moves marked a mistake or a blunder whose position is exact and has one move
alone that keeps its score can become a puzzle (:func:`candidates`;
:func:`from_review` makes them, by :func:`mancala.puzzles.find`, so each is a
puzzle by the same rule as the shipped ones, with its line and rating). They
are made the first time they are asked for, not when the review is shown
(solving them takes a second or two): :func:`kept` makes those of every
reviewed game that has none yet, keeps them with its review in the game's row
of the history (:func:`keep`), and returns them all, for ``python -m mancala
puzzle --mine`` and the web page.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence

from mancala.engine import Engine
from mancala.errors import InputError
from mancala.limits import MINE_HASH_MB
from mancala.puzzles.finding import SOLVE_NODES, find, unique_best
from mancala.puzzles.shipped import Puzzle
from mancala.review import Review, positions

MARKED = ("mistake", "blunder")     #: the marks whose positions become puzzles


def candidates(review: Review, side: int) -> List[int]:
    """The numbers of ``side``'s moves in ``review`` that :func:`from_review` makes
    puzzles of: a mistake or a blunder, its scores exact, one move alone best by at
    least :data:`mancala.puzzles.MIN_GAP` (no search: the review's own scores)."""
    return [move.number for move in review.moves
            if move.side == side and move.mark in MARKED and move.exact
            and unique_best(dict(move.scores)) is not None]


def from_review(review: Review, side: int, engine: Any = None, *,
                nodes: int = SOLVE_NODES, game: Optional[int] = None) -> List[Puzzle]:
    """The puzzles in ``side``'s mistakes and blunders of ``review``: the positions
    where the review is exact and exactly one move keeps the score (by at least
    :data:`mancala.puzzles.MIN_GAP`), each with its line, in the game's order.
    ``game`` is the game's number in the history, named in each puzzle's source."""
    boards = positions(review.seeds, review.capture, [move.pit_index for move in review.moves])
    chosen = set(candidates(review, side))
    found = []
    for move, board in zip(review.moves, boards):
        if move.number not in chosen:
            continue
        if engine is None:
            engine = Engine(hash_mb=MINE_HASH_MB)
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


def waiting(history: Any) -> Dict[int, int]:
    """{game id: the side of the person who played it} of the reviewed games of
    ``history`` whose puzzles are not made yet (HistoryError if it cannot be read)."""
    reviews = history.reviews()
    return {game.id: game.human for game in history.games()
            if game.human is not None and isinstance(reviews.get(game.id), dict)
            and "puzzles" not in reviews[game.id]}


def kept(history: Any, engine: Any = None) -> List[Puzzle]:
    """Every puzzle kept with the reviews of ``history``'s games, oldest game first
    (one that does not read as a puzzle is passed over), those of the reviewed games
    that have none yet made first (:func:`waiting`; a review that does not read is
    passed over). HistoryError if the history cannot be read or written."""
    reviews = history.reviews()
    for game_id, side in waiting(history).items():
        try:
            review = Review.from_json(reviews[game_id])
        except (InputError, ValueError):
            continue
        made = from_review(review, side, engine, game=game_id)
        keep(history, game_id, review, made)
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


__all__ = ["candidates", "from_review", "keep", "kept", "waiting", "MARKED"]
