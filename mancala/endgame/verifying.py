"""A database checked the deep way: every level built again and compared.

A level's file proves little by itself: its checksums catch accidents, not
intent (a level forged with every value negated and its chunk hashes
recomputed passes every check of :func:`mancala.endgame.files.open_level`,
since -v is a value a position of the level can have whenever v is). The
deep check builds each level again from the levels below it, as a build
would (the levels below having passed first), and compares the bytes with
the file's: the first position that differs is named, with both values, and
the levels above it are left unchecked (they were built from it). A level
found right is sealed as this installation's (it is now as good as one built
here: how a database brought from elsewhere, or cached before seals, comes to
be used); one found wrong is set aside (``*.refused``) and never used again,
and the build makes it anew. A file the plain check refuses is set aside as
the plain check does.

Memory: a level is rebuilt a few classes at a time (a class: the positions
whose mover holds a or n - a of the n seeds, which no move that banks nothing
leaves), into an anonymous mapping whose pages are given back once compared,
so the memory in use is about ``memory`` bytes (default half what the machine
can give), or the largest class (a tenth of its level) when that is more.
"""
from __future__ import annotations

import mmap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from mancala import _core
from mancala._system import available_bytes
from mancala.board import capture_code
from mancala.endgame.files import open_level, refuse
from mancala.endgame.sealing import seal_level
from mancala.errors import EndgameFileError, EndgameMissingError, SealError
from mancala.limits import check_threads

Ranges = List[Tuple[int, int]]


