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
rated from an older start (1500), are rated again from this one's. Nothing
here touches the network: the file stays on this machine.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from mancala import rating as _rating
from mancala.board import CAPTURE_RULES, Board
from mancala.errors import GameError, HistoryError, InputError, one_line, quote
from mancala.game import can_be_rated
from mancala.geometry import NORTH, SOUTH, store_slot
from mancala.limits import check_seeds
from mancala.players import level_elo
from mancala.rating import Rating
from mancala.sqlitefile import SQLiteFile
from mancala.storage import data_dir

FILE_NAME = "history.sqlite3"
SCHEMA_VERSION = 3               #: PRAGMA user_version of the database this version writes
APPLICATION_ID = 0x4B616C68      #: PRAGMA application_id: "Kalh", so a stranger's SQLite file is told apart
HUMAN = "human"                  #: the spelling of a person; every other player is a computer
MAX_SPEC_CHARS = 200             #: longer spellings are refused (an engine:"..." command fits)
MAX_MOVES = 10_000               #: no finished game comes near this

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


def _rerate(db: sqlite3.Connection) -> None:
    """The rated games rated again from this version's start (:func:`mancala.rating.sequence`),
    against the Elo kept with them; rows the list leaves out (:func:`_game`) left as they are."""
    games = [game for game in map(_game, db.execute(
        f"SELECT {', '.join(_LISTED)} FROM games WHERE rated = 1 ORDER BY id").fetchall()) if game]
    periods = _rating.sequence((game.opponent_elo, game.opponent_rd, _points(
        (game.south_store, game.north_store), game.resigned, game.human)) for game in games)
    for game, (before, after) in zip(games, periods):
        columns = _rating_columns(before, after)
        db.execute(f"UPDATE games SET {', '.join(f'{name} = ?' for name in columns)} WHERE id = ?",
                   (*columns.values(), game.id))


#: schema version 1 -> 2: its games that rated the person are the rated ones;
#: 2 -> 3: rated from 1500, they are rated again from this version's start
_MIGRATIONS = {1: (
    "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0",
    "UPDATE games SET rated = (rating IS NOT NULL)",
    "ALTER TABLE games ADD COLUMN resigned INTEGER",
    "ALTER TABLE games ADD COLUMN review TEXT",
), 2: (_rerate,)}


@dataclass(frozen=True)
class GameRecord:
    """One finished game as the history keeps it."""

    id: int                       #: its place in the history (1 first)
    finished: str                 #: when it ended, ISO 8601 in UTC
    south: str                    #: South's player spelling
    north: str                    #: North's player spelling
    seeds: int                    #: seeds per pit at the start
    capture: str                  #: capture rule
    pit_indices: Tuple[int, ...]  #: the moves, pits 0..5 from each mover's left
    south_store: int              #: South's final seeds
    north_store: int              #: North's final seeds
    human: Optional[int]          #: the side of the one person playing, if one did
    opponent_elo: Optional[float]  #: the computer's Elo, when the game is rated
    before: Optional[Rating]      #: the person's rating before the game (None: unrated)
    after: Optional[Rating]       #: ... and after it
    resigned: Optional[int] = None  #: the side that resigned (its stores then), None if played out
    opponent_rd: Optional[float] = None     #: the computer's deviation, when the game is rated

    @property
    def result(self) -> str:
        """'south', 'north' or 'draw' (a resigned game is the other side's)."""
        if self.resigned is not None:
            return "north" if self.resigned == 0 else "south"
        if self.south_store == self.north_store:
            return "draw"
        return "south" if self.south_store > self.north_store else "north"

    def result_for(self, side: int) -> str:
        """'won', 'lost' or 'drew': the result for ``side`` (0 South, 1 North)."""
        return "drew" if self.result == "draw" else \
            "won" if self.result == ("south", "north")[side] else "lost"

    @property
    def rated(self) -> bool:
        """The game counted for the person's rating (casual games and others did not)."""
        return self.after is not None

    @property
    def players(self) -> Tuple[str, str]:
        return self.south, self.north

    def to_json(self) -> Dict[str, Any]:
        """The game as ``history --json`` prints it."""
        def rating(r: Optional[Rating]) -> Optional[Dict[str, float]]:
            return None if r is None else {"rating": round(r.rating, 2), "rd": round(r.rd, 2),
                                           "volatility": round(r.volatility, 6)}
        return {
            "id": self.id,
            "finished": self.finished,
            "players": {"south": self.south, "north": self.north},
            "seeds": self.seeds,
            "capture": self.capture,
            "pit_indices": list(self.pit_indices),
            "result": self.result,
            "score": {"south": self.south_store, "north": self.north_store},
            "human": self.human,
            "rated": self.rated,
            "resigned": None if self.resigned is None else ("south", "north")[self.resigned],
            "opponent_elo": self.opponent_elo,
            "rating_before": rating(self.before),
            "rating_after": rating(self.after),
        }


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
        south, north = _spec(south, "south"), _spec(north, "north")
        if resigned is not None and (isinstance(resigned, bool) or resigned not in (0, 1)):
            raise InputError(f"resigned is a side, 0 (South) or 1 (North), not {quote(resigned)}")
        board = _replay(seeds, capture, moves, resigned)
        stores, played = _stores(board, resigned), [record.pit for record in board.move_stack]
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
                    after = _rating.update(before, [(level.elo, level.rd, _points(stores, resigned, human))])
                except (ValueError, ArithmeticError) as exc:
                    notices.append(f"The game is kept, unrated: its rating could not be worked "
                                   f"out ({one_line(exc)}).")
                    before = None
            if after is not None:
                columns = dict(rated=1, opponent_elo=level.elo, opponent_rd=level.rd,
                               **_rating_columns(before, after))
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


