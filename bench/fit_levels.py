"""The computer levels' Elo scale, measured: play the levels against each other, fit one Elo each.

    nice -n 10 python bench/fit_levels.py play              # the matches (resumable: games are appended)
    python bench/fit_levels.py fit --write                    # fit, print, write mancala/data/levels.json
    nice -n 10 python bench/fit_levels.py check               # a fresh match against the shipped table

The ladder (:data:`LADDER`, weakest first) is ``random``, the softmax levels
``ai:depth=N,temp=T`` (:mod:`mancala.levels`) and the named levels, up to
``ai:perfect``. Each level meets its neighbour and the level two above in
game pairs: the same opening twice, sides swapped, each game played by the
arena's own :func:`mancala.arena.play_game` (players made from their specs
with the game's seed). A meeting plays :data:`ROUNDS` rounds of
:data:`PAIRS` pairs (:data:`SLOW_PAIRS` when a timed level plays: they are
slow) spread over the 3-ply opening suite of Kalah(6,4) (186 openings), no
opening twice. ``check`` plays the same plan with another seed over the
4-ply suite (943 openings, none of them a 3-ply one): a fresh match.

Games are appended to ``bench/data/levels-games.jsonl`` as they finish (an
interrupted run resumes where it stopped); ``fit --write`` keeps them as
``levels-games.jsonl.xz``, which the repository holds and ``fit`` reads when
the plain file is absent (``check``: ``levels-check.jsonl[.xz]``).

The fit (:func:`mancala.stats.fit_elo`) is the maximum-likelihood logistic
(Bradley-Terry) model over every game, draws as half a win, ``random``
anchored at 0, with one virtual draw per meeting so a sweep stays finite.
The 95% intervals come from a bootstrap: the game pairs of every meeting
resampled with replacement (:data:`BOOTSTRAP` times), the fit repeated, the
2.5% and 97.5% points of each level's Elo taken (pairs, not games, are the
unit: the two games of a pair share an opening). ``rd`` is the interval's
half-width / 1.96: a level's deviation for Glicko-2 (:mod:`mancala.rating`).

Timed levels (``ai:hard``, ``ai:perfect``) follow the machine's speed and
load, so their Elo is this machine's; no endgame database is used
(``MANCALA_CACHE`` points at an empty folder).
"""
from __future__ import annotations

import argparse
import datetime
import json
import lzma
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import mancala.levels  # noqa: F401  (the players' softmax, loaded before the workers fork)
from mancala.arena import ArenaConfig, play_game
from mancala.openings import opening_suite
from mancala.stats import fit_elo

HERE = Path(__file__).resolve().parent
GAMES_FILE = HERE / "data" / "levels-games.jsonl"
CHECK_FILE = HERE / "data" / "levels-check.jsonl"
TABLE = HERE.parent / "mancala" / "data" / "levels.json"

LADDER = [
    "random",
    "ai:depth=1,temp=2",
    "ai:depth=1,temp=0.5",
    "ai:depth=1,temp=0",
    "ai:easy",                  # ai:depth=2,temp=1
    "ai:depth=2,temp=0",
    "ai:depth=3,temp=0",
    "ai:depth=4,temp=0",
    "ai:depth=6,temp=0",
    "ai:medium",                # ai:depth=8,temp=0
    "ai:depth=10,temp=0",
    "ai:depth=14,temp=0",
    "ai:hard",
    "ai:perfect",
]
SLOW = {"ai:hard", "ai:perfect"}    # timed: seconds a move
PAIRS = 60              # game pairs per meeting and round
SLOW_PAIRS = 16         # ... when a timed level plays
ROUNDS = 2              # the second round's openings lie halfway between the first's
PLIES = 3               # the fit's opening suite: every 3-ply opening of Kalah(6,4) (186)
CHECK_PLIES = 4         # the check's: every 4-ply opening (943), none of them the fit's
SEED = 25               # the fit's games; check plays SEED + 1
BOOTSTRAP = 400
ANCHOR = "random"


def plan(ladder: Sequence[str], pairs: int, slow_pairs: int, plies: int) -> List[Tuple[str, str, int]]:
    """(a, b, game index) of every game: each level against the next two, in pairs.

    A meeting plays ``ROUNDS`` rounds of ``pairs`` game pairs (``slow_pairs``
    when a timed level plays), spread over the ``plies``-ply suite: pair j of
    round r at opening ``(j + r / ROUNDS) * suite / pairs`` shifted by the
    meeting's number, so no opening is played twice in a meeting.
    """
    suite = len(opening_suite(plies))
    games = []
    meeting = 0
    for i, a in enumerate(ladder):
        for b in ladder[i + 1:i + 3]:
            count = slow_pairs if a in SLOW or b in SLOW else pairs
            stride = suite / count
            for round_ in range(ROUNDS):
                for j in range(count):
                    opening = int((j + round_ / ROUNDS) * stride + meeting) % suite
                    games += [(a, b, 2 * opening), (a, b, 2 * opening + 1)]
            meeting += 1
    return games


