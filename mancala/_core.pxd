# The compiled core's interface: the C headers it is built on, the search state,
# and the two classes Python sees (BoardBase, Searcher).
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t, uint8_t, uint64_t, uintptr_t
from posix.types cimport clockid_t


from mancala._kalah cimport *


cdef extern from "tt.h" nogil:
    enum:
        TT_LOWER
        TT_UPPER
        TT_EXACT
        TT_RESOLVED
    enum:
        TT_DEPTH_END
        TT_DEPTH_MAX
        TT_NO_MOVE
        TT_WAYS             # entries a bucket
    ctypedef struct tt_data:
        short value
        uint8_t depth
        uint8_t bound
        uint8_t move
        uint8_t generation
    ctypedef struct tt_entry:
        uint64_t check
        uint64_t data
    ctypedef struct tt_bucket:
        tt_entry way[TT_WAYS]
    ctypedef struct tt_table:
        tt_bucket *buckets      # NULL when the table is off
        uint64_t n_buckets
        uint8_t generation
    int tt_alloc(tt_table *t, uint64_t n_buckets)
    void tt_free(tt_table *t)
    void tt_clear(tt_table *t)
    uint64_t tt_key(const int *b)
    void tt_prefetch(const tt_table *t, uint64_t key)
    bint tt_probe(const tt_table *t, uint64_t key, tt_data *out)
    void tt_store(tt_table *t, uint64_t key, int value, int depth, int bound, int move,
                  uint64_t nodes)


cdef extern from "proof_stats.h" nogil:
    # where a search's nodes go, for measuring: compiled in only with MANCALA_STATS=1
    # (setup.py); otherwise every hook is empty and the search the same machine code
    enum:
        PS_PLY
        PS_SEEDS
        PS_RANKS
    enum:
        PS_END_TERMINAL
        PS_END_DATABASE
        PS_END_HORIZON
        PS_END_FUTILITY
        PS_END_TABLE
        PS_END_ETC
        PS_END_KINDS
    enum:
        PS_PROBE_MISS
        PS_PROBE_CUT
        PS_PROBE_DEPTH
        PS_PROBE_SIDE
        PS_PROBE_UNTABLED
        PS_PROBE_KINDS
    enum:
        PS_STORE_KINDS
    enum:
        PS_ETC_NONE
        PS_ETC_HIGH
        PS_ETC_LOW
        PS_ETC_KINDS
    ctypedef struct ps_counts "proof_stats":
        uint64_t visits_by_ply[PS_PLY]
        uint64_t visits_by_seeds[PS_SEEDS]
        uint64_t searched_by_seeds[PS_SEEDS]
        uint64_t end[PS_END_KINDS]
        uint64_t probe[PS_PROBE_KINDS]
        uint64_t probe_older
        uint64_t cut_older
        uint64_t store[PS_STORE_KINDS]
        uint64_t store_flipped
        uint64_t etc[PS_ETC_KINDS]
        uint64_t cut_at[PS_RANKS]
        uint64_t cut_waste
        uint64_t waste_once
        uint64_t waste_by_seeds[PS_SEEDS]
        uint64_t late_cuts_by_seeds[PS_SEEDS]
        uint64_t cut_tt_move
        uint64_t cut_no_tt_move
        uint64_t all_nodes_tt
    bint ps_enabled()
    void ps_read(ps_counts *out)
    void ps_reset()
    void ps_visit(int ply, int seeds)
    void ps_visit_board(int ply, const int *b)
    void ps_end(int kind)
    void ps_searched(int seeds)
    void ps_probe(int kind, int older)
    void ps_etc(int kind)
    int ps_seeds(const int *b)
    uint64_t ps_waste_now()
    void ps_cut(int rank, uint64_t waste, uint64_t w0, uint64_t w_before, int seeds)
    void ps_node_end(int best, int alpha, int beta, int best_move, int tt_move, int no_move)


