"""Endgame databases on disk: built once per capture rule, cached, checked on every load.

A database holds the perfect-play value of every position with at most N seeds
in the twelve pits (csrc/egdb.h). Files live in the cache directory
(``$MANCALA_CACHE``, else ``$XDG_CACHE_HOME/mancala``, else ``~/.cache/mancala``)
as ``endgame-<capture>-<N>.bin``: a header (format, version, rule, N, size,
checksum) and one signed byte a position. A file that does not match its
header in every respect is refused; ``ensure`` then builds it again.
"""
from __future__ import annotations

import errno
import logging
import mmap
import os
import re
import stat
import struct
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

from mancala import _core
from mancala.board import Board, capture_code
from mancala._system import available_bytes, process_alive
from mancala.errors import EndgameFileError, EndgameMissingError, quote
from mancala.limits import check_threads

MAGIC = b"MKALAHDB"
VERSION = 1
HEADER = struct.Struct("<8sIIIQQ")  # magic, version, capture code, N, size, checksum
DEFAULT_SEEDS = 16                   # 30 million positions: seconds to build, 30 MB
FILE_NAME = re.compile(r"endgame-(standard|empty|none)-(\d+)\.bin")
TEMP_NAME = re.compile(r"endgame-(?:standard|empty|none)-\d+\.bin\.(?:(\d+)\.)?[^.]+\.tmp")
STALE_TEMP_AGE = 3600.0              # seconds after which any temporary file is a killed write's
READ_PART = 1 << 24                  # values read (and checked) at a time

Progress = Callable[[int, int, int, float], None]  # (seeds, positions done, all positions, seconds)


log = logging.getLogger("mancala.endgame")  # refused files are reported here (one line; stderr by default)