def config(a: str, b: str, seed: int, plies: int) -> ArenaConfig:
    return ArenaConfig(a, b, games=2 * len(opening_suite(plies)), openings=plies, seed=seed)


def play_one(task: Tuple[str, str, int, int, int]) -> Dict[str, object]:
    a, b, index, seed, plies = task
    game = play_game(config(a, b, seed, plies), index)
    return {"a": a, "b": b, "index": index, "seed": game.seed, "a_side": game.a_side,
            "result": game.result, "margin": game.margin, "a_time": round(game.a_time, 3),
            "b_time": round(game.b_time, 3), "moves": game.a_moves + game.b_moves}


def read_games(path: Path) -> List[Dict[str, object]]:
    """The games of a run: the file being played into, else its committed copy (``.xz``)."""
    packed = path.with_name(path.name + ".xz")
    if path.exists():
        text = path.read_text()
    elif packed.exists():
        text = lzma.decompress(packed.read_bytes()).decode()
    else:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def pack(path: Path, games: Sequence[Dict[str, object]]) -> None:
    """Keep the games beside the run's file as ``.xz`` (what the repository holds)."""
    text = "".join(json.dumps(game) + "\n" for game in games)
    path.with_name(path.name + ".xz").write_bytes(lzma.compress(text.encode(), preset=9))


def play(path: Path, ladder: Sequence[str], pairs: int, slow_pairs: int, seed: int, workers: int,
         plies: int) -> None:
    done = {(g["a"], g["b"], g["index"]) for g in read_games(path)}
    todo = [(a, b, index, seed, plies) for a, b, index in plan(ladder, pairs, slow_pairs, plies)
            if (a, b, index) not in done]
    # the slow games last, so the cheap part of the scale is whole early
    todo.sort(key=lambda task: (task[0] in SLOW or task[1] in SLOW, ))
    print(f"{len(done)} games played, {len(todo)} to play", file=sys.stderr)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.environ["MANCALA_CACHE"] = tempfile.mkdtemp(prefix="fit-levels-cache-")   # no endgame database
    start = time.time()
    with path.open("a") as out, multiprocessing.Pool(workers) as pool:
        for count, game in enumerate(pool.imap_unordered(play_one, todo, chunksize=1), 1):
            out.write(json.dumps(game) + "\n")
            out.flush()
            if count % 50 == 0 or count == len(todo):
                print(f"{count}/{len(todo)} games, {time.time() - start:.0f} s", file=sys.stderr)


# -- the fit ------------------------------------------------------------------------------

def pair_results(games: Sequence[Dict[str, object]]) -> Dict[Tuple[str, str], List[float]]:
    """Each meeting's complete game pairs: a's points in each (0, 1/2, ..., 2)."""
    points = {"A": 1.0, "draw": 0.5, "B": 0.0}
    by_game = {(g["a"], g["b"], g["index"]): points[g["result"]] for g in games}
    meetings: Dict[Tuple[str, str], List[float]] = {}
    for (a, b, index), score in sorted(by_game.items()):
        if index % 2 == 0 and (a, b, index + 1) in by_game:
            meetings.setdefault((a, b), []).append(score + by_game[(a, b, index + 1)])
    return meetings


def fit(meetings: Dict[Tuple[str, str], List[float]]) -> Dict[str, float]:
    rows = [(a, b, 2.0 * len(scores), sum(scores)) for (a, b), scores in meetings.items()]
    return fit_elo(rows, ANCHOR, prior_draws=1.0)


def bootstrap(meetings: Dict[Tuple[str, str], List[float]], rounds: int,
              seed: int = 0) -> Dict[str, Tuple[float, float]]:
    rng = random.Random(seed)
    samples: Dict[str, List[float]] = {}
    for _ in range(rounds):
        resampled = {key: [rng.choice(scores) for _ in scores] for key, scores in meetings.items()}
        for name, elo in fit(resampled).items():
            samples.setdefault(name, []).append(elo)
    bounds = {}
    for name, values in samples.items():
        values.sort()
        bounds[name] = (values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1])
    return bounds


def table(games: Sequence[Dict[str, object]], ladder: Sequence[str], rounds: int) -> List[Dict[str, object]]:
    meetings = pair_results(games)
    elo = fit(meetings)
    bounds = bootstrap(meetings, rounds)
    rows = []
    for spec in ladder:
        if spec not in elo:
            continue
        low, high = (0.0, 0.0) if spec == ANCHOR else bounds[spec]
        rows.append({"spec": spec, "elo": round(elo[spec]), "low": round(low), "high": round(high),
                     "rd": round((high - low) / (2 * 1.959964))})
    return rows


