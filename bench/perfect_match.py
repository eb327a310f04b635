"""What perfect play scores against a player: the ceiling of a match's Elo.

    python bench/perfect_match.py OPPONENT [--plies P] [--solve-time S] [--games N] [--seeds N] [--capture C]

Plays the arena's ``ai:perfect`` (the opening book at the start, then an
exact solve of every position: Engine.solve with the largest endgame
database cached) against OPPONENT, any arena player spec such as
'engine:"OLD/.venv/bin/python -m mancala engine"@0.1', over the start and
every P-move opening (default 2) of Kalah(6,N) (default 4) in game pairs,
and prints the arena's JSON.
Unlike ``ai:perfect`` in play, whose solve gives up after
levels.PERFECT_SOLVE_TIME seconds and searches instead, each solve here may
take S seconds (default 600; with a 22-seed database cached, each of the 36
positions of Kalah(6,4)'s 2-ply suite solved in under 30 s), so every move is
perfect unless a solve runs out of that time (tests/test_perfect_match.py
checks every move against the pure-Python twin's minimax on Kalah(6,1)).

A match scores wins, draws and losses; perfect play maximises the final
margin against a perfect opponent. Against a fallible one that is not the
same thing, so the Elo printed here is what a timed engine would score by
playing perfectly, not a bound on what it can score.
"""
import argparse
import sys

from mancala import levels
from mancala.cli import main as cli


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("opponent")
    p.add_argument("--plies", type=int, default=2)
    p.add_argument("--solve-time", type=float, default=600.0)
    p.add_argument("--games", type=int, help="games to play (default: the suite once)")
    p.add_argument("--seeds", type=int, default=4, help="seeds per pit (default 4)")
    p.add_argument("--capture", default="standard", help="capture rule (default standard)")
    args = p.parse_args()
    levels.PERFECT_SOLVE_TIME = args.solve_time
    games = ["--games", str(args.games)] if args.games else []
    return cli(["arena", "ai:perfect", args.opponent, "--openings", str(args.plies), *games,
                "--seeds", str(args.seeds), "--capture", args.capture, "--workers", "1", "--json"])


if __name__ == "__main__":
    sys.exit(main())
