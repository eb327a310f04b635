"""``python -m mancala arena A B``: many games between two players, a win/draw/loss table.

The games are played by :mod:`mancala.arena`; this module only parses the
arguments, shows progress on stderr and prints the result: a one-row table
(default), one JSON document (``--json``: the summary and every game) or CSV
(``--csv``: one row per game, no summary). Ctrl-C stops early, prints the
same output for the games finished, and exits 130 (SIGTERM: 143); once the last
game is in, a stop changes nothing: the whole result, exit 0, and one line
saying the stop came when the work was done (:mod:`mancala.cli.signals`). ``--openings N`` plays the
opening suite in game pairs, ``--sprt ELO0 ELO1`` stops when the SPRT decides,
``--time S`` gives the players that take a time S seconds per move.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import platform
import sys
import time
from typing import Optional, TextIO

import mancala
from mancala.arena import ArenaConfig, ArenaReport, run_arena
from mancala.arena.results import OUTPUT_NAMES, GameResult
from mancala.cli import options
from mancala.cli.format import duration as _duration
from mancala.cli.format import ms as _ms
from mancala.cli.options import is_terminal
from mancala.cli.signals import Stops, stop_signals
from mancala.cluster import Address, joined, parse_address
from mancala.cluster.arena import run_on_cluster
from mancala.errors import CommandError, InputError, quote
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS
from mancala.openings import MAX_OPENING_PLIES, opening_suite
from mancala.stats import DEFAULT_ALPHA, DEFAULT_BETA, check_error_rate

DEFAULT_GAMES = 20
MAX_WORKERS = 256
BAR_WIDTH = 30
MAX_SPRT_ELO = 2000


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "arena", help="play many games between two players: wins, draws, losses, time per move",
        description="Play GAMES games between two computer players and report A's wins, draws "
                    "and losses, A's win rate with a 95% Wilson score interval (a draw counts "
                    "as half a win), the average final margin from A's view and each player's "
                    "average time per move, and A's Elo with its 95% interval (from game pairs, "
                    "pentanomial, when sides alternate). Sides alternate, so each starts half "
                    "the games; --openings plays an opening suite in pairs. "
                    "Each game's seed comes from --seed and the game's number alone: the same "
                    "command gives the same games, on any number of workers (players that "
                    "search for a time, ai:hard/perfect/time=S, depend on the clock).",
        epilog="A player that crashes, hangs or moves illegally loses that game (a forfeit) and "
               "the arena goes on. Ctrl-C stops early and prints the table of the games "
               "finished (exit 130).")
    p.add_argument("player_a", type=options.arena_player, metavar="PLAYER_A",
                   help="random, minimax:N, alphabeta:N, ai, ai:easy|medium|hard|perfect, "
                        "ai:depth=N or ai:time=S (ai:time alone takes --time)")
    p.add_argument("player_b", type=options.arena_player, metavar="PLAYER_B", help="the same forms")
    p.add_argument("--games", type=options.whole("games", 1), default=None, metavar="N",
                   help=f"games to play (default {DEFAULT_GAMES}; with --openings, two per "
                        f"opening; more repeat the suite; with --sprt, the most to play)")
    p.add_argument("--openings", type=options.whole("opening plies", 0, MAX_OPENING_PLIES),
                   default=None, metavar="PLIES",
                   help="play the start and every distinct unfinished position PLIES plies "
                        "(sowings) in, each twice with sides swapped (a game pair); "
                        "0: the start alone")
    p.add_argument("--time", type=options.seconds, default=None, metavar="S",
                   help="seconds per move for the players that take a time (ai:time, "
                        "engine:... without @S); the others play as given, and the output "
                        "says so")
    p.add_argument("--sprt", type=_elo_arg, nargs=2, default=None, metavar=("ELO0", "ELO1"),
                   help="stop as soon as the SPRT accepts H0 (A is ELO0 stronger) or H1 "
                        "(ELO1), logistic Elo, ELO0 < ELO1")
    p.add_argument("--sprt-alpha", type=_error_rate("alpha"), default=DEFAULT_ALPHA, metavar="P",
                   help=f"the SPRT's false H1 rate (default {DEFAULT_ALPHA:g})")
    p.add_argument("--sprt-beta", type=_error_rate("beta"), default=DEFAULT_BETA, metavar="P",
                   help=f"the SPRT's false H0 rate (default {DEFAULT_BETA:g})")
    p.add_argument("--seeds", type=options.seeds, default=DEFAULT_SEEDS, metavar="N",
                   help=f"seeds per pit, {MIN_SEEDS}..{MAX_SEEDS_PER_PIT} (default {DEFAULT_SEEDS})")
    options.add_capture(p)
    p.add_argument("--seed", type=options.seed, default=0, metavar="N",
                   help="base seed of the run (default 0); game i's seed is derived from it "
                        "and i, and `play --south S --north N --seed SEED` replays that game")
    p.add_argument("--workers", type=options.whole("workers", 1, MAX_WORKERS), default=1, metavar="K",
                   help="games played at once in K processes (default 1); "
                        "the results are the same")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="play the game pairs as tasks on a Ray cluster: local[:N] (a runtime on this "
                        "machine, N CPUs), auto (the cluster `ray start` made here) or ray://HOST:PORT; "
                        "the games are the same; engine:... players' commands must run on every "
                        "node (extra: cluster)")
    p.add_argument("--no-swap", action="store_true",
                   help="A plays South (moves first) in every game instead of every other one")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true",
                        help="print one JSON document: the settings, the summary and every game")
    output.add_argument("--csv", action="store_true",
                        help="print one CSV row per game (with a header), not the summary")
    p.set_defaults(run=run)


def _elo_arg(text: str) -> float:
    value = options.number(text)
    if not math.isfinite(value) or abs(value) > MAX_SPRT_ELO:
        raise argparse.ArgumentTypeError(f"an Elo is a number from -{MAX_SPRT_ELO} to "
                                         f"{MAX_SPRT_ELO}, not {quote(text)}")
    return value


def _error_rate(name: str):
    def check(text: str) -> float:
        try:
            return check_error_rate(options.number(text), name)
        except (ValueError, InputError) as exc:
            raise argparse.ArgumentTypeError(
                f"{name} is more than 0 and less than 1, not {quote(text)}") from None
    return check


# -- the command

def run(args: argparse.Namespace) -> int:
    # '' too: one line, before any work
    address = parse_address(args.cluster) if args.cluster is not None else None
    games = args.games
    if games is None:
        games = DEFAULT_GAMES if args.openings is None else \
            2 * len(opening_suite(args.openings, args.seeds, args.capture))
    if args.time is None and (args.player_a.needs_time or args.player_b.needs_time):
        raise CommandError("ai:time without its seconds needs --time S (or write ai:time=S)")
    config = ArenaConfig(args.player_a, args.player_b, games=games, seeds=args.seeds,
                         capture=args.capture, seed=args.seed, swap=not args.no_swap,
                         openings=args.openings, time=args.time,
                         sprt=tuple(args.sprt) if args.sprt else None,
                         sprt_alpha=args.sprt_alpha, sprt_beta=args.sprt_beta)
    progress = _Bar(sys.stderr) if is_terminal(sys.stderr) else _Lines(sys.stderr)
    with stop_signals() as stops:  # SIGTERM as Ctrl-C: the games' players are closed on the way out
        if address is None:
            report = _settled(stops, run_arena(config, workers=args.workers,
                                              progress=_watched(stops, progress)))
        else:
            report = _on_cluster(config, address, args.workers, stops, _watched(stops, progress))
        progress.close()
        if report.interrupted:
            print(f"mancala: {'terminated' if stops.terminated else 'interrupted'}: {len(report.games)} of "
                  f"{config.games} games finished", file=sys.stderr, flush=True)
        if args.json:
            write_json(report, sys.stdout)
        elif args.csv:
            write_csv(report, sys.stdout)
        else:
            write_table(report, sys.stdout)
    return stops.status(report.interrupted)


def _watched(stops: Stops, progress):
    """progress after :meth:`Stops.check`; with the last game in, the result is in
    hand (:meth:`Stops.settle`, before the "N/N games" line): a stop from then on
    cannot lose it."""
    def watched(result: GameResult, done: int, total: int) -> None:
        stops.check()
        if done == total:
            stops.settle(_played(total, total))
        progress(result, done, total)
    return watched


def _played(games: int, planned: int) -> str:
    return f"all {games} games were played" if games == planned else \
        f"{games} of at most {planned} games were played (the SPRT decided)"


def _settled(stops: Stops, report: ArenaReport) -> ArenaReport:
    """The report, the command's result: :meth:`Stops.settle` with it, whole unless a stop cut it short."""
    stops.settle(None if report.interrupted else _played(len(report.games), report.config.games))
    return report


