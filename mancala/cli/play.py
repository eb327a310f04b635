"""``python -m mancala play``: for now, the engine plays itself and shows every move."""
from __future__ import annotations

import argparse

from mancala.board import PLAYER_NAMES, Board
from mancala.engine import Engine


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="watch the engine play a game against itself")
    p.add_argument("--seeds", type=int, default=4, help="seeds per pit, 1..12 (default 4)")
    p.add_argument("--capture", default="standard", choices=("standard", "empty", "none"))
    p.add_argument("--depth", type=int, default=12, help="engine search depth (default 12)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    board = Board(seeds=args.seeds, capture=args.capture)
    engine = Engine(hash_mb=32)
    print(board, end="\n\n")
    while not board.is_game_over():
        result = engine.search(board, depth=args.depth)
        record = board.push(result.move)
        notes = []
        if record.extra_turn:
            notes.append("extra turn")
        if record.captured:
            notes.append(f"captures {record.captured}")
        print(f"{PLAYER_NAMES[record.player]} plays pit {record.pit + 1}"
              f" (score {result.score:+d}, depth {result.depth}, {result.elapsed * 1000:.0f} ms)"
              + (f": {', '.join(notes)}" if notes else ""))
        print(board, end="\n\n")
    outcome = board.outcome()
    result = "a draw" if outcome.winner is None else f"{PLAYER_NAMES[outcome.winner]} wins"
    print(f"Game over: {result}, {outcome.south}-{outcome.north}.")
    return 0
