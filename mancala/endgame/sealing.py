"""Endgame levels under this installation's seal: the trust model for databases.

A level file's own checks (:mod:`mancala.endgame.files`) catch accidents, not
intent: a level forged with every value negated and its hashes recomputed
passes them all. So what this installation built, or found right by
``endgame verify --deep`` (rebuilt and compared), is sealed with its key
(:mod:`mancala.seal`) and used; anything else (another machine's, a copy, a
cache written before seals) is refused with one line naming the commands that
deep-verify or rebuild it. The seal is a small file beside the level,
``level-07.seal`` (JSON), holding two tags:

    values   the header, the chunks' hashes and a BLAKE2b of the values: this
             installation vouches for exactly these bytes
    file     the header and the file's identity (inode, owner, size, mtime):
             the file it vouched for is still the one there, unchanged

An open checks the second (nothing more to read: no slower than before); a
file moved or copied since fails it, and then its values are hashed once and
checked against the first, which seals the file anew. The chunks' own hashes
cannot stand in for the BLAKE2b: they are quick, not collision resistant (a
word changed can be made up for by the next word of its lane), so a seal over
the header alone would let a file whose values were changed under the same
hashes through. A cluster worker on another node holds another key: it opens
exactly the levels its driver found sealed, by their ``vouched`` digests.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import shlex
import stat
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from mancala import seal
from mancala._system import FileTooLarge, read_regular_file, write_atomically
from mancala.errors import EndgameFileError, EndgameUntrustedError, quote

SEAL_PURPOSE = b"mancala level"      # a level's seals are no journal line's (mancala.seal)
SEAL_SUFFIX = ".seal"
SEAL_FORMAT = 1
SEAL_LIMIT = 4096                    # bytes: a seal file is about 200
DIGEST_CHUNK = 1 << 20               # the values are hashed in pieces of this many, on threads
THREADS = max(1, min(8, len(os.sched_getaffinity(0))))    # a level is checked and hashed in pieces on these


def seal_path(path: Path) -> Path:
    """Where a level file's seal is kept: ``level-07.seal`` beside ``level-07.bin``."""
    return Path(path).with_suffix(SEAL_SUFFIX)


def identity(st: os.stat_result) -> bytes:
    """What a seal knows its file by: inode, owner, size, mtime. Writing the file
    changes the mtime, and only its owner (who can read the key too) can set it
    back; a file put in its place is another inode or owner."""
    return struct.pack("<QQQQ", st.st_ino, st.st_uid, st.st_size, st.st_mtime_ns)


def values_digest(values, threads: int = THREADS) -> bytes:
    """A strong hash of a level's values: BLAKE2b over the BLAKE2b of each piece
    of 2^20 values, the pieces hashed on threads (hashlib lets go of the GIL)."""
    with memoryview(values) as view:
        size = view.nbytes

        def piece(start: int) -> bytes:
            with view[start:start + DIGEST_CHUNK] as part:
                return hashlib.blake2b(part, digest_size=32).digest()

        starts = range(0, size, DIGEST_CHUNK)
        if threads > 1 and len(starts) > 1:
            with ThreadPoolExecutor(min(threads, len(starts))) as pool:
                pieces = list(pool.map(piece, starts))
        else:
            pieces = [piece(start) for start in starts]
    whole = hashlib.blake2b(size.to_bytes(8, "little"), digest_size=32)
    for digest in pieces:
        whole.update(digest)
    return whole.digest()


def _set_aside(path: Path) -> None:
    """Something not a seal file where a seal goes: renamed ``*.refused`` (as
    :func:`mancala.endgame.files.refuse` does a level), else removed."""
    try:
        os.replace(path, path.with_name(path.name + ".refused"))
    except OSError:
        try:
            os.unlink(path)
        except OSError:
            pass


def write_seal(path: Path, n: int, head: bytes, digest: bytes, ident: bytes) -> None:
    """Write the seal of level file ``path`` (atomically): its header ``head``
    (everything before the values), its values' ``digest`` (:func:`values_digest`)
    and its file's identity (:func:`identity`). Something not a file where the
    seal goes (a FIFO, a folder) is set aside first. Raises OSError (SealError
    if this installation's key cannot be read or made)."""
    record = {"format": SEAL_FORMAT, "level": n, "key": seal.key_id(),
              "values": seal.seal(SEAL_PURPOSE, b"values", head, digest),
              "file": seal.seal(SEAL_PURPOSE, b"file", head, ident)}
    target = seal_path(path)
    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            _set_aside(target)
    except FileNotFoundError:
        pass
    write_atomically(target, lambda out: out.write(json.dumps(record) + "\n"), hidden=False)


