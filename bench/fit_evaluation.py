"""Fit the learned evaluation's weights (mancala/_learned.py) to exact values.

    python bench/fit_evaluation.py generate FILE [--seconds S] [--seed N] [--solve-time S] [--search-depth D]
    python bench/fit_evaluation.py fit FILE... [--hold-out FILE] [--exact-only]

generate appends positions to FILE (JSON lines: the 14 slots from the mover's
view, then the exact final margin from the mover's view) from Kalah(6,4)
games the engine plays against itself at depths 6 to 10, one move in seven
random; each position the solver settles within its time (1.5 s, 5 s once
40 seeds or fewer are in the pits; --solve-time S for another limit) is kept.
Build an endgame database first (`python -m mancala solve --endgame 22`): the
solves are then quick, and almost every position with 41 seeds or fewer in
the pits is settled in a fifth of a second. With --search-depth D, a position
the solver does not settle (the opening's) is kept too, labelled by a depth-D
search with the learned evaluation (a line [view, value, D]): the best guess
there is, as engines' training data is labelled by search.

fit finds, by least squares, the weights that best predict what the rest of
the game adds to the store difference, with the terms of mancala._reference.
learned_terms blended by the share of seeds in the pits (midgame, endgame),
and prints them in 64ths of a seed for mancala/_learned.py, with the error
(root mean square, in seeds) of the store difference, the positional
evaluation, the learned one as shipped and the fit, on the fitted positions
and on a held-out file.
A FILE ending in .xz is read compressed. bench/data/evaluation-positions-*.jsonl.xz
hold 60,533 positions generated so (2026-11-24, `--seconds 1800 --solve-time
0.2 --search-depth 18`, seeds 21 and 22, the 22-seed database cached):
53,170 solved exactly, 7,363 from the opening labelled by search. It needs
numpy (`pip install numpy`; the `rl` extra has it too).
"""
import argparse
import json
import lzma
import math
import random
import time

from mancala import Board, Engine
from mancala import _reference
from mancala._learned import COUNTS, FACING, SCALE, TOTALS

TERMS = 19          # the weighted terms before the tables' cells (mancala._learned)

RIDGE = 1e-3        # shrinkage per position, for terms that seldom vary (table cells)


def generate(path, seconds, seed, solve_time=None, search_depth=0):
    rng = random.Random(seed)
    player, solver = Engine(hash_mb=16, endgame=None), Engine(hash_mb=256)
    searcher = Engine(hash_mb=64, evaluation="learned") if search_depth else None
    end = time.monotonic() + seconds
    with open(path, "a") as out:
        while time.monotonic() < end:
            board = Board()
            solver.clear()
            while not board.is_game_over():
                slots = board.pits
                view = slots if board.to_move == 0 else slots[7:] + slots[:7]
                in_pits = sum(slots) - slots[6] - slots[13]
                if board.ply >= 2:
                    result = solver.solve(board, time=solve_time or (1.5 if in_pits > 40 else 5))
                    if result.exact:
                        out.write(json.dumps([view, result.score]) + "\n")
                    elif search_depth:
                        score = searcher.search(board, depth=search_depth).score
                        out.write(json.dumps([view, score, search_depth]) + "\n")
                if board.ply < 2 or rng.random() < 1 / 7:
                    board.push(rng.choice(list(board.legal_moves)))
                else:
                    board.push(player.search(board, depth=rng.choice((6, 8, 10))).move)
            out.flush()


def load(paths, exact_only=False):
    rows = []
    for path in paths:
        with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as lines:
            for line in lines:
                view, value, *searched = json.loads(line)
                if searched and exact_only:
                    continue
                if sum(view[0:6]) and sum(view[7:13]):      # a finished game needs no guess
                    rows.append((view, value - view[6] + view[13]))
    return rows


def terms(view):
    share = (sum(view) - view[6] - view[13]) / sum(view)
    plain = _reference.learned_terms(view, 0, _reference.STANDARD)
    return [t * share for t in plain] + [t * (1 - share) for t in plain]


def solve_least_squares(rows):
    """The weights minimising the squared error plus RIDGE * positions * |weights|^2."""
    import numpy                # fitting's one dependency: pip install numpy
    x = numpy.array([terms(view) for view, _ in rows], dtype=float)
    y = numpy.array([value for _, value in rows], dtype=float)
    a = x.T @ x + RIDGE * len(rows) * numpy.eye(x.shape[1])
    return [float(w) for w in numpy.linalg.solve(a, x.T @ y)]


def errors(rows, weights):
    def rms(guess):
        return math.sqrt(sum((guess(view) - y) ** 2 for view, y in rows) / len(rows))
    positional = lambda v: _reference.evaluate(v, 0, _reference.STANDARD, _reference.POSITIONAL) - v[6] + v[13]
    shipped = lambda v: _reference._learned_term(v, 0, _reference.STANDARD)
    fitted = lambda v: sum(w * t for w, t in zip(weights, terms(v)))
    return (f"store {rms(lambda v: 0):.2f}, positional {rms(positional):.2f}, "
            f"learned as shipped {rms(shipped):.2f}, fit {rms(fitted):.2f}")


def print_weights(weights):
    """The weights in mancala/_learned.py's form, in SCALEths of a seed."""
    half = len(weights) // 2
    for phase, part in (("MIDGAME", weights[:half]), ("ENDGAME", weights[half:])):
        scaled = [round(w * SCALE) for w in part]
        print(f"{phase} = ({', '.join(map(str, scaled[:TERMS]))})")
        start = TERMS
        for table, rows, columns in (("PITS", 12, COUNTS), ("TOTALS", 2, TOTALS), ("FACING", 12, FACING)):
            print(f"{phase}_{table} = (")
            for row in range(rows):
                print(f"    ({', '.join(map(str, scaled[start:start + columns]))}),")
                start += columns
            print(")")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("file")
    g.add_argument("--seconds", type=float, default=600)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--solve-time", type=float, help="seconds a solve may take")
    g.add_argument("--search-depth", type=int, default=0,
                   help="label what the solver does not settle by a search this deep")
    f = sub.add_parser("fit")
    f.add_argument("files", nargs="+")
    f.add_argument("--hold-out")
    f.add_argument("--exact-only", action="store_true", help="leave out the search-labelled positions")
    args = p.parse_args()
    if args.command == "generate":
        return generate(args.file, args.seconds, args.seed, args.solve_time, args.search_depth)
    rows = load(args.files, args.exact_only)
    weights = solve_least_squares(rows)
    print_weights(weights)
    print(f"root mean square error in seeds over {len(rows)} positions: {errors(rows, weights)}")
    if args.hold_out:
        held = load([args.hold_out], args.exact_only)
        print(f"over {len(held)} held-out positions: {errors(held, weights)}")


if __name__ == "__main__":
    main()
