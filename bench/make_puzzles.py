"""Find puzzles in engine games (mancala.puzzles) and pack them for the package.

    python bench/make_puzzles.py generate FILE [--minutes M] [--seed N] [--max-pit-seeds S]
    python bench/make_puzzles.py pack FILE... [--out mancala/data/puzzles.jsonl.xz]

generate plays games between engine players and appends every puzzle it
finds to FILE (JSON lines, one puzzle each, written as found: a run stopped
loses nothing). A game: seeds per pit 3 to 6 (4 most often), capture
standard (most), empty or none; each side the engine at a depth from 1 to 10
(store difference), one move in ten random, so the games hold the mistakes
that make puzzles. From the fifth move on, every position with at most
--max-pit-seeds seeds in the pits (default 30) and two legal moves or more is
given to mancala.puzzles.find, which solves every move exactly (a budget of 2
M nodes a position; with an endgame database cached, most are lookups);
positions inside a puzzle just found are skipped. Run it beside other work
with one thread, at low priority, the standard database read from a cache
(never built into it):

    MANCALA_CACHE=/path/to/cache nice -n 10 python bench/make_puzzles.py generate /tmp/puzzles.jsonl --minutes 25

pack reads such files (JSON lines, or xz-compressed: the shipped file itself),
keeps each position once (by id) and the puzzles worth solving: three legal
moves or more at the first step, six seeds or more in the pits, not decided
at the start (no store past half the seeds), the line ending where the
solver's turn passes. With --refind each is first found again from its
position by this version's mancala.puzzles.find (its line, gap and depth as
this version makes them; a position it no longer makes a puzzle of is
dropped). It rates them by the formula of mancala.puzzles.rating, keeps at most
--per-band (default 150) of each 200 rating points (chosen at random, --seed)
of the puzzles that win or save something (a win, a draw, a margin: value 0
or more), so the easy ones do not crowd out the rest, then at most
MAX_LOSING (10%) of the whole of "the move that loses the least" (value below
0), the smallest losses first, and writes the package's data file: the
puzzles, easiest first, as xz-compressed JSON lines.

    python bench/make_puzzles.py pack --refind mancala/data/puzzles.jsonl.xz
"""
import argparse
import dataclasses
import json
import lzma
import random
import sys
import time

from mancala import Board, Engine
from mancala import puzzles

SEEDS = [(3, 0.15), (4, 0.55), (5, 0.2), (6, 0.1)]
CAPTURES = [("standard", 0.75), ("empty", 0.2), ("none", 0.05)]
RANDOM_MOVE = 0.1
FIRST_PLY = 4
MIN_LEGAL = 3           # pack: at least three moves to choose from at the first step
MIN_PIT_SEEDS = 6       # pack: not the last few seeds of a game
BAND = 200              # pack: at most --per-band puzzles of each 200 rating points
MAX_LOSING = 0.10       # pack: at most this share of the file asks for "the move that loses the least"
PER_GAME = 5            # puzzles from one game at most: many games, not a few long ones


def pick(rng, weighted):
    return rng.choices([item for item, _ in weighted], [weight for _, weight in weighted])[0]


def generate(path, minutes, seed, max_pit_seeds):
    rng = random.Random(seed)
    player = Engine(hash_mb=16, endgame=None)
    solver = Engine(hash_mb=256)
    searcher = Engine(hash_mb=16, endgame=None)
    seen = set()
    try:
        with open(path) as old:
            seen = {json.loads(line)["id"] for line in old if line.strip()}
    except FileNotFoundError:
        pass
    start = time.monotonic()
    end = start + 60 * minutes
    games = positions = found = 0
    with open(path, "a") as out:
        while time.monotonic() < end:
            seeds, capture = pick(rng, SEEDS), pick(rng, CAPTURES)
            depths = (rng.randint(1, 10), rng.randint(1, 10))
            board = Board(seeds=seeds, capture=capture)
            skip = in_game = 0
            games += 1
            while not board.is_game_over() and time.monotonic() < end:
                in_pits = board.seeds - board.pits[6] - board.pits[13]
                if board.ply >= FIRST_PLY and skip == 0 and in_pits <= max_pit_seeds \
                        and not puzzles.decided(board) \
                        and len(board.legal_moves) >= 2 and in_game < PER_GAME:
                    positions += 1
                    puzzle = puzzles.find(board, solver, searcher=searcher)
                    if puzzle is not None:
                        skip = len(puzzle.solution)
                        if puzzle.id not in seen:
                            seen.add(puzzle.id)
                            found += 1
                            in_game += 1
                            record = dict(puzzle.to_json(), source=f"{seeds} seeds, depths "
                                          f"{depths[0]}/{depths[1]}, move {board.ply + 1}")
                            out.write(json.dumps(record) + "\n")
                            out.flush()
                skip = max(0, skip - 1)
                if rng.random() < RANDOM_MOVE:
                    move = rng.choice(board.legal_moves)
                else:
                    move = player.search(board, depth=depths[board.to_move]).move
                board.push(move)
            if games % 10 == 0:
                print(f"{time.monotonic() - start:7.0f} s: {games} games, {positions} positions "
                      f"tried, {found} puzzles", file=sys.stderr, flush=True)
    print(f"{time.monotonic() - start:.0f} s: {games} games, {positions} positions tried, "
          f"{found} puzzles", file=sys.stderr)


