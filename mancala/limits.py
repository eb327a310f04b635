"""The library's limits and defaults, and the checks every face shares.

One home for each policy: ``Board``, ``SearchLimit``, ``Engine``, the players,
the arena, the save files and the command line's argument types all call
these, so a value refused in one place is refused everywhere, with the same
one line stating the allowed range. The compiled core keeps only the checks
that protect memory (its table ceiling, :data:`MAX_HASH_MB`, is the same number).

==================  =========================  ==================  ===========================
what                range                      default             check
==================  =========================  ==================  ===========================
seeds per pit       1..12                      4                   :func:`check_seeds`
depth               1..254 (the table's)       12                  :func:`check_depth`
time                more than 0 s              none                :func:`check_seconds`
time per move       0 < S <= 3600 s            engine: 0.1 s       :func:`check_move_seconds`
nodes               1..2**63-1                 none                :func:`check_nodes`
table (hash_mb)     0, or 1..what it gives     64 (players: 16)    :func:`check_hash_mb`
threads             1..64                      1 (levels: 1)       :func:`check_threads`
search slots        one a core, at most 16     (web server)        :func:`search_slots`
endgame database    0..36 seeds (solve)        the largest cached  :func:`check_endgame_seeds`
random seed         0..2**63-1                 none                :func:`check_seed`
temperature         0..100 seeds               none                :func:`check_temperature`
level's Elo         the levels' table's range  none                :func:`check_level_elo`
==================  =========================  ==================  ===========================
"""
from __future__ import annotations

import math
import operator
import os
import re
from typing import Optional, Type

from mancala import _core
from mancala._system import available_bytes
from mancala.errors import InputError, InvalidLimitError, InvalidRuleError, quote
from mancala.levels import elo_range

MB = 1 << 20

MIN_SEEDS = 1                   # seeds per pit at the start
MAX_SEEDS_PER_PIT = 12          # 144 seeds: what the core's counters and the endgame index allow
DEFAULT_SEEDS = 4
DEFAULT_CAPTURE = "standard"    # the capture rule a game has unless one is asked for

MAX_DEPTH = _core.MAX_DEPTH     # a table entry keeps the depth in 8 bits
DEFAULT_DEPTH = 12
MAX_REFERENCE_DEPTH = 30        # the pure-Python searches take hours long before this

MAX_NODES = 2 ** 63 - 1         # the core counts nodes in a signed 64-bit integer
MAX_SEED = 2 ** 63 - 1          # a random seed, as a save file keeps it
MAX_MOVE_SECONDS = 3600.0       # a computer player's time per move (ai:time=S)
MAX_TEMPERATURE = 100.0         # a level's softmax, in seeds: far past uniform over the moves it allows

MAX_THREADS = _core.MAX_THREADS
MAX_SEARCH_SLOTS = 16            # a server's searches at once, however many cores
MAX_ENDGAME_SEEDS = 36          # solve --endgame: C(48, 12) bytes, about 70 GB on disk (space is checked)

PLAY_EVALUATION = "learned"     # play mode's (Engine's timed searches by default) and the protocol's

# Table sizes (MB): every engine a face makes takes one of these (a default above
# half of what the machine can give is halved first: default_table_mb).
DEFAULT_HASH_MB = 64            # Engine() and the commands' --hash-mb
SMALL_HASH_MB = 16              # the players', the hint's, the analysis's and the puzzles' engines
PERFECT_HASH_MB = 256           # ai:perfect's: its solves fill a table
REVIEW_HASH_MB = 64             # a review's: the solves of a game's positions share it
QUICK_HASH_MB = 8               # ... and the one solving its last positions without a database
MINE_HASH_MB = 32               # finding puzzles among the mistakes of reviewed games
WEB_TABLES_MB = 1024            # the web server's players' tables together (idle ones go first)
MAX_HASH_MB = _core.MAX_HASH_MB # the core's ceiling (its table size in bytes fits 64 bits)
MIN_HASH_MB = 1                 # the smallest table: the core makes whole 64-byte buckets, at
                                # least one, so 0.0001 MB gave 64 bytes ("table 6.10352e-05 MB")

