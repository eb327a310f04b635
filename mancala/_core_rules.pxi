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