def classes(n: int) -> List[Ranges]:
    """Level n's classes, largest first: the rank ranges of blocks a and n - a,
    for a = 0..n // 2 (:func:`mancala._core.egdb_blocks`)."""
    blocks = _core.egdb_blocks(n)
    found = [[blocks[a]] + ([blocks[n - a]] if n - a != a else []) for a in range(n // 2 + 1)]
    return sorted(found, key=lambda parts: -sum(stop - start for start, stop in parts))


def batches(n: int, memory: int) -> List[Ranges]:
    """Level n's classes in groups of at most ``memory`` bytes each (a larger
    class alone), largest first: each group is built in one call, on threads."""
    groups: List[Ranges] = []
    size = 0
    for parts in classes(n):
        bytes_ = sum(stop - start for start, stop in parts)
        if groups and size + bytes_ <= memory:
            groups[-1].extend(parts)
            size += bytes_
        else:
            groups.append(list(parts))
            size = bytes_
    return groups


@dataclass
class LevelVerdict:
    """What the deep check found of one level."""
    capture: str
    level: int
    ok: bool
    seconds: float = 0.0
    error: Optional[str] = None              # why it was not compared (refused, missing, a level below)
    index: Optional[int] = None              # the first position (rank) whose byte differs
    position: Optional[List[int]] = None     # its pits, the mover's six first
    file_value: Optional[int] = None         # what the file holds there
    value: Optional[int] = None              # what the rebuild gives
    sealed: bool = False                     # found right and sealed as this installation's
    unsealed: Optional[str] = None           # found right, but its seal could not be written: why
    set_aside: Optional[str] = None          # found wrong: the name it was renamed to (or what befell it)

    def as_json(self) -> dict:
        return {"capture": self.capture, "level": self.level, "ok": self.ok,
                "seconds": round(self.seconds, 3), "error": self.error, "index": self.index,
                "position": self.position, "file_value": self.file_value, "value": self.value,
                "sealed": self.sealed, "unsealed": self.unsealed, "set_aside": self.set_aside}


def verify_level(capture: str, n: int, below: list, level, threads: int = 1, memory: Optional[int] = None,
                 progress: Optional[Callable[[int, int], None]] = None) -> LevelVerdict:
    """Build level n again from ``below`` (levels 0..n-1's values) and compare it
    with ``level`` (an opened :class:`mancala.endgame.files.Level`)."""
    start = time.perf_counter()
    size = _core.egdb_level_size(n)
    budget = memory if memory is not None else max(1, (available_bytes() or 1 << 30) // 2)
    code = capture_code(capture)
    first: Optional[Tuple[int, int, int]] = None        # (rank, the file's byte, the rebuilt byte)
    done = 0
    out = mmap.mmap(-1, size)
    rebuilt, held = memoryview(out).cast("b"), memoryview(level.values).cast("b")
    try:
        for group in batches(n, budget):

            def report(d: int, total: int) -> None:
                if progress is not None:
                    progress(done + d, size)

            _core.egdb_build_level(below, out, code, threads, report, group)
            for begin, stop in group:
                found = _core.egdb_first_difference(out, level.values, begin, stop)
                if found >= 0 and (first is None or found < first[0]):
                    first = (found, held[found], rebuilt[found])
                _forget(out, begin, stop)
            done += sum(stop - begin for begin, stop in group)
    finally:
        rebuilt.release()
        held.release()
        out.close()
    verdict = LevelVerdict(capture, n, first is None, time.perf_counter() - start)
    if first is not None:
        verdict.index, verdict.file_value, verdict.value = first
        verdict.position = _core.egdb_position(n, first[0])
    return verdict


def _forget(out: mmap.mmap, begin: int, stop: int) -> None:
    """Give the pages wholly inside [begin, stop) back to the system (they read as zeros after)."""
    low = -(-begin // mmap.PAGESIZE) * mmap.PAGESIZE
    high = stop // mmap.PAGESIZE * mmap.PAGESIZE
    if high > low:
        out.madvise(mmap.MADV_DONTNEED, low, high - low)


def settle(verdict: LevelVerdict, level) -> None:
    """Act on a level's verdict: seal it when found right, set it aside when wrong."""
    if verdict.ok:
        try:
            seal_level(level)
            verdict.sealed = True
        except (OSError, EndgameFileError, SealError) as exc:
            verdict.unsealed = str(exc)
        return
    text = str(refuse(level.path, "differs from the level rebuilt from the levels below it"))
    verdict.set_aside = text.rsplit("; ", 1)[-1]


def deep_verify(capture: str, max_seeds: int, root: Optional[Path] = None, threads: int = 1,
                memory: Optional[int] = None,
                progress: Optional[Callable[[int, int, int], None]] = None,
                done: Optional[Callable[[LevelVerdict], None]] = None) -> List[LevelVerdict]:
    """Levels 0..max_seeds of a rule, each opened (the plain check) and built
    again from the levels below it on ``threads``, compared byte for byte; a
    verdict each, lowest first. A level found identical is sealed; one that
    differs is set aside. The first level that differs or cannot be checked
    ends the check: the levels above it are built from it, so they get a
    verdict saying so. progress(level, done, total) as each is rebuilt;
    done(verdict) as each is decided. Raises InvalidLimitError for seeds or
    threads out of range."""
    capture_code(capture)
    _core.egdb_size(max_seeds)
    check_threads(threads)
    verdicts: List[LevelVerdict] = []
    below: list = []
    opened = []
    broken: Optional[str] = None
    try:
        for n in range(max_seeds + 1):
            if broken is not None:
                verdict = LevelVerdict(capture, n, False, error=broken)
            else:
                try:
                    level = open_level(capture, n, root, require_seal=False)
                except EndgameMissingError as exc:
                    verdict = LevelVerdict(capture, n, False, error=f"missing ({exc})")
                except EndgameFileError as exc:
                    verdict = LevelVerdict(capture, n, False, error=f"refused: {exc}")
                else:
                    opened.append(level)
                    verdict = verify_level(capture, n, below, level, threads, memory,
                                           None if progress is None else
                                           (lambda d, t, n=n: progress(n, d, t)))
                    below.append(level.values)
                    settle(verdict, level)
                if not verdict.ok:
                    broken = f"not checked: built from level {n}, which " + (
                        "differs" if verdict.error is None else "could not be checked")
            verdicts.append(verdict)
            if done is not None:
                done(verdict)
    finally:
        for level in opened:
            level.close()
    return verdicts


__all__ = ["LevelVerdict", "deep_verify", "verify_level", "classes", "batches"]