cdef extern from "egdb.h" nogil:
    enum:
        EGDB_MAX_SEEDS
        EGDB_CHUNK          # values a checksum chunk holds (the last of a level fewer)
    ctypedef struct egdb_table:
        const signed char *level[EGDB_MAX_SEEDS + 1]    # level[n][rank]; NULL above max_seeds
        int max_seeds       # N: levels 0..N are present; -1: no database
    ctypedef struct egdb_builder:
        const egdb_table *below     # levels 0..n-1
        uint8_t *out                # level n as egdb_built bytes: value ^ 0x80, 0 where not computed
        int n
        int capture
    void egdb_init_binomials()
    uint64_t egdb_count(int n)
    uint64_t egdb_block[EGDB_MAX_SEEDS + 1][EGDB_MAX_SEEDS + 2]    # egdb_block[n][a]: block a's first rank
    uint64_t level_positions "egdb_level_size"(int n)
    uint64_t egdb_row_count(int t)      # rows of six pits holding t seeds: C(t + 5, 5)
    uint64_t egdb_rank(const int *b, int seeds)
    void egdb_unrank(int *b, int seeds, uint64_t rank)
    int egdb_next(int *b, int seeds)     # b to the position of the next rank; 0 past the last
    int egdb_value(const egdb_table *t, const int *b, int seeds)
    int egdb_build_range(const egdb_builder *w, uint64_t start, uint64_t stop, const int *stop_flag,
                         uint64_t *done)
    void egdb_finish(uint8_t *out, uint64_t start, uint64_t stop)
    uint64_t egdb_chunk_hash(const signed char *values, uint64_t size)
    uint64_t egdb_level_checksum(int n, const uint64_t *chunks, uint64_t n_chunks)
    int64_t egdb_verify_level(const signed char *values, int n, uint64_t start, uint64_t stop)  # first bad or -1
    const uint64_t egdb_fnv_start     # FNV's offset basis: format 1's hash of nothing yet
    uint64_t egdb_fnv_more(uint64_t h, const signed char *values, uint64_t size)


cdef extern from "egdb_build.h" nogil:
    int egdb_build_class(const egdb_builder *w, int a, const int *stop_flag, uint64_t *done,
                         uint64_t *searched)     # 1 built, 0 stopped, -1 out of memory
    int egdb_build_rect(const egdb_builder *w, int a, uint64_t i0, uint64_t i1, uint64_t j0,
                        uint64_t j1, const int *stop_flag, uint64_t *done,
                        uint64_t *searched)      # as egdb_build_class; -2: not a rectangle of it


cdef extern from "guard.h" nogil:
    int guard_install()
    int guard_add(const void *start, uintptr_t size)
    void guard_remove(int slot)
    int guard_damaged(int slot)


cdef enum:
    EVAL_STORE = 0          # store difference
    EVAL_POSITIONAL = 1     # store difference plus seeds at home, extra-turn and capture chances
    EVAL_LEARNED = 2        # store difference plus weighted terms fitted to exact values (_learned.py)


cdef struct SearchShare:    # one search on several threads: a cache line of its own (the owner's)
    uint64_t nodes          # every thread's nodes, each adding its own at its polls
    int deepest             # the deepest iteration a thread has finished (0: none yet)
    clockid_t clock         # the clock their time limits read (the first thread's: _core_clock.pxi)


# The search state, by role. Search holds one of each; `s.config.tt`, `s.stats.nodes`.

cdef struct SearchConfig:   # what the searcher is: set when it is made, shares a table or gets a database
    tt_table *tt            # the table searched (its buckets are NULL when it is off)
    egdb_table egdb         # endgame values by level; egdb.max_seeds is -1 when there are none
    bint use_tt             # probe and store the table
    bint ordering           # TT move, extra turns, then store gain; else natural order
    bint futility           # cut when the seeds left cannot change the outcome (where the evaluation allows)
    bint prune              # alpha-beta cut-offs; off gives plain minimax
    int *abort              # another thread sets *abort to stop this search (NULL: none)
    uint64_t *busy          # positions threads sharing the table are searching now (NULL: alone)
    SearchShare *share      # what threads searching one position together count (NULL: alone)


cdef struct SearchMode:     # how this search runs: set by its call (Searcher._setup, then the call's own)
    int capture             # CAPTURE_*
    int evaluation          # EVAL_*
    bint futility           # the config's futility, where this evaluation allows it
    int untabled_seeds      # positions with at most this many seeds in the pits skip the table (-1: none)
    bint deeper_tt          # play mode: an entry from a deeper search answers a shallower probe
    bint pvs                # play mode: null-window search of the non-first children (PVS)
    int aspiration          # play mode: the root's first window is the last score +- this (0: none)
    bint keep_partial       # a stopped iteration's root move counts when proven (see keep_root)
    bint shared             # searched on several threads at once: count nodes and depths in config.share
    bint helper             # one of those threads, not the first: the time (soft limits) is not its to keep
    bint defer              # ABDADA: put off till last the subtrees another thread is in (config.busy)

