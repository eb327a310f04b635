"""What perfect play scores against a player: the ceiling of a match's Elo.

    python bench/perfect_match.py OPPONENT [--plies P] [--solve-time S] [--games N]

Plays the arena's ``ai:perfect`` (the opening book at the start, then an
exact solve of every position: Engine.solve with the largest endgame
database cached) against OPPONENT, any arena player spec such as
'engine:"OLD/.venv/bin/python -m mancala engine"@0.1', over the start and
every P-move opening (default 2) in game pairs, and prints the arena's JSON.
Unlike ``ai:perfect`` in play, whose solve gives up after
players.PERFECT_SOLVE_TIME seconds and searches instead, each solve here may
take S seconds (default 600: with a 22-seed database cached every position of
Kalah(6,4) seen so far solved in under a minute), so every move is perfect
unless a solve runs out of that time.

A match scores wins, draws and losses; perfect play maximises the final
margin against a perfect opponent. Against a fallible one that is not the
same thing, so the Elo printed here is what a timed engine would score by
playing perfectly, not a bound on what it can score.
"""
import argparse
import sys

from mancala import players
from mancala.cli import main as cli


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("opponent")
    p.add_argument("--plies", type=int, default=2)
    p.add_argument("--solve-time", type=float, default=600.0)
    p.add_argument("--games", type=int, help="games to play (default: the suite once)")
    args = p.parse_args()
    players.PERFECT_SOLVE_TIME = args.solve_time
    games = ["--games", str(args.games)] if args.games else []
    return cli(["arena", "ai:perfect", args.opponent, "--openings", str(args.plies), *games,
                "--workers", "1", "--json"])


if __name__ == "__main__":
    sys.exit(main())
