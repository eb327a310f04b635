"""``python -m mancala analyze``: the value of every legal move of one position."""
from __future__ import annotations

import argparse
import json
import re
from typing import List

from mancala.board import PLAYER_NAMES, Board
from mancala.cli import CommandError
from mancala.cli.bench import _depth, _megabytes, _seconds
from mancala.engine import DEFAULT_DEPTH, Engine


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze", help="score every legal move of a position",
        description="Score every legal move of a position (from the side to move's view, in "
                    "seeds) to a depth, for a time, or exactly. The position is a start "
                    "(--seeds, --capture), any board (--board), and/or moves played from it "
                    "(--moves). Pits are shown 1..6 from the mover's left.")
    p.add_argument("--board", type=_slots, metavar="SLOTS",
                   help="14 seed counts in rule order: South pits, South store, North pits, "
                        "North store, e.g. '0,3,0,0,1,2,20,1,0,0,4,0,0,17'")
    p.add_argument("--to-move", type=_side, default=0, metavar="SIDE",
                   help="south or north (with --board; default south)")
    p.add_argument("--seeds", type=int, default=None, help="seeds per pit of the start (default 4)")
    p.add_argument("--capture", default="standard", choices=("standard", "empty", "none"))
    p.add_argument("--moves", type=_moves, default=[], metavar="PITS",
                   help="moves to play first, pits 1..6 from each mover's left, e.g. '3 6 1'")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=_depth, metavar="N",
                       help=f"search every move to depth N (default {DEFAULT_DEPTH})")
    limit.add_argument("--time", type=_seconds, metavar="S", help="seconds in all, shared by the moves")
    limit.add_argument("--exact", action="store_true", help="solve every move to the end of the game")
    p.add_argument("--hash-mb", type=_megabytes, default=64.0, metavar="MB",
                   help="transposition table size (default 64)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(run=run)


def _slots(text: str) -> List[int]:
    parts = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a board is 14 whole numbers, not {text!r}") from None


def _side(text: str) -> int:
    sides = {"south": 0, "s": 0, "0": 0, "north": 1, "n": 1, "1": 1}
    try:
        return sides[text.strip().lower()]
    except KeyError:
        raise argparse.ArgumentTypeError(f"the side is south or north, not {text!r}") from None


def _moves(text: str) -> List[int]:
    parts = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    if not all(part.isdigit() and 1 <= int(part) <= 6 for part in parts):
        raise argparse.ArgumentTypeError(f"moves are pits 1..6, not {text!r}")
    return [int(part) - 1 for part in parts]


def run(args: argparse.Namespace) -> int:
    if args.board is not None:
        if args.seeds is not None:
            raise CommandError("give --board or --seeds, not both")
        board = Board(args.board, args.to_move, capture=args.capture)
    else:
        board = Board(seeds=4 if args.seeds is None else args.seeds, capture=args.capture)
    for number, pit in enumerate(args.moves, 1):
        if not board.is_legal(pit):
            legal = " ".join(str(p + 1) for p in board.legal_moves) or "none: the game is over"
            raise CommandError(f"move {number} of --moves, pit {pit + 1}, is not legal; legal pits: {legal}")
        board.push(pit)
    engine = Engine(hash_mb=args.hash_mb)
    if args.exact:
        results = engine.analyse(board, exact=True)
    else:
        depth = args.depth if args.depth or args.time else DEFAULT_DEPTH
        results = engine.analyse(board, depth=depth, time=args.time)
    best = max((r.score for r in results.values()), default=None)
    if args.json:
        print(json.dumps({
            "board": board.pits, "to_move": board.to_move, "capture": board.capture,
            "moves": [{"pit": pit, "score": r.score, "depth": r.depth, "exact": r.exact,
                       "nodes": r.nodes, "pv": list(r.pv), "best": r.score == best}
                      for pit, r in results.items()],
        }, indent=2))
        return 0
    print(board)
    if not results:
        outcome = board.outcome()
        print(f"The game is over: South {outcome.south}, North {outcome.north}.")
        return 0
    print(f"\n{PLAYER_NAMES[board.to_move]} to move; scores for {PLAYER_NAMES[board.to_move]}, in seeds:")
    for pit, r in results.items():
        how = "exact" if r.exact else f"depth {r.depth}"
        line = " ".join(str(p + 1) for p in r.pv[:12])
        mark = "  <- best" if r.score == best else ""
        print(f"  pit {pit + 1}: {r.score:+4d}  ({how}, {r.nodes} nodes)  line: {line}{mark}")
    return 0
