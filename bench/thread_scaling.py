"""Time to depth on one thread and on several: how much a search's threads buy.

    python bench/thread_scaling.py [--threads 1 2] [--rounds 3] [--depths 4:21,5:19,6:18]
                                   [--others 0.1] [--without-defer] [--json FILE]
    python bench/thread_scaling.py --make          # the positions, once (bench/data)

The positions (bench/data/thread_positions.txt, 30 of them) come from real
games: ten games each of Kalah(6,4), (6,5) and (6,6), standard capture, the
engine against itself at 0.05 s a move (play mode, no endgame database), game i
from the i-th 2-ply opening, and from game i the position after move 8 + i
(--make plays them again; the games vary with the machine's speed, so the file
is kept). A position the search solves before the depth asked is still timed.

Each round searches every position with ``Engine(threads=T, endgame=None).search
(board, depth=D)`` for each thread count T, a fresh engine (64 MB table) each
time, alternating which count goes first; D by seeds per pit (--depths).
With --without-defer each count above one is measured a second time with
the threads' deferral off (mancala.parallel.DEFER: plain Lazy SMP, as it was
before issue 42), in the same alternation.

Two threads on two cores measure what they should in wall time only when
nothing else runs: the machine's CPU time (/proc/stat) less this process's
own is what others used. With --others X, before each position's searches the
script waits till others use under X of a core for a second, and a position's
searches during which others used more than that (on average) are measured
again (up to 20 tries). Beside the wall time, the CPU time of the thread
that called the search (``time.thread_time()``: the first thread, which runs
from the search's start to its end): it is the time to depth the thread count
would take with a core for each thread and nothing else running (threads
never wait for one another: the helpers share its time), so a loaded machine
still measures the threads' speed-up, as two slower cores; on a quiet one
the two agree.

Printed per seed count and over all, for each thread count: total wall
time, node rate (nodes a second of wall time, every thread's), the wall
speed-up against the first count (the ratio of total times, and the
geometric mean of each position's ratio), the first thread's CPU time, its
speed-up, and the node rate (every thread's nodes a second of that CPU
time); then what others used while the kept measurements ran.
"""
import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import NamedTuple, Optional

import mancala.parallel
from mancala import Board, Engine
from mancala.openings import opening_suite
from mancala.positions import Position, load_positions

POSITIONS = Path(__file__).parent / "data" / "thread_positions.txt"
SEEDS = (4, 5, 6)
GAMES = 10
TRIES = 20


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


class Count(NamedTuple):
    """A thread count as measured: its label, the threads, whether they defer."""
    label: str
    threads: int
    defer: bool


def parse_depths(text: str) -> dict:
    depths = {}
    for item in text.split(","):
        seeds, _, depth = item.partition(":")
        depths[int(seeds)] = int(depth)
    return depths


def seeds_of(position: Position) -> int:
    return int(position.name.split("-")[0][1:])


