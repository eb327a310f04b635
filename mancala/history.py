"""Your games and your rating: finished games kept in a local SQLite database.

The database is ``<data dir>/history.sqlite3`` (the folder autosaves use:
:func:`mancala.storage.data_dir`, ``$MANCALA_HOME`` if set). It holds every
finished game it is given: both players' spellings, the rules (seeds per pit,
capture), the moves (pit indices 0..5 from each mover's left), the final
stores, when it ended, and, when one side is a person (``human``) and the
other a computer level with an Elo (:func:`mancala.players.level_elo`), the
person's Glicko-2 rating before and after it (:mod:`mancala.rating`). Every
game is its own rating period. Games between two computers, or two people,
are kept and rate nobody; so are games against a computer the levels' table
has no Elo for, and casual games (``rated=False``). A resigned game is the
resigning side's loss, its stores kept as they stood. A game's review is kept
with it (:meth:`History.keep_review`). Older files are brought up to date:
version 1's games that rated the person are the rated ones, and version 2's,
rated from an older start (1500), are rated again from this one's. The same file
keeps the games not over yet (:mod:`mancala.unfinished`). Nothing here touches the
network: the file stays on this machine.

    >>> import pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> games = History(folder / "history.sqlite3")
    >>> game = games.record("human", "random", 1, "standard", [5, 4, 4, 3, 3, 2, 5], rated=True)
    >>> game.result, (game.south_store, game.north_store), game.human
    ('south', (9, 3), 0)
    >>> game.before.rating, game.after.rating > game.before.rating
    (940.0, True)
    >>> shutil.rmtree(folder)

Several writers at once (two terminal games, two browser tabs) lose nothing,
and a game is written in one transaction that reads the last rating and
inserts the game after it, so the ratings form one sequence: each rated game's
rating before is the rating after the rated game before it. A database that
cannot be used (not SQLite, damaged, another program's, a newer schema) is set
aside, never deleted (``history.sqlite3.unreadable-<UTC time>``), and a new one
started, one line in :attr:`History.notices` saying why: the care of the file
is :class:`mancala.sqlitefile.SQLiteFile`'s, which the puzzle log shares.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from mancala import rating as _rating
from mancala.errors import HistoryError, InputError, one_line, quote
from mancala.game import can_be_rated
from mancala.kept import (HUMAN, GameRecord, check_spec, from_row, points, rating_columns, replay,
                          stores_of)
from mancala.players import level_elo
from mancala.rating import Rating
from mancala.sqlitefile import SQLiteFile
from mancala.storage import data_dir

FILE_NAME = "history.sqlite3"
SCHEMA_VERSION = 4               #: PRAGMA user_version of the database this version writes
APPLICATION_ID = 0x4B616C68      #: PRAGMA application_id: "Kalh", so a stranger's SQLite file is told apart
RESULTS = ("south", "north", "draw")

_COLUMNS = ("id", "finished", "south", "north", "seeds", "capture", "moves",
            "south_store", "north_store", "human", "opponent_elo", "opponent_rd",
            "rating_before", "rd_before", "volatility_before", "rating", "rd", "volatility",
            "rated", "resigned", "review")
_LISTED = _COLUMNS[:-1]          # a game as listed: all but its review, read only when asked for

_SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,         -- the order games were written in
    finished TEXT NOT NULL,         -- when it ended: ISO 8601, UTC ('2026-05-01T12:00:00Z')
    south TEXT NOT NULL,            -- the players' canonical spellings
    north TEXT NOT NULL,
    seeds INTEGER NOT NULL,         -- seeds per pit at the start
    capture TEXT NOT NULL,          -- 'standard', 'empty' or 'none'
    moves TEXT NOT NULL,            -- JSON list of pit indices 0..5 from each mover's left
    south_store INTEGER NOT NULL,   -- final seeds, after the sweep
    north_store INTEGER NOT NULL,
    human INTEGER,                  -- the side of the one person playing (0 South, 1 North), else NULL
    opponent_elo REAL,              -- the computer's Elo when the game is rated, else NULL
    opponent_rd REAL,
    rating_before REAL,             -- the person's Glicko-2 rating before and after (NULL: unrated)
    rd_before REAL,
    volatility_before REAL,
    rating REAL,
    rd REAL,
    volatility REAL,
    rated INTEGER NOT NULL DEFAULT 0,   -- 1: the game counted for the person's rating; 0: casual or unrated
    resigned INTEGER,               -- the side that resigned (0 South, 1 North), else NULL: played out
    review TEXT                     -- the game's review as JSON (mancala.review), NULL until reviewed
)
"""
#: the games not over yet (mancala.unfinished): the web's, rated and casual, between requests
_UNFINISHED_SCHEMA = """
CREATE TABLE unfinished (
    name TEXT PRIMARY KEY,          -- the face's name for the game
    owner TEXT NOT NULL,            -- who may go on with it: SHA-256 of its client's token, hex
    rated INTEGER NOT NULL,         -- 1: rated (the server plays the computer's moves), 0: casual
    south TEXT NOT NULL,            -- the players' canonical spellings
    north TEXT NOT NULL,
    position TEXT NOT NULL,         -- JSON: its start and every move, as the web API writes one
    shown INTEGER NOT NULL,         -- the moves of it shown (a casual game looked back at)
    resigned INTEGER,               -- the side that resigned (0 South, 1 North), else NULL
    kept TEXT,                      -- once kept in the games table: what the face said (JSON)
    used REAL NOT NULL              -- when it was last played or asked for: seconds since the epoch
)
"""


