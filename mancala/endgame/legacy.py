"""Endgame databases of format 1: one file a database (``endgame-<capture>-<N>.bin``),
read as untrusted input and split into level files once.

Format 1 kept levels 0..N one after another behind a header (magic
b"MKALAHDB", version, capture rule, N, size, an FNV checksum of the whole).
:func:`mancala.endgame.files.legacy_files` lists them in the cache; here each
level is checked as it is read (every value's range, then the checksum), and
the levels the rule's folder lacks are written as level files, unsealed:
nothing says where an old file came from (:mod:`mancala.endgame.sealing`).
"""
from __future__ import annotations

import errno
import os
import stat
import struct
from pathlib import Path
from typing import Iterator, Optional, Tuple

from mancala import _core
from mancala.board import capture_code
from mancala.endgame.files import (legacy_files, level_path, levels_on_disk, refuse, rule_dir, warn,
                                   write_level)
from mancala.errors import EndgameFileError, quote

LEGACY_MAGIC = b"MKALAHDB"
LEGACY_VERSION = 1
LEGACY_HEADER = struct.Struct("<8sIIIQQ")   # magic, version, capture code, N, size, checksum


def legacy_levels(path: Path, capture: str, max_seeds: int) -> Iterator[Tuple[int, bytes]]:
    """(n, values) of each level of a format-1 file, checked as they are read
    (each level's values, then the whole file's checksum once the last is read:
    a caller keeps nothing it was given till the iteration ends). Raises
    EndgameFileError (the file set aside) for a file that fails a check."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise refuse(path, exc.strerror or str(exc), set_aside=exc.errno in (errno.ELOOP,)) from None
    with os.fdopen(fd, "rb", buffering=0) as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise refuse(path, "not a regular file")
        head = f.read(LEGACY_HEADER.size)
        if len(head) < LEGACY_HEADER.size:
            raise refuse(path, "too short for an endgame database")
        magic, version, code, seeds, count, checksum = LEGACY_HEADER.unpack(head)
        size = _core.egdb_size(max_seeds)
        if magic != LEGACY_MAGIC or version != LEGACY_VERSION:
            raise refuse(path, "not an endgame database of format 1")
        if (code, seeds, count) != (capture_code(capture), max_seeds, size) \
                or st.st_size != LEGACY_HEADER.size + size:
            raise refuse(path, f"its header or length does not fit {capture} {max_seeds} "
                               f"({quote(head)})")
        h = None
        for n in range(max_seeds + 1):
            want = _core.egdb_level_size(n)
            values = f.read(want)
            if len(values) != want:
                raise refuse(path, f"truncated in level {n}")
            h = _core.egdb_fnv(values, h)
            bad = _core.egdb_verify(values, n)
            if bad >= 0:
                raise refuse(path, f"level {n} position {bad} holds a value no position "
                                   f"with {n} seeds can have")
            if n == max_seeds and h != checksum:
                raise refuse(path, "checksum does not match: the file is corrupt")
            yield n, values


def convert_legacy(capture: str, root: Optional[Path] = None) -> Optional[int]:
    """Split a single-file database of format 1 (``endgame-<capture>-<N>.bin``)
    into level files, once: the levels the rule's folder lacks are written, the
    old files removed, and one line says so. Returns the N converted, or None.
    A legacy file that fails its checks is set aside (one line)."""
    found = legacy_files(capture, root)
    if not found:
        return None
    seeds, path = found[0]
    have = set(levels_on_disk(capture, root))
    staged = []
    try:
        for n, values in legacy_levels(path, capture, seeds):
            if n in have:
                continue
            target = level_path(capture, n, root)
            hashes, _ = _core.egdb_check_level(values, n)      # legacy_levels checked them
            stage = target.with_name(f"{target.name}.{os.getpid()}.converted.tmp")
            write_level(stage, capture, n, values, hashes, sealed=False)
            staged.append((stage, target))
    except EndgameFileError as exc:
        warn(f"refused {exc}")
        for stage, _ in staged:
            os.unlink(stage)
        return None
    for stage, target in staged:
        os.replace(stage, target)
    for _, old in found:        # the largest holds every smaller one's levels
        try:
            os.unlink(old)
        except OSError:
            pass
    warn(f"converted {path.name} into level files 0..{seeds} in {rule_dir(capture, root)}")
    return seeds


__all__ = ["LEGACY_MAGIC", "LEGACY_VERSION", "LEGACY_HEADER", "legacy_levels", "convert_legacy"]
