# Move ordering and enhanced transposition cut-offs.

cdef inline int order_key(int pit, int flags, int gain, int tt_move) noexcept nogil:
    """Higher first: the table's move, then extra turns, then store gain;
    ties go to the pit nearest the store (it disturbs the fewest other pits)."""
    return ((pit == tt_move) << 14) + ((flags & PLAY_EXTRA_TURN) << 12) + gain * 8 + pit


cdef int etc_cutoff(Search *s, int children[6][14], const int *flags, const uint64_t *keys,
                    const uint64_t *db_index, int *order, int n_moves, int child_depth,
                    int alpha, int beta) noexcept nogil:
    """Enhanced transposition cut-off: settle the node from what is known of its
    children before searching any (their buckets and database bytes were
    prefetched as they were made, so this costs little).

    Returns a value >= beta if one child is proven that good, a value <= alpha
    if every child is proven no better than alpha, else NO_CUTOFF, with the
    children proven no better than alpha moved to the end of the order.
    """
    cdef int i, j, pit, value, low, high, n_hopeless = 0, best_hopeless = -INF
    cdef int stored = child_depth if child_depth < TT_DEPTH_END else TT_DEPTH_END
    cdef int hopeless[6]
    cdef int was[6]
    cdef int *child
    cdef bint unresolved = False
    cdef tt_data e
    for i in range(n_moves):
        pit = order[i]
        child = children[pit]
        hopeless[i] = False
        # the child's value, from its own mover's view: exactly, or between low and high
        value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
        if flags[pit] & PLAY_GAME_OVER:
            low = high = value
        elif flags[pit] & CHILD_IN_DATABASE:
            low = high = value + s.egdb.values[db_index[pit]]
        elif keys[pit] and tt_probe(s.tt, keys[pit], &e) and (
                e.depth == stored or (e.bound & TT_RESOLVED and e.depth <= stored)):
            value += e.value
            low = value if e.bound & TT_LOWER else -INF
            high = value if e.bound & TT_UPPER else INF
            if not e.bound & TT_RESOLVED:
                unresolved = True
        else:
            continue
        if not flags[pit] & PLAY_EXTRA_TURN:
            low, high = -high, -low
        if low >= beta:
            if unresolved:
                s.horizon += 1
            return low
        if high <= alpha:
            hopeless[i] = True
            n_hopeless += 1
            if high > best_hopeless:
                best_hopeless = high
    if n_hopeless == n_moves:
        if unresolved:
            s.horizon += 1
        return best_hopeless
    if n_hopeless:
        memcpy(was, order, n_moves * sizeof(int))
        j = 0
        for i in range(n_moves):
            if not hopeless[i]:
                order[j] = was[i]
                j += 1
        for i in range(n_moves):
            if hopeless[i]:
                order[j] = was[i]
                j += 1
    return NO_CUTOFF
