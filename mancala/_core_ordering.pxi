# Move ordering and enhanced transposition cut-offs: the children of a node,
# made, keyed and sorted by one function, and the cut-off test over them.

cdef struct Children:
    int board[KALAH_PITS][KALAH_SLOTS]  # board[pit]: the position after pit, its mover at the bottom
    int flags[KALAH_PITS]               # flags[pit]: PLAY_* bits of pit, plus CHILD_IN_DATABASE
    uint64_t key[KALAH_PITS]            # key[pit]: the child's table key, its bucket prefetched; 0: none
    const signed char *db_value[KALAH_PITS]  # db_value[pit]: the child's database byte (if CHILD_IN_DATABASE)
    int order[2 * KALAH_PITS]           # the moves in search order, then those put off till last (ABDADA)
    int n_moves                         # legal moves: order[:n_moves]


cdef inline bint tabled(const Search *s, int depth, int seeds) noexcept nogil:
    """Whether a node of `seeds` seeds in its pits, `depth` moves from the horizon,
    uses the table: not close to the horizon, nor, in a solve, a few seeds above
    the endgame database (both search faster than a probe's cache miss)."""
    return s.config.use_tt and depth > TT_MIN_DEPTH and seeds > s.mode.untabled_seeds


cdef inline int order_key(int pit, int flags, int gain, int tt_move) noexcept nogil:
    """Higher first: the table's move, then extra turns, then store gain;
    ties go to the pit nearest the store (it disturbs the fewest other pits)."""
    return ((pit == tt_move) << 14) + ((flags & PLAY_EXTRA_TURN) << 12) + gain * 8 + pit


cdef inline void list_moves(const int *b, Children *c) noexcept nogil:
    """List b's moves in natural order in c.order, without making the children
    (with ordering off each is made when its turn comes: negamax, step 7)."""
    cdef int pit
    c.n_moves = 0
    for pit in range(KALAH_PITS):
        if b[pit]:
            c.key[pit] = 0
            c.order[c.n_moves] = pit
            c.n_moves += 1


cdef inline void make_children(Search *s, const int *b, int depth, int tt_move,
                               Children *c) noexcept nogil:
    """Make every child of b in c, and list the moves in c.order best first.

    The ordering needs the children's stores; making them all now also lets
    their table buckets and database bytes load while the siblings are searched.
    """
    cdef int sort_keys[KALAH_PITS]
    cdef int pit, j, k, flags, captured, gain, child_seeds
    cdef int diff = b[KALAH_STORE] - b[KALAH_OPP_STORE]
    cdef int seeds_left = kalah_row_sum(b) + kalah_row_sum(b + KALAH_OPP_PIT)
    cdef int *child
    c.n_moves = 0
    for pit in range(KALAH_PITS):
        if b[pit] == 0:
            continue
        child = c.board[pit]
        memcpy(child, b, KALAH_SLOTS * sizeof(int))
        flags = c.flags[pit] = kalah_play(child, pit, s.mode.capture, &captured)
        c.key[pit] = 0
        child_seeds = seeds_left - (child[KALAH_STORE] + child[KALAH_OPP_STORE]
                                    - b[KALAH_STORE] - b[KALAH_OPP_STORE])
        if child_seeds <= s.config.egdb.max_seeds and not flags & PLAY_GAME_OVER:
            # the database knows this child: fetch its byte now, read it when searched
            c.db_value[pit] = &s.config.egdb.level[child_seeds][egdb_rank(child, child_seeds)]
            __builtin_prefetch(c.db_value[pit])
            flags = c.flags[pit] = flags | CHILD_IN_DATABASE
        elif tabled(s, depth - 1, child_seeds) and not flags & PLAY_GAME_OVER:
            # the table is far bigger than the cache: ask for the child's bucket early
            c.key[pit] = tt_key(child)
            tt_prefetch(s.config.tt, c.key[pit])
        if flags & PLAY_EXTRA_TURN:
            gain = child[KALAH_STORE] - child[KALAH_OPP_STORE] - diff
        else:
            gain = child[KALAH_OPP_STORE] - child[KALAH_STORE] - diff
        k = order_key(pit, flags, gain, tt_move)
        j = c.n_moves
        while j > 0 and sort_keys[j - 1] < k:
            sort_keys[j] = sort_keys[j - 1]
            c.order[j] = c.order[j - 1]
            j -= 1
        sort_keys[j] = k
        c.order[j] = pit
        c.n_moves += 1


cdef int etc_cutoff(Search *s, Children *c, int child_depth, int alpha, int beta) noexcept nogil:
    """Enhanced transposition cut-off: settle the node from what is known of its
    children before searching any (their buckets and database bytes were
    prefetched as they were made, so this costs little).

    Returns a value >= beta if one child is proven that good, a value <= alpha
    if every child is proven no better than alpha, else NO_CUTOFF, with the
    children proven no better than alpha moved to the end of c.order.
    """
    cdef int i, j, pit, value, low, high, n_hopeless = 0, best_hopeless = -INF
    cdef int n_moves = c.n_moves
    cdef int stored = child_depth if child_depth < TT_DEPTH_END else TT_DEPTH_END
    cdef int hopeless[KALAH_PITS]
    cdef int was[KALAH_PITS]
    cdef int *child
    cdef bint unresolved = False
    cdef tt_data e
    for i in range(n_moves):
        pit = c.order[i]
        child = c.board[pit]
        hopeless[i] = False
        # the child's value, from its own mover's view: exactly, or between low and high
        value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
        if c.flags[pit] & PLAY_GAME_OVER:
            low = high = value
        elif c.flags[pit] & CHILD_IN_DATABASE:
            low = high = value + c.db_value[pit][0]
        elif c.key[pit] and tt_probe(s.config.tt, c.key[pit], &e) and (
                e.depth == stored or (e.bound & TT_RESOLVED and e.depth <= stored)):
            value += e.value
            low = value if e.bound & TT_LOWER else -INF
            high = value if e.bound & TT_UPPER else INF
            if not e.bound & TT_RESOLVED:
                unresolved = True
        else:
            continue
        if not c.flags[pit] & PLAY_EXTRA_TURN:
            low, high = -high, -low
        if low >= beta:
            if unresolved:
                s.stats.horizon += 1
            ps_etc(PS_ETC_HIGH)
            return low
        if high <= alpha:
            hopeless[i] = True
            n_hopeless += 1
            if high > best_hopeless:
                best_hopeless = high
    if n_hopeless == n_moves:
        if unresolved:
            s.stats.horizon += 1
        ps_etc(PS_ETC_LOW)
        return best_hopeless
    ps_etc(PS_ETC_NONE)
    if n_hopeless:
        memcpy(was, c.order, n_moves * sizeof(int))
        j = 0
        for i in range(n_moves):
            if not hopeless[i]:
                c.order[j] = was[i]
                j += 1
        for i in range(n_moves):
            if hopeless[i]:
                c.order[j] = was[i]
                j += 1
    return NO_CUTOFF
