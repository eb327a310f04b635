# The alpha-beta search itself: negamax, a short numbered recipe over the
# pieces of the files before (the clock, the children, the cut-off test).

cdef inline int value_without_search(Search *s, const Children *c, int pit) noexcept nogil:
    """The value, from the parent's mover's view, of a child known without a
    call: one in the endgame database, or a leaf (the parent has depth 1).
    Counts the child as a node, and a leaf's horizon."""
    cdef const int *child = c.board[pit]
    cdef int flags = c.flags[pit], value
    s.nodes += 1
    if flags & CHILD_IN_DATABASE:
        # its exact value is one byte away
        value = child[KALAH_STORE] - child[KALAH_OPP_STORE] + c.db_value[pit][0]
    else:
        if flags & PLAY_GAME_OVER or s.evaluation == EVAL_STORE:
            # a finished child is swept already: its stores are the final margin
            value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
        else:
            value = evaluate_view(child, s.capture, s.evaluation)
        if not flags & PLAY_GAME_OVER:
            s.horizon += 1
    return value if flags & PLAY_EXTRA_TURN else -value


cdef inline void keep_root(Search *s, int pit, int best, int best_move) noexcept nogil:
    """At the root, after a child's search finished: once the previous
    iteration's best move has been searched in this one, the best so far is
    sound to play if the iteration is stopped (it is that move, or one whose
    finished search proved it better)."""
    if pit == s.prev_root_move:
        s.prev_searched = True
    if s.prev_searched:
        s.partial_move = best_move
        s.partial_score = best


cdef inline int search_child(Search *s, Children *c, int pit, int depth, int alpha, int beta,
                             int ply, uint64_t key) noexcept nogil:
    """A child's value from the parent's mover's view, searched within (alpha, beta):
    an extra turn keeps the window and the sign."""
    if c.flags[pit] & PLAY_EXTRA_TURN:
        return negamax(s, c.board[pit], depth, alpha, beta, ply + 1, key)
    return -negamax(s, c.board[pit], depth, -beta, -alpha, ply + 1, key)


cdef int negamax(Search *s, const int *b, int depth, int alpha, int beta, int ply,
                 uint64_t key) noexcept nogil:
    """Fail-soft negamax value of b (mover's view) searched `depth` more moves.

    key is b's table key if the caller has it (and prefetched its bucket), else 0.

    1. count the node, poll the limits
    2. terminal: exact final margin; few seeds left: the endgame database's
    3. leaf: evaluation (a horizon: the value is not the game's)
    4. futility: the seeds left in play cannot bring the value inside the window
    5. probe the table (not close to the horizon, nor, in a solve, a few
       seeds above the endgame database: both search faster than a probe)
    6. make and order the children (make_children; or keep the natural
       order: list_moves); a child the table already proves good enough
       cuts at once (etc_cutoff)
    7. search the children: an extra turn keeps the window and the sign;
       a child another thread is searching waits till last (ABDADA)
    8. store the result, marked resolved if no horizon was met below
    """
    cdef Children c
    cdef uint64_t *busy
    cdef int pit, n_listed, i, captured, value, best = -INF
    cdef int best_move = NO_MOVE, tt_move = NO_MOVE, alpha0 = alpha
    cdef int stored_depth, bound, seeds_left, mine, theirs
    cdef bint table
    cdef int diff = b[KALAH_STORE] - b[KALAH_OPP_STORE]
    cdef uint64_t child_key, horizon0 = s.horizon, nodes0 = s.nodes
    cdef tt_data e

    s.nodes += 1                                                        # 1
    if poll_stop(s):
        s.stopped = True
    if s.stopped:
        return 0

    mine = kalah_row_sum(b)
    theirs = kalah_row_sum(b + KALAH_OPP_PIT)
    seeds_left = mine + theirs
    if mine == 0 or theirs == 0:                                        # 2
        return diff + mine - theirs
    if seeds_left <= s.egdb.max_seeds and ply > 0:
        return diff + egdb_value(&s.egdb, b, seeds_left)                # the game's value
    if depth == 0 or ply >= MAX_PLY:                                    # 3
        s.horizon += 1
        return evaluate_view(b, s.capture, s.evaluation)
    if s.futility and ply > 0:                                          # 4
        if diff + seeds_left <= alpha:
            return diff + seeds_left
        if diff - seeds_left >= beta:
            return diff - seeds_left

    stored_depth = depth if depth < TT_DEPTH_END else TT_DEPTH_END       # 5
    table = s.use_tt and depth > TT_MIN_DEPTH and seeds_left > s.untabled_seeds
    if table:
        if key == 0:
            key = tt_key(b)
        if tt_probe(s.tt, key, &e):
            s.tt_hits += 1
            tt_move = e.move
            if ply > 0 and (e.depth == stored_depth or (s.deeper_tt and e.depth > stored_depth) or
                            (e.bound & TT_RESOLVED and e.depth <= stored_depth)):
                value = e.value + diff
                if ((e.bound & TT_EXACT) == TT_EXACT
                        or (e.bound & TT_LOWER and value >= beta)
                        or (e.bound & TT_UPPER and value <= alpha)):
                    if not e.bound & TT_RESOLVED:
                        s.horizon += 1
                    return value

    if s.ordering:                                                      # 6
        make_children(s, b, depth, tt_move, &c)
        if table and depth - 1 > TT_MIN_DEPTH and ply > 0:
            value = etc_cutoff(s, &c, depth - 1, alpha, beta)
            if value != NO_CUTOFF:
                return value
    else:
        list_moves(b, &c)

    n_listed = c.n_moves
    i = 0
    while i < n_listed:                                                 # 7
        pit = c.order[i]
        i += 1
        if not s.ordering:
            # natural order makes each child only when its turn comes
            memcpy(c.board[pit], b, KALAH_SLOTS * sizeof(int))
            c.flags[pit] = kalah_play(c.board[pit], pit, s.capture, &captured)
        if c.flags[pit] & CHILD_IN_DATABASE or depth == 1:
            value = value_without_search(s, &c, pit)
        else:
            child_key = c.key[pit]
            busy = NULL
            if child_key and s.busy != NULL and i <= c.n_moves:
                busy = busy_slot(s, child_key)
                if i > 1 and load_key(busy) == child_key:
                    # another thread is in this subtree: take it last, when the table may know it
                    c.order[n_listed] = pit
                    n_listed += 1
                    continue
                store_key(busy, child_key)
            if s.pvs and i > 1 and beta - alpha > 1:
                # PVS: is this child better than the best so far? a full window only if so
                value = search_child(s, &c, pit, depth - 1, alpha, alpha + 1, ply, child_key)
                if alpha < value < beta and not s.stopped:
                    value = search_child(s, &c, pit, depth - 1, alpha, beta, ply, child_key)
            else:
                value = search_child(s, &c, pit, depth - 1, alpha, beta, ply, child_key)
            if busy != NULL:
                clear_key(busy, child_key)
        if s.stopped:
            return 0
        if value > best:
            best = value
            best_move = pit
            if best > alpha:
                alpha = best
            if alpha >= beta and s.prune:
                break
        if ply == 0 and s.keep_partial and best > alpha0:
            keep_root(s, pit, best, best_move)

    if table:                                                           # 8
        bound = TT_LOWER if best >= beta else (TT_EXACT if best > alpha0 else TT_UPPER)
        if s.horizon == horizon0:
            bound |= TT_RESOLVED
        tt_store(s.tt, key, best - diff, stored_depth, bound, best_move, s.nodes - nodes0)
    if ply == 0:
        s.root_move = best_move
    return best
