"""Endgame level files: their format, writing one, and opening one as untrusted input.

A database of N seeds is levels 0..N, a file each, in its rule's folder::

    <cache>/endgame-<capture>/level-07.bin

    offset 0      header: magic b"KALAHLVL", format version, capture rule,
                  level n, log2 of the checksum chunk (u32 each), positions
                  (u64), checksum (u64: the chunks' hashes folded); zeros to 64
    offset 64     the hash of each checksum chunk (u64 each), in order: every
                  block of the level (egdb.h) cut into 2^20 values; zeros
                  to the end of the page
    a page on     one signed byte a position of level n, by rank (csrc/egdb.h)

The values start on a page so that a level maps straight into memory: every
process reading it shares one copy through the page cache, and a level larger
than free memory is paged in and out as it is read. A level is opened once a
process and checked whole before it is used (header, size, every value's
range, every chunk against its hash, stopping at the first that fails: a
forged or sparse file costs little). A file that fails a check is set aside
(``*.refused``) with one line; one truncated, replaced or rewritten while
mapped is noticed (:meth:`Level.intact`) and never kills the process
(csrc/guard.h).

Checks of a file by itself catch accidents, not intent: a level is used only
under this installation's seal, a file beside it (:mod:`mancala.endgame.sealing`
says why and how); :func:`open_level` checks it after the file's own checks.
"""
from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
import stat
import struct
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from mancala import _core
from mancala._system import process_alive, write_atomically
from mancala.board import capture_code
from mancala.endgame.sealing import (THREADS, advice, check_seal, commands, identity, ranges,
                                     seal_path, values_digest, write_seal)
from mancala.errors import EndgameFileError, EndgameMissingError, EndgameUntrustedError
from mancala.storage import shown_path

MAGIC = b"KALAHLVL"
VERSION = 2
HEADER = struct.Struct("<8sIIIIQQ")  # magic, version, capture code, level, chunk bits, positions, checksum
TABLE = 64                           # where the chunks' hashes start
PAGE = 4096                          # the values start on a page
CHUNK_BITS = 20                      # the checksum's chunk: 2^20 values (csrc/egdb.h)
LEVEL_NAME = re.compile(r"level-(\d\d)\.bin")
TEMP_NAME = re.compile(r"level-\d\d\.(?:bin|seal)\.(\d+)\.[^.]+\.tmp")
STALE_TEMP_AGE = 3600.0              # seconds after which any temporary file is a killed write's
MAX_LEVEL = 36

log = logging.getLogger("mancala.endgame")  # refused files are reported here (one line; stderr by default)


def warn(message: object) -> None:
    log.warning("mancala: %s", message)