def ends_turn(puzzle):
    """The line ends where the solver's turn passes: the game over, or the other side to move."""
    board = puzzle.position()
    for pit in puzzle.solution:
        board.push(pit)
    return board.is_game_over() or board.to_move != puzzle.to_move


def refound(found, solver, searcher):
    """The puzzle at ``found``'s position as this version finds it (None: none now)."""
    again = puzzles.find(found.position(), solver, searcher=searcher)
    return again if again is None or not found.source else dataclasses.replace(again, source=found.source)


def read(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as handle:
        return puzzles.parse_lines(handle, path)


def pack(paths, out, per_band, seed, refind=False):
    kept = {}
    for path in paths:
        for found in read(path):
            kept.setdefault(found.id, found)
    solver, searcher = Engine(hash_mb=256), Engine(hash_mb=16, endgame=None)
    candidates, dropped = [], {"legal moves or seeds": 0, "decided": 0, "not found again": 0,
                                "line ends mid-turn": 0}
    start = time.process_time()
    for number, found in enumerate(sorted(kept.values(), key=lambda p: p.id), 1):
        position = found.position()
        in_pits = position.seeds - position.pits[6] - position.pits[13]
        if len(position.legal_moves) < MIN_LEGAL or in_pits < MIN_PIT_SEEDS:
            dropped["legal moves or seeds"] += 1
            continue
        if puzzles.decided(position):
            dropped["decided"] += 1
            continue
        if refind:
            found = refound(found, solver, searcher)
            if number % 100 == 0:
                print(f"{time.process_time() - start:6.0f} s CPU: {number} of {len(kept)} found again",
                      file=sys.stderr, flush=True)
            if found is None:
                dropped["not found again"] += 1
                continue
        if not ends_turn(found):
            dropped["line ends mid-turn"] += 1
            continue
        # the rating by the formula of this version (what it is made of is kept)
        rated = puzzles.rating(found.depth, len(found.solver_steps()), found.gap,
                               len(position.legal_moves))
        candidates.append(dataclasses.replace(found, rating=rated))
    print(f"dropped: {dropped}", file=sys.stderr)
    bands = {}
    for found in sorted(candidates, key=lambda p: p.id):
        if found.value >= 0:
            bands.setdefault(found.rating // BAND, []).append(found)
    rng = random.Random(seed)
    chosen = []
    for band in sorted(bands):
        members = bands[band]
        rng.shuffle(members)
        chosen.extend(members[:per_band])
        print(f"rating {band * BAND}-{band * BAND + BAND - 10}: {len(members)} found, "
              f"{min(len(members), per_band)} kept", file=sys.stderr)
    losing = sorted((p for p in candidates if p.value < 0), key=lambda p: (-p.value, -p.gap, p.id))
    room = int(MAX_LOSING * len(chosen) / (1 - MAX_LOSING))
    chosen.extend(losing[:room])
    print(f"the move that loses the least: {len(losing)} found, {min(room, len(losing))} kept "
          f"(at most {MAX_LOSING:.0%})", file=sys.stderr)
    ordered = sorted(chosen, key=lambda p: (p.rating, p.id))
    text = "".join(json.dumps(p.to_json(), separators=(",", ":")) + "\n" for p in ordered)
    with open(out, "wb") as handle:
        handle.write(lzma.compress(text.encode(), preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(kept)} puzzles read, {len(candidates)} pass the filters, {len(ordered)} kept, "
          f"{len(text):,} bytes of JSON lines -> {out}", file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("file")
    g.add_argument("--minutes", type=float, default=25.0)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--max-pit-seeds", type=int, default=30)
    p = sub.add_parser("pack")
    p.add_argument("files", nargs="+")
    p.add_argument("--out", default="mancala/data/" + puzzles.DATA_FILE)
    p.add_argument("--per-band", type=int, default=150)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--refind", action="store_true",
                   help="find each puzzle again from its position with this version's finder")
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args.file, args.minutes, args.seed, args.max_pit_seeds)
    else:
        pack(args.files, args.out, args.per_band, args.seed, args.refind)


if __name__ == "__main__":
    main()
