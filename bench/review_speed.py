"""How fast a game is reviewed (docs/review.md): the first mark, the whole review, and
the review opened again from the history.

    python bench/review_speed.py GAME.json                 # the cached endgame database, if any
    python bench/review_speed.py GAME.json --no-database   # none (MANCALA_CACHE of nothing)
    python bench/review_speed.py GAME.json --before        # the former way: every position, first to last

GAME.json is a save file (``play``'s ``save``). Times are CPU seconds of this
process (``time.process_time``) and wall seconds beside them: on a shared
machine the wall clock follows the load, the CPU time much less. ``--before``
reviews as the package did before reviews streamed: the first move first, each
position's solves tried to the whole node budget, a fresh 128 MB table
(``review_move`` over the moves in order).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def clock():
    return time.process_time(), time.perf_counter()


def since(start):
    cpu, wall = clock()
    if wall - start[1] < 0.1:
        return f"{1000 * (cpu - start[0]):.1f} ms CPU ({1000 * (wall - start[1]):.1f} ms wall)"
    return f"{cpu - start[0]:.2f} s CPU ({wall - start[1]:.2f} s wall)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a save file")
    parser.add_argument("--no-database", action="store_true", help="no endgame database")
    parser.add_argument("--before", action="store_true", help="the former way of reviewing")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="review-speed-")
    if args.no_database:
        os.environ["MANCALA_CACHE"] = folder
    from mancala import Board, Engine, review, storage
    from mancala.history import History

    game = storage.load(args.game)
    print(f"{args.game}: {len(game.moves)} moves, Kalah(6,{game.seeds}) capture {game.capture}, "
          f"{'no database' if args.no_database else 'the cached database'}"
          f"{', the former way' if args.before else ''}")
    start = clock()
    reviewed, first_mark = [], None
    if args.before:
        def former():
            engine, board = Engine(hash_mb=128), Board(seeds=game.seeds, capture=game.capture)
            for number, pit in enumerate(game.moves, 1):
                yield review.review_move(engine, board, pit, number)
                board.push(pit)
        stream = former()
    else:
        stream = review.review_moves(game.seeds, game.capture, game.moves)
    for move in stream:
        if not reviewed:
            print(f"  first move reviewed (move {move.number}): {since(start)}")
        reviewed.append(move)
        if move.mark and first_mark is None:
            first_mark = move.number
            print(f"  first mark (move {move.number}, {move.mark}): {since(start)}")
    exact = sum(move.exact for move in reviewed)
    print(f"  whole review: {since(start)}, {exact} of {len(reviewed)} moves exact")
    whole = review.Review(game.seeds, game.capture,
                          tuple(sorted(reviewed, key=lambda move: move.number)))
    history = History(Path(folder) / "history.sqlite3")
    if not game.board().is_game_over():
        print("  (the game is not over: the history keeps finished games only)")
        return 0
    kept = history.record("human", "ai:medium", game.seeds, game.capture, game.moves)
    review.keep_review(history, kept.id, whole)
    start = clock()
    again = review.kept_review(History(history.path), kept.id, game.seeds, game.capture,
                               game.moves)
    assert again == whole
    print(f"  opened again from the history: {since(start)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