def cache_dir() -> Path:
    """Where databases are kept: ``$MANCALA_CACHE``, else ``$XDG_CACHE_HOME/mancala``,
    else ``~/.cache/mancala``."""
    if os.environ.get("MANCALA_CACHE"):
        return Path(os.environ["MANCALA_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mancala"


def rule_dir(capture: str, root: Optional[Path] = None) -> Path:
    """The folder of a rule's level files (InvalidRuleError for an unknown rule)."""
    capture_code(capture)
    return Path(root if root is not None else cache_dir()) / f"endgame-{capture}"


def level_path(capture: str, n: int, root: Optional[Path] = None) -> Path:
    return rule_dir(capture, root) / f"level-{n:02d}.bin"


def levels_on_disk(capture: str, root: Optional[Path] = None) -> List[int]:
    """The level numbers whose files are in the rule's folder (unchecked), lowest first."""
    try:
        names = os.listdir(rule_dir(capture, root))
    except OSError:
        return []
    found = (LEVEL_NAME.fullmatch(name) for name in names)
    return sorted(int(m.group(1)) for m in found if m and int(m.group(1)) <= MAX_LEVEL)


def chunks(n: int) -> int:
    """Checksum chunks of level n (each block of it cut into 2^20 values: egdb_chunks)."""
    return len(_core.egdb_chunks(n))


def values_offset(n: int) -> int:
    """Where level n's values start in its file: the page after its chunks' hashes."""
    return -(-(TABLE + 8 * chunks(n)) // PAGE) * PAGE


def header(capture: str, n: int, hashes) -> bytes:
    """Everything of a level file before its values: the header and the chunks' hashes."""
    if len(hashes) != chunks(n):
        raise ValueError(f"level {n} has {chunks(n)} checksum chunks, not {len(hashes)}")
    head = HEADER.pack(MAGIC, VERSION, capture_code(capture), n, CHUNK_BITS,
                       _core.egdb_level_size(n), _core.egdb_fold(n, hashes))
    table = struct.pack(f"<{len(hashes)}Q", *hashes)
    return (head + bytes(TABLE - len(head)) + table).ljust(values_offset(n), b"\0")


def write_level(path: Path, capture: str, n: int, values, hashes, sealed: bool = True) -> Path:
    """Write a level file atomically: a temporary file (named after this process,
    so a scan can tell a killed writer's), flushed to the disk, renamed into place.
    ``hashes``: its chunks' (what :func:`mancala._core.egdb_check_level` gives).

    ``sealed``: the values are this installation's (built here, or checked in
    full), so its seal is written too, before the level is renamed into place (a
    reader never meets the level without it). A level converted from an old
    file is written unsealed: nothing says where that file came from.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    head = header(capture, n, hashes)
    digest = values_digest(values) if sealed else b""

    def write(out) -> None:
        out.write(head)
        out.write(values)
        if sealed:
            out.flush()
            os.fsync(out.fileno())          # the size and mtime the seal names are final now
            write_seal(path, n, head, digest, identity(os.fstat(out.fileno())))

    write_atomically(path, write, binary=True, hidden=False)
    sync_dir(path.parent)
    return path


def untrusted(capture: str, reasons: Dict[int, str], top: int,
              root: Optional[Path] = None) -> EndgameUntrustedError:
    """The error (one line) for levels of 0..top that are not sealed: which, why
    (the first's reason), and the commands that verify or rebuild them."""
    levels = sorted(reasons)
    many = len(levels) > 1
    return EndgameUntrustedError(
        f"level{'s' if many else ''} {ranges(levels)} of the {capture} database in "
        f"{shown_path(rule_dir(capture, root))} {'are' if many else 'is'} not sealed by this "
        f"installation ({f'level {levels[0]}: ' if many else ''}{reasons[levels[0]]}): "
        f"{advice(capture, top, root)}")


def sync_dir(directory: Path) -> None:
    """Flush a folder's entries (a rename into it) to the disk, where the system allows."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def refuse(path: Path, reason: str, set_aside: bool = True) -> EndgameFileError:
    """The error for a refused file; set_aside renames the file (whatever it is) to
    ``<name>.refused`` first, so the next process neither reads it nor pays for it again."""
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
        if LEVEL_NAME.fullmatch(path.name):
            try:
                os.unlink(seal_path(path))      # its seal, left alone, would only puzzle
            except OSError:
                pass
    return EndgameFileError(f"{path}: {reason}")


class Level:
    """One level file, mapped read only after every check (see :func:`open_level`).

    ``values`` is the mapping (a read-only buffer of the level's values);
    ``head`` everything in the file before them (the header and the chunks'
    hashes); ``identity`` the file's (:func:`~mancala.endgame.sealing.identity`);
    ``trust`` None when it carries this installation's seal, else why not
    (:func:`~mancala.endgame.sealing.check_seal`).
    """

    def __init__(self, path: Path, n: int, values, fd: int, signature: Tuple,
                 head: bytes = b"", ident: bytes = b"") -> None:
        self.path = path
        self.n = n
        self.values = values
        self.head = head
        self.identity = ident
        self.trust: Optional[str] = "not asked"
        self._fd = fd
        self._signature = signature

    @property
    def digest(self) -> str:
        """A hash of its header and chunks' hashes (hex): what a process holding
        this installation's key hands a cluster worker, which has another, so
        that it opens this level and no other (``open_level(vouched=...)``)."""
        return hashlib.blake2b(self.head, digest_size=16).hexdigest()

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (the mapping lives on while anything reads it)."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass

    def let_go(self) -> None:
        """Let go of the pages read so far: the process's memory no longer counts
        them (the page cache keeps them; :func:`mancala._core.egdb_let_go`)."""
        _core.egdb_let_go(self.values)

    def intact(self) -> Optional[str]:
        """None while the file is as it was checked; else what happened to it.

        A file shrunk under the mapping was read as zeros (csrc/guard.h); one
        written in place may have been read half old, half new. A file replaced
        by a rename is harmless: the mapping keeps the old one.
        """
        if self.values.damaged:
            return f"{self.path} shrank while in use"
        try:
            now = _signature(os.fstat(self._fd))
        except OSError as exc:
            return f"{self.path} cannot be checked ({exc.strerror or exc})"
        if now != self._signature:
            return f"{self.path} was changed while in use"
        return None


def _signature(st: os.stat_result) -> Tuple:
    """What changes when the file's bytes do (not its links: a rename over it changes ctime)."""
    return st.st_size, st.st_mtime_ns


def open_level(capture: str, n: int, root: Optional[Path] = None,
               path: Optional[Path] = None, *, require_seal: bool = True,
               vouched: Optional[str] = None) -> Level:
    """Map level n of a rule after checking everything about the file.

    Only a regular file is opened (a FIFO or a device would block or never
    end); its header must name this rule and level and its length match; every
    value must be one a position of the level can have (a forged file is
    refused at its first bad byte) and the checksum must match. A refused file
    raises EndgameFileError (one line) and is set aside (``*.refused``); one
    that is merely absent raises EndgameMissingError; one that cannot be read
    now (no memory to map it, an I/O error) is left where it is.

    Then its seal (:func:`mancala.endgame.sealing.check_seal`): a level
    without this installation's raises EndgameUntrustedError (left where it
    is: it may be right, and ``endgame verify --deep`` tells);
    ``require_seal=False`` opens it all the same and says why in
    ``Level.trust``. ``vouched``: instead of the seal, the :attr:`Level.digest`
    a process with this installation's key found sealed (a cluster worker on
    another machine has another key).
    """
    given = path
    path = Path(path) if path is not None else level_path(capture, n, root)
    count = _core.egdb_level_size(n)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENOENT and not os.path.islink(path):
            raise EndgameMissingError(f"{path}: no such level file") from None
        # a symlink loop or a dangling link named like a level: set it aside
        broken = exc.errno in (errno.ELOOP, errno.ENOENT, errno.ENOTDIR)
        raise refuse(path, ("a link to nothing" if exc.errno == errno.ENOENT else
                            exc.strerror or str(exc)), set_aside=broken) from None
    try:
        level = _checked(fd, path, capture, n, count)
    except BaseException:
        os.close(fd)
        raise
    try:
        check_seal(level, capture, root if given is None else None, require_seal, vouched)
    except BaseException:
        level.close()
        raise
    level.let_go()          # read whole by the checks, and held by nobody yet: 417 MB at level 24
    return level


def _checked(fd: int, path: Path, capture: str, n: int, count: int) -> Level:
    try:
        st = os.fstat(fd)
    except OSError as exc:
        raise refuse(path, exc.strerror or str(exc), set_aside=False) from None
    if not stat.S_ISREG(st.st_mode):
        raise refuse(path, "not a regular file")
    offset = values_offset(n)
    try:
        head = os.pread(fd, offset, 0)
    except OSError as exc:
        raise refuse(path, exc.strerror or str(exc), set_aside=False) from None
    if len(head) < offset:
        raise refuse(path, "too short for an endgame level")
    magic, version, code, level, chunk_bits, positions, checksum = HEADER.unpack_from(head)
    if magic != MAGIC:
        raise refuse(path, "not an endgame level file")
    if version != VERSION:
        raise refuse(path, f"format version {version}, this mancala reads {VERSION}")
    if (code, level, positions, chunk_bits) != (capture_code(capture), n, count, CHUNK_BITS):
        raise refuse(path, f"holds another level (rule {code}, level {level}, {positions} values) "
                           f"than {capture} level {n}")
    table_end = TABLE + 8 * chunks(n)
    if any(head[HEADER.size:TABLE]) or any(head[table_end:]):
        raise refuse(path, "its header has bytes where none belong")
    hashes = struct.unpack_from(f"<{chunks(n)}Q", head, TABLE)
    if _core.egdb_fold(n, hashes) != checksum:
        raise refuse(path, "its chunks' hashes do not make its checksum: the file is corrupt")
    if st.st_size != offset + count:
        raise refuse(path, f"{st.st_size} bytes, expected {offset + count}")
    try:
        values = _core.MappedLevel(fd, offset, count)
    except (OSError, MemoryError) as exc:
        raise refuse(path, f"cannot be mapped ({getattr(exc, 'strerror', None) or exc})",
                     set_aside=False) from None
    _, problem = _core.egdb_check_level(values, n, hashes, THREADS)
    if values.damaged:
        raise refuse(path, "shrank while it was being checked", set_aside=False)
    if problem is not None and problem[0] == "value":
        bad = problem[1]
        v = memoryview(values).cast("b")[bad]
        raise refuse(path, f"position {bad} holds {v}, a value no position with {n} seeds can have")
    if problem is not None:
        raise refuse(path, f"chunk {problem[1]} does not match its hash: the file is corrupt")
    return Level(path, n, values, fd, _signature(st), head, identity(st))


def remove_stale_temp_files(capture: str, root: Optional[Path] = None,
                            max_age: float = STALE_TEMP_AGE) -> List[Path]:
    """Remove the temporary files killed writers left in a rule's folder: those
    whose writer (the process id in the name) is gone, and any older than
    ``max_age`` seconds. Returns the paths removed; never raises."""
    directory = rule_dir(capture, root)
    removed: List[Path] = []
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
            if not process_alive(int(m.group(1))) or now - st.st_mtime > max_age:
                os.unlink(path)
                removed.append(path)
        except (OSError, ValueError):
            continue
    return removed


# -- the single-file databases of format 1 (mancala.endgame.legacy converts them) ---------

LEGACY_NAME = re.compile(r"endgame-(standard|empty|none)-(\d+)\.bin")


def legacy_files(capture: str, root: Optional[Path] = None) -> List[Tuple[int, Path]]:
    """(N, path) of the format-1 files of a rule in the cache, largest first."""
    directory = Path(root if root is not None else cache_dir())
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    found = [(int(m.group(2)), directory / name) for name, m in
             ((name, LEGACY_NAME.fullmatch(name)) for name in names)
             if m and m.group(1) == capture and int(m.group(2)) <= MAX_LEVEL]
    return sorted(found, reverse=True)


__all__ = ["MAGIC", "VERSION", "HEADER", "PAGE", "TABLE", "Level", "header", "values_offset", "chunks", "open_level", "write_level",
           "untrusted", "level_path", "rule_dir", "levels_on_disk", "cache_dir", "refuse",
           "remove_stale_temp_files", "legacy_files",
           "advice", "commands", "ranges", "seal_path"]     # mancala.endgame.sealing's, handed on
