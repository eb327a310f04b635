"""Your games and your rating: finished games kept in a local SQLite database.

The database is ``<data dir>/history.sqlite3`` (the folder autosaves use:
:func:`mancala.storage.data_dir`, ``$MANCALA_HOME`` if set). It holds every
finished game it is given: both players' spellings, the rules (seeds per pit,
capture), the moves (pit indices 0..5 from each mover's left), the final
stores, when it ended, and, when one side is a person (``human``) and the
other a computer level with an Elo (:func:`mancala.rating.level_elo`), the
person's Glicko-2 rating before and after it (:mod:`mancala.rating`). Every
game is its own rating period. Games between two computers, or two people,
are kept and rate nobody; so are games against a computer the levels' table
has no Elo for. Nothing here touches the network: the file stays on this machine.

    >>> import pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> games = History(folder / "history.sqlite3")
    >>> game = games.record("human", "random", 1, "standard", [5, 4, 4, 3, 3, 2, 5])
    >>> game.result, (game.south_store, game.north_store), game.human
    ('south', (9, 3), 0)
    >>> game.before.rating, game.after.rating > game.before.rating
    (1500.0, True)
    >>> shutil.rmtree(folder)

Several writers at once (two terminal games, two browser tabs) lose
nothing: the file is in WAL mode, a writer waits for another (a busy timeout
of :data:`BUSY_SECONDS`), and a game is written in one immediate
transaction that reads the last rating and inserts the game after it, so
the ratings form one sequence: each rated game's rating before is the
rating after the rated game before it.

A database that cannot be used (not SQLite, truncated or damaged, another
program's tables, or a newer schema than this version knows) is set aside,
never deleted: renamed ``history.sqlite3.unreadable-<UTC time>`` (its
``-wal`` and ``-shm`` files with it), and a new one is started; the reason is
one line in :attr:`History.notices`.
"""
from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from mancala import rating as _rating
from mancala.board import CAPTURE_RULES, Board
from mancala.errors import GameError, HistoryError, InputError, MancalaError, quote
from mancala.limits import check_seeds
from mancala.rating import Rating

try:
    import fcntl
except ImportError:              # not POSIX: SQLite's own locks still keep the writes apart
    fcntl = None

FILE_NAME = "history.sqlite3"
SCHEMA_VERSION = 1               #: PRAGMA user_version of the database this version writes
APPLICATION_ID = 0x4B616C68      #: PRAGMA application_id: "Kalh", so a stranger's SQLite file is told apart
BUSY_SECONDS = 30.0              #: how long a writer waits for another before giving up
UNREADABLE = ".unreadable-"
HUMAN = "human"                  #: the spelling of a person; every other player is a computer
MAX_SPEC_CHARS = 200             #: longer spellings are refused (an engine:"..." command fits)
MAX_MOVES = 10_000               #: no finished game comes near this

RESULTS = ("south", "north", "draw")