def _spec(spec: object, side: str) -> str:
    if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC_CHARS:
        raise InputError(f"the {side} player is a spelling of at most {MAX_SPEC_CHARS} "
                         f"characters, not {quote(spec)}")
    return spec


def _replay(seeds: object, capture: object, moves: Sequence[int],
            resigned: Optional[int] = None) -> Board:
    """The finished (or resigned) game's board, or InputError saying why the game is not one."""
    check_seeds(seeds)
    if capture not in CAPTURE_RULES:
        raise InputError(f"unknown capture rule {quote(capture)}; choose one of "
                         f"{', '.join(CAPTURE_RULES)}")
    try:
        moves = list(moves)
    except TypeError:
        raise InputError(f"moves are a list of pit indices, not {quote(moves)}") from None
    if len(moves) > MAX_MOVES:
        raise InputError(f"{len(moves)} moves are more than a game has")
    board = Board(seeds=seeds, capture=capture)
    for number, pit in enumerate(moves, 1):
        if isinstance(pit, bool) or not isinstance(pit, int) or pit not in board.legal_moves:
            raise InputError(f"move {number} ({quote(pit)}) is not legal in that game")
        board.push(pit)
    if resigned is None and not board.is_game_over():
        raise GameError(f"the game is not over after its {len(moves)} moves; "
                        "only finished games are kept")
    if resigned is not None and board.is_game_over():
        raise GameError(f"the game is over after its {len(moves)} moves: nobody can resign it")
    return board


def _stores(board: Board, resigned: Optional[int]) -> Tuple[int, int]:
    """The seeds kept for each side: the final count, or the stores when one side resigned."""
    if resigned is not None:
        return board.pits[store_slot(SOUTH)], board.pits[store_slot(NORTH)]
    outcome = board.outcome()
    return outcome.south, outcome.north


def _points(stores: Tuple[int, int], resigned: Optional[int], side: int) -> float:
    """What the game scores for ``side`` in the rating: 1 a win, 0.5 a draw, 0 a loss."""
    if resigned is not None:
        return float(resigned != side)
    return 1.0 if stores[side] > stores[1 - side] else 0.5 if stores[side] == stores[1 - side] else 0.0


def _rating_columns(before: Optional[Rating], after: Optional[Rating]) -> Dict[str, Optional[float]]:
    return {f"{name}{suffix}": None if r is None else getattr(r, name)
            for suffix, r in (("_before", before), ("", after)) for name in ("rating", "rd", "volatility")}


def _game(row: Sequence[Any]) -> Optional[GameRecord]:
    """A row as a GameRecord, or None if it does not add up (types, a replay that fails)."""
    values = dict(zip(_COLUMNS, row))
    try:
        moves = json.loads(values["moves"]) if isinstance(values["moves"], str) else None
        if not isinstance(moves, list) or not all(isinstance(v, str) for v in
                                                  (values["finished"], values["south"], values["north"])):
            return None
        resigned = values["resigned"]
        if resigned not in (None, 0, 1) or isinstance(resigned, bool):
            return None
        board = _replay(values["seeds"], values["capture"], moves, resigned)
    except (InputError, ValueError, RecursionError):
        return None
    stores = _stores(board, resigned)
    if (values["south_store"], values["north_store"]) != stores:
        return None
    if values["human"] not in (None, 0, 1):
        return None
    ratings = []
    for suffix in ("_before", ""):
        numbers = [values[f"{name}{suffix}"] for name in ("rating", "rd", "volatility")]
        if all(number is None for number in numbers):
            ratings.append(None)
        elif Rating(*numbers).is_valid():
            ratings.append(Rating(*numbers))
        else:
            return None
    if (ratings[0] is None) != (ratings[1] is None) or (ratings[1] is not None and values["human"] is None):
        return None
    elo = values["opponent_elo"]
    if elo is not None and not Rating(elo).is_valid():
        return None
    if values["rated"] != int(ratings[1] is not None):
        return None
    return GameRecord(values["id"], values["finished"], values["south"], values["north"],
                      values["seeds"], values["capture"], tuple(moves), stores[0],
                      stores[1], values["human"], elo, ratings[0], ratings[1], resigned,
                      values["opponent_rd"])


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
