"""The library's limits and defaults, and the checks every face shares.

One home for each policy: ``Engine``, the command line's argument types and
the players all call these, so a size refused in one place is refused
everywhere, with the same one line.
"""
from __future__ import annotations

import math
import operator
from typing import Optional

from mancala._system import available_bytes
from mancala.errors import InvalidLimitError, quote

MB = 1 << 20
# The solve command's table: a fresh 1 GB table costs a second of page zeroing
# and the small starts search faster in a table that fits the cache, so the
# default grows with the seeds on the board (see solve_table_mb).
SOLVE_TABLE_MB = 1024
SOLVE_SMALL_TABLE_MB = 16
SOLVE_SMALL_SEEDS = 36          # Kalah(6,3): 16 MB solves it faster than 1 GB


def machine_mb() -> Optional[int]:
    """Megabytes the machine can give a table now, or None if it does not say
    (:func:`mancala._system.available_bytes`)."""
    most = available_bytes()
    return None if most is None else most // MB


def check_hash_mb(value: object, given: object = None) -> float:
    """A transposition-table size in megabytes, as a float, or InvalidLimitError.

    From 0 (no table) to what the machine can give (:func:`machine_mb`): a
    larger table would end in the kernel's out-of-memory killer, not an error.
    ``given``: what the user typed, quoted in the error instead of ``value``.
    """
    most = machine_mb()
    upto = f"{most:,} (the memory this machine can give now)" if most is not None else "any size"
    bad = InvalidLimitError(
        f"hash_mb is a table size in megabytes from 0 (no table) to {upto}, not {quote(value if given is None else given)}")
    if isinstance(value, bool):
        raise bad
    if not isinstance(value, (int, float)):
        try:
            value = operator.index(value)   # a NumPy integer
        except TypeError:
            raise bad from None
    if isinstance(value, int) and (value < 0 or (most is not None and value > most)):
        raise bad       # before float(): 10**400 has no float
    size = float(value)
    if not math.isfinite(size) or size < 0 or (most is not None and size > most):
        raise bad
    return size


def solve_table_mb(seeds: Optional[int] = None) -> float:
    """The default table of a solve of a position with ``seeds`` seeds on the board.

    16 MB up to 36 seeds (Kalah(6,3) solves faster in it than in 1 GB), then
    doubling every two seeds up to 1024 MB (Kalah(6,4), 48 seeds, needs it:
    a quarter of it doubles the time); never more than half of what the
    machine can give. No seeds given: the largest.
    """
    size = SOLVE_TABLE_MB
    if seeds is not None and seeds <= SOLVE_SMALL_SEEDS:
        size = SOLVE_SMALL_TABLE_MB
    elif seeds is not None:
        size = min(SOLVE_TABLE_MB, SOLVE_SMALL_TABLE_MB << ((seeds - SOLVE_SMALL_SEEDS + 1) // 2))
    return default_table_mb(size)


def default_table_mb(size: int) -> float:
    """A default table size (a power of two), halved until it fits in half of
    what the machine can give: a default must never be the size refused."""
    most = machine_mb()
    while most is not None and size > 1 and size > most / 2:
        size //= 2
    return float(size)


def check_seconds(value: object) -> object:
    """A time limit: a positive finite number of seconds (returned as given), or InvalidLimitError."""
    bad = InvalidLimitError(f"time is a positive number of seconds, not {quote(value)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad
    try:
        seconds = float(value)
    except OverflowError:       # an int with no float: 10**400
        raise bad from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise bad
    return value


__all__ = ["machine_mb", "check_hash_mb", "check_seconds", "solve_table_mb", "default_table_mb"]
