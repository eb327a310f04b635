"""Named positions kept as text: the benchmark list and any file like it.

One position a line, four fields separated by spaces::

    NAME  SLOTS  SIDE  CAPTURE       # a comment runs to the end of the line

- NAME: letters, digits and ``_ . + -``, unique within the file;
- SLOTS: the 14 slots in the index order of the rules, comma-separated
  (South pits 0..5, South store 6, North pits 7..12, North store 13);
- SIDE: the side to move, ``south`` or ``north`` (or ``0`` / ``1``);
- CAPTURE: ``standard``, ``empty`` or ``none``.

Blank lines and lines starting with ``#`` are skipped. A line that does not
describe a legal, unfinished position is refused with a one-line
``PositionFileError`` that quotes it.
"""
from __future__ import annotations

import random
import re
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple, Union

from mancala._system import FileTooLarge, read_regular_file
from mancala.board import Board, start_slots
from mancala.errors import MancalaError, PositionFileError, quote
from mancala.geometry import SIDE_NAMES

#: the packaged benchmark list (``python -m mancala bench`` without ``--positions``)
BENCH_POSITIONS = Path(__file__).parent / "data" / "bench_positions.txt"
MAX_BYTES = 1 << 20     #: a positions file is at most this long (the packaged one is 3.4 KB)

SIDES = {"south": 0, "north": 1, "0": 0, "1": 1}
NAME = re.compile(r"[A-Za-z0-9_.+-]+$")
FORMAT = "NAME SLOTS SIDE CAPTURE"


class Position(NamedTuple):
    """A named position: slots in absolute order, side to move, capture rule."""

    name: str
    pits: Tuple[int, ...]
    to_move: int
    capture: str

    def board(self) -> Board:
        """A fresh Board of this position."""
        return Board(list(self.pits), self.to_move, capture=self.capture)

    def line(self) -> str:
        """The position as a line of a positions file."""
        return (f"{self.name} {','.join(map(str, self.pits))} "
                f"{SIDE_NAMES[self.to_move].lower()} {self.capture}")


def parse_line(text: str) -> Optional[Position]:
    """The position on one line, None for a blank or comment line.

    Raises PositionFileError (a MancalaError) saying what is wrong.
    """
    fields = text.split("#", 1)[0].split()
    if not fields:
        return None
    if len(fields) != 4:
        raise PositionFileError(f"expected {FORMAT}, found {len(fields)} fields")
    name, slots, side, capture = fields
    if not NAME.match(name):
        raise PositionFileError(f"name {quote(name)} has characters other than letters, digits, _.+-")
    try:
        pits = tuple(int(item) for item in slots.split(","))
    except ValueError:
        raise PositionFileError(f"slots {quote(slots)} are not 14 comma-separated whole numbers") from None
    if len(pits) != 14:
        raise PositionFileError(f"slots {quote(slots)} are {len(pits)} numbers, not 14")
    if side.lower() not in SIDES:
        raise PositionFileError(f"side to move {quote(side)} is not south or north")
    position = Position(name, pits, SIDES[side.lower()], capture)
    try:
        board = position.board()
    except MancalaError as exc:
        raise PositionFileError(str(exc)) from None
    if board.is_game_over():
        raise PositionFileError("the game is already over")
    return position


def read_positions(text: str, source: str = "<positions>") -> List[Position]:
    """Every position in a positions file's text; PositionFileError naming the source and line."""
    positions: List[Position] = []
    names = set()
    for number, line in enumerate(text.splitlines(), 1):
        try:
            position = parse_line(line)
            if position is not None and position.name in names:
                raise PositionFileError(f"the name {quote(position.name)} is used twice")
        except PositionFileError as exc:
            raise PositionFileError(f"{source} line {number}: {exc}: {quote(line.strip(), 120)}") from None
        if position is not None:
            names.add(position.name)
            positions.append(position)
    if not positions:
        raise PositionFileError(f"{source} holds no positions")
    return positions


def load_positions(path: Union[str, Path, None] = None) -> List[Position]:
    """The positions of a file (default: the packaged benchmark list).

    Raises PositionFileError for a file that is not a positions file, OSError
    for one that cannot be read.
    """
    path = BENCH_POSITIONS if path is None else Path(path)
    try:
        text = read_regular_file(path, MAX_BYTES).decode("utf-8")
    except FileTooLarge:
        raise PositionFileError(f"{path} is larger than {MAX_BYTES:,} bytes, "
                                "so not a positions file") from None
    except UnicodeDecodeError as exc:
        raise PositionFileError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return read_positions(text, str(path))


def random_playout(seeds: int, capture: str, moves: int, seed: int,
                   name: str = "playout") -> Position:
    """The position after `moves` random legal moves from a start.

    Moves are drawn by ``random.Random(seed).choice`` over the legal pits in
    ascending order, so the same arguments give the same position on every
    Python 3. PositionFileError if the game is over by then.
    """
    rng = random.Random(seed)
    board = Board(start_slots(seeds), 0, capture=capture)
    for _ in range(moves):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves))
    if board.is_game_over():
        raise PositionFileError(f"the game of seed {quote(seed)} is over after {board.ply} of {quote(moves)} moves")
    return Position(name, tuple(board.pits), board.to_move, capture)

