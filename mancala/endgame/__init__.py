"""Endgame databases: the perfect-play value of every position with few seeds in the pits.

A database of N seeds is levels 0..N (level n: every position with exactly n
seeds in the twelve pits), each a file in the cache (:mod:`mancala.endgame.files`
has the format), built once per capture rule and mapped read only by every
process that uses it. A bigger database adds levels and never rebuilds the
lower ones; a build that is stopped resumes at its first missing level
(:func:`mancala.endgame.building.build_levels`, ``python -m mancala endgame``).

- :func:`find` -- the largest sound database cached for a rule, or None; what
  ``Engine(endgame="auto")`` uses. It never raises.
- :func:`cached_seeds` -- the size :func:`find` will look at, from the file names alone.
- :func:`load` -- levels 0..N, each checked, or EndgameFileError.
- :func:`ensure` -- :func:`load`, building what is missing first.
- :func:`build` -- a database in memory, no files (small ones, tests).
- :func:`iter_positions` -- every position of levels 0..N with its value and
  best moves, a batch at a time (:mod:`mancala.endgame.rows`); ``endgame
  export`` writes them as Parquet (:mod:`mancala.endgame.export`).

Only levels under this installation's seal are used (built here, or found
right by ``endgame verify --deep``): :func:`load` and :func:`ensure` refuse
others with one line naming the commands that check or rebuild them (an
EndgameUntrustedError), :func:`find` uses the sealed levels from 0 up and
says in one line which it left out (:mod:`mancala.endgame.sealing` has why).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, List, Optional, Sequence

from mancala import _core
from mancala.board import Board, capture_code
from mancala.errors import (EndgameFileError, EndgameMissingError, EndgameSpaceError,
                            EndgameUntrustedError, SealError, quote)
from mancala.geometry import seeds_in_pits
from mancala.limits import check_threads
from mancala.storage import shown_path
from mancala.endgame.building import open_levels
from mancala.endgame.files import (HEADER, MAGIC, VERSION, Level, cache_dir, level_path, levels_on_disk,
                                   open_level, remove_stale_temp_files, rule_dir, untrusted, warn,
                                   write_level)
from mancala.endgame.legacy import convert_legacy
from mancala.endgame.rows import DEFAULT_BATCH, PositionBatch, batches, best_pits, check_batch
from mancala.endgame.sealing import advice, ranges

DEFAULT_SEEDS = 16                   # 30 million positions: seconds to build, 30 MB

Progress = Callable[[int, int, int, float], None]  # (seeds, positions done, all positions, seconds)


class EndgameDatabase:
    """The values of every position with at most ``max_seeds`` seeds in the pits:
    ``levels[n]`` holds level n's (a buffer, one signed byte a position by rank).

    ``files`` are the :class:`mancala.endgame.files.Level` files they are mapped
    from (empty for a database built in memory).
    """

    def __init__(self, capture: str, levels: Sequence, files: Sequence[Level] = ()) -> None:
        capture_code(capture)
        if not levels:
            raise EndgameFileError("an endgame database has at least level 0")
        for n, values in enumerate(levels):
            if len(values) != _core.egdb_level_size(n):
                raise EndgameFileError(f"{len(values)} values do not make level {n}")
        self.capture = capture
        self.levels = list(levels)
        self.files = list(files)
        self.max_seeds = len(levels) - 1

    def __repr__(self) -> str:
        return (f"<EndgameDatabase capture={self.capture!r} max_seeds={self.max_seeds} "
                f"({_core.egdb_size(self.max_seeds):,} positions)>")

    @property
    def path(self) -> Optional[Path]:
        """The folder of its level files (None for one built in memory)."""
        return self.files[0].path.parent if self.files else None

    def covers(self, board: Board) -> bool:
        """Whether the board's rules and seeds in the pits are within this database."""
        return board.capture == self.capture and seeds_in_pits(board.pits) <= self.max_seeds

    def value(self, board: Board) -> int:
        """Perfect-play final margin for the side to move (the stores included)."""
        if board.capture != self.capture:
            raise EndgameFileError(f"this database is for capture {quote(self.capture)}, "
                                   f"not {quote(board.capture)}")
        return board.score() + _core.egdb_lookup(self.levels, board.pits, board.to_move)

    def intact(self) -> Optional[str]:
        """None while every level file is as it was checked; else what happened
        (one line): anything read from the database since is void."""
        for level in self.files:
            problem = level.intact()
            if problem:
                return problem
        return None


def build(capture: str, max_seeds: int, progress: Optional[Progress] = None,
          threads: int = 1) -> EndgameDatabase:
    """Compute a database in memory (levels from 0 up, each shared by ``threads``).

    Raises InvalidRuleError for an unknown capture rule, InvalidLimitError for
    threads outside 1..64 (:func:`mancala.limits.check_threads`).
    """
    from time import perf_counter
    code = capture_code(capture)
    check_threads(threads)
    start = perf_counter()

    def report(seeds: int, done: int, total: int) -> None:
        if progress is not None:
            progress(seeds, done, total, perf_counter() - start)

    return EndgameDatabase(capture, _core.egdb_build(max_seeds, code, report, threads))


def save(db: EndgameDatabase, root: Optional[Path] = None) -> Path:
    """Write every level of a database as a file (atomically), sealed as this
    installation's (its values were computed here); the rule's folder."""
    for n, values in enumerate(db.levels):
        hashes, problem = _core.egdb_check_level(values, n)
        if problem is not None:
            raise EndgameFileError(f"level {n} position {problem[1]} holds a value no position "
                                   f"with {n} seeds can have")
        write_level(level_path(db.capture, n, root), db.capture, n, values, hashes)
    return rule_dir(db.capture, root)


