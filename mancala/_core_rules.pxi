# Rules in C over a board seen from the side to move: orientation, the end
# of the game, the static evaluation and perft.

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


cdef inline void side_counts(const int *own, const int *other, int capture, int *out) noexcept nogil:
    """One side's counted terms: moves ending in its store, its best capture, its empty pits."""
    cdef int i, n, last, facing, extra = 0, best_capture = 0, empty = 0
    for i in range(KALAH_PITS):
        n = own[i]
        if n == 0:
            empty += 1
            continue
        if n == KALAH_PITS - i or n == KALAH_PITS - i + KALAH_SLOTS - 1:
            extra += 1
        last = i + n
        if n < KALAH_SLOTS - 1 and last < KALAH_PITS and own[last] == 0:
            facing = other[KALAH_PITS - 1 - last]
            if kalah_captures(capture, facing) and facing + 1 > best_capture:
                best_capture = facing + 1
    out[0] = extra
    out[1] = best_capture
    out[2] = empty


cdef int side_term(const int *own, const int *other, int capture) noexcept nogil:
    """One side's share of the positional evaluation (all terms >= 0).

    own: that side's six pits, other: the opponent's six pits, each from its
    owner's left. Counts extra-turn moves, seeds at home and the best capture.
    """
    cdef int counts[3]
    side_counts(own, other, capture, counts)
    return counts[0] + (kalah_row_sum(own) + 2 * counts[1]) // 4


# the learned evaluation's weights (mancala/_learned.py, which describes them),
# in LEARNED_SCALEths of a seed: learned[0] the midgame's, learned[1] the endgame's
cdef struct LearnedWeights:
    int terms[LEARNED_TERMS]
    int pits[2 * KALAH_PITS][LEARNED_COUNTS]    # the mover's pits, then the opponent's
    int totals[2][LEARNED_TOTALS]               # the mover's row, then the opponent's
    int facing[2 * KALAH_PITS][LEARNED_FACING]  # by empty pit, as pits
cdef LearnedWeights learned[2]


cdef void load_learned_weights() except *:
    from mancala import _learned as w
    phases = ((w.MIDGAME, w.MIDGAME_PITS, w.MIDGAME_TOTALS, w.MIDGAME_FACING),
              (w.ENDGAME, w.ENDGAME_PITS, w.ENDGAME_TOTALS, w.ENDGAME_FACING))
    shapes = ((1, LEARNED_TERMS), (2 * KALAH_PITS, LEARNED_COUNTS), (2, LEARNED_TOTALS),
              (2 * KALAH_PITS, LEARNED_FACING))
    for phase in phases:
        for part, (n_rows, n_columns) in zip(phase, shapes):
            rows = [part] if n_rows == 1 else part
            if w.SCALE != LEARNED_SCALE or len(rows) != n_rows or any(len(row) != n_columns for row in rows):
                raise ImportError("mancala._learned does not fit the core: rebuild it")
    for k, (terms, pits, totals, facing) in enumerate(phases):
        for i in range(LEARNED_TERMS):
            learned[k].terms[i] = terms[i]
        for i in range(2 * KALAH_PITS):
            for n in range(LEARNED_COUNTS):
                learned[k].pits[i][n] = pits[i][n]
            for n in range(LEARNED_FACING):
                learned[k].facing[i][n] = facing[i][n]
        for i in range(2):
            for n in range(LEARNED_TOTALS):
                learned[k].totals[i][n] = totals[i][n]


cdef inline int column(int n, int columns) noexcept nogil:
    """A count's column in a table of `columns`: the last takes every count beyond."""
    return n if n < columns else columns - 1


cdef inline int learned_weighted(const int *b, const int *counts, const LearnedWeights *w) noexcept nogil:
    """One phase's weighted sum of the learned terms of b (the mover's view)."""
    cdef int i, own, other, own_row = 0, other_row = 0, total = w.terms[0]
    for i in range(KALAH_PITS):
        own = b[i]
        other = b[KALAH_OPP_PIT + i]
        total += (w.terms[1 + i] * own + w.pits[i][column(own, LEARNED_COUNTS)]
                  + w.terms[1 + KALAH_PITS + i] * other
                  + w.pits[KALAH_PITS + i][column(other, LEARNED_COUNTS)])
        if own == 0:        # what an empty pit is worth depends on the seeds facing it
            total += w.facing[i][column(b[KALAH_OPP_STORE - 1 - i], LEARNED_FACING)]
        if other == 0:
            total += w.facing[KALAH_PITS + i][column(b[KALAH_PITS - 1 - i], LEARNED_FACING)]
        own_row += own
        other_row += other
    total += w.totals[0][column(own_row, LEARNED_TOTALS)] + w.totals[1][column(other_row, LEARNED_TOTALS)]
    for i in range(6):
        total += w.terms[1 + 2 * KALAH_PITS + i] * counts[i]
    return total


cdef int learned_term(const int *b, int capture) noexcept nogil:
    """What the learned evaluation adds to the store difference (see _learned.py)."""
    cdef int counts[6]
    cdef int in_pits = kalah_row_sum(b) + kalah_row_sum(b + KALAH_OPP_PIT)
    cdef int played = b[KALAH_STORE] + b[KALAH_OPP_STORE]
    cdef int64_t blended, whole
    side_counts(b, b + KALAH_OPP_PIT, capture, counts)
    side_counts(b + KALAH_OPP_PIT, b, capture, counts + 3)
    blended = (<int64_t> learned_weighted(b, counts, &learned[0]) * in_pits
               + <int64_t> learned_weighted(b, counts, &learned[1]) * played)
    whole = <int64_t> LEARNED_SCALE * (in_pits + played)
    blended = (blended + whole // 2) // whole if blended >= 0 else -((whole // 2 - blended) // whole)
    return <int> (in_pits if blended > in_pits else -in_pits if blended < -in_pits else blended)


cdef inline int evaluate_view(const int *b, int capture, int evaluation) noexcept nogil:
    if row_empty(b):
        return final_margin(b)
    cdef int score = b[KALAH_STORE] - b[KALAH_OPP_STORE]
    if evaluation == EVAL_LEARNED:
        return score + learned_term(b, capture)
    if evaluation == EVAL_POSITIONAL:
        score += (side_term(b, b + KALAH_OPP_PIT, capture)
                  - side_term(b + KALAH_OPP_PIT, b, capture))
    return score


cdef uint64_t perft_view(const int *b, int depth, int capture) noexcept nogil:
    cdef int child[KALAH_SLOTS]
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
