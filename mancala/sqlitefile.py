"""One SQLite file of this package's, kept with care: :class:`SQLiteFile`.

The game history (:mod:`mancala.history`) and the puzzle log
(:mod:`mancala.puzzles.log`) each keep one table in one file this way. The
file is opened and checked once (its header, its size against the header, its
application id and schema version, its table's columns, SQLite's quick check;
a file of an older schema is brought up to date in place, its rows kept, by
the subclass's :attr:`SQLiteFile.MIGRATIONS`) and used by any number of
threads and processes at once: it is in WAL mode (readers never wait for a
writer), a writer waits for another up to :data:`BUSY_SECONDS`, writers take
turns on an flock of ``<file>.lock``, and a write is one immediate
transaction, so what it reads is still so when it writes.

A file that cannot be used (not SQLite, truncated or damaged, another
program's tables, or a newer schema than this version knows) is set aside,
never deleted: renamed ``<file>.unreadable-<UTC time>`` (its ``-wal`` and
``-shm`` files with it), and a new one is started; the reason is one line in
:attr:`SQLiteFile.notices`. A file found damaged midway through a call is set
aside the same way and the call made once more.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from mancala._system import (NotARegularFile, error_line, open_regular, read_head, reason, refuse_special,
                             why_not_writable, writable)
from mancala.errors import HistoryError

try:
    import fcntl
except ImportError:              # not POSIX: SQLite's own locks still keep the writes apart
    fcntl = None

BUSY_SECONDS = 30.0              #: how long a writer waits for another before giving up
UNREADABLE = ".unreadable-"      #: a file set aside is renamed <file><UNREADABLE><UTC time>
SIDE_FILES = ("-wal", "-shm", "-journal")   #: SQLite's own files beside the database


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
    people (:attr:`WHAT`); it reads with :meth:`_run` and writes with :meth:`_write`.
    Raises HistoryError (one line) when the file cannot be read or written.
    """

    TABLE: str                  #: the one table, whose columns are checked
    COLUMNS: Tuple[str, ...]    #: its columns, in order
    SCHEMA: str                 #: CREATE TABLE for a new file
    MORE_TABLES: Tuple[str, ...] = ()   #: CREATE TABLE of its other tables (their columns unchecked)
    APPLICATION_ID: int         #: PRAGMA application_id: tells a stranger's SQLite file apart
    SCHEMA_VERSION: int         #: PRAGMA user_version this version writes
    WHAT: str                   #: what the file is, for people ("game history")
    #: version N -> the statements that make a file of version N one of version N + 1
    #: (SQL, or a function given the connection, for what SQL cannot say)
    MIGRATIONS: Dict[int, Tuple[Union[str, Callable[[sqlite3.Connection], None]], ...]] = {}

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self.path = Path(path)
        self.notices: List[str] = []
        self._verified: Optional[Tuple[int, int]] = None     # (device, inode) checked sound
        self._said_read_only = False

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
            self._refuse_special()
            if not write and self.path.exists() and not writable(self.path.parent):
                with self._read_only() as db:
                    yield db
                return
            if write:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                if not writable(self.path.parent):
                    raise HistoryError(f"cannot use the {self.WHAT} {self.path} "
                                       f"({why_not_writable(self.path.parent)})")
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

    @contextlib.contextmanager
    def _read_only(self) -> Iterator[sqlite3.Connection]:
        """A connection that writes nothing, for a folder this process cannot write
        (a read-only mount, another user's folder): the file is checked as ever,
        but one that cannot be used is refused, not set aside, and one notice says
        that nothing new can be kept. Without a write-ahead log beside it the file
        is opened as immutable: SQLite would otherwise create its -shm, and fail."""
        wal = "mode=ro" if _size(Path(f"{self.path}-wal")) else "immutable=1"
        db = None
        try:
            self._check_file()
            db = sqlite3.connect(f"file:{urllib.parse.quote(str(self.path.resolve()))}?{wal}",
                                 uri=True, timeout=BUSY_SECONDS, isolation_level=None)
            if self._check_tables(db, migrate=False):     # an empty file: no table, no rows
                db.execute(f"CREATE TEMP TABLE {self.TABLE} ({', '.join(self.COLUMNS)})")
        except _Damaged as exc:
            reason = str(exc)
        except sqlite3.OperationalError as exc:
            reason = _one_line(exc)
        except sqlite3.DatabaseError as exc:
            reason = f"it is damaged ({_one_line(exc)})"
        else:
            reason = ""
        if reason:
            if db is not None:
                db.close()
            raise HistoryError(f"cannot use the {self.WHAT} {self.path} ({reason}; its folder "
                               "is read-only, so it is left as it is)")
        if not self._said_read_only:
            self._said_read_only = True
            self.notices.append(f"The {self.WHAT} {self.path} can be read but not written "
                                f"({why_not_writable(self.path.parent)}): nothing new is kept in it.")
        try:
            yield db
        except sqlite3.DatabaseError as exc:
            raise HistoryError(self._refused(exc)) from None
        finally:
            db.close()

    def _refuse_special(self) -> None:
        """NotARegularFile if the file, its lock or one of SQLite's files beside it
        (``-wal``, ``-shm``, ``-journal``) is a FIFO, a device or a folder: SQLite
        would wait on a FIFO for ever, or read a device without end."""
        for path in (self.path, self._lock_path(), *(Path(f"{self.path}{suffix}")
                                                    for suffix in SIDE_FILES)):
            refuse_special(path)

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
        """_Damaged with the reason if the file cannot be used as what it is for;
        the tables of a new or empty file created."""
        self._check_file()
        if not self.path.exists():
            try:
                self.path.touch()           # read-only folder: an OSError, reported as such
            except FileExistsError:
                pass
        db = self._connect()
        try:
            if self._check_tables(db, migrate=True):
                self._create(db)
        except sqlite3.OperationalError:
            raise                           # locked, read-only, I/O: not the file's fault
        except sqlite3.DatabaseError as exc:
            raise _Damaged(f"it is damaged ({_one_line(exc)})") from None
        finally:
            db.close()

    def _check_file(self) -> None:
        """_Damaged if the file's bytes are not an SQLite database as long as its header says."""
        header = _header(self.path)
        if header and not header.startswith(b"SQLite format 3\x00"):
            raise _Damaged("it is not an SQLite database")
        short = _truncated(self.path, header)
        if short:
            raise _Damaged(f"it is truncated ({short})")

    def _check_tables(self, db: sqlite3.Connection, migrate: bool) -> bool:
        """True for an empty database (a new file); _Damaged if it is not this
        package's file of this kind and version, or SQLite's quick check fails.
        An older version is brought up to date when ``migrate`` (else _Damaged)."""
        app, version = (db.execute(f"PRAGMA {name}").fetchone()[0]
                        for name in ("application_id", "user_version"))
        tables = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        if app == 0 and version == 0 and not tables:
            return True
        if app != self.APPLICATION_ID:
            raise _Damaged(f"it is another program's database, not a mancala {self.WHAT}")
        if version > self.SCHEMA_VERSION:
            raise _Damaged(f"it was written by a newer mancala (schema version {version}; "
                           f"this one reads {self.SCHEMA_VERSION})")
        if version < self.SCHEMA_VERSION and all(
                step in self.MIGRATIONS for step in range(version, self.SCHEMA_VERSION)):
            if not migrate:
                raise _Damaged(f"it was written by an older mancala (schema version {version}) "
                               "and cannot be brought up to date here")
            self._migrate(db, version)
        elif version != self.SCHEMA_VERSION:
            raise _Damaged(f"its schema version {version} is unknown")
        columns = tuple(row[1] for row in db.execute(f"PRAGMA table_info({self.TABLE})"))
        if columns != self.COLUMNS:
            raise _Damaged(f"its {self.TABLE} table is not the one this mancala writes")
        check = db.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            problem = _one_line(check[0][0]).replace("*** in database main *** ", "")
            problem = problem if len(problem) <= 80 else problem[:77] + "..."
            raise _Damaged(f"it is damaged (SQLite's check: {problem})")
        return False

    def _create(self, db: sqlite3.Connection) -> None:
        db.execute("PRAGMA journal_mode = WAL")         # readers never wait for a writer
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in (self.SCHEMA, *self.MORE_TABLES):
                db.execute(statement)
            db.execute(f"PRAGMA application_id = {self.APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {self.SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise

    def _migrate(self, db: sqlite3.Connection, version: int) -> None:
        """An older file brought to this version in one transaction (its rows kept)."""
        db.execute("BEGIN IMMEDIATE")
        try:
            for step in range(version, self.SCHEMA_VERSION):
                for statement in self.MIGRATIONS[step]:
                    statement(db) if callable(statement) else db.execute(statement)
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
                               f"nor renamed ({reason(exc)})") from None
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
            other = (isinstance(exc, NotARegularFile) and exc.filename is not None
                     and os.fsdecode(exc.filename) != str(self.path))     # its -wal, its lock
            return (f"cannot use the {self.WHAT} {self.path} "
                    f"({error_line(exc) if other else reason(exc)})")
        text = _one_line(exc)
        if "locked" in text or "busy" in text:
            text += f", still after waiting {BUSY_SECONDS:g} s for another process writing to it"
        return f"cannot use the {self.WHAT} {self.path} ({text})"


class _Retry(Exception):
    """The database went bad during a call and was set aside: do the call again."""


def _identity(path: Path) -> Optional[Tuple[int, int]]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _header(path: Path) -> bytes:
    """The first 100 bytes: SQLite's file header (empty if there is no file)."""
    return read_head(path, 100)


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


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) or type(value).__name__


class _Lock:
    """An flock on the file's lock file: exclusive to check or set the file aside,
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
            fd = open_regular(path, os.O_RDWR | os.O_CREAT)
        except NotARegularFile:
            raise
        except OSError:
            fd = None                   # a folder we may read but not write: no lock to take
    try:
        yield _Lock(fd)
    finally:
        if fd is not None:
            os.close(fd)


__all__ = ["SQLiteFile", "BUSY_SECONDS", "UNREADABLE"]
