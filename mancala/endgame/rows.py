"""A database's positions as rows, for learning from exact labels: every
position of levels 0..N in the database's order (level by level, by rank,
csrc/egdb.h), each with its perfect-play value and its best moves, a batch at
a time (:func:`batches`, which :func:`mancala.endgame.iter_positions` hands
out; ``python -m mancala endgame export`` writes them as Parquet).

A row is a position seen from the side to move with the stores empty (the
database leaves them out: what the rest of the game is worth does not depend
on them), so as a board it is South to move: its twelve pits are slots 0..5
(the mover's, pit indices 0..5 from its left) and 7..12 (the opponent's).
Its value is the final margin for the side to move under perfect play (add
the store difference for the same pits with seeds in the stores); its best
moves are the pits whose move keeps that value, scored from the levels as the
build scores them (in the compiled core, a batch at a time: no search), which
checks every value on the way.

The mover holds a seed in pits 0 and 5, the opponent one in its pit 5.
Pit 5 first banks a seed and moves again, pit 0 then sows into pit 1 (the
pit facing it is empty: no capture); the opponent's last seed goes to its
store and its row is empty, so the mover's seed is swept home: 2 to 1. Pit 0
first ends the same: +1 either way, and both moves are best::

>>> from mancala import endgame
>>> db = endgame.build("standard", 3)
>>> rows = {tuple(b.row(i)[0]): b.row(i)[1:] for b in endgame.iter_positions(3, database=db)
...         for i in range(len(b))}
>>> len(rows)                          # C(15, 12): every position with at most 3 seeds
455
>>> value, best = rows[(1, 0, 0, 0, 0, 1,  0, 0, 0, 0, 0, 1)]
>>> value, best, best_pits(best)
(1, 33, [0, 5])
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Iterator, List, Tuple

from mancala import _core
from mancala.board import Board, capture_code
from mancala.errors import EndgameFileError, InvalidLimitError, quote
from mancala.geometry import NORTH, PITS, SOUTH, pit_slot

ROW_PITS = 2 * PITS             # a row's pits: the mover's six, then the opponent's
ROW_SLOTS = tuple(pit_slot(side, pit) for side in (SOUTH, NORTH) for pit in range(PITS))
"""The slots of a row's pits on a board with South to move."""
DEFAULT_BATCH = 1 << 20         # rows a batch: 14 MB of them
MAX_BATCH = 1 << 26


@dataclass(frozen=True)
class PositionBatch:
    """Rows ``first``.. of level ``seeds`` (positions with that many seeds in
    the pits), in rank order: ``pits`` holds 12 unsigned bytes a row, a plane
    a pit (pit k of row i at ``pits[k * len(batch) + i]``: k = 0..5 the
    mover's from its left, 6..11 the opponent's from its left); ``values`` a
    signed byte a row, its value for the side to move; ``best`` a byte a row,
    its best moves as bits (bit p set: pit index p keeps the value; 0 when a
    row is empty and the game over). Arrays (:mod:`array`), so NumPy and
    pyarrow read them without a copy."""
    seeds: int
    first: int
    capture: str
    pits: array
    values: array
    best: array

    def __len__(self) -> int:
        return len(self.values)

    def pit(self, k: int) -> memoryview:
        """Pit k (0..11) of every row."""
        rows = len(self)
        return memoryview(self.pits)[k * rows:(k + 1) * rows]

    def row(self, i: int) -> Tuple[List[int], int, int]:
        """Row i as (its twelve pits, its value, its best moves' bits)."""
        rows = len(self)
        return [self.pits[k * rows + i] for k in range(ROW_PITS)], self.values[i], self.best[i]

    def board(self, i: int) -> Board:
        """Row i as a board: South to move, the stores empty."""
        pits = self.row(i)[0]
        return Board(pits[:6] + [0] + pits[6:] + [0], 0, capture=self.capture)


def best_pits(bits: int) -> List[int]:
    """The pit indices (0..5) a row's best-moves bits name: 0b100100 -> [2, 5]."""
    return [pit for pit in range(6) if bits >> pit & 1]


def check_batch(batch: object) -> int:
    """A batch's rows, 1..MAX_BATCH, or InvalidLimitError quoting it."""
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise InvalidLimitError(f"a batch is 1 to {MAX_BATCH} rows, not {quote(batch)}")
    return batch


def batches(database, seeds: int, batch: int = DEFAULT_BATCH) -> Iterator[PositionBatch]:
    """The rows of levels 0..seeds of ``database`` (an
    :class:`~mancala.endgame.EndgameDatabase` that has them), level 0 first, in
    batches of at most ``batch`` rows (a batch never spans two levels): what
    :func:`mancala.endgame.iter_positions` hands out.

    Memory stays bounded whatever the size: a batch at a time, and the pages of
    levels mapped from files are let go after each batch (the page cache keeps
    them). Raises EndgameFileError if a level file changes while it is read, or
    if a value is not its best move's (a database that contradicts itself:
    ``endgame verify --deep`` finds the wrong level).
    """
    capture = database.capture
    code = capture_code(capture)
    levels = database.levels[:seeds + 1]
    for n in range(seeds + 1):
        size = _core.egdb_level_size(n)
        for first in range(0, size, batch):
            rows = min(batch, size - first)
            made = PositionBatch(n, first, capture, array("B", bytes(ROW_PITS * rows)),
                                 array("b", bytes(rows)), array("B", bytes(rows)))
            wrong = _core.egdb_rows(levels, n, code, first, made.pits, made.values, made.best)
            problem = database.intact()
            if problem is not None:
                raise EndgameFileError(f"{problem}: the rows read from it are void")
            if wrong is not None:
                pits = _core.egdb_position(n, wrong)
                raise EndgameFileError(
                    f"level {n} of the {capture} database contradicts itself at position "
                    f"{wrong:,} (pits {','.join(map(str, pits))}, the mover's first): its value is "
                    f"not its best move's; `python -m mancala endgame verify --deep --seeds {seeds} "
                    f"--capture {capture}` finds the wrong level")
            for level in database.files:
                level.let_go()
            yield made


__all__ = ["PositionBatch", "batches", "check_batch", "best_pits", "ROW_PITS", "ROW_SLOTS", "DEFAULT_BATCH",
           "MAX_BATCH"]
