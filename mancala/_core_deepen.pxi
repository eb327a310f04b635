# Iterative deepening: a search's start, and depth after depth till a limit.

cdef void begin(Search *s, double time_limit, uint64_t node_limit,
                bint new_generation=True, double started=0) noexcept nogil:
    """A search's start: its limits from started (0: now, on s.limits.clock, which
    the caller sets), no stop, zero counts,
    no root move yet (the mode is the caller's: Searcher._setup and the call's
    own parts; a shared search's node limit is set by the call too)."""
    s.limits.started = started if started > 0 else search_now(s)
    s.limits.node_limit = node_limit
    s.limits.shared_node_limit = 0
    s.limits.counted = 0
    s.limits.deadline = s.limits.started + time_limit if time_limit > 0 else 0
    s.limits.soft_deadline = 0
    s.limits.poll_every = POLL_CLOCK
    s.limits.next_poll = POLL_CLOCK
    s.limits.next_signal_poll = POLL_SIGNALS
    s.stop.stopped = s.stop.interrupted = False
    memset(&s.stats, 0, sizeof(s.stats))
    memset(&s.root, 0, sizeof(s.root))
    memset(&s.clock, 0, sizeof(s.clock))
    s.root.move = s.root.prev_move = s.root.partial_move = s.clock.last_move = NO_MOVE
    if new_generation:  # a search of its own: older entries may be replaced first
        s.config.tt.generation += 1


cdef struct Outcome:
    int score
    int move
    int depth
    bint exact
    bint first      # the first of the threads searching together to finish this depth (alone: always)


cdef Outcome deepen(Search *s, const int *b, int max_depth, bint iterative) noexcept nogil:
    """Iterative deepening to max_depth; stops early once the value is exact.

    A stopped iteration is discarded: the result is the last finished depth,
    except with s.mode.keep_partial, when its root move is proven (keep_root): then
    that move and its value, with the last finished depth.
    After each finished iteration s.root.progress (if any) is called (see
    announce), and the time manager moves the soft limit (clock_after_iteration).
    A helper (s.mode.helper) keeps no time of its own: it deepens till a hard
    limit, the last depth, an exact value or its sharers' abort.
    """
    cdef Outcome out
    cdef int depth, value
    cdef uint64_t horizon0
    cdef double started = search_now(s)
    out.move = NO_MOVE
    out.depth = 0
    out.exact = False
    out.first = False
    out.score = 0
    depth = 1 if iterative else max_depth
    while depth <= max_depth:
        horizon0 = s.stats.horizon
        s.root.prev_move = out.move
        s.root.prev_searched = False
        s.root.partial_move = NO_MOVE
        if s.mode.aspiration and out.move != NO_MOVE:
            value = aspirate(s, b, depth, out.score)
        else:
            value = search_root(s, b, depth, -INF, INF)
        if s.stop.stopped:
            if s.mode.keep_partial and s.root.partial_move != NO_MOVE and out.move != NO_MOVE:
                out.move = s.root.partial_move     # proven at least as good at this depth
                out.score = s.root.partial_score
            break
        out.score = value
        out.move = s.root.move
        out.depth = depth
        out.exact = s.stats.horizon == horizon0
        if not announce(s, &out):
            break
        if out.exact:
            break
        if s.mode.helper:
            pass
        elif s.limits.soft_deadline:
            # the hard deadline stops an iteration; a new one starts only before the soft one
            clock_after_iteration(s, out.move, out.score)
            if search_now(s) >= s.limits.soft_deadline:
                break
        # the next depth costs several times this one: do not start what cannot finish
        elif s.limits.deadline and search_now(s) + 2 * (search_now(s) - started) > s.limits.deadline:
            break
        depth += 1
    return out


cdef int aspirate(Search *s, const int *b, int depth, int guess) noexcept nogil:
    """The root's value at depth, searched first within guess +- s.mode.aspiration,
    the window widened on the side that failed (doubling) till the value is inside."""
    cdef int delta = s.mode.aspiration, alpha = guess - delta, beta = guess + delta, value
    while True:
        value = search_root(s, b, depth, alpha, beta)
        if s.stop.stopped or alpha < value < beta:
            return value
        delta *= 2
        if value <= alpha:
            alpha = guess - delta if delta <= KALAH_MAX_SEEDS else -INF
        else:
            beta = guess + delta if delta <= KALAH_MAX_SEEDS else INF


cdef bint announce(Search *s, Outcome *out) noexcept nogil:
    """After a finished iteration: mark whether this thread is the first of its
    sharers to finish its depth (out.first), and if so call
    s.root.progress(depth, score, move, nodes, exact) with the GIL (nodes: every
    sharer's so far; their calls may cross: mancala.parallel orders them).
    If it raises, keep the exception for the caller to raise (as Ctrl-C's, see
    take_signal) and answer False: the search stops."""
    cdef uint64_t nodes
    out.first = first_to_finish(s, out.depth)
    if s.root.progress == NULL or not out.first:
        return True
    nodes = shared_nodes(s) if s.mode.shared else s.stats.nodes
    with gil:
        try:
            (<object> s.root.progress)(out.depth, out.score, None if out.move == NO_MOVE else out.move,
                                  nodes, bool(out.exact))
        except BaseException:
            keep_exception(s, sys_exc_info())
            return False
    return True


cdef void keep_exception(Search *s, tuple info) noexcept:
    """Hold the exception described by info (type, value, traceback) in s."""
    drop_interrupt(s)
    for item in info:
        Py_XINCREF(<PyObject *> item)
    s.stop.raised_type = <PyObject *> info[0]
    s.stop.raised_value = <PyObject *> info[1]
    s.stop.raised_tb = <PyObject *> info[2]
    s.stop.interrupted = True
