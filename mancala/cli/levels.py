"""``python -m mancala levels``: the computer levels and their Elo on one scale."""
from __future__ import annotations

import argparse
import json
from typing import Dict, List

from mancala.levels import Level, elo_range, level_table, levels_measured


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "levels", help="the computer levels and their Elo",
        description="The computer levels, weakest first, with their Elo on one scale "
                    "(random is 0), measured by matches between them (bench/fit_levels.py), "
                    "and the 95% interval of each. ai:elo=N plays at any N in the range.",
        epilog="--json prints a list of {\"spec\", \"elo\", \"low\", \"high\"}: the player's "
               "spelling, its Elo and the 95% interval (low = high = elo for random, the anchor).")
    p.add_argument("--json", action="store_true", help="print the table as one JSON list")
    p.set_defaults(run=run)


def rows() -> List[Dict[str, object]]:
    """The table as ``levels --json`` prints it."""
    return [{"spec": level.spec, "elo": level.elo,
             "low": level.elo if level.low is None else level.low,
             "high": level.elo if level.high is None else level.high} for level in level_table()]


def describe(level: Level) -> str:
    """'ai:easy  600  [500, 700]'."""
    interval = "" if level.low is None or level.low == level.high else \
        f"  [{level.low:.0f}, {level.high:.0f}]"
    return f"{level.spec:<22}{level.elo:>6.0f}{interval}"


def run(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps(rows(), indent=2))
        return 0
    lowest, highest = elo_range()
    print("The computer levels, weakest first: Elo (random is 0) and its 95% interval.")
    for level in level_table():
        print("  " + describe(level))
    print(f"ai:elo=N plays at any N from {lowest} to {highest}, between the two levels around it.")
    measured = levels_measured()
    if measured:
        print(f"Measured {measured.get('date', '?')}: {measured.get('games', '?')} games "
              f"({measured.get('command', '')}).")
    return 0