_COLUMNS = ("id", "finished", "south", "north", "seeds", "capture", "moves",
            "south_store", "north_store", "human", "opponent_elo", "opponent_rd",
            "rating_before", "rd_before", "volatility_before", "rating", "rd", "volatility")

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
    volatility REAL
)
"""


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

    @property
    def result(self) -> str:
        """'south', 'north' or 'draw'."""
        if self.south_store == self.north_store:
            return "draw"
        return "south" if self.south_store > self.north_store else "north"

    @property
    def rated(self) -> bool:
        return self.after is not None

    @property
    def players(self) -> Tuple[str, str]:
        return self.south, self.north

    def to_json(self) -> Dict[str, Any]:
        """The game as ``history --json`` prints it."""
        def rating(r: Optional[Rating]) -> Optional[Dict[str, float]]:
            if r is None:
                return None
            return {"rating": round(r.rating, 2), "rd": round(r.rd, 2),
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
            "opponent_elo": self.opponent_elo,
            "rating_before": rating(self.before),
            "rating_after": rating(self.after),
        }


def default_path() -> Path:
    """Where the history lives: ``<data dir>/history.sqlite3``."""
    from mancala.storage import data_dir
    return data_dir() / FILE_NAME


class _Damaged(Exception):
    """The database file cannot be used; the message says why."""


class SQLiteFile:
    """One SQLite file of this package's kept with care (the history's, the puzzle log's).

    Each call opens the file, does its work in a transaction and closes it, so
    one object may be shared by threads and any number of processes may use
    the file at once. A file that cannot be used is set aside (see the module
    docstring) and a new one started. A subclass names its table and schema
    (:attr:`TABLE`, :attr:`COLUMNS`, :attr:`SCHEMA`), its own
    :attr:`APPLICATION_ID` and :attr:`SCHEMA_VERSION`, and what the file is for
    people (:attr:`WHAT`); it reads and writes inside :meth:`_connection`.
    Raises HistoryError (one line) when the file cannot be read or written.
    """

    TABLE: str                  #: the one table, whose columns are checked
    COLUMNS: Tuple[str, ...]    #: its columns, in order
    SCHEMA: str                 #: CREATE TABLE for a new file
    APPLICATION_ID: int         #: PRAGMA application_id: tells a stranger's SQLite file apart
    SCHEMA_VERSION: int         #: PRAGMA user_version this version writes
    WHAT: str                   #: what the file is, for people ("game history")

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self.path = Path(path)
        self.notices: List[str] = []
        self._verified: Optional[Tuple[int, int]] = None     # (device, inode) checked sound

    def _run(self, write: bool, work: Callable[[sqlite3.Connection], Any]) -> Any:
        """``work(db)`` in a connection to the sound file, once more if the file
        went bad midway (and was set aside); HistoryError the second time."""
        for attempt in (1, 2):
            try:
                with self._connection(write=write) as db:
                    return work(db)
            except _Retry:
                if attempt == 2:
                    raise HistoryError(f"{self.path}: the database went bad twice while "
                                       f"{'writing' if write else 'reading'}") from None
        raise AssertionError("unreachable")

    def _write(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        """``work(db)`` in one immediate transaction (the write lock taken before
        anything is read, so what it reads is still so when it writes), as
        :meth:`_run` does it; rolled back if it raises."""
        def transaction(db: sqlite3.Connection) -> Any:
            db.execute("BEGIN IMMEDIATE")
            try:
                answer = work(db)
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
            return answer
        return self._run(True, transaction)

    @contextlib.contextmanager
    def _connection(self, write: bool) -> Iterator[sqlite3.Connection]:
        """A connection to a sound database (checked once, set aside if damaged).

        The lock file's flock is exclusive while the file is checked or set
        aside and while a game is written, shared while games are read: so no
        game goes into a file being set aside, and writers take turns without
        starving one another (SQLite's busy wait polls, so a writer in a hurry
        could keep another out past its timeout). The write itself is an
        immediate transaction all the same, for any writer that takes no flock.
        Raises HistoryError for what the system refuses, _Retry when the file
        turned out damaged midway (it is set aside by then: the caller tries again).
        """
        try:
            if write:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            with _flock(self._lock_path()) as lock:
                if self._verified is None or _identity(self.path) != self._verified:
                    lock.exclusive()
                    self._make_sound()
                if write:
                    lock.exclusive()    # writers take turns (the kernel queues them: no polling)
                else:
                    lock.share()
                db = self._connect()
                try:
                    yield db
                except sqlite3.OperationalError as exc:
                    raise HistoryError(self._refused(exc)) from None
                except sqlite3.DatabaseError as exc:
                    db.close()
                    lock.release()              # never wait for exclusive while holding shared
                    lock.exclusive()
                    self._verified = None
                    if not self._make_sound():
                        raise HistoryError(self._refused(exc)) from None
                    raise _Retry() from None
                finally:
                    db.close()
        except OSError as exc:
            raise HistoryError(self._refused(exc)) from None
        except sqlite3.OperationalError as exc:
            raise HistoryError(self._refused(exc)) from None

    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def _connect(self) -> sqlite3.Connection:
        # isolation_level None: no implicit transactions, each one is written out (BEGIN IMMEDIATE)
        db = sqlite3.connect(str(self.path), timeout=BUSY_SECONDS, isolation_level=None)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        except BaseException:
            db.close()
            raise
        return db

    def _make_sound(self) -> bool:
        """Under the exclusive lock: check the file, set it aside if damaged (True
        then), create the tables of a new or empty one."""
        set_aside = False
        try:
            self._check_or_create()
        except _Damaged as exc:
            self._set_aside(str(exc))
            set_aside = True
            self._check_or_create()
        self._verified = _identity(self.path)
        return set_aside

    def _check_or_create(self) -> None:
        """_Damaged with the reason if the file cannot be used as what it is for."""
        header = _header(self.path)
        if header and not header.startswith(b"SQLite format 3\x00"):
            raise _Damaged("it is not an SQLite database")
        short = _truncated(self.path, header)
        if short:
            raise _Damaged(f"it is truncated ({short})")
        if not self.path.exists():
            try:
                self.path.touch()           # read-only folder: an OSError, reported as such
            except FileExistsError:
                pass
        db = self._connect()
        try:
            app, version = (db.execute(f"PRAGMA {name}").fetchone()[0]
                            for name in ("application_id", "user_version"))
            tables = [row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            if app == 0 and version == 0 and not tables:
                self._create(db)
                return
            if app != self.APPLICATION_ID:
                raise _Damaged(f"it is another program's database, not a mancala {self.WHAT}")
            if version > self.SCHEMA_VERSION:
                raise _Damaged(f"it was written by a newer mancala (schema version {version}; "
                               f"this one reads {self.SCHEMA_VERSION})")
            if version != self.SCHEMA_VERSION:
                raise _Damaged(f"its schema version {version} is unknown")
            columns = tuple(row[1] for row in db.execute(f"PRAGMA table_info({self.TABLE})"))
            if columns != self.COLUMNS:
                raise _Damaged(f"its {self.TABLE} table is not the one this mancala writes")
            check = db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                problem = _one_line(check[0][0]).replace("*** in database main *** ", "")
                problem = problem if len(problem) <= 80 else problem[:77] + "..."
                raise _Damaged(f"it is damaged (SQLite's check: {problem})")
        except sqlite3.OperationalError:
            raise                           # locked, read-only, I/O: not the file's fault
        except sqlite3.DatabaseError as exc:
            raise _Damaged(f"it is damaged ({_one_line(exc)})") from None
        finally:
            db.close()

    def _create(self, db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode = WAL")         # readers never wait for a writer
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(self.SCHEMA)
            db.execute(f"PRAGMA application_id = {self.APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {self.SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise

    def _set_aside(self, reason: str) -> None:
        """Rename the file (and its -wal/-shm) out of the way; one notice."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.path.name}{UNREADABLE}{stamp}")
        number = 1
        while target.exists():
            number += 1
            target = self.path.with_name(f"{self.path.name}{UNREADABLE}{stamp}-{number}")
        try:
            os.rename(self.path, target)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise HistoryError(f"the {self.WHAT} {self.path} cannot be used ({reason}) "
                               f"nor renamed ({_reason(exc)})") from None
        for suffix in ("-wal", "-shm"):
            try:
                os.rename(f"{self.path}{suffix}", f"{target}{suffix}")
            except OSError:
                pass
        self._verified = None
        self.notices.append(f"The {self.WHAT} {self.path} cannot be used: {reason}; "
                            f"it is kept as {target.name} and a new one is started.")

    def _refused(self, exc: BaseException) -> str:
        if isinstance(exc, OSError):
            return f"cannot use the {self.WHAT} {self.path} ({_reason(exc)})"
        text = _one_line(exc)
        if "locked" in text or "busy" in text:
            text += f", still after waiting {BUSY_SECONDS:g} s for another process writing to it"
        return f"cannot use the {self.WHAT} {self.path} ({text})"


