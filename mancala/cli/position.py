"""The position arguments shared by the commands that examine one position."""
from __future__ import annotations

import argparse
import re
from typing import List

from mancala.board import Board
from mancala.cli import options
from mancala.errors import CommandError
from mancala.limits import DEFAULT_SEEDS, MAX_SEEDS_PER_PIT, MIN_SEEDS, parse_whole
from mancala.errors import quote


def add_position_arguments(p: argparse.ArgumentParser) -> None:
    """--seeds, --capture, --board, --to-move, --moves."""
    # checked by Board (mancala.limits.check_seeds), reported as one line like the other position errors
    p.add_argument("--seeds", type=options.integer, default=None, metavar="N",
                   help=f"seeds per pit of the start, {MIN_SEEDS}..{MAX_SEEDS_PER_PIT} (default {DEFAULT_SEEDS})")
    options.add_capture(p)
    p.add_argument("--board", type=slots, metavar="SLOTS",
                   help="any position: 14 seed counts in rule order (South pits, South store, "
                        "North pits, North store), e.g. '0,3,0,0,1,2,20,1,0,0,4,0,0,17'")
    p.add_argument("--to-move", type=side, default=None, metavar="SIDE",
                   help="south or north: who moves in the --board position (default south)")
    p.add_argument("--moves", type=moves, default=[], metavar="PITS",
                   help="moves to play first, pits 1..6 from each mover's left, e.g. '3 6 1'")


def board_from(args: argparse.Namespace) -> Board:
    """The position the arguments describe, or CommandError."""
    if args.board is not None:
        if args.seeds is not None:
            raise CommandError("give --board or --seeds, not both")
        board = Board(args.board, args.to_move or 0, capture=args.capture)
    elif args.to_move is not None:
        raise CommandError("--to-move sets who moves in a --board position; a start always has "
                           "South to move (give --board, or --moves to play from the start)")
    else:
        board = Board(seeds=DEFAULT_SEEDS if args.seeds is None else args.seeds, capture=args.capture)
    for number, pit in enumerate(args.moves, 1):
        if not board.is_legal(pit):
            legal = " ".join(str(p + 1) for p in board.legal_moves) or "none: the game is over"
            raise CommandError(f"move {number} of --moves, pit {pit + 1}, is not legal; legal pits: {legal}")
        board.push(pit)
    return board


def slots(text: str) -> List[int]:
    parts = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    numbers = [parse_whole(part) for part in parts]
    if None in numbers:
        raise argparse.ArgumentTypeError(f"a board is 14 whole numbers, not {quote(text)}")
    return numbers


def side(text: str) -> int:
    sides = {"south": 0, "s": 0, "0": 0, "north": 1, "n": 1, "1": 1}
    try:
        return sides[text.strip().lower()]
    except KeyError:
        raise argparse.ArgumentTypeError(f"the side is south or north, not {quote(text)}") from None


def moves(text: str) -> List[int]:
    parts = [part for part in re.split(r"[\s,]+", text.strip()) if part]
    numbers = [parse_whole(part) for part in parts]
    if not all(number is not None and 1 <= number <= 6 for number in numbers):
        raise argparse.ArgumentTypeError(f"moves are pits 1..6, not {quote(text)}")
    return [number - 1 for number in numbers]
