"""``python -m mancala arena A B``: many games between two players, a win/draw/loss table.

The games are played by :mod:`mancala.arena`; this module only parses the
arguments, shows progress on stderr and prints the result: a one-row table
(default), one JSON document (``--json``: the summary and every game) or CSV
(``--csv``: one row per game, no summary). Ctrl-C stops early, prints the
same output for the games finished, and exits 130.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import platform
import sys
import time
from typing import Optional, TextIO

import mancala
from mancala.arena import OUTPUT_NAMES, ArenaConfig, ArenaReport, GameResult, run_arena
from mancala.cli import options
from mancala.cli.format import duration as _duration
from mancala.cli.format import ms as _ms
from mancala.cli.options import is_terminal
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS

DEFAULT_GAMES = 20
MAX_WORKERS = 256
BAR_WIDTH = 30


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "arena", help="play many games between two players: wins, draws, losses, time per move",
        description="Play GAMES games between two computer players and report A's wins, draws "
                    "and losses, A's win rate with a 95% Wilson score interval (a draw counts "
                    "as half a win), the average final margin from A's view and each player's "
                    "average time per move. Sides alternate, so each starts half the games. "
                    "Each game's seed comes from --seed and the game's number alone: the same "
                    "command gives the same games, on any number of workers (players that "
                    "search for a time, ai:hard/perfect/time=S, depend on the clock).",
        epilog="Ctrl-C stops early and prints the table of the games finished (exit 130).")
    p.add_argument("player_a", type=options.machine_player, metavar="PLAYER_A",
                   help="random, minimax:N, alphabeta:N, ai, ai:easy|medium|hard|perfect, "
                        "ai:depth=N or ai:time=S")
    p.add_argument("player_b", type=options.machine_player, metavar="PLAYER_B", help="the same forms")
    p.add_argument("--games", type=options.whole("games", 1), default=DEFAULT_GAMES, metavar="N",
                   help=f"games to play (default {DEFAULT_GAMES})")
    p.add_argument("--seeds", type=options.seeds, default=DEFAULT_SEEDS, metavar="N",
                   help=f"seeds per pit, {MIN_SEEDS}..{MAX_SEEDS_PER_PIT} (default {DEFAULT_SEEDS})")
    options.add_capture(p)
    p.add_argument("--seed", type=options.seed, default=0, metavar="N",
                   help="base seed of the run (default 0); game i's seed is derived from it "
                        "and i, and `play --south S --north N --seed SEED` replays that game")
    p.add_argument("--workers", type=options.whole("workers", 1, MAX_WORKERS), default=1, metavar="K",
                   help="games played at once in K processes (default 1); "
                        "the results are the same")
    p.add_argument("--no-swap", action="store_true",
                   help="A plays South (moves first) in every game instead of every other one")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON document: the settings, the summary and every game")
    output.add_argument("--csv", action="store_true",
                        help="print one CSV row per game (with a header), not the summary")
    p.set_defaults(run=run)


# -- the command

def run(args: argparse.Namespace) -> int:
    config = ArenaConfig(args.player_a, args.player_b, games=args.games, seeds=args.seeds,
                         capture=args.capture, seed=args.seed, swap=not args.no_swap)
    progress = _Bar(sys.stderr) if is_terminal(sys.stderr) else _Lines(sys.stderr)
    report = run_arena(config, workers=args.workers, progress=progress)
    progress.close()
    if report.interrupted:
        print(f"mancala: interrupted: {len(report.games)} of {config.games} games finished",
              file=sys.stderr, flush=True)
    if args.json:
        write_json(report, sys.stdout)
    elif args.csv:
        write_csv(report, sys.stdout)
    else:
        write_table(report, sys.stdout)
    return 130 if report.interrupted else 0


# -- output

CSV_FIELDS = [OUTPUT_NAMES.get(field.name, field.name) for field in dataclasses.fields(GameResult)]


def write_json(report: ArenaReport, out: TextIO) -> None:
    document = {"command": "arena", "version": mancala.__version__,
                "python": platform.python_version(), **report.to_dict()}
    json.dump(document, out, indent=2)
    out.write("\n")


def write_csv(report: ArenaReport, out: TextIO) -> None:
    """One row per finished game, in game order; the columns are GameResult's fields
    (``line``, the moves as pit indices 0..5, is named ``pit_indices``)."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for game in report.games:
        fields = game.to_dict()
        writer.writerow([fields[name] for name in CSV_FIELDS])


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def rules_text(config: ArenaConfig) -> str:
    return f"Kalah(6,{config.seeds}), {config.capture} capture"


