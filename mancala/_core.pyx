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
"""
from cpython.exc cimport PyErr_CheckSignals, PyErr_Fetch, PyErr_Restore
from cpython.ref cimport Py_XDECREF
from libc.stdint cimport uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy, memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec


cdef extern from *:
    """
    static inline int load_flag(const int *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
    static inline void store_flag(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELAXED); }
    static inline uint64_t load_key(const uint64_t *slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }
    static inline void store_key(uint64_t *slot, uint64_t key) { __atomic_store_n(slot, key, __ATOMIC_RELAXED); }
    static inline void clear_key(uint64_t *slot, uint64_t key) {
        __atomic_compare_exchange_n(slot, &key, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    """
    void __builtin_prefetch(const void *address) nogil
    int load_flag(const int *flag) nogil       # another thread may set it
    void store_flag(int *flag, int value) nogil
    uint64_t load_key(const uint64_t *slot) nogil   # the busy table (see negamax)
    void store_key(uint64_t *slot, uint64_t key) nogil
    void clear_key(uint64_t *slot, uint64_t key) nogil  # only if it still holds key

cdef extern from "Python.h":
    # cpython.exc declares it `except -1`, which in a noexcept poll would take
    # the error exit before the search is stopped: here it returns its -1 to us
    int check_signals "PyErr_CheckSignals"() noexcept

from collections.abc import Mapping, Set
from operator import index
from threading import Thread, get_ident, main_thread

from mancala.errors import IllegalMoveError, InvalidBoardError, quote

CAPTURE_RULES = ("standard", "empty", "none")
EVALUATIONS = ("store", "positional")

cdef enum:
    INF = 1000              # beyond any score: |score| <= KALAH_MAX_SEEDS
    NO_MOVE = -1
    NO_CUTOFF = -INF - 1    # etc_cutoff found none
    CHILD_IN_DATABASE = 4   # a child's flag beside PLAY_*: its value is in the endgame database
    SOLVE_DEPTH = 1 << 20   # "no depth limit": exact search to the end of the game
    MAX_PLY = 1000          # recursion guard; far beyond any real game
    POLL_CLOCK = 1024       # read the clock every 1024 nodes: ~0.1 ms at full speed
    POLL_SIGNALS = 16384    # take the GIL for Ctrl-C every 16384 nodes: ~2-5 ms (main thread only)
    UNDO_STRIDE = 18        # per pushed move: 14 slots, to_move, pit, captured, flags
    TT_MIN_DEPTH = 2        # nodes this close to the horizon search faster than a table probe
    EGDB_SHARED_LEVEL = 8   # smaller database levels take a moment: one thread builds them
    BUSY_SLOTS = 1 << 14    # the busy table: keys of positions being searched, for sharing threads

MAX_DEPTH = TT_DEPTH_MAX
MAX_SEEDS = KALAH_MAX_SEEDS


# ---------------------------------------------------------------- boards in C

cdef inline void orient(const int *src, int mover, int *dst) noexcept nogil:
    """Absolute order -> the mover's view, and back (the same swap both ways)."""
    if mover == 0:
        memcpy(dst, src, KALAH_SLOTS * sizeof(int))
    else:
        memcpy(dst, src + KALAH_HALF, KALAH_HALF * sizeof(int))
        memcpy(dst + KALAH_HALF, src, KALAH_HALF * sizeof(int))


cdef inline bint row_empty(const int *b) noexcept nogil:
    return kalah_row_sum(b) == 0 or kalah_row_sum(b + KALAH_OPP_PIT) == 0


cdef inline int final_margin(const int *b) noexcept nogil:
    """The score once both rows are swept into their stores."""
    return (b[KALAH_STORE] + kalah_row_sum(b)
            - b[KALAH_OPP_STORE] - kalah_row_sum(b + KALAH_OPP_PIT))


cdef int side_term(const int *own, const int *other, int capture) noexcept nogil:
    """One side's share of the positional evaluation (all terms >= 0).

    own: that side's six pits, other: the opponent's six pits, each from its
    owner's left. Counts extra-turn moves, seeds at home and the best capture.
    """
    cdef int i, n, last, facing, extra = 0, seeds = 0, best_capture = 0
    for i in range(KALAH_PITS):
        n = own[i]
        seeds += n
        if n == 0:
            continue
        if n == KALAH_PITS - i or n == KALAH_PITS - i + KALAH_SLOTS - 1:
            extra += 1
        last = i + n
        if n < KALAH_SLOTS - 1 and last < KALAH_PITS and own[last] == 0 and capture != CAPTURE_NONE:
            facing = other[KALAH_PITS - 1 - last]
            if (facing > 0 or capture == CAPTURE_EMPTY) and facing + 1 > best_capture:
                best_capture = facing + 1
    return extra + (seeds + 2 * best_capture) // 4


cdef inline int evaluate_view(const int *b, int capture, int evaluation) noexcept nogil:
    if row_empty(b):
        return final_margin(b)
    cdef int score = b[KALAH_STORE] - b[KALAH_OPP_STORE]
    if evaluation == EVAL_POSITIONAL:
        score += (side_term(b, b + KALAH_OPP_PIT, capture)
                  - side_term(b + KALAH_OPP_PIT, b, capture))
    return score


cdef uint64_t perft_view(const int *b, int depth, int capture) noexcept nogil:
    cdef int child[14]
    cdef int pit, captured
    cdef uint64_t total = 0
    if depth == 0 or row_empty(b):
        return 1
    for pit in range(KALAH_PITS):
        if b[pit]:
            memcpy(child, b, sizeof(child))
            kalah_play(child, pit, capture, &captured)
            total += perft_view(child, depth - 1, capture)
    return total


# ---------------------------------------------------------------- the search

cdef inline double monotonic() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline bint poll_stop(Search *s) noexcept nogil:
    """Whether a limit (nodes, clock, Ctrl-C) ends the search now.

    The clock and the abort flag are read every POLL_CLOCK nodes (a stop
    within a millisecond), Ctrl-C checked every POLL_SIGNALS on the main
    thread (within milliseconds): rare enough to cost nothing.
    """
    if s.node_limit and s.nodes > s.node_limit:
        return True
    if s.nodes < s.next_poll:
        return False
    s.next_poll = s.nodes + POLL_CLOCK
    if s.deadline and monotonic() >= s.deadline:
        return True
    if s.abort != NULL and load_flag(s.abort):
        return True
    if s.signals and s.nodes >= s.next_signal_poll:
        s.next_signal_poll = s.nodes + POLL_SIGNALS
        return take_signal(s)
    return False


cdef bint take_signal(Search *s) noexcept nogil:
    """Run Python's signal handlers (they run on the main thread only); if one
    raised (Ctrl-C: KeyboardInterrupt), keep its exception for the caller to
    raise and stop the search, and the threads sharing its table too."""
    if s.interrupted:
        return True
    with gil:
        if check_signals() == 0:
            return False
        PyErr_Fetch(&s.raised_type, &s.raised_value, &s.raised_tb)
    s.interrupted = True
    if s.abort != NULL and s.busy != NULL:     # shared: whoever started the sharers resets it
        store_flag(s.abort, True)
    return True


cdef bint on_main_thread() except -1:
    """Only the main thread runs signal handlers: elsewhere taking the GIL to
    poll them would only wait for other Python threads."""
    return get_ident() == main_thread().ident


cdef int raise_interrupt(Search *s) except -1:
    """Raise what a signal handler raised during the search (see take_signal)."""
    s.interrupted = False
    if s.raised_type == NULL:
        raise KeyboardInterrupt
    PyErr_Restore(s.raised_type, s.raised_value, s.raised_tb)     # takes the references
    s.raised_type = s.raised_value = s.raised_tb = NULL
    return -1


cdef void drop_interrupt(Search *s) noexcept:
    Py_XDECREF(s.raised_type)
    Py_XDECREF(s.raised_value)
    Py_XDECREF(s.raised_tb)
    s.raised_type = s.raised_value = s.raised_tb = NULL


cdef inline int order_key(int pit, int flags, int gain, int tt_move) noexcept nogil:
    """Higher first: the table's move, then extra turns, then store gain;
    ties go to the pit nearest the store (it disturbs the fewest other pits)."""
    return ((pit == tt_move) << 14) + ((flags & PLAY_EXTRA_TURN) << 12) + gain * 8 + pit


cdef int etc_cutoff(Search *s, int children[6][14], const int *flags, const uint64_t *keys,
                    const uint64_t *db_index, int *order, int n_moves, int child_depth,
                    int alpha, int beta) noexcept nogil:
    """Enhanced transposition cut-off: settle the node from what is known of its
    children before searching any (their buckets and database bytes were
    prefetched as they were made, so this costs little).

    Returns a value >= beta if one child is proven that good, a value <= alpha
    if every child is proven no better than alpha, else NO_CUTOFF, with the
    children proven no better than alpha moved to the end of the order.
    """
    cdef int i, j, pit, value, low, high, n_hopeless = 0, best_hopeless = -INF
    cdef int stored = child_depth if child_depth < TT_DEPTH_END else TT_DEPTH_END
    cdef int hopeless[6]
    cdef int was[6]
    cdef int *child
    cdef bint unresolved = False
    cdef tt_data e
    for i in range(n_moves):
        pit = order[i]
        child = children[pit]
        hopeless[i] = False
        # the child's value, from its own mover's view: exactly, or between low and high
        value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
        if flags[pit] & PLAY_GAME_OVER:
            low = high = value
        elif flags[pit] & CHILD_IN_DATABASE:
            low = high = value + s.egdb.values[db_index[pit]]
        elif keys[pit] and tt_probe(s.tt, keys[pit], &e) and (
                e.depth == stored or (e.bound & TT_RESOLVED and e.depth <= stored)):
            value += e.value
            low = value if e.bound & TT_LOWER else -INF
            high = value if e.bound & TT_UPPER else INF
            if not e.bound & TT_RESOLVED:
                unresolved = True
        else:
            continue
        if not flags[pit] & PLAY_EXTRA_TURN:
            low, high = -high, -low
        if low >= beta:
            if unresolved:
                s.horizon += 1
            return low
        if high <= alpha:
            hopeless[i] = True
            n_hopeless += 1
            if high > best_hopeless:
                best_hopeless = high
    if n_hopeless == n_moves:
        if unresolved:
            s.horizon += 1
        return best_hopeless
    if n_hopeless:
        memcpy(was, order, n_moves * sizeof(int))
        j = 0
        for i in range(n_moves):
            if not hopeless[i]:
                order[j] = was[i]
                j += 1
        for i in range(n_moves):
            if hopeless[i]:
                order[j] = was[i]
                j += 1
    return NO_CUTOFF


cdef int negamax(Search *s, const int *b, int depth, int alpha, int beta, int ply,
                 uint64_t key) noexcept nogil:
    """Fail-soft negamax value of b (mover's view) searched `depth` more moves.

    key is b's table key if the caller has it (and prefetched its bucket), else 0.

    1. count the node, poll the limits
    2. terminal: exact final margin; few seeds left: the endgame database's
    3. leaf: evaluation (a horizon: the value is not the game's)
    4. futility: the seeds left in play cannot bring the value inside the window
    5. probe the table
    6. order the moves (or keep the natural order); a child the table
       already proves good enough cuts at once (enhanced transposition cut-off)
    7. search the children: an extra turn keeps the window and the sign;
       a child another thread is searching waits till last (ABDADA)
    8. store the result, marked resolved if no horizon was met below
    """
    cdef int children[6][14]
    cdef int child_flags[6]
    cdef uint64_t child_keys[6]
    cdef uint64_t child_db[6]
    cdef int order[12]      # the moves in search order, then those put off till last
    cdef int keys[6]
    cdef int *child
    cdef uint64_t *busy
    cdef int pit, n_moves = 0, n_listed, i, j, k, flags, captured, gain, value, best = -INF
    cdef int best_move = NO_MOVE, tt_move = NO_MOVE, alpha0 = alpha
    cdef int stored_depth, bound, seeds_left, mine, theirs, child_seeds
    cdef int diff = b[KALAH_STORE] - b[KALAH_OPP_STORE]
    cdef uint64_t child_key, horizon0 = s.horizon, nodes0 = s.nodes
    cdef tt_data e

    s.nodes += 1                                                        # 1
    if poll_stop(s):
        s.stopped = True
    if s.stopped:
        return 0

    mine = kalah_row_sum(b)
    theirs = kalah_row_sum(b + KALAH_OPP_PIT)
    seeds_left = mine + theirs
    if mine == 0 or theirs == 0:                                        # 2
        return diff + mine - theirs
    if s.egdb.values != NULL and seeds_left <= s.egdb.max_seeds and ply > 0:
        return diff + egdb_value(&s.egdb, b, seeds_left)                # the game's value
    if depth == 0 or ply >= MAX_PLY:                                    # 3
        s.horizon += 1
        return evaluate_view(b, s.capture, s.evaluation)
    if s.futility and ply > 0:                                          # 4
        if diff + seeds_left <= alpha:
            return diff + seeds_left
        if diff - seeds_left >= beta:
            return diff - seeds_left

    stored_depth = depth if depth < TT_DEPTH_END else TT_DEPTH_END       # 5
    if s.use_tt and depth > TT_MIN_DEPTH:
        if key == 0:
            key = tt_key(b)
        if tt_probe(s.tt, key, &e):
            s.tt_hits += 1
            tt_move = e.move
            if ply > 0 and (e.depth == stored_depth or
                            (e.bound & TT_RESOLVED and e.depth <= stored_depth)):
                value = e.value + diff
                if ((e.bound & TT_EXACT) == TT_EXACT
                        or (e.bound & TT_LOWER and value >= beta)
                        or (e.bound & TT_UPPER and value <= alpha)):
                    if not e.bound & TT_RESOLVED:
                        s.horizon += 1
                    return value

    if s.ordering:                                                      # 6
        # make every child now (children[pit]): the ordering needs their stores
        for pit in range(KALAH_PITS):
            if b[pit] == 0:
                continue
            child = children[pit]
            memcpy(child, b, KALAH_SLOTS * sizeof(int))
            flags = child_flags[pit] = kalah_play(child, pit, s.capture, &captured)
            child_keys[pit] = 0
            child_seeds = seeds_left - (child[KALAH_STORE] + child[KALAH_OPP_STORE]
                                        - b[KALAH_STORE] - b[KALAH_OPP_STORE])
            if s.egdb.values != NULL and child_seeds <= s.egdb.max_seeds and not flags & PLAY_GAME_OVER:
                # the database knows this child: fetch its byte now, read it when searched
                child_db[pit] = egdb_index(child, child_seeds)
                __builtin_prefetch(&s.egdb.values[child_db[pit]])
                flags = child_flags[pit] = flags | CHILD_IN_DATABASE
            elif s.use_tt and depth - 1 > TT_MIN_DEPTH and not flags & PLAY_GAME_OVER:
                # the table is far bigger than the cache: ask for the child's bucket early
                child_keys[pit] = tt_key(child)
                tt_prefetch(s.tt, child_keys[pit])
            if flags & PLAY_EXTRA_TURN:
                gain = child[KALAH_STORE] - child[KALAH_OPP_STORE] - diff
            else:
                gain = child[KALAH_OPP_STORE] - child[KALAH_STORE] - diff
            k = order_key(pit, flags, gain, tt_move)
            j = n_moves
            while j > 0 and keys[j - 1] < k:
                keys[j] = keys[j - 1]
                order[j] = order[j - 1]
                j -= 1
            keys[j] = k
            order[j] = pit
            n_moves += 1
        if s.use_tt and depth - 1 > TT_MIN_DEPTH and ply > 0:
            value = etc_cutoff(s, children, child_flags, child_keys, child_db, order, n_moves,
                               depth - 1, alpha, beta)
            if value != NO_CUTOFF:
                return value
    else:
        for pit in range(KALAH_PITS):
            if b[pit]:
                order[n_moves] = pit
                n_moves += 1

    n_listed = n_moves
    i = 0
    while i < n_listed:                                                 # 7
        pit = order[i]
        i += 1
        child = children[pit]
        child_key = 0
        if s.ordering:
            flags = child_flags[pit]
            child_key = child_keys[pit]
        else:
            # natural order makes each child only when its turn comes
            memcpy(child, b, KALAH_SLOTS * sizeof(int))
            flags = kalah_play(child, pit, s.capture, &captured)
        if flags & CHILD_IN_DATABASE:
            # its exact value is one byte away: no call needed
            s.nodes += 1
            value = child[KALAH_STORE] - child[KALAH_OPP_STORE] + s.egdb.values[child_db[pit]]
            if not flags & PLAY_EXTRA_TURN:
                value = -value
        elif depth == 1:
            # the children are leaves: visit them here rather than with a call each
            s.nodes += 1
            if flags & PLAY_GAME_OVER or s.evaluation == EVAL_STORE:
                # a finished child is swept already: its stores are the final margin
                value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
            else:
                value = evaluate_view(child, s.capture, s.evaluation)
            if not flags & PLAY_GAME_OVER:
                s.horizon += 1
            if not flags & PLAY_EXTRA_TURN:
                value = -value
        else:
            busy = NULL
            if child_key and s.busy != NULL and i <= n_moves:
                busy = &s.busy[child_key & (BUSY_SLOTS - 1)]
                if i > 1 and load_key(busy) == child_key:
                    # another thread is in this subtree: take it last, when the table may know it
                    order[n_listed] = pit
                    n_listed += 1
                    continue
                store_key(busy, child_key)
            if flags & PLAY_EXTRA_TURN:
                value = negamax(s, child, depth - 1, alpha, beta, ply + 1, child_key)
            else:
                value = -negamax(s, child, depth - 1, -beta, -alpha, ply + 1, child_key)
            if busy != NULL:
                clear_key(busy, child_key)
        if s.stopped:
            return 0
        if value > best:
            best = value
            best_move = pit
            if best > alpha:
                alpha = best
            if alpha >= beta and s.prune:
                break

    if s.use_tt and depth > TT_MIN_DEPTH:                               # 8
        bound = TT_LOWER if best >= beta else (TT_EXACT if best > alpha0 else TT_UPPER)
        if s.horizon == horizon0:
            bound |= TT_RESOLVED
        tt_store(s.tt, key, best - diff, stored_depth, bound, best_move, s.nodes - nodes0)
    if ply == 0:
        s.root_move = best_move
    return best


cdef void begin(Search *s, double time_limit, uint64_t node_limit,
                bint new_generation=True) noexcept nogil:
    s.nodes = 0
    s.tt_hits = 0
    s.horizon = 0
    s.stopped = False
    s.interrupted = False
    s.root_move = NO_MOVE
    s.next_poll = POLL_CLOCK
    s.next_signal_poll = POLL_SIGNALS
    s.node_limit = node_limit
    s.deadline = monotonic() + time_limit if time_limit > 0 else 0
    if new_generation:  # a search of its own: older entries may be replaced first
        s.tt.generation += 1


cdef struct Outcome:
    int score
    int move
    int depth
    bint exact


cdef Outcome deepen(Search *s, const int *b, int max_depth, bint iterative) noexcept nogil:
    """Iterative deepening to max_depth; stops early once the value is exact.

    A stopped iteration is discarded: the result is the last finished depth.
    """
    cdef Outcome out
    cdef int depth, value
    cdef uint64_t horizon0
    cdef double started = monotonic()
    out.move = NO_MOVE
    out.depth = 0
    out.exact = False
    out.score = 0
    depth = 1 if iterative else max_depth
    while depth <= max_depth:
        horizon0 = s.horizon
        value = negamax(s, b, depth, -INF, INF, 0, 0)
        if s.stopped:
            break
        out.score = value
        out.move = s.root_move
        out.depth = depth
        out.exact = s.horizon == horizon0
        if out.exact:
            break
        # the next depth costs several times this one: do not start what cannot finish
        if s.deadline and monotonic() + 2 * (monotonic() - started) > s.deadline:
            break
        depth += 1
    return out


# ---------------------------------------------------------------- Python faces

cdef int load_slots(object slots, int *out) except -1:
    """Copy a 14-int sequence into out, or raise InvalidBoardError quoting it."""
    cdef Py_ssize_t i
    cdef long total = 0
    if isinstance(slots, (str, bytes, Mapping, Set)):
        raise InvalidBoardError(f"a board is a list of 14 seed counts, not {quote(slots)}")
    try:
        n = len(slots)
    except TypeError:
        raise InvalidBoardError(f"a board is a list of 14 seed counts, not {quote(slots)}") from None
    if n != KALAH_SLOTS:
        raise InvalidBoardError(f"a board has 14 slots, not {n}: {quote(slots)}")
    for i in range(KALAH_SLOTS):
        try:
            item = slots[i]
        except (LookupError, TypeError):
            raise InvalidBoardError(f"a board is a list of 14 seed counts, not {quote(slots)}") from None
        try:
            if isinstance(item, bool):
                raise TypeError
            item = index(item)
        except TypeError:
            raise InvalidBoardError(f"slot {i} holds {quote(item)}, not a seed count: {quote(slots)}") from None
        if item < 0:
            raise InvalidBoardError(f"slot {i} holds {quote(item)} seeds, fewer than 0: {quote(slots)}")
        if item > KALAH_MAX_SEEDS:
            raise InvalidBoardError(
                f"slot {i} holds {quote(item)} seeds; a board holds at most {KALAH_MAX_SEEDS}: {quote(slots)}")
        out[i] = item
        total += item
    if total > KALAH_MAX_SEEDS:
        raise InvalidBoardError(
            f"the board holds {total} seeds; at most {KALAH_MAX_SEEDS} are allowed: {quote(slots)}")
    return 0


cdef object as_index(object value):
    """value as an int if it is a whole number (int, NumPy integer: anything with
    __index__) and not a bool, else None."""
    if isinstance(value, bool):
        return None
    try:
        return index(value)
    except TypeError:
        return None


cdef int check_side(object to_move) except -1:
    side = as_index(to_move)
    if side is None or side not in (0, 1):
        raise InvalidBoardError(f"the side to move is 0 (South) or 1 (North), not {quote(to_move)}")
    return side


cdef int check_code(object code, tuple names, str what) except -1:
    if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code < len(names):
        raise ValueError(f"{what} is an index into {names}, not {code!r}")
    return code


cdef int check_pit(const int *view, object pit) except -1:
    """The pit as an int, or IllegalMoveError naming the legal ones."""
    number = as_index(pit)
    if row_empty(view):
        raise IllegalMoveError(f"no move is legal: the game is over (pit {quote(pit)})")
    if number is None or not 0 <= number < KALAH_PITS:
        raise IllegalMoveError(f"a pit is 0..5, not {quote(pit)}; legal: {view_moves(view)}")
    if view[<int>number] == 0:
        raise IllegalMoveError(f"pit {number} is empty; legal: {view_moves(view)}")
    return number


cdef list view_moves(const int *view):
    if row_empty(view):
        return []
    return [pit for pit in range(KALAH_PITS) if view[pit]]


cdef list as_list(const int *slots):
    return [slots[i] for i in range(KALAH_SLOTS)]


def is_game_over(slots):
    """Whether either row of six pits is empty."""
    cdef int b[14]
    load_slots(slots, b)
    return row_empty(b)


def legal_moves(slots, to_move):
    """The non-empty pits (0..5 from the mover's left) of the side to move."""
    cdef int a[14]
    cdef int v[14]
    load_slots(slots, a)
    orient(a, check_side(to_move), v)
    return view_moves(v)


def play(slots, to_move, pit, capture):
    """Apply a legal move: (new_slots, next_to_move, seeds captured)."""
    cdef int a[14]
    cdef int v[14]
    cdef int mover, flags, captured
    load_slots(slots, a)
    mover = check_side(to_move)
    orient(a, mover, v)
    pit = check_pit(v, pit)
    flags = kalah_play(v, pit, check_code(capture, CAPTURE_RULES, "capture"), &captured)
    if not flags & PLAY_EXTRA_TURN:
        mover = 1 - mover
    orient(v, mover, a)
    return as_list(a), mover, captured


def score(slots, to_move):
    """Store difference from the side to move's view."""
    cdef int a[14]
    cdef int v[14]
    load_slots(slots, a)
    orient(a, check_side(to_move), v)
    return v[KALAH_STORE] - v[KALAH_OPP_STORE]


def evaluate(slots, to_move, capture, evaluation):
    """The static evaluation (EVALUATIONS) from the side to move's view."""
    cdef int a[14]
    cdef int v[14]
    load_slots(slots, a)
    orient(a, check_side(to_move), v)
    return evaluate_view(v, check_code(capture, CAPTURE_RULES, "capture"),
                         check_code(evaluation, EVALUATIONS, "evaluation"))


cdef int check_depth(object depth, int lowest) except -1:
    if isinstance(depth, bool) or not isinstance(depth, int) or not lowest <= depth <= TT_DEPTH_MAX:
        raise ValueError(f"depth is a whole number from {lowest} to {TT_DEPTH_MAX}, not {depth!r}")
    return depth


def perft(slots, to_move, depth, capture):
    """Leaf positions after exactly `depth` moves (finished games count as leaves)."""
    cdef int a[14]
    cdef int v[14]
    cdef int d = check_depth(depth, 0), rule = check_code(capture, CAPTURE_RULES, "capture")
    cdef uint64_t total
    load_slots(slots, a)
    orient(a, check_side(to_move), v)
    with nogil:
        total = perft_view(v, d, rule)
    return total


cdef tuple plain_search(slots, to_move, depth, capture, evaluation, bint prune):
    cdef int a[14]
    cdef int v[14]
    cdef int value, d = check_depth(depth, 0)
    cdef Search s
    cdef tt_table none
    load_slots(slots, a)
    orient(a, check_side(to_move), v)
    memset(&s, 0, sizeof(s))
    memset(&none, 0, sizeof(none))
    s.tt = &none
    s.capture = check_code(capture, CAPTURE_RULES, "capture")
    s.evaluation = check_code(evaluation, EVALUATIONS, "evaluation")
    s.prune = prune
    s.signals = on_main_thread()
    begin(&s, 0, 0)
    with nogil:
        value = negamax(&s, v, d, -INF, INF, 0, 0)
    if s.interrupted:
        raise_interrupt(&s)
    return value, (None if s.root_move == NO_MOVE else s.root_move), s.nodes


def alphabeta(slots, to_move, depth, capture, evaluation=0):
    """Plain fail-soft alpha-beta, natural move order, no table: (score, move, nodes).

    Node for node the tree of mancala._reference.alphabeta.
    """
    return plain_search(slots, to_move, depth, capture, evaluation, True)


def minimax(slots, to_move, depth, capture, evaluation=0):
    """Plain minimax (negamax without cut-offs): (score, move, nodes)."""
    return plain_search(slots, to_move, depth, capture, evaluation, False)


cdef int check_egdb_seeds(object max_seeds) except -1:
    if isinstance(max_seeds, bool) or not isinstance(max_seeds, int) or not 0 <= max_seeds <= EGDB_MAX_SEEDS:
        raise ValueError(f"an endgame database covers 0 to {EGDB_MAX_SEEDS} seeds, not {max_seeds!r}")
    egdb_init_binomials()
    return max_seeds


def egdb_size(max_seeds):
    """Positions (bytes) in a database of every position with at most max_seeds in the pits."""
    return egdb_count(check_egdb_seeds(max_seeds))


def egdb_build(max_seeds, capture, progress=None, threads=1):
    """The perfect-play value of every position with at most max_seeds in the pits.

    Returns a bytearray, one signed byte a position (see csrc/egdb.h);
    progress(seeds, done_positions, all_positions) is called after each level.
    threads: how many threads build each level together.
    """
    cdef int n, top = check_egdb_seeds(max_seeds)
    cdef int rule = check_code(capture, CAPTURE_RULES, "capture")
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 64:
        raise ValueError(f"threads is 1 to 64, not {threads!r}")
    values = bytearray(egdb_count(top))
    memset(<char *> values, EGDB_UNKNOWN, len(values))
    cdef BuildStop stop = BuildStop()
    for n in range(top + 1):
        if n < EGDB_SHARED_LEVEL:
            _egdb_build_part(values, top, n, rule, 0, 1, stop)
        else:
            # every part on a thread of its own: this one waits where Ctrl-C reaches it
            parts = [Thread(target=_egdb_build_part, args=(values, top, n, rule, part, threads, stop),
                            daemon=True) for part in range(threads)]
            try:
                for part in parts:
                    part.start()
                for part in parts:
                    part.join()
            except BaseException:
                store_flag(&stop.value, True)
                join_all(parts)
                raise
        if progress is not None:
            progress(n, egdb_count(n), egdb_count(top))
        PyErr_CheckSignals()
    return values


cdef class BuildStop:
    """The flag an interrupted egdb_build raises to end its threads' parts."""
    cdef int value


cdef join_all(list threads):
    """Wait for every thread, even through another Ctrl-C (raised at the end)."""
    raised = None
    for thread in threads:
        while thread.is_alive():
            try:
                thread.join()
            except BaseException as exc:
                raised = exc
    if raised is not None:
        raise raised


def _egdb_build_part(values, int top, int n, int rule, int part, int parts, BuildStop stop not None):
    """One thread's part of level n of egdb_build (levels below n done)."""
    cdef unsigned char[::1] view = values
    cdef egdb_table t
    t.values = <signed char *> &view[0]
    t.max_seeds = top
    t.size = view.shape[0]
    with nogil:
        egdb_build_level(&t, n, rule, part, parts, &stop.value)


def egdb_hash(values, previous=None):
    """A 64-bit checksum (FNV-1a) of a database's values; ``previous``, the
    checksum of the values before these, continues it (a file read in parts)."""
    cdef const unsigned char[::1] view = values
    cdef uint64_t h = egdb_checksum_start if previous is None else previous
    if previous is None and view.shape[0] == 0:
        return 0
    if view.shape[0]:
        with nogil:
            h = egdb_checksum_more(h, <const signed char *> &view[0], view.shape[0])
    return h


def egdb_verify_values(values, start=0, stop=None):
    """The first index in values[start:stop] (values: a whole database, one
    signed byte a position) whose byte is no value a position of its level can
    have (|v| <= n seeds and v = n mod 2; the build's unknown marker is none),
    or -1 when every byte there is one."""
    cdef const unsigned char[::1] view = values
    cdef uint64_t first = start, last = view.shape[0] if stop is None else stop
    cdef int64_t bad = -1
    if first > last or last > <uint64_t> view.shape[0]:
        raise ValueError(f"{start}:{stop} is not a part of {view.shape[0]} values")
    egdb_init_binomials()
    if first < last:
        with nogil:
            bad = egdb_verify(<const signed char *> &view[0], first, last)
    return bad


def egdb_lookup(values, int max_seeds, slots, to_move):
    """The database's value of a position's pits for the side to move (its rest of the game)."""
    cdef int a[14]
    cdef int v[14]
    cdef egdb_table t
    cdef const unsigned char[::1] view = values
    cdef int seeds
    check_egdb_seeds(max_seeds)
    if <uint64_t> view.shape[0] != egdb_count(max_seeds):
        raise ValueError("the values do not fit the seed count")
    load_slots(slots, a)
    orient(a, check_side(to_move), v)
    seeds = kalah_row_sum(v) + kalah_row_sum(v + KALAH_OPP_PIT)
    if seeds > max_seeds:
        raise ValueError(f"the position has {seeds} seeds in its pits; the database covers {max_seeds}")
    t.values = <signed char *> &view[0]
    t.max_seeds = max_seeds
    t.size = view.shape[0]
    return egdb_value(&t, v, seeds)


cdef class BoardBase:
    """A position with its move history; the compiled half of mancala.Board.

    Holds the 14 slots in absolute order, the side to move and the capture
    rule; push and pop keep an undo stack in C.
    """

    def __cinit__(self, *args, **kwargs):
        self._undo = NULL
        self._ply = 0
        self._undo_cap = 0
        memset(self.slots, 0, sizeof(self.slots))

    def __dealloc__(self):
        free(self._undo)

    def _load(self, slots, to_move, capture):
        """Set the position (validated) and forget the history."""
        cdef int b[14]
        load_slots(slots, b)
        self._to_move = check_side(to_move)
        self._capture = check_code(capture, CAPTURE_RULES, "capture")
        memcpy(self.slots, b, sizeof(b))
        self._ply = 0

    def _copy_into(self, BoardBase other not None, bint stack=True):
        """Make other the same position (and history, if stack)."""
        memcpy(other.slots, self.slots, sizeof(self.slots))
        other._to_move = self._to_move
        other._capture = self._capture
        other._ply = 0
        if stack and self._ply:
            other._reserve(self._ply)
            memcpy(other._undo, self._undo, self._ply * UNDO_STRIDE * sizeof(int))
            other._ply = self._ply

    cdef int _reserve(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t cap = max(16, self._undo_cap)
        cdef int *grown
        if n <= self._undo_cap:
            return 0
        while cap < n:
            cap *= 2
        grown = <int *> realloc(self._undo, cap * UNDO_STRIDE * sizeof(int))
        if grown == NULL:
            raise MemoryError()
        self._undo = grown
        self._undo_cap = cap
        return 0

    @property
    def pits(self):
        """The 14 slots in absolute order: South 0..5, store 6, North 7..12, store 13."""
        return as_list(self.slots)

    @property
    def to_move(self):
        """0 (South) or 1 (North)."""
        return self._to_move

    @property
    def capture(self):
        """The capture rule: 'standard', 'empty' or 'none'."""
        return CAPTURE_RULES[self._capture]

    @property
    def ply(self):
        """Moves pushed since the position was set."""
        return self._ply

    @property
    def legal_moves(self):
        """The pits (0..5 from the mover's left) the side to move may play."""
        cdef int v[14]
        orient(self.slots, self._to_move, v)
        return view_moves(v)

    def is_game_over(self):
        """Whether either row is empty (the remaining seeds then go to their owners)."""
        return row_empty(self.slots)

    def is_legal(self, pit):
        cdef int v[14]
        orient(self.slots, self._to_move, v)
        number = as_index(pit)
        return (number is not None and 0 <= number < KALAH_PITS
                and not row_empty(v) and v[<int>number] > 0)

    def _push(self, pit):
        """Play pit; returns (player, pit, extra_turn, captured, game_over)."""
        cdef int v[14]
        cdef int *rec
        cdef int mover = self._to_move, p, flags, captured
        orient(self.slots, mover, v)
        p = check_pit(v, pit)
        self._reserve(self._ply + 1)
        flags = kalah_play(v, p, self._capture, &captured)
        rec = self._undo + self._ply * UNDO_STRIDE
        memcpy(rec, self.slots, sizeof(self.slots))
        rec[14] = mover
        rec[15] = p
        rec[16] = captured
        rec[17] = flags
        self._ply += 1
        self._to_move = mover if flags & PLAY_EXTRA_TURN else 1 - mover
        orient(v, self._to_move, self.slots)
        return (mover, p, bool(flags & PLAY_EXTRA_TURN and not flags & PLAY_GAME_OVER),
                captured, bool(flags & PLAY_GAME_OVER))

    def _record(self, Py_ssize_t index):
        """The (player, pit, extra_turn, captured, game_over) of pushed move index."""
        if not 0 <= index < self._ply:
            raise IndexError(index)
        cdef int *rec = self._undo + index * UNDO_STRIDE
        return (rec[14], rec[15], bool(rec[17] & PLAY_EXTRA_TURN and not rec[17] & PLAY_GAME_OVER),
                rec[16], bool(rec[17] & PLAY_GAME_OVER))

    def _pop(self):
        """Take back the last move; returns its record."""
        if self._ply == 0:
            raise IndexError("pop from a board with no moves")
        record = self._record(self._ply - 1)
        self._ply -= 1
        cdef int *rec = self._undo + self._ply * UNDO_STRIDE
        memcpy(self.slots, rec, sizeof(self.slots))
        self._to_move = rec[14]
        return record

    def _same_position(self, BoardBase other not None):
        cdef int i
        for i in range(KALAH_SLOTS):
            if self.slots[i] != other.slots[i]:
                return False
        return self._to_move == other._to_move and self._capture == other._capture


cdef class Searcher:
    """The search state and transposition table behind mancala.Engine.

    Every method takes a position as (slots in absolute order, side to move,
    capture code) and returns plain tuples; the GIL is released while it searches.
    One thread at a time: a call while another thread is inside a method raises
    RuntimeError (mancala.Engine serialises its calls with a lock).
    """

    def __cinit__(self, hash_mb=0, ordering=True, futility=True):
        cdef double mb = hash_mb
        memset(&self.s, 0, sizeof(self.s))
        self.s.tt = &self.table
        if not 0 <= mb <= 1 << 24:
            raise ValueError(f"hash_mb is 0 (no table) to {1 << 24} MB, not {hash_mb!r}")
        self.s.ordering = ordering
        self.s.futility = futility
        self.s.prune = True
        self.s.abort = &self._abort
        if mb > 0 and tt_alloc(&self.table, max(1, <uint64_t> (mb * 1024 * 1024 / sizeof(tt_bucket)))):
            raise MemoryError(f"cannot allocate a {hash_mb} MB transposition table")
        self.s.use_tt = self.table.buckets != NULL

    def __dealloc__(self):
        drop_interrupt(&self.s)
        tt_free(&self.table)
        free(self._busy)

    cdef int _enter(self) except -1:
        """Mark the searcher in use, or refuse: its state is one C struct."""
        if self._running:
            raise RuntimeError("this Searcher is in use by another thread; "
                               "give each thread its own, or call it under a lock")
        self._running = True
        return 0

    def share_table(self, Searcher owner not None):
        """Search in owner's table from now on, and stop when owner.abort() is called.

        Entries are written lock-free (tt.h): torn ones are misses, never lies.
        Sharers searching the same position split the work: each marks the
        subtrees it is in, and the others put those off till last.
        """
        self._enter()
        try:
            self._share_table(owner)
        finally:
            self._running = False

    def _share_table(self, Searcher owner):
        if owner._busy == NULL:
            owner._busy = <uint64_t *> calloc(BUSY_SLOTS, sizeof(uint64_t))
            if owner._busy == NULL:
                raise MemoryError()
            owner.s.busy = owner._busy
        self.s.tt = &owner.table
        self.s.use_tt = owner.table.buckets != NULL
        self.s.abort = &owner._abort
        self.s.busy = owner._busy
        self._table_owner = owner

    def abort(self, bint stop=True):
        """Stop (or, with False, allow again) the searches that watch this searcher."""
        store_flag(&self._abort, stop)

    def set_endgame(self, values, int max_seeds):
        """Answer positions with at most max_seeds seeds in the pits from values
        (a buffer from egdb_build, one signed byte a position); None: no database."""
        self._enter()
        try:
            self._set_endgame(values, max_seeds)
        finally:
            self._running = False

    def _set_endgame(self, values, int max_seeds):
        cdef const unsigned char[::1] view
        if values is None:
            self.s.egdb.values = NULL
            self.s.egdb.max_seeds = -1
            self._egdb_owner = None
            return
        check_egdb_seeds(max_seeds)
        view = values
        if <uint64_t> view.shape[0] != egdb_count(max_seeds):
            raise ValueError(f"an endgame table for {max_seeds} seeds holds {egdb_count(max_seeds)} "
                             f"values, not {view.shape[0]}")
        self._egdb_owner = view
        self.s.egdb.values = <signed char *> &view[0]
        self.s.egdb.max_seeds = max_seeds
        self.s.egdb.size = view.shape[0]

    @property
    def table_bytes(self):
        return self.s.tt.n_buckets * sizeof(tt_bucket)

    @property
    def nodes(self):
        """Nodes of the last search."""
        return self.s.nodes

    @property
    def tt_hits(self):
        """Table probes that found their position in the last search."""
        return self.s.tt_hits

    def clear(self):
        """Empty the table."""
        self._enter()
        try:
            with nogil:
                tt_clear(self.s.tt)
        finally:
            self._running = False

    def hashfull(self):
        """Per mille of the first 1000 buckets' entries in use."""
        cdef uint64_t i, used = 0, n
        cdef int w
        if self.s.tt.buckets == NULL:
            return 0
        n = min(<uint64_t> 1000, self.s.tt.n_buckets)
        for i in range(n):
            for w in range(4):
                if self.s.tt.buckets[i].way[w].data:
                    used += 1
        return <int> (used * 1000 // (4 * n))

    cdef int _setup(self, slots, to_move, capture, evaluation, int *view) except -1:
        cdef int a[14]
        load_slots(slots, a)
        orient(a, check_side(to_move), view)
        self.s.capture = check_code(capture, CAPTURE_RULES, "capture")
        self.s.evaluation = check_code(evaluation, EVALUATIONS, "evaluation")
        return 0

    def search(self, slots, to_move, capture, evaluation, int max_depth,
               bint iterative=True, double time_limit=0, uint64_t node_limit=0):
        """Depth-limited search: (score, move, depth, exact); move None if none finished."""
        cdef int v[14]
        cdef Outcome out
        cdef bint futility = self.s.futility
        self._enter()
        try:
            self._setup(slots, to_move, capture, evaluation, v)
            check_depth(max_depth, 1)
            self.s.signals = on_main_thread()
            begin(&self.s, time_limit, node_limit)
            # futility cuts with bounds on the store difference: valid for the store evaluation only
            self.s.futility = futility and self.s.evaluation == EVAL_STORE
            with nogil:
                out = deepen(&self.s, v, max_depth, iterative)
            self.s.futility = futility
            if self.s.interrupted:
                raise_interrupt(&self.s)
        finally:
            self._running = False
        return out.score, (None if out.move == NO_MOVE else out.move), out.depth, bool(out.exact)

    def probe(self, slots, to_move, capture, int beta,
              double time_limit=0, uint64_t node_limit=0, bint helper=False):
        """Null-window test to the end of the game: is the value >= beta?

        Returns (value, move, finished): a fail-soft bound (value >= beta: a
        lower bound, reached by move; else an upper bound). The caller's
        search over the margin (MTD(f)) lives in mancala.Engine.solve.
        helper: another thread runs the same probe in the same table (one
        that was shared), so this one leaves the table's generation alone.
        """
        cdef int v[14]
        cdef int value
        self._enter()
        try:
            self._setup(slots, to_move, capture, 0, v)
            if not -KALAH_MAX_SEEDS <= beta <= KALAH_MAX_SEEDS + 1:
                raise ValueError(f"beta is a margin within the seeds on the board, not {beta}")
            self.s.signals = on_main_thread()
            begin(&self.s, time_limit, node_limit, not helper)
            with nogil:
                value = negamax(&self.s, v, SOLVE_DEPTH, beta - 1, beta, 0, 0)
            if self.s.interrupted:
                raise_interrupt(&self.s)
        finally:
            self._running = False
        if self.s.stopped:
            return 0, None, False
        return value, (None if self.s.root_move == NO_MOVE else self.s.root_move), True

    def principal_variation(self, slots, to_move, capture, int limit=64):
        """Follow the table's best moves from a position, as far as it holds them."""
        cdef int a[14]
        cdef int v[14]
        cdef int flags, captured, pit
        cdef tt_data e
        cdef list pv = []
        if self.s.tt.buckets == NULL:
            return pv
        load_slots(slots, a)
        orient(a, check_side(to_move), v)
        rule = check_code(capture, CAPTURE_RULES, "capture")
        while len(pv) < limit and not row_empty(v):
            if not tt_probe(self.s.tt, tt_key(v), &e) or e.move >= KALAH_PITS or v[e.move] == 0:
                break
            pit = e.move
            pv.append(pit)
            kalah_play(v, pit, rule, &captured)
        return pv