# The solve command's table: a fresh 1 GB table costs a second of page zeroing
# and the small starts search faster in a table that fits the cache, so the
# default grows with the seeds the search must get through (see solve_table_mb).
SOLVE_TABLE_MB = 1024
SOLVE_SMALL_TABLE_MB = 16
SOLVE_SMALL_SEEDS = 36          # Kalah(6,3): 16 MB solves it faster than 1 GB
SOLVE_DATABASE_REACH = 18       # with a database of N seeds, a board searches like one of N fewer + 18
SOLVE_MIDDLE_SEEDS = 48         # Kalah(6,4) and smaller: never more than
SOLVE_MIDDLE_TABLE_MB = 256     # this (a table that fits a large L3 cache: 1.45x faster than 1 GB)


def check_whole(value: object, what: str, lowest: int, highest: Optional[int] = None, *,
                error: Type[InputError] = InvalidLimitError, given: object = None) -> int:
    """``value`` if it is an int (not a bool) from ``lowest`` to ``highest``, else ``error``.

    Raises ``error`` (InvalidLimitError unless told) with the message
    "WHAT is a whole number from LOWEST to HIGHEST, not GIVEN"
    (``given``: what the user typed, quoted instead of ``value``).
    """
    if isinstance(value, bool) or not isinstance(value, int) \
            or value < lowest or (highest is not None and value > highest):
        upto = f" to {highest:,}" if highest is not None and highest > 9999 else \
            f" to {highest}" if highest is not None else ""
        raise error(f"{what} is a whole number from {lowest}{upto}, "
                    f"not {quote(value if given is None else given)}")
    return value


def parse_whole(text: object) -> Optional[int]:
    """The int that ``text`` spells in the ASCII digits 0-9 (a sign allowed), else None.

    For numbers typed as text: ``int()`` also reads other scripts' digits
    ("\u0664" is 4) and ``str.isdigit`` passes "\u00b2", which ``int()`` refuses.
    None goes to a check (:func:`check_whole`), whose error states the range;
    over 30 digits is out of every range, and never reaches ``int()``. Raises nothing.
    """
    if not isinstance(text, str):
        return None
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or len(digits) > 30 or not (digits.isascii() and digits.isdigit()):
        return None
    return int(text)


_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def parse_number(text: object) -> Optional[float]:
    """The float that ``text`` spells in ASCII: the digits 0-9, a sign, a decimal
    point and an exponent ("16", "0.5", "+1e3"); else None.

    ``float()`` also reads other scripts' digits ("\u0661\u0666" is 16), "1_6",
    "inf" and "nan"; None goes to a check, whose error states the range (as
    :func:`parse_whole`). A number too large for a float is inf, which every check
    refuses. Raises nothing.
    """
    if not isinstance(text, str) or len(text) > 100 or not _NUMBER.fullmatch(text):
        return None
    return float(text)


def check_seeds(value: object, given: object = None) -> int:
    """Seeds per pit at the start: 1..12, else InvalidRuleError."""
    return check_whole(value, "seeds per pit", MIN_SEEDS, MAX_SEEDS_PER_PIT,
                       error=InvalidRuleError, given=given)


def check_depth(value: object, given: object = None, highest: int = MAX_DEPTH) -> int:
    """A search depth in moves: 1..254 (or 1..``highest``), else InvalidLimitError."""
    return check_whole(value, "depth", 1, highest, given=given)


def check_nodes(value: object, given: object = None) -> int:
    """A node limit: 1..2**63-1, else InvalidLimitError."""
    return check_whole(value, "nodes", 1, MAX_NODES, given=given)


def check_threads(value: object, given: object = None, most: int = MAX_THREADS) -> int:
    """A thread count: 1..64 (or 1..``most``), else InvalidLimitError."""
    return check_whole(value, "threads", 1, most, given=given)