class Others:
    """CPU time (seconds, all cores) that other processes used since the last mark."""

    def __init__(self) -> None:
        self.tick = os.sysconf("SC_CLK_TCK")
        self.mark()

    def _read(self):
        fields = open("/proc/stat").readline().split()[1:]
        busy = sum(int(f) for i, f in enumerate(fields[:8]) if i not in (3, 4)) / self.tick
        own = sum(os.times()[:2])
        return busy, own, time.perf_counter()

    def mark(self) -> None:
        self.start = self._read()

    def cores(self) -> float:
        """Cores that others kept busy on average since the mark."""
        busy, own, now = self._read()
        b0, o0, t0 = self.start
        return max(0.0, (busy - b0) - (own - o0)) / max(now - t0, 1e-9)

    def wait_quiet(self, most: Optional[float]) -> None:
        if most is None:
            return
        while True:
            self.mark()
            time.sleep(1.0)
            if self.cores() < most:
                return


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--depths", type=parse_depths, default=parse_depths("4:21,5:19,6:18"))
    p.add_argument("--others", type=float, default=None,
                   help="measure a position only while others use under this many cores "
                        "(default: whatever they use; it is printed)")
    p.add_argument("--without-defer", action="store_true",
                   help="also measure each count above one with the deferral off")
    p.add_argument("--positions", type=Path, default=POSITIONS)
    p.add_argument("--json", type=Path, help="also write every measurement here")
    p.add_argument("--make", action="store_true", help="play the games and write the positions")
    args = p.parse_args()
    if args.make:
        make_positions(args.positions)
        return
    positions = load_positions(args.positions)
    counts = [Count(str(t), t, True) for t in args.threads]
    if args.without_defer:
        counts += [Count(f"{t} plain", t, False) for t in args.threads if t > 1]
    seconds = {(t, pos.name): 0.0 for t in counts for pos in positions}
    cpu = {(t, pos.name): 0.0 for t in counts for pos in positions}
    nodes = {(t, pos.name): 0 for t in counts for pos in positions}
    rows, others_seen = [], []
    others = Others()
    labels = ", ".join(t.label for t in counts)
    print(f"depths {args.depths}; threads {labels}; {len(positions)} positions, {args.rounds} rounds; "
          f"others under {args.others or 'any'} cores", flush=True)
    began = time.perf_counter()
    for round_ in range(args.rounds):
        for i, pos in enumerate(positions):
            order = counts if (round_ + i) % 2 == 0 else counts[::-1]
            for _ in range(TRIES):
                others.wait_quiet(args.others)
                others.mark()
                got = {}
                for t in order:
                    mancala.parallel.DEFER = t.defer
                    engine = Engine(threads=t.threads, endgame=None)
                    ran = time.thread_time()
                    start = time.perf_counter()
                    result = engine.search(pos.board(), depth=args.depths[seeds_of(pos)])
                    got[t] = (time.perf_counter() - start, time.thread_time() - ran, result.nodes)
                used = others.cores()
                if args.others is None or used < args.others:
                    break
            else:
                sys.exit(f"{pos.name}: others used the machine in each of {TRIES} tries")
            others_seen.append(used)
            for t, (spent, busiest, count) in got.items():
                seconds[t, pos.name] += spent
                cpu[t, pos.name] += busiest
                nodes[t, pos.name] += count
                rows.append({"round": round_, "position": pos.name, "threads": t.threads, "defer": t.defer,
                             "seconds": spent, "first_thread_cpu": busiest, "nodes": count,
                             "others": used})
        print(f"round {round_ + 1} done ({time.perf_counter() - began:.0f} s)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    groups = [(f"{s} seeds", [p for p in positions if seeds_of(p) == s]) for s in SEEDS]
    groups.append(("all", positions))
    base = counts[0]
    print(f"{'':9} {'threads':>8} | wall: {'seconds':>8} {'M nodes/s':>9} {'speed-up':>8} {'(geo)':>6} "
          f"| first thread's CPU:   {'seconds':>8} {'speed-up':>8} {'(geo)':>6} {'M nodes/s':>9}")
    for label, group in groups:
        if not group:
            continue
        for t in counts:
            cells = []
            for table in (seconds, cpu):
                total = sum(table[t, p.name] for p in group)
                ratio = sum(table[base, p.name] for p in group) / total
                geo = math.exp(sum(math.log(table[base, p.name] / table[t, p.name]) for p in group)
                               / len(group))
                rate = sum(nodes[t, p.name] for p in group) / total / 1e6
                cells.append((total, rate, ratio, geo))
            (w, wr, wx, wg), (c, cr, cx, cg) = cells
            print(f"{label:9} {t.label:>8} |       {w:8.2f} {wr:9.2f} {wx:8.2f} {wg:6.2f} "
                  f"|                       {c:8.2f} {cx:8.2f} {cg:6.2f} {cr:9.2f}")
    print(f"others used {sum(others_seen) / len(others_seen):.3f} cores on average while measured "
          f"(at most {max(others_seen):.3f}); load average now {os.getloadavg()[0]:.2f}; "
          f"{time.perf_counter() - began:.0f} s in all")


if __name__ == "__main__":
    main()
