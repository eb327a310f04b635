"""Building a database's level files, from the first missing level up.

A level is built in memory (an anonymous mapping: its pages are given as the
build fills them), from the levels below it, mapped from their files; then
checked, written atomically and mapped in its turn for the levels above. So a
build stopped at any moment (Ctrl-C, kill -9, power) has lost only the level
it was building: the next one starts there, and never builds a finished level
twice. One build of a rule's folder runs at a time (a lock file); another
waits for it and then finds its levels done.

The disk must hold every missing level, and memory the largest of them, before
anything is written: a shortfall raises EndgameSpaceError naming both figures.

A level made here is sealed as this installation's (:mod:`mancala.endgame.sealing`);
a level found without its seal is built again by ``endgame build`` (the same
work as checking it), and refused by a solve's :func:`open_levels`, with one
line naming the commands: it may be a database of hours, brought on purpose.
"""
from __future__ import annotations

import fcntl
import mmap
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from mancala import _core
from mancala._system import available_bytes
from mancala.board import capture_code
from mancala.endgame.files import (Level, level_path, open_level, remove_stale_temp_files, rule_dir,
                                   untrusted, values_offset, warn, write_level)
from mancala.endgame.legacy import convert_legacy
from mancala.endgame.sealing import ranges, seal_level
from mancala.errors import EndgameFileError, EndgameMissingError, EndgameSpaceError
from mancala.limits import check_threads
from mancala.storage import shown_path


@dataclass(frozen=True)
class BuildProgress:
    """Where a build stands: the level being built and the build as a whole."""
    level: int          #: the level being built
    top: int            #: the last level to build
    done: int           #: positions of this level done
    total: int          #: positions of this level
    all_done: int       #: positions of the missing levels done
    all_total: int      #: positions of the missing levels
    seconds: float      #: since the build began

    @property
    def rate(self) -> float:
        """Positions a second so far."""
        return self.all_done / self.seconds if self.seconds > 0 else 0.0

    @property
    def left(self) -> Optional[float]:
        """Seconds left at the rate so far (None before there is one)."""
        rate = self.rate
        return (self.all_total - self.all_done) / rate if rate > 0 else None


def gigabytes(size: int) -> str:
    return f"{size / 1e9:.2f} GB" if size >= 1e8 else f"{size / 1e6:.1f} MB"


def present_levels(capture: str, max_seeds: int,
                   root: Optional[Path] = None) -> Tuple[Dict[int, Level], Dict[int, str]]:
    """The sound levels among 0..max_seeds that carry this installation's seal,
    opened (a refused one is set aside and said in one line), and why each sound
    one without it is not trusted (closed again); a build makes the others."""
    present, unsealed = {}, {}
    for n in range(max_seeds + 1):
        try:
            level = open_level(capture, n, root, require_seal=False)
        except EndgameMissingError:
            continue
        except EndgameFileError as exc:
            warn(f"refused {exc}")
            continue
        if level.trust is None:
            present[n] = level
        else:
            unsealed[n] = level.trust
            level.close()
    return present, unsealed


def check_space(capture: str, missing: List[int], root: Optional[Path] = None,
                memory: bool = True) -> None:
    """EndgameSpaceError unless the disk holds every missing level and (with
    ``memory``) this machine's memory the largest."""
    if not missing:
        return
    directory = rule_dir(capture, root)
    need_disk = sum(_core.egdb_level_size(n) + values_offset(n) for n in missing)
    probe = directory
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free_disk = shutil.disk_usage(probe).free
    span = f"level {missing[0]}" if len(missing) == 1 else f"levels {missing[0]}..{missing[-1]}"
    if need_disk > free_disk:
        raise EndgameSpaceError(f"building {span} of the {capture} database needs "
                                f"{gigabytes(need_disk)} of disk in {directory}; "
                                f"it has {gigabytes(free_disk)} free")
    need_memory = max(_core.egdb_level_size(n) for n in missing)
    free_memory = available_bytes() if memory else None
    if free_memory is not None and need_memory > free_memory:
        raise EndgameSpaceError(f"building level {max(missing)} of the {capture} database needs "
                                f"{gigabytes(need_memory)} of memory; {gigabytes(free_memory)} "
                                f"is available")


