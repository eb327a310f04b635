# The clock and the stop poll: node and time limits, another thread's abort,
# Ctrl-C taken from Python's signal handlers and handed back to the caller.

cdef enum:
    POLL_CLOCK = 1024       # read the clock every 1024 nodes: ~0.1 ms at full speed
    POLL_SIGNALS = 16384    # take the GIL for Ctrl-C every 16384 nodes: ~2-5 ms (main thread only)


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
    if s.limits.node_limit and s.stats.nodes > s.limits.node_limit:
        return True
    if s.stats.nodes < s.limits.next_poll:
        return False
    s.limits.next_poll = s.stats.nodes + POLL_CLOCK
    if s.limits.deadline and monotonic() >= s.limits.deadline:
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
