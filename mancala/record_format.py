"""The Kalah game record's format (:mod:`mancala.records` reads it): its tags, the set-up
of a game that does not start at the start (:class:`Setup`), the game a record holds
(:class:`Record`), and how a record is written (:func:`dumps`): tags, a blank line, the
turns numbered, the result.
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from mancala.board import Board, MoveRecord
from mancala.errors import InputError, quote
from mancala.geometry import PITS, SIDE_NAMES, SLOTS, STORES, pit_letter, side_seeds
from mancala.limits import DEFAULT_CAPTURE, DEFAULT_SEEDS
from mancala.untrusted import printable

if TYPE_CHECKING:
    from mancala.kept import GameRecord

EXTENSION = ".kalah"            #: a record's file name ends so (``save game.kalah``)
VARIANT = "Kalah"
UNKNOWN = "?"                   #: a tag's value nobody knows (PGN's)
GOING_ON = "*"                  #: the result of a game not over
ROSTER = ("Variant", "Event", "Site", "Date", "South", "North", "Seeds", "Capture", "Result")
REQUIRED = ("Variant", "South", "North", "Seeds", "Capture", "Result")
SETUP, RESIGNED = "FEN", "Resigned"     #: the start when not the rules' own; who resigned
LINE_WIDTH = 79                 #: the moves are written in lines at most this long
DEFAULTS = {"Event": UNKNOWN, "Site": UNKNOWN, "Date": "????.??.??"}    #: written when not known


class Setup(NamedTuple):
    """A start that is not the rules' own: the 14 slots (in the rules' order) and the side to move."""

    slots: Tuple[int, ...]
    to_move: int

    def text(self) -> str:
        """The FEN tag's value: '0-3-0-0-1-2-20-1-0-0-4-0-0-17-N'."""
        return "-".join(map(str, self.slots)) + "-" + "SN"[self.to_move]

    @classmethod
    def parse(cls, text: str) -> "Setup":
        """The set-up a FEN tag's value gives; InputError (one line) if it is not one."""
        parts = text.strip().split("-")
        side = parts.pop().strip().upper() if parts else ""
        if len(parts) != SLOTS or side not in ("S", "N") or not all(p.strip().isdigit() for p in parts):
            raise InputError(f"FEN {quote(text)} is not {SLOTS} counts of seeds and S or N, "
                             "joined by '-' (the slots in the rules' order, then the side to move)")
        return cls(tuple(int(p) for p in parts), "SN".index(side))


@dataclass
class Record:
    """A game as a record holds it: its rules, players, moves (pit indices 0..5 of each
    sowing, as everywhere in the library), its start when not the rules' own, who
    resigned, and its other tags (Event, Site, Date and any other, by name)."""

    seeds: int = DEFAULT_SEEDS
    capture: str = DEFAULT_CAPTURE
    south: str = UNKNOWN
    north: str = UNKNOWN
    moves: List[int] = field(default_factory=list)
    setup: Optional[Setup] = None
    resigned: Optional[int] = None      #: the side that resigned (0 South, 1 North)
    tags: Dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_board(cls, board: Board, seeds: int, south: str = UNKNOWN, north: str = UNKNOWN,
                   **tags: str) -> "Record":
        """The record of a board's history (its start: :func:`setup_of`). Raises nothing."""
        return cls(seeds, board.capture, south, north, [r.pit for r in board.move_stack],
                   setup_of(board, seeds), tags=dict(tags))

    @classmethod
    def from_history(cls, game: "GameRecord") -> "Record":
        """A game of the history (:class:`mancala.kept.GameRecord`) as a record, the one both
        faces export (``history --export``, the web's export): rated or casual its Event, its
        number in the history its Site, when it ended (UTC) its Date and UTCTime, who resigned."""
        event = "Rated game" if game.rated else "Casual game" if game.human is not None else UNKNOWN
        date, _, clock = game.finished.rstrip("Z").partition("T")
        return cls(game.seeds, game.capture, game.south, game.north, list(game.pit_indices),
                   resigned=game.resigned,
                   tags={"Event": event, "Site": f"mancala history, game {game.id}",
                         "Date": date.replace("-", "."), "UTCTime": clock})

    def start(self) -> Board:
        """The board before the first move (InvalidBoardError for a set-up that is not one)."""
        if self.setup is None:
            return Board(seeds=self.seeds, capture=self.capture)
        return Board(list(self.setup.slots), self.setup.to_move, capture=self.capture)

    def board(self) -> Board:
        """The board after every move (IllegalMoveError if one is not legal)."""
        board = self.start()
        for pit in self.moves:
            board.push(pit)
        return board

    @property
    def result(self) -> str:
        """'26-22' (South's seeds first: the final count, or the stores when a side resigned)
        or '*' for a game going on."""
        board = self.board()
        if self.resigned is not None:
            return f"{board.pits[STORES[0]]}-{board.pits[STORES[1]]}"
        if not board.is_game_over():
            return GOING_ON
        return f"{side_seeds(board.pits, 0)}-{side_seeds(board.pits, 1)}"

    def turns(self) -> List[str]:
        """Each turn as the record writes it: ['CF', 'J+5', ...]."""
        return [_turn_text(turn) for turn in _turns(self.start(), self.moves)]


