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
