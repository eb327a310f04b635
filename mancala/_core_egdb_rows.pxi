# A level's positions in rank order, each with its value and best moves, a batch
# at a time: what mancala.endgame.rows hands out and the export writes.


cdef int64_t level_rows(const egdb_table *t, int n, int capture, uint64_t first, uint64_t count,
                        unsigned char *pits, signed char *values,
                        unsigned char *best) noexcept nogil:
    """Rows first..first + count - 1 of level n (t holds levels 0..n at least).
    Pit k of row i goes to pits[k * count + i] (a plane a pit: each is a
    column of the export as it is), its value to values[i], its best moves to
    best[i] as bits. Every move is scored as the build scores it
    (egdb_move_value), so the value is also checked: returns -1, or the first
    rank whose stored value is not its best move's (a database that
    contradicts itself)."""
    cdef int b[KALAH_SLOTS]
    cdef int child[KALAH_SLOTS]
    cdef int pit, k, flags, captured, left, value, top, mine, theirs
    cdef unsigned char moves
    cdef uint64_t i
    memset(b, 0, sizeof(b))                 # the stores stay empty: the levels leave them out
    egdb_unrank(b, n, first)
    for i in range(count):
        for k in range(KALAH_PITS):
            pits[k * count + i] = <unsigned char> b[k]
            pits[(KALAH_PITS + k) * count + i] = <unsigned char> b[KALAH_OPP_PIT + k]
        moves = 0
        mine = kalah_row_sum(b)
        theirs = kalah_row_sum(b + KALAH_OPP_PIT)
        if mine == 0 or theirs == 0:        # the game is over: the rows are swept, no move
            top = mine - theirs
        else:
            top = -INF
            for pit in range(KALAH_PITS):
                if b[pit] == 0:
                    continue
                memcpy(child, b, sizeof(child))
                flags = kalah_play(child, pit, capture, &captured)
                value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
                if not (flags & PLAY_GAME_OVER):
                    left = n - child[KALAH_STORE] - child[KALAH_OPP_STORE]
                    value = value + egdb_value(t, child, left)
                if not (flags & PLAY_EXTRA_TURN):
                    value = -value
                if value > top:
                    top = value
                    moves = 1 << pit
                elif value == top:
                    moves = moves | (1 << pit)
        if top != t.level[n][first + i]:
            return <int64_t> (first + i)
        values[i] = <signed char> top
        best[i] = moves
        egdb_next(b, n)
    return -1


def egdb_rows(levels, n, capture, first, pits, values, best):
    """Fill three buffers with the rows of level n from rank ``first`` on, as
    many as ``values`` holds, from ``levels`` (0..N, N >= n; level n's values by
    rank): ``pits`` 12 unsigned bytes a row, a plane a pit (pit k of row i at
    ``[k * rows + i]``; pits 0..5 the mover's from its left, 6..11 the
    opponent's from its left); ``values`` signed bytes, each row's value for
    the side to move (stores empty); ``best`` unsigned bytes, each row's best
    moves as bits (bit p: pit p; 0 when a row is empty and the game over).

    Returns None, or the first rank whose stored value no move of it gives
    (from the levels): a database that contradicts itself."""
    cdef int rule = check_code(capture, CAPTURE_RULES, "capture")
    cdef int level = check_egdb_seeds(n)
    cdef unsigned char[::1] pits_out = pits
    cdef signed char[::1] values_out = values
    cdef unsigned char[::1] best_out = best
    cdef egdb_table t
    cdef uint64_t start, rows = values_out.shape[0]
    cdef int64_t bad
    views = []
    fill_table(&t, views, levels)
    if level > t.max_seeds:
        raise ValueError(f"level {n} is not among the {len(levels)} levels given")
    if isinstance(first, bool) or not isinstance(first, int) or first < 0 \
            or first + <object> rows > <object> level_positions(level):
        raise ValueError(f"{rows} rows from rank {quote(first)} are not a part of level {n} "
                         f"({level_positions(level)} positions)")
    if <uint64_t> pits_out.shape[0] != KALAH_PITS * 2 * rows or <uint64_t> best_out.shape[0] != rows:
        raise ValueError(f"{rows} rows take {2 * KALAH_PITS * rows} bytes of pits and {rows} of best "
                         f"moves, not {pits_out.shape[0]} and {best_out.shape[0]}")
    if rows == 0:
        return None
    start = first
    with nogil:
        bad = level_rows(&t, level, rule, start, rows, &pits_out[0], &values_out[0], &best_out[0])
    return None if bad < 0 else bad


cdef extern from "<sys/mman.h>" nogil:
    int madvise(void *start, size_t length, int advice)
    enum:
        MADV_DONTNEED


def egdb_let_go(MappedLevel level):
    """Let go of a mapped level's pages: the process's memory (its RSS) no
    longer counts them; the page cache keeps them, and the next read maps them
    again (a minor fault). A pass over a whole database (its check, an export)
    lets go as it goes, so its memory stays bounded by what it holds at once."""
    if level.base != NULL:
        with nogil:
            madvise(level.base, level.length, MADV_DONTNEED)