def load(capture: str, max_seeds: int, root: Optional[Path] = None,
         vouched: Optional[Sequence[str]] = None) -> EndgameDatabase:
    """Levels 0..max_seeds of a rule, each mapped after every check
    (:func:`mancala.endgame.files.open_level`); EndgameMissingError if one is
    missing, EndgameFileError (the file set aside) if one is refused,
    EndgameUntrustedError (one line naming them all) if some do not carry this
    installation's seal. ``vouched``: for a cluster worker, which holds another
    key, the levels' ``digest`` as the process that checked their seals found
    them (``[level.digest for level in db.files]``)."""
    _core.egdb_size(max_seeds)           # InvalidLimitError out of 0..36
    if vouched is not None and len(vouched) != max_seeds + 1:
        raise ValueError(f"{len(vouched)} digests vouched for levels 0..{max_seeds}")
    convert_legacy(capture, root)
    files: List[Level] = []
    unsealed = {}
    try:
        for n in range(max_seeds + 1):
            level = open_level(capture, n, root, require_seal=False,
                               vouched=None if vouched is None else vouched[n])
            files.append(level)
            if level.trust is not None:
                unsealed[n] = level.trust
    except BaseException:
        for level in files:
            level.close()
        raise
    if unsealed:
        for level in files:
            level.close()
        raise untrusted(capture, unsealed, max_seeds, root)
    return EndgameDatabase(capture, [level.values for level in files], files)


def find(capture: str, root: Optional[Path] = None) -> Optional[EndgameDatabase]:
    """The largest sound database cached for a capture rule (levels 0..N, all
    present, sound and sealed by this installation), or None.

    What ``Engine(endgame="auto")`` uses: it never raises and never blocks on a
    hostile cache; a refused level is set aside and said in one line, a level
    without this installation's seal is left out with the levels above it (one
    line naming them and the commands that check or rebuild them), and the
    levels below still serve.
    """
    capture_code(capture)
    files: List[Level] = []
    try:
        convert_legacy(capture, root)
        remove_stale_temp_files(capture, root)
        present = levels_on_disk(capture, root)
        top = cached_seeds(capture, root)
        for n in range(len(present)):
            if present[n] != n:
                break
            try:
                level = open_level(capture, n, root, require_seal=False)
            except EndgameMissingError:
                break                                       # gone since the listing
            except EndgameFileError as exc:
                warn(f"refused {exc}")
                break
            if level.trust is not None:
                level.close()
                warn(f"left out level{'s' if n < top else ''} {ranges(range(n, top + 1))} of the "
                     f"{capture} database in {shown_path(rule_dir(capture, root))}: level {n} is "
                     f"not sealed by this installation ({level.trust}); {advice(capture, top, root)}")
                break
            files.append(level)
    except SealError as exc:
        warn(f"left out the {capture} database: {exc}")
        files = []
    except (OSError, ValueError, MemoryError) as exc:       # never let a cache stop a search
        warn(f"refused {rule_dir(capture, root)}: {exc}")
        return None
    if not files:
        return None
    return EndgameDatabase(capture, [level.values for level in files], files)


def iter_positions(seeds: int, capture: str = "standard", batch: int = DEFAULT_BATCH, *,
                   root: Optional[Path] = None,
                   database: Optional[EndgameDatabase] = None) -> Iterator[PositionBatch]:
    """Every position with at most ``seeds`` seeds in the pits, with its
    perfect-play value and best moves, in batches of at most ``batch`` rows
    (:class:`~mancala.endgame.rows.PositionBatch`, level 0 first, by rank):
    from the cached database of the rule (:func:`load`: levels under this
    installation's seal, or its errors, raised here), or from ``database``
    (one built in memory too). No pyarrow, no NumPy: the batches are arrays
    (:mod:`mancala.endgame.rows` has what a row holds)."""
    check_batch(batch)
    _core.egdb_size(seeds)                  # InvalidLimitError outside 0..36
    capture_code(capture)
    if database is None:
        database = load(capture, seeds, root)
    elif database.capture != capture or database.max_seeds < seeds:
        raise EndgameFileError(f"the database given holds {database.capture} levels "
                               f"0..{database.max_seeds}, not {capture} levels 0..{seeds}")
    return batches(database, seeds, batch)


def cached_seeds(capture: str, root: Optional[Path] = None) -> int:
    """N when levels 0..N of a rule are in the cache, as their names say (none
    is opened or checked: :func:`find` does that); 0 when none is. Raises nothing."""
    present = levels_on_disk(capture, root)
    n = 0
    while n < len(present) and present[n] == n:
        n += 1
    return max(0, n - 1)


def ensure(capture: str, max_seeds: int = DEFAULT_SEEDS, progress: Optional[Progress] = None,
           threads: int = 1, root: Optional[Path] = None) -> EndgameDatabase:
    """Levels 0..max_seeds, built first where missing or refused (a refused file
    is set aside and said in one line). Raises EndgameUntrustedError (before
    building anything) when some are not sealed by this installation, naming
    them and the commands that check or rebuild them; EndgameSpaceError when the
    disk or the memory cannot take a missing level."""
    _, levels = open_levels(capture, max_seeds, threads=threads, root=root,
                            progress=None if progress is None else (
                                lambda p: progress(p.level, p.all_done, p.all_total, p.seconds)))
    return EndgameDatabase(capture, [level.values for level in levels], levels)


__all__ = ["EndgameDatabase", "EndgameFileError", "EndgameMissingError", "EndgameSpaceError",
           "EndgameUntrustedError",
    "build", "save", "load", "find", "cached_seeds", "ensure", "convert_legacy", "cache_dir", "rule_dir",
           "level_path", "DEFAULT_SEEDS", "MAGIC", "VERSION", "HEADER",
           "iter_positions", "PositionBatch", "best_pits"]