def machine_cores() -> int:
    """The CPUs this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):       # not Linux
        return max(1, os.cpu_count() or 1)


def search_slots() -> int:
    """How many searches a server runs at once: one a core, as each of its
    players searches on one thread (the levels keep one thread: their Elo
    was measured so), at most :data:`MAX_SEARCH_SLOTS`."""
    return min(machine_cores(), MAX_SEARCH_SLOTS)


def check_endgame_seeds(value: object, given: object = None) -> int:
    """The seeds an endgame database covers: 0 (none) to 36, else InvalidLimitError."""
    return check_whole(value, "endgame (the seeds its database covers)", 0, MAX_ENDGAME_SEEDS, given=given)


def check_seed(value: object, given: object = None) -> int:
    """A random seed: 0..2**63-1, else InvalidLimitError."""
    return check_whole(value, "the seed", 0, MAX_SEED, given=given)


def machine_mb() -> Optional[int]:
    """Megabytes the machine can give a table now, or None if it does not say
    (:func:`mancala._system.available_bytes`). Raises nothing."""
    most = available_bytes()
    return None if most is None else most // MB


def hash_mb_ceiling() -> int:
    """The largest table :func:`check_hash_mb` accepts now: what the machine can
    give (:func:`machine_mb`), never more than the core's :data:`MAX_HASH_MB`. Raises nothing."""
    most = machine_mb()
    return MAX_HASH_MB if most is None else min(most, MAX_HASH_MB)


def check_hash_mb(value: object, given: object = None) -> float:
    """A transposition-table size in megabytes, as a float, or InvalidLimitError.

    0 (no table), or from :data:`MIN_HASH_MB` to :func:`hash_mb_ceiling`: a
    larger table would end in the kernel's out-of-memory killer or the core's
    MemoryError, not an error; a smaller one is not the size asked (the core
    rounds it to one bucket). ``given``: what the user typed, quoted in the
    error instead of ``value``.
    """
    most = hash_mb_ceiling()
    why = " (the memory this machine can give now)" if most < MAX_HASH_MB else " (the largest table)"
    bad = InvalidLimitError(f"hash_mb is a table size in megabytes from 0 (no table) to "
                            f"{most:,}{why}, not {quote(value if given is None else given)}")
    if isinstance(value, bool):
        raise bad
    if not isinstance(value, (int, float)):
        try:
            value = operator.index(value)   # a NumPy integer
        except TypeError:
            raise bad from None
    if isinstance(value, int) and not 0 <= value <= most:
        raise bad       # before float(): 10**400 has no float
    size = float(value)
    if not math.isfinite(size) or not 0 <= size <= most:
        raise bad
    if 0 < size < MIN_HASH_MB:
        raise InvalidLimitError(f"hash_mb is 0 (no table) or a table of at least {MIN_HASH_MB} MB "
                                f"(the smallest), not {quote(value if given is None else given)}")
    return size