def cache_dir() -> Path:
    """Where databases are kept."""
    if os.environ.get("MANCALA_CACHE"):
        return Path(os.environ["MANCALA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mancala"


def path_for(capture: str, max_seeds: int) -> Path:
    capture_code(capture)
    return cache_dir() / f"endgame-{capture}-{max_seeds}.bin"


class EndgameDatabase:
    """The values of every position with at most ``max_seeds`` seeds in the pits."""

    def __init__(self, capture: str, max_seeds: int, values, path: Optional[Path] = None) -> None:
        capture_code(capture)
        if len(values) != _core.egdb_size(max_seeds):
            raise EndgameFileError(f"{len(values)} values do not make a {max_seeds}-seed database")
        self.capture = capture
        self.max_seeds = max_seeds
        self.values = values
        self.path = path

    def __repr__(self) -> str:
        return f"<EndgameDatabase capture={self.capture!r} max_seeds={self.max_seeds} ({len(self.values):,} positions)>"

    def covers(self, board: Board) -> bool:
        """Whether the board's rules and seeds in the pits are within this database."""
        pits = board.pits
        return board.capture == self.capture and sum(pits[0:6]) + sum(pits[7:13]) <= self.max_seeds

    def value(self, board: Board) -> int:
        """Perfect-play final margin for the side to move (the stores included)."""
        if board.capture != self.capture:
            raise EndgameFileError(f"this database is for capture {quote(self.capture)}, not {quote(board.capture)}")
        return board.score() + _core.egdb_lookup(self.values, self.max_seeds, board.pits, board.to_move)


def build(capture: str, max_seeds: int, progress: Optional[Progress] = None,
          threads: int = 1) -> EndgameDatabase:
    """Compute a database in memory (levels of seeds from 0 up, each shared by ``threads``).

    Raises InvalidRuleError for an unknown capture rule, InvalidLimitError for
    threads outside 1..64 (:func:`mancala.limits.check_threads`).
    """
    code = capture_code(capture)
    check_threads(threads)
    start = time.perf_counter()

    def report(seeds: int, done: int, total: int) -> None:
        if progress is not None:
            progress(seeds, done, total, time.perf_counter() - start)

    return EndgameDatabase(capture, max_seeds, _core.egdb_build(max_seeds, code, report, threads))


def save(db: EndgameDatabase, path: Optional[Path] = None) -> Path:
    """Write atomically (a temporary file renamed into place).

    The temporary file's name carries the writer's process id, so a scan of the
    cache can tell one left by a killed writer (see remove_stale_temp_files).
    """
    path = Path(path) if path else path_for(db.capture, db.max_seeds)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = HEADER.pack(MAGIC, VERSION, capture_code(db.capture), db.max_seeds,
                         len(db.values), _core.egdb_hash(db.values))
    fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(header)
            out.write(db.values)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    db.path = path
    return path


def _refuse(path: Path, reason: str, set_aside: bool = True) -> EndgameFileError:
    """The error for a refused file; set_aside renames the file (whatever it is)
    to ``<name>.refused`` first, so the next process neither reads it nor pays
    for it again, and no scan takes it for a database."""
    if set_aside:
        aside = path.with_name(path.name + ".refused")
        try:
            os.replace(path, aside)
            reason += f"; renamed to {aside.name}"
        except OSError:
            try:
                os.unlink(path)
                reason += "; removed"
            except OSError as exc:
                reason += f"; could not set it aside ({exc.strerror or exc})"
    return EndgameFileError(f"{path}: {reason}")


def load(capture: str, max_seeds: int, path: Optional[Path] = None) -> EndgameDatabase:
    """Read a database file into memory after checking everything about it.

    Only a regular file is opened for reading (a FIFO or a device would block
    or never end); its header must name this rule and size and its length
    match; the values are read in parts, each part checked as it arrives (a
    value no position of its level can have refuses the file at once, so a
    forged or sparse file costs little), then the checksum. A refused file
    raises EndgameFileError (one line) and is renamed to ``*.refused``; a file
    that is merely absent, unreadable or too large for the memory free now is
    left where it is. The values live in the process's memory, not a mapping,
    so a file truncated or rewritten later cannot harm it.
    """
    path = Path(path) if path else path_for(capture, max_seeds)
    size = _core.egdb_size(max_seeds)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENOENT and not os.path.islink(path):
            raise EndgameMissingError(f"{path}: no such database") from None
        # a symlink loop or a dangling link named like a database: set it aside
        broken = exc.errno in (errno.ELOOP, errno.ENOENT, errno.ENOTDIR)
        raise _refuse(path, ("a link to nothing" if exc.errno == errno.ENOENT else
                             exc.strerror or str(exc)), set_aside=broken) from None
    try:
        st = os.fstat(fd)
        regular = stat.S_ISREG(st.st_mode)
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        raise _refuse(path, "not a regular file")
    with os.fdopen(fd, "rb", buffering=0) as f:
        try:
            head = f.read(HEADER.size)
            if len(head) < HEADER.size:
                raise _refuse(path, "too short for an endgame database")
            magic, version, code, seeds, count, checksum = HEADER.unpack(head)
            if magic != MAGIC:
                raise _refuse(path, "not an endgame database")
            if version != VERSION:
                raise _refuse(path, f"format version {version}, this mancala reads {VERSION}")
            if (code, seeds, count) != (capture_code(capture), max_seeds, size):
                raise _refuse(path, f"holds another database (rule {code}, {seeds} seeds, "
                                    f"{count} values) than {capture} {max_seeds}")
            if st.st_size != HEADER.size + size:
                raise _refuse(path, f"{st.st_size} bytes, expected {HEADER.size + size}")
            free = available_bytes()
            if free is not None and size > free:
                raise _refuse(path, f"{size:,} bytes of values, more than the {free:,} bytes "
                                    "of memory available", set_aside=False)
            try:
                # private anonymous memory: pages are given as the reading fills them (a
                # bytearray would zero all of them first), and no later change to the file
                # can reach them (a file mapping dies of SIGBUS when the file shrinks)
                values = mmap.mmap(-1, size)
            except (OSError, MemoryError, OverflowError):
                raise _refuse(path, f"no memory for {size:,} bytes of values", set_aside=False) from None
            view = memoryview(values)
            done, h = 0, None
            while done < size:
                part = min(READ_PART, size - done)
                got = f.readinto(view[done:done + part])
                if not got:
                    raise _refuse(path, f"truncated: {done} of {size} values")
                h = _core.egdb_hash(view[done:done + got], h)
                bad = _core.egdb_verify_values(values, done, done + got)
                if bad >= 0:
                    raise _refuse(path, f"position {bad} holds {values[bad] - 256 * (values[bad] > 127)}, "
                                        "a value no position with its seeds can have")
                done += got
            if (h if size else 0) != checksum:
                raise _refuse(path, "checksum does not match: the file is corrupt")
        except OSError as exc:
            raise _refuse(path, exc.strerror or str(exc), set_aside=False) from None
    return EndgameDatabase(capture, max_seeds, values, path)


def remove_stale_temp_files(directory: Optional[Path] = None, max_age: float = STALE_TEMP_AGE) -> list:
    """Remove ``endgame-*.bin.*.tmp`` files that killed writers left behind: those
    whose writer (the process id in the name) is gone, and any older than
    ``max_age`` seconds. Returns the paths removed; never raises."""
    directory = Path(directory) if directory else cache_dir()
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        m = TEMP_NAME.fullmatch(name)
        if not m:
            continue
        path = directory / name
        try:
            st = os.lstat(path)
            gone = m.group(1) is not None and not process_alive(int(m.group(1)))
            if gone or now - st.st_mtime > max_age:
                os.unlink(path)
                removed.append(path)
        except (OSError, ValueError):
            continue
    return removed


def ensure(capture: str, max_seeds: int = DEFAULT_SEEDS,
           progress: Optional[Progress] = None, threads: int = 1) -> EndgameDatabase:
    """The cached database, built (again) if it is missing or fails its checks
    (a refused file is set aside and logged)."""
    remove_stale_temp_files()
    try:
        return load(capture, max_seeds)
    except EndgameFileError as exc:
        if not isinstance(exc, EndgameMissingError):
            _warn(exc)
        db = build(capture, max_seeds, progress, threads)
        save(db)
        return db


def find(capture: str) -> Optional[EndgameDatabase]:
    """The largest sound database cached for a capture rule, or None.

    What ``Engine(endgame="auto")`` uses: it never raises and never blocks on
    a hostile cache; a refused file is set aside and logged (one line).
    """
    capture_code(capture)
    remove_stale_temp_files()
    try:
        names = os.listdir(cache_dir())
    except OSError:
        return None
    sizes = sorted((int(m.group(2)) for m in map(FILE_NAME.fullmatch, names)
                    if m and m.group(1) == capture and int(m.group(2)) <= 36),
                   reverse=True)
    for seeds in sizes:
        try:
            return load(capture, seeds)
        except EndgameMissingError:
            continue                                        # gone since the listing
        except EndgameFileError as exc:
            _warn(exc)
        except (OSError, ValueError, MemoryError) as exc:   # never let a cache stop a search
            _warn(f"{path_for(capture, seeds)}: {exc}")
    return None


def _warn(message: object) -> None:
    log.warning("mancala: refused %s", message)