def write_table(report: ArenaReport, out: TextIO) -> None:
    config, s = report.config, report.summary
    sides = "A is South (moves first) in every game" if not config.swap else "sides alternate"
    print(f"mancala arena: A = {config.player_a}, B = {config.player_b}; {rules_text(config)}; "
          f"seed {config.seed}; {sides}; {report.workers} "
          f"worker{'s' if report.workers != 1 else ''}", file=out)
    a_name, b_name = config.player_a, config.player_b
    width = max(len(a_name), len(b_name), 1)
    rate = "-" if s.win_rate is None else (
        f"{_percent(s.win_rate)} [{_percent(s.ci_low)}, {_percent(s.ci_high)}]")
    margin = "-" if s.mean_margin is None else f"{s.mean_margin:+.1f}"
    plies = "-" if s.mean_plies is None else f"{s.mean_plies:.1f}"
    header = (f"{'A':<{width}}  {'B':<{width}}  {'games':>5}  {'wins':>4}  {'draws':>5}  "
              f"{'losses':>6}  {'A win rate [95% CI]':<25}  {'margin':>6}  {'moves':>5}  "
              f"{'ms/move A':>9}  {'ms/move B':>9}")
    row = (f"{a_name:<{width}}  {b_name:<{width}}  {s.games:>5}  {s.wins:>4}  {s.draws:>5}  "
           f"{s.losses:>6}  {rate:<25}  {margin:>6}  {plies:>5}  "
           f"{_ms(s.a_time_per_move):>9}  {_ms(s.b_time_per_move):>9}")
    print(header, file=out)
    print(row, file=out)
    print("(wins, draws, losses: A's; a draw counts as half a win; 95% CI: Wilson score "
          "interval; margin: A's final seeds minus B's, averaged; moves: per game)", file=out)
    done = f"{s.games} of {config.games} games" if report.interrupted else f"{s.games} games"
    print(f"{done} in {_duration(report.elapsed)}; {s.distinct} distinct"
          + ("" if s.distinct >= s.games or s.games == 0 else
             " (deterministic players repeat their games; the interval assumes they differ)"),
          file=out)
    out.flush()


# -- progress on stderr

class _Bar:
    """A bar redrawn in place as games finish (stderr is a terminal)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.start = time.perf_counter()
        self.drawn = False
        self.wins = self.draws = self.losses = 0

    def __call__(self, result: GameResult, done: int, total: int) -> None:
        self.wins += result.result == "A"
        self.draws += result.result == "draw"
        self.losses += result.result == "B"
        filled = BAR_WIDTH * done // total
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r[{bar}] {done}/{total} games  A {self.wins}-{self.draws}-"
                          f"{self.losses}  {_duration(elapsed)} ")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")     # the table replaces the bar
            self.stream.flush()


class _Lines:
    """Without a terminal: one plain line per tenth of the games."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.start = time.perf_counter()

    def __call__(self, result: GameResult, done: int, total: int) -> None:
        step = max(1, -(-total // 10))
        if done % step and done != total:
            return
        print(f"arena: {done}/{total} games, {_duration(time.perf_counter() - self.start)}",
              file=self.stream, flush=True)

    def close(self) -> None:
        pass
