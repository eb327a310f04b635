"""The puzzle log: every attempt and the player's puzzle rating (:class:`PuzzleLog`).

Each attempt is one Glicko-2 rating period (:mod:`mancala.rating`) against
the puzzle's rating, kept in ``puzzles.sqlite3`` in the data folder with the
care of :class:`mancala.sqlitefile.SQLiteFile`. A puzzle counts once, as on
lichess: the first result kept for it moves the rating, and a later attempt at
the same puzzle (a replay, or the same attempt sent twice) is not kept and moves
nothing; the check and the write are one transaction, so attempts finished at
once by several processes or threads are still counted once. A newcomer
starts where a newcomer to the games does (:class:`mancala.rating.Rating`'s
default); a log of version 1, rated from an older start (1500), is rated again
from this one's when first opened (:func:`mancala.rating.sequence`).
"""
from __future__ import annotations

import json
import time
from dataclasses import astuple, dataclass, replace
from typing import Any, List, Optional, Sequence, Tuple

from mancala import rating as _rating
from mancala.puzzles.shipped import Puzzle
from mancala.rating import Rating
from mancala.sqlitefile import SQLiteFile
from mancala.storage import data_dir

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


def _rerate(db) -> None:
    """Every attempt the log keeps rated again from this version's start, against the
    puzzle's rating kept with it (rows that do not add up are left as they are)."""
    attempts = [record for record in map(_attempt, db.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM attempts ORDER BY id").fetchall()) if record]
    periods = _rating.sequence((record.puzzle_rating, PUZZLE_RD, float(record.solved))
                               for record in attempts)
    for record, (before, after) in zip(attempts, periods):
        db.execute("UPDATE attempts SET rating_before = ?, rd_before = ?, volatility_before = ?, "
                   "rating = ?, rd = ?, volatility = ? WHERE id = ?",
                   (*astuple(before), *astuple(after), record.id))


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
    counted: bool = True        #: False: the log held this puzzle's result already; nothing was kept


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
    SCHEMA_VERSION = 2
    MIGRATIONS = {1: (_rerate,)}    #: 1 -> 2: rated from 1500, rated again from this version's start
    WHAT = "puzzle log"

    def __init__(self, path=None) -> None:
        if path is None:
            path = data_dir() / FILE_NAME
        super().__init__(path)

    def record(self, puzzle: Puzzle, solved: bool, moves: Sequence[int],
               finished: Optional[float] = None) -> AttemptRecord:
        """Keep an attempt and move the player's rating by it (one rating period,
        against the puzzle's rating); the attempt as kept. If the log holds a
        result for this puzzle already, nothing is kept: the answer is that first
        attempt, with ``counted`` False."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished))
        moves = [int(pit) for pit in moves]
        notices: List[str] = []

        def write(db) -> AttemptRecord:         # one transaction: what it reads is still so
            for row in db.execute(f"SELECT {', '.join(_COLUMNS)} FROM attempts WHERE puzzle = ? "
                                  "ORDER BY id", (puzzle.id,)):
                first = _attempt(row)
                if first is not None:
                    return replace(first, counted=False)
            before = self._current(db)
            try:
                after = _rating.update(before, [(puzzle.rating, PUZZLE_RD, 1.0 if solved else 0.0)])
            except ValueError as exc:           # the puzzle's own rating out of range: kept, unrated
                notices.append(f"The attempt is kept; it does not move your rating "
                                    f"({' '.join(str(exc).split())}).")
                after = before
            cursor = db.execute(
                f"INSERT INTO attempts ({', '.join(_COLUMNS[1:])}) VALUES "
                f"({', '.join('?' * (len(_COLUMNS) - 1))})",
                (stamp, puzzle.id, float(puzzle.rating), int(bool(solved)), json.dumps(moves),
                 before.rating, before.rd, before.volatility,
                 after.rating, after.rd, after.volatility))
            return AttemptRecord(cursor.lastrowid, stamp, puzzle.id, float(puzzle.rating),
                                 bool(solved), tuple(moves), before, after)
        kept = self._write(write)
        self.notices.extend(notices)
        return kept

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
        """The rating after the last attempt :meth:`attempts` keeps (:func:`_attempt`'s
        check: a row that does not add up sets nothing), else a newcomer's."""
        for row in db.execute(f"SELECT {', '.join(_COLUMNS)} FROM attempts ORDER BY id DESC"):
            record = _attempt(row)
            if record is not None:
                return record.after
        return Rating()


def _attempt(row: Sequence[Any]) -> Optional[AttemptRecord]:
    """A row as an AttemptRecord, or None if it does not add up."""
    values = dict(zip(_COLUMNS, row))
    before = Rating(values["rating_before"], values["rd_before"], values["volatility_before"])
    after = Rating(values["rating"], values["rd"], values["volatility"])
    if not (before.is_valid() and after.is_valid() and Rating(values["puzzle_rating"]).is_valid()):
        return None
    try:
        moves = json.loads(values["moves"])
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(moves, list) or not all(_is_whole(pit) for pit in moves) \
            or values["solved"] not in (0, 1) or not isinstance(values["puzzle"], str) \
            or not isinstance(values["finished"], str):
        return None
    return AttemptRecord(values["id"], values["finished"], values["puzzle"],
                         float(values["puzzle_rating"]), bool(values["solved"]), tuple(moves),
                         before, after)


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = ["PuzzleLog", "AttemptRecord", "FILE_NAME"]