def _rerate(db: sqlite3.Connection) -> None:
    """The rated games rated again from this version's start (:func:`mancala.rating.sequence`),
    against the Elo kept with them; rows the list leaves out (:func:`_game`) left as they are."""
    games = [game for game in map(_game, db.execute(
        f"SELECT {', '.join(_LISTED)} FROM games WHERE rated = 1 ORDER BY id").fetchall()) if game]
    periods = _rating.sequence((game.opponent_elo, game.opponent_rd, points(
        (game.south_store, game.north_store), game.resigned, game.human)) for game in games)
    for game, (before, after) in zip(games, periods):
        columns = rating_columns(before, after)
        db.execute(f"UPDATE games SET {', '.join(f'{name} = ?' for name in columns)} WHERE id = ?",
                   (*columns.values(), game.id))


#: schema version 1 -> 2: its games that rated the person are the rated ones;
#: 2 -> 3: rated from 1500, they are rated again from this version's start; 3 -> 4: the
#: games not over yet have a table
_MIGRATIONS = {1: (
    "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0",
    "UPDATE games SET rated = (rating IS NOT NULL)",
    "ALTER TABLE games ADD COLUMN resigned INTEGER",
    "ALTER TABLE games ADD COLUMN review TEXT",
), 2: (_rerate,), 3: (_UNFINISHED_SCHEMA.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"),)}


def default_path() -> Path:
    """Where the history lives: ``<data dir>/history.sqlite3``."""
    return data_dir() / FILE_NAME


class History(SQLiteFile):
    """The game history in one SQLite file (``path``; default :func:`default_path`).

    Each call opens the file, does its work in a transaction and closes it, so
    one object may be shared by threads and any number of processes may use
    the file at once. Raises HistoryError (one line) when the file cannot be
    read or written (a read-only folder, a disk full, a lock held past
    :data:`mancala.sqlitefile.BUSY_SECONDS`). What the player should be told once (a damaged
    database set aside) collects in :attr:`notices`.
    """

    TABLE = "games"
    COLUMNS = _COLUMNS
    SCHEMA = _SCHEMA
    MORE_TABLES = (_UNFINISHED_SCHEMA,)
    APPLICATION_ID = APPLICATION_ID
    SCHEMA_VERSION = SCHEMA_VERSION
    MIGRATIONS = _MIGRATIONS
    WHAT = "game history"

    def __init__(self, path: Union[str, "os.PathLike[str]", None] = None) -> None:
        super().__init__(path if path is not None else default_path())

    # -- writing

    def record(self, south: str, north: str, seeds: int, capture: str,
               moves: Sequence[int], finished: Optional[float] = None, *,
               rated: Optional[bool] = None, resigned: Optional[int] = None) -> GameRecord:
        """Keep a finished game, rate the person in it, return it as kept.

        ``south``/``north`` are canonical player spellings, ``moves`` the pit
        indices from the start of ``seeds`` per pit; ``finished`` is when it
        ended (seconds since the epoch; default now). ``rated``: whether it counts for the
        person's rating, by default where it can (:func:`mancala.game.can_be_rated`, as a
        face offers it); False: casual, rating nobody. ``resigned``: the side (0 South,
        1 North) that gave up a game not over, its loss. The game is replayed: InputError if it is
        not a legal game, finished or resigned. HistoryError if the file cannot be written.
        """
        south, north = check_spec(south, "south"), check_spec(north, "north")
        if resigned is not None and (isinstance(resigned, bool) or resigned not in (0, 1)):
            raise InputError(f"resigned is a side, 0 (South) or 1 (North), not {quote(resigned)}")
        board = replay(seeds, capture, moves, resigned)
        stores, played = stores_of(board, resigned), [record.pit for record in board.move_stack]
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished))
        humans = [side for side, spec in enumerate((south, north)) if spec == HUMAN]
        human = humans[0] if len(humans) == 1 else None
        if rated is None:
            rated = can_be_rated(south, north, seeds, capture)
        level = None if human is None or not rated else level_elo((south, north)[1 - human])
        row = {"finished": stamp, "south": south, "north": north, "seeds": seeds,
               "capture": capture, "moves": json.dumps(played),
               "south_store": stores[0], "north_store": stores[1], "human": human,
               "rated": 0, "resigned": resigned}
        notices: List[str] = []

        def write(db: sqlite3.Connection) -> GameRecord:     # one transaction: the rating read is the last
            # the game first, unrated: whatever the rating maths says, the game is kept
            cursor = db.execute(
                f"INSERT INTO games ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                tuple(row.values()))
            before = after = None
            if level is not None:
                before = self._current(db)
                try:
                    after = _rating.update(before, [(level.elo, level.rd, points(stores, resigned, human))])
                except (ValueError, ArithmeticError) as exc:
                    notices.append(f"The game is kept, unrated: its rating could not be worked "
                                   f"out ({one_line(exc)}).")
                    before = None
            if after is not None:
                columns = dict(rated=1, opponent_elo=level.elo, opponent_rd=level.rd,
                               **rating_columns(before, after))
                db.execute(f"UPDATE games SET {', '.join(f'{name} = ?' for name in columns)} "
                           "WHERE id = ?", (*columns.values(), cursor.lastrowid))
            return GameRecord(cursor.lastrowid, stamp, south, north, seeds, capture,
                              tuple(played), stores[0], stores[1],
                              human, None if after is None else level.elo, before, after, resigned,
                              None if after is None else level.rd)
        kept = self._write(write)
        self.notices.extend(notices)
        return kept

    # -- reading

    def games(self) -> List[GameRecord]:
        """Every game kept, in the order they were written (HistoryError if unreadable).

        A row that does not add up (edited by hand) is left out, with a notice.
        """
        if not self.path.exists():
            return []
        rows = self._run(False, lambda db: db.execute(
            f"SELECT {', '.join(_LISTED)} FROM games ORDER BY id").fetchall())
        found = [game for game in map(_game, rows) if game is not None]
        bad = len(rows) - len(found)
        if bad:
            self.notices.append(f"{bad} game{'' if bad == 1 else 's'} in {self.path} "
                                f"do{'es' if bad == 1 else ''} not add up and "
                                f"{'is' if bad == 1 else 'are'} left out.")
        return found

    def rating(self) -> Rating:
        """The person's rating now: after the last rated game, else a newcomer's."""
        rated = [game for game in self.games() if game.after is not None]
        return rated[-1].after if rated else Rating()

    # -- reviews kept with their game

    def reviews(self, ids: Optional[Sequence[int]] = None) -> Dict[int, Any]:
        """{game id: its review (:meth:`keep_review`'s JSON value)} for the games of
        ``ids`` (default: all) that have one that reads as JSON."""
        if not self.path.exists():
            return {}
        where = "" if ids is None else f" AND id IN ({', '.join('?' * len(ids))})"
        rows = self._run(False, lambda db: db.execute(
            f"SELECT id, review FROM games WHERE review IS NOT NULL{where}",
            tuple(ids or ())).fetchall())
        found = {}
        for game_id, text in rows:
            try:
                found[game_id] = json.loads(text)
            except (TypeError, ValueError, RecursionError):
                pass
        return found

    def keep_review(self, game_id: int, review: Any) -> bool:
        """Keep a review (any JSON value) with game ``game_id``, in place of the one
        kept before; False if there is no such game (HistoryError if unwritable)."""
        text = json.dumps(review, separators=(",", ":"))
        return bool(self._write(lambda db: db.execute(
            "UPDATE games SET review = ? WHERE id = ?", (text, game_id)).rowcount))

    # -- the rating

    @staticmethod
    def _current(db: sqlite3.Connection) -> Rating:
        """The rating after the last rated game the list keeps (:func:`_game`'s check:
        a row that does not add up sets nothing), else a newcomer's."""
        rows = db.execute(f"SELECT {', '.join(_LISTED)} FROM games WHERE rating IS NOT NULL "
                          "ORDER BY id DESC")
        for game in map(_game, rows):
            if game is not None and game.after is not None:
                return game.after
        return Rating()


def _game(row: Sequence[Any]) -> Optional[GameRecord]:
    """A row of the games table as a GameRecord, or None if it does not add up (:func:`from_row`)."""
    return from_row(dict(zip(_COLUMNS, row)))


# -- the default history ----------------------------------------------------------------

def record_game(south: str, north: str, seeds: int, capture: str, moves: Sequence[int],
                path: Union[str, "os.PathLike[str]", None] = None, *, rated: Optional[bool] = None,
                resigned: Optional[int] = None) -> Tuple[GameRecord, List[str]]:
    """Keep a finished (or resigned) game in the history at ``path`` (default
    :func:`default_path`): the game as kept and the notices to show. Raises
    what :meth:`History.record` raises."""
    history = History(path)
    game = history.record(south, north, seeds, capture, moves, rated=rated, resigned=resigned)
    return game, history.notices


__all__ = ["History", "GameRecord", "HistoryError", "record_game", "default_path", "FILE_NAME",
           "SCHEMA_VERSION", "HUMAN", "RESULTS"]