cdef struct SearchLimits:   # when it stops (begin sets them)
    uint64_t node_limit     # stop after this many nodes of this thread (0: none)
    uint64_t shared_node_limit  # stop once every sharing thread's nodes together pass this (0: none)
    uint64_t counted        # this thread's nodes already added to config.share.nodes
    clockid_t clock         # the clock the time limits read (the wall's, or a thread's CPU time)
    double started          # the clock's time in seconds the limits count from
    double deadline         # stop at this monotonic time (0: none)
    double soft_deadline    # start no new iteration after this monotonic time (0: the old 3x rule);
                            #   the time manager (SearchClock) moves it as the search goes
    uint64_t poll_every     # nodes between two readings of the clock (POLL_CLOCK, fewer for a small shared limit)
    uint64_t next_poll      # node count at which to read the clock next
    uint64_t next_signal_poll   # node count at which to check for Ctrl-C next
    bint signals            # on the main thread, the one Python runs signal handlers on: poll them

cdef struct SearchStop:     # why it stopped, and what Python raised meanwhile
    bint stopped            # a limit was hit: the current iteration is void
    bint interrupted        # stopped by a signal handler's exception (Ctrl-C): the caller raises it
    PyObject *raised_type   # that exception, kept from the poll till the GIL-holding caller
    PyObject *raised_value  #   raises it (owned references; NULL when none)
    PyObject *raised_tb

cdef struct SearchStats:    # counters of the search (begin zeroes them)
    uint64_t nodes          # positions visited, root included
    uint64_t horizon        # depth cut-offs so far; unchanged over a subtree = its value is exact
    uint64_t tt_hits        # probes that found their position

cdef struct SearchRoot:     # the root's bookkeeping (begin resets it)
    int move                # best pit at the root of the last iteration
    int prev_move           # the last finished iteration's best pit (NO_MOVE: none)
    bint prev_searched      # this iteration has finished searching prev_move's child
    int partial_move        # this iteration's best root move once prev_searched (else NO_MOVE)
    int partial_score       #   and its value
    PyObject *progress      # called with the GIL after each finished iteration (borrowed; NULL: none)

cdef struct SearchClock:    # play mode's time manager: how the soft limit moves (clock_after_iteration)
    double soft_base        # seconds from started: the soft limit of a quiet search (0: no manager)
    double instability      # changes of the best move, each iteration's halved at the next
    int last_move           # the best move of the iteration before (NO_MOVE: none yet)
    int last_score          # and its score

cdef struct Search:
    SearchConfig config
    SearchMode mode
    SearchLimits limits
    SearchStop stop
    SearchStats stats
    SearchRoot root
    SearchClock clock


cdef class BoardBase:
    cdef int slots[KALAH_SLOTS]     # absolute index order: South pits 0..5, store 6, North pits 7..12, store 13
    cdef int _to_move       # 0 South, 1 North
    cdef int _capture       # CAPTURE_*
    cdef int *_undo         # per pushed move: the slots before it, to_move, pit, captured, flags (UNDO_*)
    cdef Py_ssize_t _ply
    cdef Py_ssize_t _undo_cap
    cdef int _reserve(self, Py_ssize_t n) except -1


cdef class Searcher:
    cdef Search s
    # a cache line between s and what sharing threads read (the table's header, the
    # abort flag): s.stats is written at every node, and a line both use costs
    # two threads a seventh of their speed (measured: Kalah(6,4), 18-seed database)
    cdef char _apart[64]
    cdef tt_table table         # this searcher's own table (s.config.tt points here unless shared)
    cdef int _abort             # what s.abort of this searcher and its sharers points to
    cdef uint64_t *_busy        # what s.busy of this searcher and its sharers points to
    cdef void *_share_memory    # what calloc gave for s.share: _share is it rounded up to a cache line
    cdef SearchShare *_share    # what s.share of this searcher and its sharers points to
    cdef object _table_owner    # the Searcher whose table this one searches, if not its own
    cdef object _egdb_owner     # views of the buffers behind s.egdb.level: keep them alive and unresized
    cdef bint _running          # a method is using s (checked and set with the GIL): refuse another
    cdef int _enter(self) except -1
    cdef int _setup(self, BoardBase board, int evaluation, int *view) except -1
    cdef int _load(self, BoardBase board, object request, object role, int *view) except -1
