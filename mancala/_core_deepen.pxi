# Iterative deepening: a search's start, and depth after depth till a limit.

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
    s.soft_deadline = 0
    s.deeper_tt = s.pvs = False
    s.untabled_seeds = -1
    s.aspiration = 0
    s.keep_partial = False
    if new_generation:  # a search of its own: older entries may be replaced first
        s.tt.generation += 1


cdef struct Outcome:
    int score
    int move
    int depth
    bint exact


cdef Outcome deepen(Search *s, const int *b, int max_depth, bint iterative) noexcept nogil:
    """Iterative deepening to max_depth; stops early once the value is exact.

    A stopped iteration is discarded: the result is the last finished depth,
    except with s.keep_partial, when its root move is proven (keep_root): then
    that move and its value, with the last finished depth.
    After each finished iteration s.progress (if any) is called (see report).
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
        s.prev_root_move = out.move
        s.prev_searched = False
        s.partial_move = NO_MOVE
        if s.aspiration and out.move != NO_MOVE:
            value = aspirate(s, b, depth, out.score)
        else:
            value = negamax(s, b, depth, -INF, INF, 0, 0)
        if s.stopped:
            if s.keep_partial and s.partial_move != NO_MOVE and out.move != NO_MOVE:
                out.move = s.partial_move     # proven at least as good at this depth
                out.score = s.partial_score
            break
        out.score = value
        out.move = s.root_move
        out.depth = depth
        out.exact = s.horizon == horizon0
        if s.progress != NULL and not report(s, &out):
            break
        if out.exact:
            break
        if s.soft_deadline:
            # the hard deadline stops an iteration; a new one starts only before the soft one
            if monotonic() >= s.soft_deadline:
                break
        # the next depth costs several times this one: do not start what cannot finish
        elif s.deadline and monotonic() + 2 * (monotonic() - started) > s.deadline:
            break
        depth += 1
    return out


cdef int aspirate(Search *s, const int *b, int depth, int guess) noexcept nogil:
    """The root's value at depth, searched first within guess +- s.aspiration,
    the window widened on the side that failed (doubling) till the value is inside."""
    cdef int delta = s.aspiration, alpha = guess - delta, beta = guess + delta, value
    while True:
        value = negamax(s, b, depth, alpha, beta, 0, 0)
        if s.stopped or alpha < value < beta:
            return value
        delta *= 2
        if value <= alpha:
            alpha = guess - delta if delta <= KALAH_MAX_SEEDS else -INF
        else:
            beta = guess + delta if delta <= KALAH_MAX_SEEDS else INF


cdef bint report(Search *s, const Outcome *out) noexcept nogil:
    """Call s.progress(depth, score, move, nodes, exact) with the GIL, between
    two iterations. If it raises, keep the exception for the caller to raise
    (as Ctrl-C's, see take_signal) and answer False: the search stops."""
    with gil:
        try:
            (<object> s.progress)(out.depth, out.score, None if out.move == NO_MOVE else out.move,
                                  s.nodes, bool(out.exact))
        except BaseException:
            keep_exception(s, sys_exc_info())
            return False
    return True


cdef void keep_exception(Search *s, tuple info) noexcept:
    """Hold the exception described by info (type, value, traceback) in s."""
    drop_interrupt(s)
    for item in info:
        Py_XINCREF(<PyObject *> item)
    s.raised_type = <PyObject *> info[0]
    s.raised_value = <PyObject *> info[1]
    s.raised_tb = <PyObject *> info[2]
    s.interrupted = True