def show(rows: Sequence[Dict[str, object]], meetings) -> None:
    print(f"{'level':<24}{'Elo':>8}  95% interval     gap")
    last = None
    for row in rows:
        gap = "" if last is None else f"{row['elo'] - last:+7.0f}"
        print(f"{row['spec']:<24}{row['elo']:>8.0f}  [{row['low']:6.0f}, {row['high']:6.0f}] {gap}")
        last = row["elo"]
    print(f"\nmeetings (a's mean pair score of 2, pairs):")
    for (a, b), scores in meetings.items():
        print(f"  {a:<22} vs {b:<22} {sum(scores) / len(scores):.2f}  {len(scores)}")


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def write_table(rows: Sequence[Dict[str, object]], games: Sequence[Dict[str, object]]) -> None:
    seconds = sum(g["a_time"] + g["b_time"] for g in games)
    data = {
        "note": ("The computer levels' Elo on one scale, random anchored at 0, fitted by "
                 "bench/fit_levels.py (maximum likelihood over every game; low/high: the 95% "
                 "bootstrap interval over game pairs; rd: its half-width / 1.96). Each spec is a "
                 "player spelling; ai:elo=N plays between the two levels around N."),
        "provisional": False,
        "measured": {"command": "nice -n 10 python bench/fit_levels.py play && "
                                "python bench/fit_levels.py fit --write",
                     "games": len(games), "pairs": sum(len(s) for s in pair_results(games).values()),
                     "openings": f"Kalah(6,4), every {PLIES}-ply opening ({len(opening_suite(PLIES))})",
                     "seconds_of_play": round(seconds),      # both players' move times, summed
                     "date": datetime.date.today().isoformat(), "commit": commit()},
        "levels": list(rows),
    }
    text = json.dumps(dict(data, levels=[]), indent=1)      # one line per level:
    levels = ",\n".join("  " + json.dumps(row) for row in rows)
    TABLE.write_text(text.replace('"levels": []', '"levels": [\n' + levels + "\n ]") + "\n")
    print(f"wrote {TABLE}", file=sys.stderr)


def check(games: Sequence[Dict[str, object]], rounds: int) -> int:
    """The fresh match's fit against the shipped table: each level inside its 95% interval?"""
    shipped = {row["spec"]: row for row in json.loads(TABLE.read_text())["levels"]}
    rows = table(games, list(shipped), rounds)
    outside = 0
    print(f"{'level':<24}{'shipped':>8}  {'95% interval':<16}{'fresh':>8}  {'95% interval':<16}"
          f"{'z':>6}")
    for row in rows:
        ship = shipped[row["spec"]]
        inside = ship["low"] <= row["elo"] <= ship["high"]
        outside += not inside
        # the difference in units of its own deviation: both measurements are noisy
        spread = (ship["rd"] ** 2 + row["rd"] ** 2) ** 0.5
        z = (row["elo"] - ship["elo"]) / spread if spread else 0.0
        print(f"{row['spec']:<24}{ship['elo']:>8.0f}  [{ship['low']:5.0f}, {ship['high']:5.0f}]  "
              f"{row['elo']:>8.0f}  [{row['low']:5.0f}, {row['high']:5.0f}]  {z:+5.2f}  "
              f"{'inside' if inside else 'OUTSIDE'}")
    print(f"{len(rows) - outside} of {len(rows)} levels' fresh Elo inside the shipped 95% interval "
          f"({len(games)} fresh games)")
    return 0 if outside == 0 else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=("play", "fit", "check"))
    p.add_argument("--games-file", type=Path,
                   help=f"default {GAMES_FILE} ({CHECK_FILE} for check); read from FILE.xz without it")
    p.add_argument("--ladder", help="the levels, weakest first, separated by ';' (default LADDER)")
    p.add_argument("--pairs", type=int, default=PAIRS)
    p.add_argument("--slow-pairs", type=int, default=SLOW_PAIRS)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--bootstrap", type=int, default=BOOTSTRAP)
    p.add_argument("--write", action="store_true", help="fit: write mancala/data/levels.json")
    args = p.parse_args()
    ladder = args.ladder.split(";") if args.ladder else LADDER
    is_check = args.action == "check"
    path = args.games_file or (CHECK_FILE if is_check else GAMES_FILE)
    if args.action in ("play", "check"):
        if is_check:
            ladder = [row["spec"] for row in json.loads(TABLE.read_text())["levels"]]
        play(path, ladder, args.pairs, args.slow_pairs, SEED + is_check, args.workers,
             CHECK_PLIES if is_check else PLIES)
    games = [g for g in read_games(path) if g["a"] in ladder and g["b"] in ladder]
    if is_check:
        pack(path, games)
        return check(games, args.bootstrap)
    rows = table(games, ladder, args.bootstrap)
    show(rows, pair_results(games))
    if args.write:
        pack(path, games)
        write_table(rows, games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
