"""Endgame databases on disk: built once per capture rule, cached, checked on every load.

A database holds the perfect-play value of every position with at most N seeds
in the twelve pits (csrc/egdb.h). Files live in the cache directory
(``$MANCALA_CACHE``, else ``$XDG_CACHE_HOME/mancala``, else ``~/.cache/mancala``)
as ``endgame-<capture>-<N>.bin``: a header (format, version, rule, N, size,
checksum) and one signed byte a position. A file that does not match its
header in every respect is refused; ``ensure`` then builds it again.
"""
from __future__ import annotations

import mmap
import os
import re
import struct
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

from mancala import _core
from mancala.board import Board, capture_code
from mancala.errors import MancalaError

MAGIC = b"MKALAHDB"
VERSION = 1
HEADER = struct.Struct("<8sIIIQQ")  # magic, version, capture code, N, size, checksum
DEFAULT_SEEDS = 16                   # 30 million positions: seconds to build, 30 MB
FILE_NAME = re.compile(r"endgame-(standard|empty|none)-(\d+)\.bin")

Progress = Callable[[int, int, int, float], None]  # (seeds, positions done, all positions, seconds)


class EndgameFileError(MancalaError):
    """An endgame database file that is missing, foreign, truncated or corrupt."""


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
            raise EndgameFileError(f"this database is for capture {self.capture!r}, not {board.capture!r}")
        return board.score() + _core.egdb_lookup(self.values, self.max_seeds, board.pits, board.to_move)


def build(capture: str, max_seeds: int, progress: Optional[Progress] = None,
          threads: int = 1) -> EndgameDatabase:
    """Compute a database in memory (levels of seeds from 0 up, each shared by ``threads``)."""
    code = capture_code(capture)
    start = time.perf_counter()

    def report(seeds: int, done: int, total: int) -> None:
        if progress is not None:
            progress(seeds, done, total, time.perf_counter() - start)

    return EndgameDatabase(capture, max_seeds, _core.egdb_build(max_seeds, code, report, threads))


def save(db: EndgameDatabase, path: Optional[Path] = None) -> Path:
    """Write atomically (a temporary file renamed into place)."""
    path = Path(path) if path else path_for(db.capture, db.max_seeds)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = HEADER.pack(MAGIC, VERSION, capture_code(db.capture), db.max_seeds,
                         len(db.values), _core.egdb_hash(db.values))
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
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


def load(capture: str, max_seeds: int, path: Optional[Path] = None) -> EndgameDatabase:
    """Map a database file read-only after checking everything about it."""
    path = Path(path) if path else path_for(capture, max_seeds)
    size = _core.egdb_size(max_seeds)
    try:
        with open(path, "rb") as f:
            head = f.read(HEADER.size)
            if len(head) < HEADER.size:
                raise EndgameFileError(f"{path}: too short for an endgame database")
            magic, version, code, seeds, count, checksum = HEADER.unpack(head)
            if magic != MAGIC:
                raise EndgameFileError(f"{path}: not an endgame database")
            if version != VERSION:
                raise EndgameFileError(f"{path}: format version {version}, this mancala reads {VERSION}")
            if (code, seeds, count) != (capture_code(capture), max_seeds, size):
                raise EndgameFileError(f"{path}: holds another database (rule {code}, {seeds} seeds)")
            if os.fstat(f.fileno()).st_size != HEADER.size + size:
                raise EndgameFileError(f"{path}: {os.fstat(f.fileno()).st_size} bytes, "
                                       f"expected {HEADER.size + size}")
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise EndgameFileError(f"{path}: {exc.strerror or exc}") from None
    values = memoryview(mapped)[HEADER.size:]
    if _core.egdb_hash(values) != checksum:
        raise EndgameFileError(f"{path}: checksum does not match: the file is corrupt")
    return EndgameDatabase(capture, max_seeds, values, path)


def ensure(capture: str, max_seeds: int = DEFAULT_SEEDS,
           progress: Optional[Progress] = None, threads: int = 1) -> EndgameDatabase:
    """The cached database, built (again) if it is missing or fails its checks."""
    try:
        return load(capture, max_seeds)
    except EndgameFileError:
        db = build(capture, max_seeds, progress, threads)
        save(db)
        return db


def find(capture: str) -> Optional[EndgameDatabase]:
    """The largest sound database cached for a capture rule, or None."""
    capture_code(capture)
    try:
        names = os.listdir(cache_dir())
    except OSError:
        return None
    sizes = sorted((int(m.group(2)) for m in map(FILE_NAME.fullmatch, names)
                    if m and m.group(1) == capture and int(m.group(2)) <= 36), reverse=True)
    for seeds in sizes:
        try:
            return load(capture, seeds)
        except EndgameFileError:
            continue
    return None