def setup_of(board: Board, seeds: int) -> Optional[Setup]:
    """The start of a board's history (its moves taken back on a copy), or None when it is
    the rules' own start for ``seeds`` per pit, South to move. Raises nothing."""
    root = board.copy()
    while root.ply:
        root.pop()
    if root.to_move == 0 and list(root.pits) == ([seeds] * PITS + [0]) * 2:
        return None
    return Setup(tuple(root.pits), root.to_move)


# -- writing ---------------------------------------------------------------------------

def dumps(record: Record) -> str:
    """The record's text: its tags, a blank line, its turns and result in lines of at most
    :data:`LINE_WIDTH` columns. IllegalMoveError if its moves are not a legal game."""
    result = record.result
    tags = {"Variant": VARIANT, **DEFAULTS,
            **{name: value for name, value in record.tags.items()
               if name not in REQUIRED and name not in (SETUP, RESIGNED)},
            "South": record.south, "North": record.north, "Seeds": str(record.seeds),
            "Capture": record.capture, "Result": result}
    if record.setup is not None:
        tags[SETUP] = record.setup.text()
    if record.resigned is not None:
        tags[RESIGNED] = SIDE_NAMES[record.resigned]
    order = list(ROSTER) + [name for name in tags if name not in ROSTER]
    lines = [f'[{name} "{_escape(tags[name])}"]' for name in order]
    units = [f"{number}. {turn}" for number, turn in enumerate(record.turns(), 1)] + [result]
    text, line = [], ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > LINE_WIDTH:
            text.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    return "\n".join(lines + [""] + text + [line]) + "\n"


def dumps_all(records: Sequence[Record]) -> str:
    """Several games in one text, a blank line between them (:func:`loads_all` reads it)."""
    return "\n".join(dumps(record) for record in records)


def looks_like(name: Optional["os.PathLike[str] | str"], text: Union[str, bytes]) -> bool:
    """Whether a file is a record, not a JSON save: its name ends in :data:`EXTENSION`,
    or (any name but ``.json``) its text starts with a tag."""
    name = "" if name is None else os.fspath(name).lower()
    if name.endswith(EXTENSION) or name.endswith(".json"):
        return name.endswith(EXTENSION)
    head = text[:200].decode("utf-8", "replace") if isinstance(text, bytes) else text[:200]
    return re.match(r"\ufeff?\s*\[\s*[A-Za-z]", head) is not None


def today() -> str:
    """Today's date in UTC as a record's Date tag writes it: '2026.05.01'."""
    return time.strftime("%Y.%m.%d", time.gmtime())


def _escape(value: str) -> str:
    return printable(value).replace("\\", "\\\\").replace('"', '\\"')


def _turns(board: Board, moves: Sequence[int]) -> Iterator[List[MoveRecord]]:
    turn: List[MoveRecord] = []
    for pit in moves:
        record = board.push(pit)
        turn.append(record)
        if not record.extra_turn:
            yield turn
            turn = []
    if turn:
        yield turn


def _turn_text(turn: Sequence[MoveRecord]) -> str:
    return "".join(pit_letter(r.player, r.pit) + (f"+{r.captured}" if r.captured else "")
                   for r in turn)


__all__ = ["Record", "Setup", "dumps", "dumps_all", "setup_of", "looks_like", "today",
           "EXTENSION", "VARIANT", "ROSTER", "REQUIRED", "SETUP", "RESIGNED", "GOING_ON", "UNKNOWN",
           "DEFAULTS", "LINE_WIDTH"]
