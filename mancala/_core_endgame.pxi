# Endgame databases: build (on threads), checksum, verify, look up.

cdef enum:
    EGDB_SHARED_LEVEL = 8   # smaller database levels take a moment: one thread builds them


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
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise InvalidLimitError(f"threads is 1 to {MAX_THREADS}, not {quote(threads)}")
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
    cdef int v[KALAH_SLOTS]
    cdef egdb_table t
    cdef const unsigned char[::1] view = values
    cdef int seeds
    check_egdb_seeds(max_seeds)
    if <uint64_t> view.shape[0] != egdb_count(max_seeds):
        raise ValueError("the values do not fit the seed count")
    list_view(slots, to_move, v)
    seeds = kalah_row_sum(v) + kalah_row_sum(v + KALAH_OPP_PIT)
    if seeds > max_seeds:
        raise ValueError(f"the position has {seeds} seeds in its pits; the database covers {max_seeds}")
    t.values = <signed char *> &view[0]
    t.max_seeds = max_seeds
    t.size = view.shape[0]
    return egdb_value(&t, v, seeds)
