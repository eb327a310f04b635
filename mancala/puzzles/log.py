"""The puzzle log: every attempt and the player's puzzle rating (:class:`PuzzleLog`).

Each attempt is one Glicko-2 rating period (:mod:`mancala.rating`) against
the puzzle's rating, kept in ``puzzles.sqlite3`` in the data folder with the
care of :class:`mancala.sqlitefile.SQLiteFile`.
"""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from mancala import rating as _rating
from mancala.puzzles.shipped import Puzzle
from mancala.rating import Rating
from mancala.sqlitefile import SQLiteFile

FILE_NAME = "puzzles.sqlite3"   #: the puzzle log, in the data folder
PUZZLE_RD = 0.0                 #: a puzzle's rating is taken as known, as the levels' Elo are

_COLUMNS = ("id", "finished", "puzzle", "puzzle_rating", "solved", "moves",
            "rating_before", "rd_before", "volatility_before", "rating", "rd", "volatility")

_SCHEMA = """
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,         -- the order attempts were written in
    finished TEXT NOT NULL,         -- when: ISO 8601, UTC ('2026-05-01T12:00:00Z')
    puzzle TEXT NOT NULL,           -- the puzzle's id
    puzzle_rating REAL NOT NULL,    -- its rating then
    solved INTEGER NOT NULL,        -- 1 solved, 0 not
    moves TEXT NOT NULL,            -- JSON list of the solver's moves as tried, pit indices 0..5
    rating_before REAL NOT NULL,    -- the player's puzzle rating (Glicko-2) before and after
    rd_before REAL NOT NULL,
    volatility_before REAL NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    volatility REAL NOT NULL
)
"""


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt as the log keeps it."""

    id: int
    finished: str
    puzzle: str
    puzzle_rating: float
    solved: bool
    moves: Tuple[int, ...]
    before: Rating
    after: Rating


class PuzzleLog(SQLiteFile):
    """Every puzzle attempt and the player's puzzle rating, in one SQLite file
    (``path``; default ``<data dir>/puzzles.sqlite3``), kept as the game history
    is: several writers at once lose nothing, a damaged file is set aside with
    a notice (:attr:`notices`) and a new one started. HistoryError if it cannot
    be read or written."""

    TABLE = "attempts"
    COLUMNS = _COLUMNS
    SCHEMA = _SCHEMA
    APPLICATION_ID = 0x4B616C50     # "KalP"
    SCHEMA_VERSION = 1
    WHAT = "puzzle log"

    def __init__(self, path=None) -> None:
        if path is None:
            from mancala.storage import data_dir
            path = data_dir() / FILE_NAME
        super().__init__(path)

    def record(self, puzzle: Puzzle, solved: bool, moves: Sequence[int],
               finished: Optional[float] = None) -> AttemptRecord:
        """Keep an attempt and move the player's rating by it (one rating period,
        against the puzzle's rating); the attempt as kept."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished))
        moves = [int(pit) for pit in moves]

        def write(db) -> AttemptRecord:         # one transaction: the rating read is the last
            before = self._current(db)
            after = _rating.update(before, [(puzzle.rating, PUZZLE_RD, 1.0 if solved else 0.0)])
            cursor = db.execute(
                f"INSERT INTO attempts ({', '.join(_COLUMNS[1:])}) VALUES "
                f"({', '.join('?' * (len(_COLUMNS) - 1))})",
                (stamp, puzzle.id, float(puzzle.rating), int(bool(solved)), json.dumps(moves),
                 before.rating, before.rd, before.volatility,
                 after.rating, after.rd, after.volatility))
            return AttemptRecord(cursor.lastrowid, stamp, puzzle.id, float(puzzle.rating),
                                 bool(solved), tuple(moves), before, after)
        return self._write(write)

    def attempts(self) -> List[AttemptRecord]:
        """Every attempt kept, oldest first (rows that do not add up are left out, with a notice)."""
        if not self.path.exists():
            return []
        rows = self._run(False, lambda db: db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM attempts ORDER BY id").fetchall())
        found = []
        for row in rows:
            record = _attempt(row)
            if record is not None:
                found.append(record)
        if len(found) < len(rows):
            self.notices.append(f"{len(rows) - len(found)} attempt(s) in {self.path} do not add "
                                "up and are left out.")
        return found

    def rating(self) -> Rating:
        """The player's puzzle rating now (a newcomer's before the first attempt)."""
        done = self.attempts()
        return done[-1].after if done else Rating()

    @staticmethod
    def _current(db) -> Rating:
        row = db.execute("SELECT rating, rd, volatility FROM attempts ORDER BY id DESC "
                         "LIMIT 1").fetchone()
        if row is None:
            return Rating()
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v == v for v in row):
            raise sqlite3.DatabaseError("a rating that is not a number")
        return Rating(*row)


def _attempt(row: Sequence[Any]) -> Optional[AttemptRecord]:
    values = dict(zip(_COLUMNS, row))
    numbers = [values[name] for name in _COLUMNS[6:]] + [values["puzzle_rating"]]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v == v for v in numbers):
        return None
    try:
        moves = json.loads(values["moves"])
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(moves, list) or not all(_is_whole(pit) for pit in moves) \
            or values["solved"] not in (0, 1) or not isinstance(values["puzzle"], str):
        return None
    return AttemptRecord(values["id"], values["finished"], values["puzzle"],
                         float(values["puzzle_rating"]), bool(values["solved"]), tuple(moves),
                         Rating(values["rating_before"], values["rd_before"],
                                values["volatility_before"]),
                         Rating(values["rating"], values["rd"], values["volatility"]))


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = ["PuzzleLog", "AttemptRecord", "FILE_NAME"]
