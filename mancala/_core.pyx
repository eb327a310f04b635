# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: Kalah rules and an alpha-beta search over int[14] boards.

Three layers, as in the .pxd: the C of csrc/ (layout, one move, table entries),
``nogil`` functions over board pointers (evaluation, perft, negamax, iterative
deepening, null-window probes to the end of the game, endgame databases), and
two thin classes for Python (BoardBase, Searcher).
The module-level functions answer the same questions as ``mancala._reference``,
the pure-Python twin; the tests hold the two against each other.

Inside the search a board is always seen from the side to move (see kalah.h),
and every value is from the mover's point of view, in seeds.

One compilation unit (so the C compiler inlines across concerns), one concern
per included file, in the order each needs the ones before:

  _core_rules.pxi      orientation, end of game, evaluation, perft
  _core_threads.pxi    atomics shared by threads searching one table (ABDADA)
  _core_clock.pxi      time and node limits, abort flag, Ctrl-C
  _core_ordering.pxi   move ordering, enhanced transposition cut-offs
  _core_negamax.pxi    negamax, and the root's own search (search_root)
  _core_deepen.pxi     iterative deepening
  _core_checks.pxi     argument checks for values from Python
  _core_lists.pxi      the twin-compatible functions on lists
  _core_endgame.pxi    endgame databases: build a level (or a range of it), its blocks
  _core_endgame_check.pxi  level files' values: checksum, verify, compare, map, look up
  _core_egdb_rect.pxi  a rectangle of a level's class, for a cluster's task
  _core_egdb_rows.pxi  a level's positions with their values and best moves, in batches
  _core_board.pxi      BoardBase
  _core_searcher.pxi   Searcher
"""
from cpython.exc cimport PyErr_CheckSignals, PyErr_Fetch, PyErr_Restore
from cpython.ref cimport PyObject, Py_XDECREF, Py_XINCREF
from libc.stdint cimport uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec


cdef extern from "Python.h":
    # cpython.exc declares it `except -1`, which in a noexcept poll would take
    # the error exit before the search is stopped: here it returns its -1 to us
    int check_signals "PyErr_CheckSignals"() noexcept

from collections.abc import Mapping, Set
from operator import index
from sys import exc_info as sys_exc_info
from threading import get_ident, main_thread

from mancala._threads import Workers

from mancala.errors import IllegalMoveError, InvalidBoardError, InvalidLimitError, InvalidRuleError, quote

CAPTURE_RULES = tuple(kalah_capture_name(rule).decode() for rule in range(CAPTURE_RULE_COUNT))   # csrc/kalah.h's
EVALUATIONS = ("store", "positional", "learned")

cdef enum:
    INF = 1000              # beyond any score: |score| <= KALAH_MAX_SEEDS
    NO_MOVE = TT_NO_MOVE    # no move (a finished game, a search stopped early); the table stores it as is
    NO_CUTOFF = -INF - 1    # etc_cutoff found none
    CHILD_IN_DATABASE = 4   # a child's flag beside PLAY_*: its value is in the endgame database
    SOLVE_DEPTH = 1 << 20   # "no depth limit": exact search to the end of the game
    MAX_PLY = 1000          # recursion guard; far beyond any real game
    TT_MIN_DEPTH = 2        # nodes this close to the horizon search faster than a table probe
    TT_DB_MARGIN = 2        # ... and, in a solve, nodes this few seeds above the endgame database
    LEARNED_TERMS = 19      # the learned evaluation's weighted terms (mancala/_learned.py),
    LEARNED_COUNTS = 13     #   its tables' columns: a pit's seeds (0..11, 12 or more),
    LEARNED_TOTALS = 31     #   a row's seeds (0..29, 30 or more),
    LEARNED_FACING = 9      #   the seeds facing an empty pit (0..7, 8 or more),
    LEARNED_SCALE = 64      #   and their weights' unit: 1/64 seed

# play mode's parts (Searcher.search's play): each may be switched off to measure it
PLAY_DEEPER_TT = 1          # table entries from deeper searches answer shallower probes
PLAY_ASPIRATION = 2         # aspiration windows around the last iteration's score
PLAY_PVS = 4                # principal-variation (null-window) search
PLAY_CLOCK = 8              # the time manager moves the soft limit (see _core_clock.pxi)
ASPIRATION_WINDOW = 2       # seeds either side of the last score; doubled at each failure

# the limits that protect memory; mancala.limits reads them from here
MAX_DEPTH = TT_DEPTH_MAX
MAX_SEEDS = KALAH_MAX_SEEDS
MAX_THREADS = 64                # an endgame build's or a search's threads
MAX_HASH_MB = 1 << 24           # a table's size in bytes fits 64 bits

include "_core_rules.pxi"
load_learned_weights()
include "_core_threads.pxi"
include "_core_clock.pxi"
include "_core_ordering.pxi"
include "_core_negamax.pxi"
include "_core_deepen.pxi"
include "_core_checks.pxi"
include "_core_lists.pxi"
include "_core_endgame.pxi"
include "_core_endgame_check.pxi"
include "_core_egdb_rect.pxi"
include "_core_egdb_rows.pxi"
include "_core_board.pxi"
include "_core_searcher.pxi"
