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
        if n < KALAH_SLOTS - 1 and last < KALAH_PITS and own[last] == 0 and capture != CAPTURE_NONE:
            facing = other[KALAH_PITS - 1 - last]
            if (facing > 0 or capture == CAPTURE_EMPTY) and facing + 1 > best_capture:
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
# in LEARNED_SCALEths of a seed: the midgame's then the endgame's; each with a
# table of what a pit (the mover's six, then the opponent's) adds for its count
cdef int learned_weights[2 * LEARNED_TERMS]
cdef int learned_tables[2][2 * KALAH_PITS][LEARNED_COUNTS]


cdef void load_learned_weights() except *:
    from mancala._learned import ENDGAME, ENDGAME_TABLE, MIDGAME, MIDGAME_TABLE, SCALE
    for weights, table in ((MIDGAME, MIDGAME_TABLE), (ENDGAME, ENDGAME_TABLE)):
        if (SCALE != LEARNED_SCALE or len(weights) != LEARNED_TERMS or len(table) != 2 * KALAH_PITS
                or any(len(row) != LEARNED_COUNTS for row in table)):
            raise ImportError("mancala._learned does not fit the core: rebuild it")
    for i in range(LEARNED_TERMS):
        learned_weights[i] = MIDGAME[i]
        learned_weights[LEARNED_TERMS + i] = ENDGAME[i]
    for i in range(2 * KALAH_PITS):
        for n in range(LEARNED_COUNTS):
            learned_tables[0][i][n] = MIDGAME_TABLE[i][n]
            learned_tables[1][i][n] = ENDGAME_TABLE[i][n]


cdef inline int learned_weighted(const int *b, const int *counts, const int *w,
                                 int (*table)[LEARNED_COUNTS]) noexcept nogil:
    cdef int i, n, total = w[0]
    for i in range(KALAH_PITS):
        n = b[i]
        total += w[1 + i] * n + table[i][n if n < LEARNED_COUNTS else LEARNED_COUNTS - 1]
        n = b[KALAH_OPP_PIT + i]
        total += (w[1 + KALAH_PITS + i] * n
                  + table[KALAH_PITS + i][n if n < LEARNED_COUNTS else LEARNED_COUNTS - 1])
    for i in range(6):
        total += w[1 + 2 * KALAH_PITS + i] * counts[i]
    return total


cdef int learned_term(const int *b, int capture) noexcept nogil:
    """What the learned evaluation adds to the store difference (see _learned.py)."""
    cdef int counts[6]
    cdef int in_pits = kalah_row_sum(b) + kalah_row_sum(b + KALAH_OPP_PIT)
    cdef int played = b[KALAH_STORE] + b[KALAH_OPP_STORE]
    cdef int64_t blended, whole
    side_counts(b, b + KALAH_OPP_PIT, capture, counts)
    side_counts(b + KALAH_OPP_PIT, b, capture, counts + 3)
    blended = (<int64_t> learned_weighted(b, counts, learned_weights, learned_tables[0]) * in_pits
               + <int64_t> learned_weighted(b, counts, learned_weights + LEARNED_TERMS,
                                            learned_tables[1]) * played)
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
