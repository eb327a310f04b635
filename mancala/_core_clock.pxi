# The clock and the stop poll: node and time limits, another thread's abort,
# Ctrl-C taken from Python's signal handlers and handed back to the caller.

cdef enum:
    POLL_CLOCK = 1024       # read the clock every 1024 nodes: ~0.1 ms at full speed
    POLL_SIGNALS = 16384    # take the GIL for Ctrl-C every 16384 nodes: ~2-5 ms (main thread only)


cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    pthread_t pthread_self()
    int pthread_getcpuclockid(pthread_t thread, clockid_t *clock)


# What a search's time limits count: the wall clock (CLOCK_MONOTONIC), or with
# use_cpu_clock(True) the CPU time of the thread that began the search (its
# helpers read that thread's clock too: SearchShare.clock), for matches on a
# shared machine: each engine then gets its time as if it had the cores to itself.
cdef bint cpu_clock = False


cdef inline double read_clock(clockid_t which) noexcept nogil:
    cdef timespec ts
    clock_gettime(which, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline double monotonic() noexcept nogil:
    return read_clock(CLOCK_MONOTONIC)


cdef inline clockid_t this_threads_clock() noexcept nogil:
    """The clock a search begun on this thread counts its time by."""
    cdef clockid_t which = CLOCK_MONOTONIC
    if cpu_clock and pthread_getcpuclockid(pthread_self(), &which) != 0:
        which = CLOCK_MONOTONIC
    return which


cdef inline double search_now(const Search *s) noexcept nogil:
    return read_clock(s.limits.clock)


def use_cpu_clock(bint cpu):
    """Time limits from now on count the searching thread's CPU time (True) or the
    wall clock (False, the default): see cpu_clock above."""
    global cpu_clock
    cpu_clock = cpu


def clock():
    """The clock a search begun on this thread reads, in seconds (see Searcher.search's started)."""
    return read_clock(this_threads_clock())


cdef inline bint poll_stop(Search *s) noexcept nogil:
    """Whether a limit (nodes, clock, Ctrl-C) ends the search now.

    The clock and the abort flag are read every POLL_CLOCK nodes (a stop
    within a millisecond), Ctrl-C checked every POLL_SIGNALS on the main
    thread (within milliseconds): rare enough to cost nothing. Threads
    searching together add their nodes to one total at the same polls,
    and stop once it passes a shared node limit.
    """
    if s.limits.node_limit and s.stats.nodes > s.limits.node_limit:
        return True
    if s.stats.nodes < s.limits.next_poll:
        return False
    s.limits.next_poll = s.stats.nodes + s.limits.poll_every
    if s.mode.shared and shared_nodes(s) > s.limits.shared_node_limit > 0:
        return True
    if s.limits.deadline and search_now(s) >= s.limits.deadline:
        return True
    if s.config.abort != NULL and load_flag(s.config.abort):
        return True
    if s.limits.signals and s.stats.nodes >= s.limits.next_signal_poll:
        s.limits.next_signal_poll = s.stats.nodes + POLL_SIGNALS
        return take_signal(s)
    return False


cdef bint take_signal(Search *s) noexcept nogil:
    """Run Python's signal handlers (they run on the main thread only); if one
    raised (Ctrl-C: KeyboardInterrupt), keep its exception for the caller to
    raise and stop the search, and the threads sharing its table too."""
    if s.stop.interrupted:
        return True
    with gil:
        if check_signals() == 0:
            return False
        PyErr_Fetch(&s.stop.raised_type, &s.stop.raised_value, &s.stop.raised_tb)
    s.stop.interrupted = True
    if s.config.abort != NULL and s.config.busy != NULL:     # shared: whoever started the sharers resets it
        store_flag(s.config.abort, True)
    return True


cdef bint on_main_thread() except -1:
    """Only the main thread runs signal handlers: elsewhere taking the GIL to
    poll them would only wait for other Python threads."""
    return get_ident() == main_thread().ident


cdef int raise_interrupt(Search *s) except -1:
    """Raise what a signal handler raised during the search (see take_signal)."""
    s.stop.interrupted = False
    if s.stop.raised_type == NULL:
        raise KeyboardInterrupt
    PyErr_Restore(s.stop.raised_type, s.stop.raised_value, s.stop.raised_tb)     # takes the references
    s.stop.raised_type = s.stop.raised_value = s.stop.raised_tb = NULL
    return -1


cdef void drop_interrupt(Search *s) noexcept:
    Py_XDECREF(s.stop.raised_type)
    Py_XDECREF(s.stop.raised_value)
    Py_XDECREF(s.stop.raised_tb)
    s.stop.raised_type = s.stop.raised_value = s.stop.raised_tb = NULL


# Play mode's time manager (issue 33). A timed search stops at its hard limit
# (the move's time) and starts no iteration after its soft limit; the soft limit
# starts at soft_base and moves after each finished iteration: later when the
# best move has been changing or the score fell (the next depth is likely to
# change the move again), back towards soft_base as the search settles. A forced
# move or an exact value ends the search sooner (Engine.search; deepen).
cdef double CLOCK_CHANGE = 0.6      # the soft limit's stretch per unit of instability
cdef double CLOCK_FALL = 0.15       # its stretch per seed the score fell
cdef int CLOCK_FALL_CAP = 4         # falls beyond this many seeds count as this many


cdef void clock_after_iteration(Search *s, int move, int score) noexcept nogil:
    """Move the soft limit after a finished iteration, whose best move and
    score are given (s.clock.soft_base > 0: the manager is on). Instability: 1 for each change of the best move, halved
    at each iteration after; the fall: how far the score dropped below the
    last iteration's. Never past the hard limit."""
    cdef SearchClock *c = &s.clock
    cdef double stretch = 1
    cdef int fall = 0
    if c.soft_base <= 0:
        return
    if c.last_move != NO_MOVE:
        c.instability *= 0.5
        if move != c.last_move:
            c.instability += 1
        fall = min(max(c.last_score - score, 0), CLOCK_FALL_CAP)
    c.last_move = move
    c.last_score = score
    stretch = 1 + CLOCK_CHANGE * c.instability + CLOCK_FALL * fall
    s.limits.soft_deadline = s.limits.started + c.soft_base * stretch
    if s.limits.deadline and s.limits.soft_deadline > s.limits.deadline:
        s.limits.soft_deadline = s.limits.deadline


def clock_trace(double soft_base, double hard, iterations):
    """The soft limits (seconds from the start) the time manager sets after each
    of ``iterations``, (best move, score) pairs, for a search of ``hard``
    seconds whose soft limit starts at ``soft_base``: its rule, alone."""
    cdef Search s
    cdef list limits = []
    memset(&s, 0, sizeof(s))
    s.limits.started = 1000.0
    s.limits.deadline = s.limits.started + hard
    s.clock.soft_base = soft_base
    s.clock.last_move = NO_MOVE
    for move, score in iterations:
        clock_after_iteration(&s, move, score)
        limits.append(s.limits.soft_deadline - s.limits.started)
    return limits
