"""``python -m mancala analyze``: the value of every legal move of one position."""
from __future__ import annotations

import argparse
import json

from mancala.cli import options
from mancala.cli.position import add_position_arguments, board_from
from mancala.engine import Engine
from mancala.geometry import SIDE_NAMES
from mancala.limits import DEFAULT_DEPTH, DEFAULT_HASH_MB
from mancala.scores import Score


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze", help="score every legal move of a position",
        description="Score every legal move of a position (from the side to move's view, in "
                    "seeds) to a depth, for a time, or exactly. The position is a start "
                    "(--seeds, --capture), any board (--board), and/or moves played from it "
                    "(--moves). Pits are shown 1..6 from the mover's left; --json gives pit "
                    "indices 0..5 (pit_index, pv_indices).")
    add_position_arguments(p)
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=options.depth, metavar="N",
                       help=f"search every move to depth N (default {DEFAULT_DEPTH})")
    limit.add_argument("--time", type=options.seconds, metavar="S", help="seconds in all, shared by the moves")
    limit.add_argument("--exact", action="store_true", help="solve every move to the end of the game")
    p.add_argument("--hash-mb", type=options.megabytes, default=float(DEFAULT_HASH_MB), metavar="MB",
                   help=f"transposition table size (default {DEFAULT_HASH_MB})")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    board = board_from(args)
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
            "moves": [{"pit_index": pit, "score": r.score, "depth": r.depth, "exact": r.exact,
                       "nodes": r.nodes, "pv_indices": list(r.pv), "best": r.score == best}
                      for pit, r in results.items()],
        }, indent=2))
        return 0
    print(board)
    if not results:
        outcome = board.outcome()
        print(f"The game is over: South {outcome.south}, North {outcome.north}.")
        return 0
    print(f"\n{SIDE_NAMES[board.to_move]} to move; each move's score in seeds, the side ahead "
          "named (the hint's number at the same depth):")
    for pit, r in results.items():
        line = " ".join(str(p + 1) for p in r.pv[:12])
        mark = "  <- best" if r.score == best else ""
        score = Score.of(r, board.to_move).text()
        print(f"  pit {pit + 1}: {score:<20} {r.nodes} nodes, line: {line}{mark}")
    return 0