def seal_written(fd: int, path: Path, n: int, head: bytes) -> None:
    """Seal a level file that is written whole and flushed to the disk (``fd``,
    open for reading; ``head``: its bytes before the values) as ``path``, where
    it is renamed next: the seal is there before the level is, so no process
    ever meets the level without it (a rename keeps the file's identity). What
    a cluster build's driver does with the file its workers wrote."""
    with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as whole, memoryview(whole) as view, \
            view[len(head):] as values:
        digest = values_digest(values)
    write_seal(path, n, head, digest, identity(os.fstat(fd)))


def read_seal(path: Path) -> Optional[Dict[str, object]]:
    """The seal of level file ``path`` as written by :func:`write_seal`, or None
    when there is none, or something else is there (read as untrusted input:
    a FIFO or a huge file costs nothing)."""
    try:
        record = json.loads(read_regular_file(seal_path(path), SEAL_LIMIT))
    except (OSError, FileTooLarge, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != SEAL_FORMAT or not all(
            isinstance(record.get(field), str) for field in ("key", "values", "file")):
        return None
    return record


def untrusted_reason(level) -> Optional[str]:
    """None when level (an opened :class:`mancala.endgame.files.Level`) carries
    this installation's seal, else why not, in a few words. A file moved or
    copied since it was sealed (its identity changed) has its values hashed
    once and is sealed anew when they are the ones sealed. Raises SealError if
    the key cannot be read."""
    record = read_seal(level.path)
    if record is None:
        return "no seal: built elsewhere, or before seals"
    if not seal.key_path().exists():
        return "sealed by another installation: this one has no key yet"
    if record["key"] != seal.key_id():
        return f"sealed by another installation (key {quote(record['key'], 20)})"
    if seal.holds(record["file"], SEAL_PURPOSE, b"file", level.head, level.identity):
        return None
    digest = values_digest(level.values)
    if level.intact() is None and seal.holds(record["values"], SEAL_PURPOSE, b"values",
                                             level.head, digest):
        try:
            write_seal(level.path, level.n, level.head, digest, level.identity)
        except OSError:
            pass                    # a read-only cache: trusted all the same, hashed again next time
        return None
    return "changed since it was sealed"


def check_seal(level, capture: str, root: Optional[Path], require_seal: bool,
               vouched: Optional[str]) -> None:
    """Set ``level.trust`` (an opened level; None: trusted) by its seal, or by
    ``vouched``, the :attr:`~mancala.endgame.files.Level.digest` a process
    holding this installation's key found sealed (a cluster worker on another
    machine has another key). EndgameUntrustedError (one line) for a level
    that is not the one vouched for, or without the seal when ``require_seal``;
    ``root``: the cache the advice names (None: the default one)."""
    if vouched is not None:
        if level.digest != vouched:
            raise EndgameUntrustedError(f"{level.path}: not the level that was checked before "
                                        f"(it changed since, or this node sees another file)")
        level.trust = None
        return
    level.trust = untrusted_reason(level)
    if require_seal and level.trust is not None:
        raise EndgameUntrustedError(f"{level.path}: not sealed by this installation ({level.trust}): "
                                    f"{advice(capture, level.n, root)}")


def seal_level(level) -> None:
    """Seal an opened level as this installation's: one it just made, or one
    ``endgame verify --deep`` rebuilt and found identical. Raises
    EndgameFileError if the file changed since it was opened, OSError if the
    seal cannot be written (SealError if the key cannot be read or made)."""
    digest = values_digest(level.values)
    problem = level.intact()
    if problem is not None:
        raise EndgameFileError(problem)
    write_seal(level.path, level.n, level.head, digest, level.identity)
    level.trust = None


# -- what a person is told ---------------------------------------------------------------

def ranges(numbers: Sequence[int]) -> str:
    """1,2,3,5 -> '1..3, 5'."""
    parts: List[List[int]] = []
    for n in numbers:
        if parts and parts[-1][1] == n - 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in parts)


def commands(capture: str, top: int, root: Optional[Path] = None) -> Tuple[str, str]:
    """The commands that make levels 0..top of a rule trusted: the deep check
    (which seals what it finds right) and the build (which builds again what
    is not sealed)."""
    cache = f" --cache {shlex.quote(str(root))}" if root is not None else ""
    return (f"python -m mancala endgame verify --deep --seeds {top} --capture {capture}{cache}",
            f"python -m mancala endgame build --seeds {top}"
            + (f" --capture {capture}" if capture != "standard" else "") + cache)


def advice(capture: str, top: int, root: Optional[Path] = None) -> str:
    """What to run for untrusted levels of 0..top, in words."""
    verify, build = commands(capture, top, root)
    return (f"`{verify}` checks levels 0..{top} and seals those it finds right, or `{build}` "
            f"builds again those not sealed")


__all__ = ["seal_path", "identity", "values_digest", "write_seal", "seal_written", "read_seal",
           "untrusted_reason", "check_seal", "seal_level", "ranges", "commands", "advice",
           "THREADS"]