class BuildLock:
    """The rule folder's build lock (an exclusive flock on ``.build.lock``), held
    while levels are written; ``waiting(pid)`` is called once if another
    process holds it."""

    def __init__(self, directory: Path, waiting: Optional[Callable[[str], None]] = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / ".build.lock"
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip() or "?"
                if waiting is not None:
                    waiting(holder)
                fcntl.flock(self.fd, fcntl.LOCK_EX)
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, str(os.getpid()).encode(), 0)
        except BaseException:
            os.close(self.fd)
            raise

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)       # closing drops the flock
            self.fd = -1

    def __enter__(self) -> "BuildLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class LocalLevels:
    """Makes a level in this process: built in memory on ``threads``, checked,
    then written atomically."""

    needs_memory = True     # the level being built lives in this process's memory

    def __init__(self, threads: int = 1) -> None:
        self.threads = check_threads(threads)

    def __call__(self, capture: str, n: int, below: List[Level], root: Optional[Path],
                 report: Callable[[int, int], None]) -> None:
        out = mmap.mmap(-1, _core.egdb_level_size(n))
        try:
            _core.egdb_build_level([level.values for level in below], out, capture_code(capture),
                                   self.threads, report)
            hashes, problem = _core.egdb_check_level(out, n, threads=self.threads)
            if problem is not None:     # a bug, not a file: never write it
                raise RuntimeError(f"level {n} was built with a bad value at {problem[1]}")
            write_level(level_path(capture, n, root), capture, n, out, hashes)
        finally:
            out.close()


def build_levels(capture: str, max_seeds: int, threads: int = 1, root: Optional[Path] = None,
                 progress: Optional[Callable[[BuildProgress], None]] = None,
                 waiting: Optional[Callable[[str], None]] = None,
                 maker: Optional[Callable] = None) -> List[int]:
    """Make every level 0..max_seeds of a rule that is missing, refused or not
    sealed by this installation (said in one line), in order; returns the
    levels built (empty when all were there). What :func:`open_levels` does,
    the levels closed after.
    """
    built, levels = open_levels(capture, max_seeds, threads, root, progress, waiting, maker,
                                rebuild_unsealed=True)
    for level in levels:
        level.close()
    return built


def open_levels(capture: str, max_seeds: int, threads: int = 1, root: Optional[Path] = None,
                progress: Optional[Callable[[BuildProgress], None]] = None,
                waiting: Optional[Callable[[str], None]] = None,
                maker: Optional[Callable] = None,
                rebuild_unsealed: bool = False) -> Tuple[List[int], List[Level]]:
    """Levels 0..max_seeds of a rule, each opened (checked once), the missing
    or refused ones made first, in order; returns the levels built and the
    opened levels, 0 first. Levels without this installation's seal raise
    EndgameUntrustedError (one line naming them and the commands that check or
    build them) before anything is made, or with ``rebuild_unsealed`` are made
    again (said in one line). A level made is sealed.

    ``maker(capture, n, below, root, report)`` makes level n's file from the
    levels below (opened); by default :class:`LocalLevels` on ``threads``
    (:class:`mancala.cluster.build.ClusterLevels` spreads a level over a
    cluster). Raises EndgameSpaceError before writing anything if the disk or
    memory cannot take them, InvalidLimitError for seeds outside 0..36 or
    threads outside 1..64, OSError if the folder cannot be written. Ctrl-C
    stops the build; the levels finished stay.
    """
    capture_code(capture)
    _core.egdb_size(max_seeds)
    maker = maker if maker is not None else LocalLevels(threads)
    with BuildLock(rule_dir(capture, root), waiting):
        convert_legacy(capture, root)
        remove_stale_temp_files(capture, root)
        have, unsealed = present_levels(capture, max_seeds, root)
        if unsealed and not rebuild_unsealed:
            for level in have.values():
                level.close()
            raise untrusted(capture, unsealed, max_seeds, root)
        if unsealed:
            levels = sorted(unsealed)
            many = len(levels) > 1
            warn(f"level{'s' if many else ''} {ranges(levels)} of the {capture} database in "
                 f"{shown_path(rule_dir(capture, root))} {'are' if many else 'is'} not sealed by this "
                 f"installation ({unsealed[levels[0]]}): building {'them' if many else 'it'} again")
        missing = [n for n in range(max_seeds + 1) if n not in have]
        check_space(capture, missing, root, memory=getattr(maker, "needs_memory", True))
        start = time.perf_counter()
        all_total = sum(_core.egdb_level_size(n) for n in missing)
        finished = 0
        for n in missing:

            def report(done: int, total: int, n: int = n) -> None:
                if progress is not None:
                    progress(BuildProgress(n, max_seeds, done, total, finished + done,
                                           all_total, time.perf_counter() - start))

            maker(capture, n, [have[k] for k in range(n)], root, report)
            finished += _core.egdb_level_size(n)
            made = have[n] = open_level(capture, n, root, require_seal=False)
            if made.trust is not None:          # a maker that does not seal its levels
                seal_level(made)
        return missing, [have[n] for n in range(max_seeds + 1)]


__all__ = ["BuildProgress", "BuildLock", "LocalLevels", "build_levels", "open_levels", "present_levels",
           "check_space"]