class History(SQLiteFile):
    """The game history in one SQLite file (``path``; default :func:`default_path`).

    Each call opens the file, does its work in a transaction and closes it, so
    one object may be shared by threads and any number of processes may use
    the file at once. Raises HistoryError (one line) when the file cannot be
    read or written (a read-only folder, a disk full, a lock held past
    :data:`BUSY_SECONDS`). What the player should be told once (a damaged
    database set aside) collects in :attr:`notices`.
    """

    TABLE = "games"
    COLUMNS = _COLUMNS
    SCHEMA = _SCHEMA
    APPLICATION_ID = APPLICATION_ID
    SCHEMA_VERSION = SCHEMA_VERSION
    WHAT = "game history"

    def __init__(self, path: Union[str, "os.PathLike[str]", None] = None) -> None:
        super().__init__(path if path is not None else default_path())

    # -- writing

    def record(self, south: str, north: str, seeds: int, capture: str,
               moves: Sequence[int], finished: Optional[float] = None) -> GameRecord:
        """Keep a finished game, rate the person in it, return it as kept.

        ``south``/``north`` are canonical player spellings, ``moves`` the pit
        indices from the start of ``seeds`` per pit; ``finished`` is when it
        ended (seconds since the epoch; default now). The game is replayed:
        InputError if it is not a legal, finished game. HistoryError if the
        file cannot be written.
        """
        south, north = _spec(south, "south"), _spec(north, "north")
        board = _replay(seeds, capture, moves)
        outcome = board.outcome()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished))
        humans = [side for side, spec in enumerate((south, north)) if spec == HUMAN]
        human = humans[0] if len(humans) == 1 else None
        level = None if human is None else _rating.level_elo((south, north)[1 - human])
        row = {"finished": stamp, "south": south, "north": north, "seeds": seeds,
               "capture": capture, "moves": json.dumps(list(board_moves(board))),
               "south_store": outcome.south, "north_store": outcome.north, "human": human}
        for attempt in (1, 2):
            try:
                with self._connection(write=True) as db:
                    db.execute("BEGIN IMMEDIATE")          # the write lock, before reading the rating
                    try:
                        before = after = None
                        if level is not None:
                            before = self._current(db)
                            mine = outcome.score.pov(human)
                            score = 1.0 if mine > 0 else 0.5 if mine == 0 else 0.0
                            after = _rating.update(before, [(level.elo, level.rd, score)])
                        values = dict(row, opponent_elo=None if level is None else level.elo,
                                      opponent_rd=None if level is None else level.rd,
                                      **_rating_columns(before, after))
                        names = ", ".join(values)
                        cursor = db.execute(
                            f"INSERT INTO games ({names}) VALUES ({', '.join('?' * len(values))})",
                            tuple(values.values()))
                        db.execute("COMMIT")
                    except BaseException:
                        _rollback(db)
                        raise
                    return GameRecord(cursor.lastrowid, stamp, south, north, seeds, capture,
                                      tuple(board_moves(board)), outcome.south, outcome.north,
                                      human, values["opponent_elo"], before, after)
            except _Retry:
                if attempt == 2:
                    raise HistoryError(f"{self.path}: the database went bad twice while writing") \
                        from None
        raise AssertionError("unreachable")

    # -- reading

    def games(self) -> List[GameRecord]:
        """Every game kept, in the order they were written (HistoryError if unreadable).

        A row that does not add up (edited by hand) is left out, with a notice.
        """
        if not self.path.exists():
            return []
        for attempt in (1, 2):
            try:
                with self._connection(write=False) as db:
                    rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM games ORDER BY id").fetchall()
                break
            except _Retry:
                if attempt == 2:
                    raise HistoryError(f"{self.path}: the database went bad twice while reading") \
                        from None
        found, bad = [], 0
        for row in rows:
            game = _game(row)
            if game is None:
                bad += 1
            else:
                found.append(game)
        if bad:
            self.notices.append(f"{bad} game{'' if bad == 1 else 's'} in {self.path} "
                                f"do{'es' if bad == 1 else ''} not add up and "
                                f"{'is' if bad == 1 else 'are'} left out.")
        return found

    def rating(self) -> Rating:
        """The person's rating now: after the last rated game, else a newcomer's."""
        rated = [game for game in self.games() if game.after is not None]
        return rated[-1].after if rated else Rating()

    # -- the rating

    @staticmethod
    def _current(db: sqlite3.Connection) -> Rating:
        row = db.execute("SELECT rating, rd, volatility FROM games WHERE rating IS NOT NULL "
                         "ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return Rating()
        if not all(_is_number(value) for value in row):
            raise sqlite3.DatabaseError("a rating that is not a number")
        return Rating(*row)


class _Retry(Exception):
    """The database went bad during a call and was set aside: do the call again."""


def board_moves(board: Board) -> List[int]:
    """The pits played on ``board`` since its start, in order."""
    return [record.pit for record in board.move_stack]


def _spec(spec: object, side: str) -> str:
    if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC_CHARS:
        raise InputError(f"the {side} player is a spelling of at most {MAX_SPEC_CHARS} "
                         f"characters, not {quote(spec)}")
    return spec


def _replay(seeds: object, capture: object, moves: Sequence[int]) -> Board:
    """The finished game's board, or InputError saying why the game is not one."""
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
    if not board.is_game_over():
        raise GameError(f"the game is not over after its {len(moves)} moves; "
                        "only finished games are kept")
    return board


def _rating_columns(before: Optional[Rating], after: Optional[Rating]) -> Dict[str, Optional[float]]:
    columns: Dict[str, Optional[float]] = {}
    for suffix, r in (("_before", before), ("", after)):
        columns[f"rating{suffix}"] = None if r is None else r.rating
        columns[f"rd{suffix}"] = None if r is None else r.rd
        columns[f"volatility{suffix}"] = None if r is None else r.volatility
    return columns


def _game(row: Sequence[Any]) -> Optional[GameRecord]:
    """A row as a GameRecord, or None if it does not add up (types, a replay that fails)."""
    values = dict(zip(_COLUMNS, row))
    try:
        moves = json.loads(values["moves"]) if isinstance(values["moves"], str) else None
        if not isinstance(moves, list) or not all(isinstance(v, str) for v in
                                                  (values["finished"], values["south"], values["north"])):
            return None
        board = _replay(values["seeds"], values["capture"], moves)
    except (InputError, ValueError, RecursionError):
        return None
    outcome = board.outcome()
    if (values["south_store"], values["north_store"]) != (outcome.south, outcome.north):
        return None
    if values["human"] not in (None, 0, 1):
        return None
    ratings = []
    for suffix in ("_before", ""):
        numbers = [values[f"{name}{suffix}"] for name in ("rating", "rd", "volatility")]
        if all(number is None for number in numbers):
            ratings.append(None)
        elif all(_is_number(number) for number in numbers):
            ratings.append(Rating(*numbers))
        else:
            return None
    elo = values["opponent_elo"]
    if elo is not None and not _is_number(elo):
        return None
    return GameRecord(values["id"], values["finished"], values["south"], values["north"],
                      values["seeds"], values["capture"], tuple(moves), outcome.south,
                      outcome.north, values["human"], elo, ratings[0], ratings[1])


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _identity(path: Path) -> Optional[Tuple[int, int]]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _header(path: Path) -> bytes:
    """The first 100 bytes: SQLite's file header (empty if there is no file)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(100)
    except FileNotFoundError:
        return b""


def _truncated(path: Path, header: bytes) -> str:
    """Why the file is shorter than its header says ('' if it is not, or if a
    write-ahead log holds pages the file has not had yet: SQLite judges that case)."""
    if not header or _size(Path(f"{path}-wal")):
        return ""
    if len(header) < 100:
        return f"{len(header)} bytes, less than SQLite's header"
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    size = os.stat(path).st_size
    if page_size < 512 or size % page_size:
        return f"{size} bytes is not a whole number of {page_size}-byte pages"
    pages = int.from_bytes(header[28:32], "big")
    # the page count in the header is valid when the change counter matches its copy
    if header[24:28] == header[92:96] and size < pages * page_size:
        return f"{size} bytes, its header says {pages * page_size}"
    return ""


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _rollback(db: sqlite3.Connection) -> None:
    try:
        db.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) or type(value).__name__


class _Lock:
    """An flock on the history's lock file: exclusive to check or set the file aside,
    shared while using it. Without flock (or a lock file we cannot create) it does nothing."""

    def __init__(self, fd: Optional[int]) -> None:
        self.fd = fd

    def share(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_SH)

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    def exclusive(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_EX)


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[_Lock]:
    fd = None
    if fcntl is not None:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            fd = None                   # a folder we may read but not write: no lock to take
    try:
        yield _Lock(fd)
    finally:
        if fd is not None:
            os.close(fd)


# -- the default history ----------------------------------------------------------------

def record_game(south: str, north: str, seeds: int, capture: str, moves: Sequence[int],
                path: Union[str, "os.PathLike[str]", None] = None
                ) -> Tuple[GameRecord, List[str]]:
    """Keep a finished game in the history at ``path`` (default :func:`default_path`):
    the game as kept and the notices to show. Raises what :meth:`History.record` raises."""
    history = History(path)
    game = history.record(south, north, seeds, capture, moves)
    return game, history.notices


__all__ = ["History", "SQLiteFile", "GameRecord", "HistoryError", "record_game", "default_path", "FILE_NAME",
           "SCHEMA_VERSION", "HUMAN", "RESULTS"]