def solve_table_mb(seeds: Optional[int] = None, endgame: int = 0) -> float:
    """The default table of a solve of a position with ``seeds`` seeds in its
    pits and an endgame database of ``endgame`` seeds (0: none).

    16 MB up to 36 seeds (Kalah(6,3) solves faster in it than in 1 GB), then
    doubling every two seeds, up to 256 MB for boards of at most 48 seeds and
    1024 MB above (measured on a 2-core machine with a 480 MB L3 cache:
    Kalah(6,4) with the 18-seed database, 60 M nodes, 10.7 s in 256 MB and
    15.5 s in 1 GB; Kalah(6,5) with the 30-seed one, 380 M nodes, 152 s in
    1 GB, 164 s in 512 MB, 167 s in 256 MB). A database answers the search
    sooner, so a board is sized as one of ``seeds - endgame + 18`` seeds when
    that is fewer: Kalah(6,4) with the 30-seed database (0.4 M nodes) gets
    16 MB, which makes its command two seconds faster than 1 GB. Never more
    than half of what the machine can give. No seeds given: the largest.
    Raises nothing.
    """
    size = SOLVE_TABLE_MB
    if seeds is not None:
        largest = SOLVE_MIDDLE_TABLE_MB if seeds <= SOLVE_MIDDLE_SEEDS else SOLVE_TABLE_MB
        seeds = min(seeds, seeds - endgame + SOLVE_DATABASE_REACH)
        size = min(largest, SOLVE_SMALL_TABLE_MB << max(0, (seeds - SOLVE_SMALL_SEEDS + 1) // 2))
    return default_table_mb(size)


def default_table_mb(size: int) -> float:
    """A default table size (a power of two), halved until it fits in half of
    what the machine can give: a default must never be the size refused. Raises nothing."""
    most = machine_mb()
    while most is not None and size > 1 and size > most / 2:
        size //= 2
    return float(size)


def check_move_seconds(value: object, given: object = None, *,
                       error: Type[InputError] = InvalidLimitError) -> float:
    """A player's time per move: more than 0 and at most :data:`MAX_MOVE_SECONDS`
    (an hour), as a float; else ``error`` (InvalidLimitError unless told)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not 0 < value <= MAX_MOVE_SECONDS:
        raise error(f"time is seconds, more than 0 and at most {MAX_MOVE_SECONDS:g}, "
                    f"not {quote(value if given is None else given)}")
    return float(value)


def check_temperature(value: object, given: object = None, *,
                      error: Type[InputError] = InvalidLimitError) -> float:
    """A level's softmax temperature in seeds: 0 to :data:`MAX_TEMPERATURE`, as a
    float; else ``error`` (InvalidLimitError unless told)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not 0 <= value <= MAX_TEMPERATURE:
        raise error(f"temp is seeds, from 0 to {MAX_TEMPERATURE:g}, "
                    f"not {quote(value if given is None else given)}")
    return float(value)


def check_level_elo(value: object, given: object = None, *,
                    error: Type[InputError] = InvalidLimitError) -> int:
    """A level's strength in Elo (``ai:elo=N``): a whole number within the measured
    levels' range (:func:`mancala.levels.elo_range`: the weakest engine level to
    perfect play); else ``error`` (InvalidLimitError unless told)."""
    lowest, highest = elo_range()
    return check_whole(value, "elo", lowest, highest, error=error, given=given)


def check_seconds(value: object, given: object = None) -> object:
    """A time limit: a positive finite number of seconds (returned as given), or InvalidLimitError."""
    bad = InvalidLimitError(f"time is a positive number of seconds (more than 0), "
                            f"not {quote(value if given is None else given)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad
    try:
        seconds = float(value)
    except OverflowError:       # an int with no float: 10**400
        raise bad from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise bad
    return value


__all__ = [
    "MIN_SEEDS", "MAX_SEEDS_PER_PIT", "DEFAULT_SEEDS", "DEFAULT_CAPTURE", "MAX_DEPTH", "DEFAULT_DEPTH",
    "MAX_REFERENCE_DEPTH", "MAX_NODES", "MAX_SEED", "MAX_MOVE_SECONDS", "MAX_THREADS", "MAX_SEARCH_SLOTS",
    "MAX_ENDGAME_SEEDS",
    "DEFAULT_HASH_MB", "SMALL_HASH_MB", "PERFECT_HASH_MB", "REVIEW_HASH_MB", "QUICK_HASH_MB",
    "MINE_HASH_MB", "WEB_TABLES_MB", "MAX_HASH_MB", "MIN_HASH_MB", "PLAY_EVALUATION",
    "parse_whole", "parse_number", "check_whole", "check_seeds", "check_depth", "check_nodes", "check_threads", "machine_cores",
    "search_slots", "check_seed",
    "check_endgame_seeds",
    "check_seconds", "check_move_seconds", "check_temperature", "check_level_elo", "MAX_TEMPERATURE",
    "check_hash_mb", "hash_mb_ceiling", "machine_mb", "solve_table_mb",
    "default_table_mb",
]
