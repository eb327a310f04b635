"""Time to depth on one thread and on several: how much a search's threads buy.

    python bench/thread_scaling.py [--threads 1 2] [--rounds 3] [--depths 4:20,5:18,6:17]
    python bench/thread_scaling.py --make          # the positions, once (bench/data)

The positions (bench/data/thread_positions.txt, 30 of them) come from real
games: ten games each of Kalah(6,4), (6,5) and (6,6), standard capture, the
engine against itself at 0.05 s a move (play mode, no endgame database), game i
from the i-th 2-ply opening, and from game i the position after move 8 + i
(--make plays them again; the games vary with the machine's speed, so the file
is kept). A position the search solves before the depth asked is still timed.

Each round searches every position with ``Engine(threads=T, endgame=None).search
(board, depth=D)`` for each thread count T, a fresh engine (64 MB table) each
time, alternating which count goes first; D by seeds per pit (--depths). Printed
per seed count and over all: each count's total time and node rate (nodes a
second, every thread's), and the speed-up against the first count: the ratio of
total times, and the geometric mean of each position's ratio (its time per round
summed over the rounds). The load average is printed before and after:
two threads on two cores measure what they should only on a quiet machine.
"""
import argparse
import math
import os
import sys
import time
from pathlib import Path

from mancala import Board, Engine
from mancala.openings import opening_suite
from mancala.positions import Position, load_positions

POSITIONS = Path(__file__).parent / "data" / "thread_positions.txt"
SEEDS = (4, 5, 6)
GAMES = 10


def make_positions(path: Path) -> None:
    lines = ["# Positions from real games for bench/thread_scaling.py (--make wrote them):",
             "# the engine against itself at 0.05 s a move, no endgame database; game i of",
             "# Kalah(6,N) from its i-th 2-ply opening, the position after move 8 + i."]
    for seeds in SEEDS:
        suite = opening_suite(2, seeds)
        for game in range(GAMES):
            board = Board(seeds=seeds)
            for pit in suite[game]:
                board.push(pit)
            engines = (Engine(endgame=None), Engine(endgame=None))
            target = 8 + game
            while board.ply < target and not board.is_game_over():
                board.push(engines[board.to_move].search(board, time=0.05).move)
            if board.is_game_over():
                sys.exit(f"game {game} of {seeds} seeds ended before move {target}")
            name = f"s{seeds}-g{game}-m{target}"
            lines.append(Position(name, tuple(board.pits), board.to_move, "standard").line())
            print(lines[-1], flush=True)
    path.write_text("\n".join(lines) + "\n")


def parse_depths(text: str) -> dict:
    depths = {}
    for item in text.split(","):
        seeds, _, depth = item.partition(":")
        depths[int(seeds)] = int(depth)
    return depths


def seeds_of(position: Position) -> int:
    return int(position.name.split("-")[0][1:])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--depths", type=parse_depths, default=parse_depths("4:20,5:18,6:17"))
    p.add_argument("--positions", type=Path, default=POSITIONS)
    p.add_argument("--make", action="store_true", help="play the games and write the positions")
    args = p.parse_args()
    if args.make:
        make_positions(args.positions)
        return
    positions = load_positions(args.positions)
    counts = args.threads
    seconds = {(t, pos.name): 0.0 for t in counts for pos in positions}
    nodes = {(t, pos.name): 0 for t in counts for pos in positions}
    print(f"load average {os.getloadavg()[0]:.2f}; depths {args.depths}; threads {counts}; "
          f"{len(positions)} positions, {args.rounds} rounds", flush=True)
    began = time.perf_counter()
    for round_ in range(args.rounds):
        for i, pos in enumerate(positions):
            order = counts if (round_ + i) % 2 == 0 else counts[::-1]
            for t in order:
                engine = Engine(threads=t, endgame=None)
                board = pos.board()
                start = time.perf_counter()
                result = engine.search(board, depth=args.depths[seeds_of(pos)])
                seconds[t, pos.name] += time.perf_counter() - start
                nodes[t, pos.name] += result.nodes
        print(f"round {round_ + 1} done, load average {os.getloadavg()[0]:.2f}", flush=True)
    groups = [(f"{s} seeds", [p for p in positions if seeds_of(p) == s]) for s in SEEDS]
    groups.append(("all", positions))
    base = counts[0]
    print(f"{'':9} {'threads':>7} {'seconds':>8} {'M nodes/s':>9} {'speed-up':>8} {'(geo mean)':>10}")
    for label, group in groups:
        if not group:
            continue
        for t in counts:
            total = sum(seconds[t, p.name] for p in group)
            rate = sum(nodes[t, p.name] for p in group) / total / 1e6
            ratio = sum(seconds[base, p.name] for p in group) / total
            geo = math.exp(sum(math.log(seconds[base, p.name] / seconds[t, p.name]) for p in group)
                           / len(group))
            print(f"{label:9} {t:7d} {total:8.2f} {rate:9.2f} {ratio:8.2f} {geo:10.2f}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end; {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