def _on_cluster(config: ArenaConfig, address: Address, workers: int, stops: Stops,
                progress) -> ArenaReport:
    if workers != 1:
        raise CommandError("--workers is for this machine; with --cluster every CPU of the "
                           "cluster plays")
    with joined(address, "playing", lambda line: print(f"mancala: {line}", file=sys.stderr,
                                                          flush=True)) as cpus:
        # settled before the runtime's shutdown: a stop during it keeps the report
        return _settled(stops, run_arena(config, workers=cpus, progress=progress, runner=run_on_cluster))


# -- output

CSV_FIELDS = [OUTPUT_NAMES.get(field.name, field.name) for field in dataclasses.fields(GameResult)]


def write_json(report: ArenaReport, out: TextIO) -> None:
    document = {"command": "arena", "version": mancala.__version__,
                "python": platform.python_version(), **report.to_dict()}
    json.dump(document, out, indent=2)
    out.write("\n")


def write_csv(report: ArenaReport, out: TextIO) -> None:
    """One row per finished game, in game order; the columns are GameResult's fields
    (``line``, the moves as pit indices 0..5, is named ``pit_indices``; ``opening``,
    ``opening_indices``); ``forfeit`` is empty or "A:reason" / "B:reason"."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for game in report.games:
        fields = game.to_dict()
        forfeit = fields["forfeit"]
        fields["forfeit"] = f"{forfeit['player']}:{forfeit['reason']}" if forfeit else ""
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
    a_name, b_name = str(config.player_a), str(config.player_b)
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
    print(elo_text(s), file=out)
    if s.sprt is not None:
        print(sprt_text(s), file=out)
    if s.forfeits_a or s.forfeits_b:
        print(f"forfeits: A {s.forfeits_a}, B {s.forfeits_b} (a player that crashed, hung or "
              f"moved illegally lost the game; --json or --csv say why)", file=out)
    if config.openings is not None:
        which = "the start alone" if config.openings == 0 else \
            f"the start and every {config.openings}-ply opening, {len(config.suite())} in all"
        print(f"openings: {which}, each a pair of games with sides swapped", file=out)
    if config.time is not None:
        untimed = config.untimed()
        print(f"time: {config.time:g} s per move"
              + (f"; {' and '.join(untimed)} take{'s' if len(untimed) == 1 else ''} no time "
                 f"and play{'s' if len(untimed) == 1 else ''} as given" if untimed else ""),
              file=out)
    done = f"{s.games} of {config.games} games" if report.interrupted else f"{s.games} games"
    if s.sprt is not None and not report.interrupted and s.games < config.games:
        done = f"{s.games} of at most {config.games} games (the SPRT decided)"
    print(f"{done} in {_duration(report.elapsed)}; {s.distinct} distinct"
          + ("" if s.distinct >= s.games or s.games == 0 else
             " (deterministic players repeat their games; the interval assumes they differ)"),
          file=out)
    out.flush()


def _elo(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return "+inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:+.1f}"


def elo_text(s) -> str:
    """'Elo of A: +88.7 [-106.7, +379.6] (95%, pentanomial over 4 pairs: 0 1 1 1 1)'."""
    if s.elo is None:
        return "Elo of A: - (no complete pair)" if s.elo_model == "pentanomial" else "Elo of A: -"
    if s.elo_model == "pentanomial":
        counts = " ".join(str(count) for count in s.pentanomial)
        basis = (f"pentanomial over {s.pairs} pair{'s' if s.pairs != 1 else ''}: {counts} "
                 f"scoring 0, 1/2, 1, 3/2, 2")
    else:
        basis = f"trinomial over {s.games} games"
    return (f"Elo of A: {_elo(s.elo)} [{_elo(s.elo_low)}, {_elo(s.elo_high)}] "
            f"(95% interval, {basis})")


def sprt_text(s) -> str:
    """'SPRT [0, +10] alpha 0.05 beta 0.05: LLR 2.96 [-2.94, +2.94] -> H1'."""
    t = s.sprt
    verdict = {"H1": "H1: A is at least ELO1 stronger", "H0": "H0: A is at most ELO0 stronger",
               "inconclusive": "inconclusive"}[t.verdict]
    return (f"SPRT Elo {t.elo0:g} vs {t.elo1:g} (alpha {t.alpha:g}, beta {t.beta:g}): "
            f"LLR {t.llr:+.2f} in [{t.lower:+.2f}, {t.upper:+.2f}] -> {verdict}")


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
