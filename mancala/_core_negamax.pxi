# The alpha-beta search itself: negamax, a short numbered recipe over the
# pieces of the files before (the clock, the children, the cut-off test).

cdef inline int value_without_search(Search *s, const Children *c, int pit, int ply) noexcept nogil:
    """The value, from the parent's mover's view, of a child known without a
    call: one in the endgame database, or a leaf (the parent has depth 1).
    Counts the child as a node (at ply), and a leaf's horizon."""
    cdef const int *child = c.board[pit]
    cdef int flags = c.flags[pit], value
    s.stats.nodes += 1
    ps_visit_board(ply, child)
    if flags & CHILD_IN_DATABASE:
        # its exact value is one byte away
        value = child[KALAH_STORE] - child[KALAH_OPP_STORE] + c.db_value[pit][0]
    else:
        if flags & PLAY_GAME_OVER or s.mode.evaluation == EVAL_STORE:
            # a finished child is swept already: its stores are the final margin
            value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
        else:
            value = evaluate_view(child, s.mode.capture, s.mode.evaluation)
        if not flags & PLAY_GAME_OVER:
            s.stats.horizon += 1
    return value if flags & PLAY_EXTRA_TURN else -value


cdef inline void keep_root(Search *s, int pit, int best, int best_move) noexcept nogil:
    """At the root, after a child's search finished: once the previous
    iteration's best move has been searched in this one, the best so far is
    sound to play if the iteration is stopped (it is that move, or one whose
    finished search proved it better)."""
    if pit == s.root.prev_move:
        s.root.prev_searched = True
    if s.root.prev_searched:
        s.root.partial_move = best_move
        s.root.partial_score = best


cdef inline bint stopped_at_visit(Search *s) noexcept nogil:
    """Step 1 of a node: count it and poll the limits; True once the search is stopped."""
    s.stats.nodes += 1
    if poll_stop(s):
        s.stop.stopped = True
    return s.stop.stopped


cdef inline int search_child(Search *s, Children *c, int pit, int depth, int alpha, int beta,
                             int ply, uint64_t key) noexcept nogil:
    """A child's value from the parent's mover's view, searched within (alpha, beta):
    an extra turn keeps the window and the sign."""
    if c.flags[pit] & PLAY_EXTRA_TURN:
        return negamax(s, c.board[pit], depth, alpha, beta, ply + 1, key)
    return -negamax(s, c.board[pit], depth, -beta, -alpha, ply + 1, key)


cdef inline int search_children(Search *s, const int *b, Children *c, int depth, int alpha,
                                int beta, int ply, int *best_move) noexcept nogil:
    """Search b's children in c.order within (alpha, beta), fail-soft: the best
    value, its move in *best_move (0 and NO_MOVE once the search is stopped:
    s.stop.stopped). An extra turn keeps the window and the sign; a child
    another thread is searching waits till last (ABDADA); at the root, a
    stopped iteration's move is kept once proven (keep_root)."""
    cdef uint64_t *busy
    cdef uint64_t child_key
    cdef int pit, captured, value, best = -INF, alpha0 = alpha
    cdef int n_listed = c.n_moves, i = 0
    cdef uint64_t nodes0 = s.stats.nodes, nodes_before = nodes0     # for proof_stats.h only:
    cdef uint64_t waste0 = ps_waste_now(), waste_before = waste0    #   nodes and waste so far
    best_move[0] = NO_MOVE
    while i < n_listed:
        pit = c.order[i]
        i += 1
        nodes_before = s.stats.nodes
        waste_before = ps_waste_now()
        if not s.config.ordering:
            # natural order makes each child only when its turn comes
            memcpy(c.board[pit], b, KALAH_SLOTS * sizeof(int))
            c.flags[pit] = kalah_play(c.board[pit], pit, s.mode.capture, &captured)
        if c.flags[pit] & CHILD_IN_DATABASE or depth == 1:
            value = value_without_search(s, c, pit, ply + 1)
        else:
            child_key = c.key[pit]
            busy = NULL
            if child_key and s.mode.defer and i <= c.n_moves:
                busy = busy_slot(s, child_key)
                if i > 1 and load_key(busy) == child_key:
                    # another thread is in this subtree: take it last, when the table may know it
                    c.order[n_listed] = pit
                    n_listed += 1
                    continue
                store_key(busy, child_key)
            if s.mode.pvs and i > 1 and beta - alpha > 1:
                # PVS: is this child better than the best so far? a full window only if so
                value = search_child(s, c, pit, depth - 1, alpha, alpha + 1, ply, child_key)
                if alpha < value < beta and not s.stop.stopped:
                    value = search_child(s, c, pit, depth - 1, alpha, beta, ply, child_key)
            else:
                value = search_child(s, c, pit, depth - 1, alpha, beta, ply, child_key)
            if busy != NULL:
                clear_key(busy, child_key)
        if s.stop.stopped:
            best_move[0] = NO_MOVE
            return 0
        if value > best:
            best = value
            best_move[0] = pit
            if best > alpha:
                alpha = best
            if alpha >= beta and s.config.prune:
                ps_cut(i - 1, nodes_before - nodes0, waste0, waste_before, ps_seeds(b))
                break
        if ply == 0 and s.mode.keep_partial and best > alpha0:
            keep_root(s, pit, best, best_move[0])
    return best


cdef inline void store_node(Search *s, uint64_t key, int diff, int stored_depth, int best,
                            int best_move, int alpha0, int beta, uint64_t horizon0,
                            uint64_t nodes0) noexcept nogil:
    """A node's searched value into the table, relative to its stores (diff): a
    bound by the window (alpha0, beta) it was searched in, marked resolved if no
    horizon was met below (s.stats.horizon still horizon0)."""
    cdef int bound = TT_LOWER if best >= beta else (TT_EXACT if best > alpha0 else TT_UPPER)
    if s.stats.horizon == horizon0:
        bound |= TT_RESOLVED
    tt_store(s.config.tt, key, best - diff, stored_depth, bound, best_move, s.stats.nodes - nodes0)


cdef int negamax(Search *s, const int *b, int depth, int alpha, int beta, int ply,
                 uint64_t key) noexcept nogil:
    """Fail-soft negamax value of b (mover's view) searched `depth` more moves,
    below the root (search_root has the root's own work).

    key is b's table key if the caller has it (and prefetched its bucket), else 0.

    1. count the node, poll the limits
    2. terminal: exact final margin; few seeds left: the endgame database's
    3. leaf: evaluation (a horizon: the value is not the game's)
    4. futility: the seeds left in play cannot bring the value inside the window
    5. probe the table (where tabled: not close to the horizon, nor, in a
       solve, a few seeds above the endgame database)
    6. make and order the children (make_children; or keep the natural
       order: list_moves); a child the table already proves good enough
       cuts at once (etc_cutoff)
    7. search the children (search_children)
    8. store the result (store_node)
    """
    cdef Children c
    cdef int value, best, best_move, tt_move = NO_MOVE
    cdef int stored_depth, seeds_left, mine, theirs
    cdef bint table
    cdef int diff = b[KALAH_STORE] - b[KALAH_OPP_STORE]
    cdef uint64_t horizon0 = s.stats.horizon, nodes0 = s.stats.nodes
    cdef tt_data e

    if stopped_at_visit(s):                                             # 1
        return 0

    mine = kalah_row_sum(b)
    theirs = kalah_row_sum(b + KALAH_OPP_PIT)
    seeds_left = mine + theirs
    ps_visit(ply, seeds_left)
    if mine == 0 or theirs == 0:                                        # 2
        ps_end(PS_END_TERMINAL)
        return diff + mine - theirs
    if seeds_left <= s.config.egdb.max_seeds:
        ps_end(PS_END_DATABASE)
        return diff + egdb_value(&s.config.egdb, b, seeds_left)        # the game's value
    if depth == 0 or ply >= MAX_PLY:                                    # 3
        ps_end(PS_END_HORIZON)
        s.stats.horizon += 1
        return evaluate_view(b, s.mode.capture, s.mode.evaluation)
    if s.mode.futility:                                                 # 4
        if diff + seeds_left <= alpha:
            ps_end(PS_END_FUTILITY)
            return diff + seeds_left
        if diff - seeds_left >= beta:
            ps_end(PS_END_FUTILITY)
            return diff - seeds_left

    stored_depth = depth if depth < TT_DEPTH_END else TT_DEPTH_END       # 5
    table = tabled(s, depth, seeds_left)
    if table:
        if key == 0:
            key = tt_key(b)
        if tt_probe(s.config.tt, key, &e):
            s.stats.tt_hits += 1
            tt_move = e.move
            if (e.depth == stored_depth or (s.mode.deeper_tt and e.depth > stored_depth) or
                    (e.bound & TT_RESOLVED and e.depth <= stored_depth)):
                value = e.value + diff
                if ((e.bound & TT_EXACT) == TT_EXACT
                        or (e.bound & TT_LOWER and value >= beta)
                        or (e.bound & TT_UPPER and value <= alpha)):
                    if not e.bound & TT_RESOLVED:
                        s.stats.horizon += 1
                    ps_probe(PS_PROBE_CUT, e.generation != s.config.tt.generation)
                    ps_end(PS_END_TABLE)
                    return value
                ps_probe(PS_PROBE_SIDE, e.generation != s.config.tt.generation)
            else:
                ps_probe(PS_PROBE_DEPTH, e.generation != s.config.tt.generation)
        else:
            ps_probe(PS_PROBE_MISS, 0)
    else:
        ps_probe(PS_PROBE_UNTABLED, 0)

    if s.config.ordering:                                               # 6
        make_children(s, b, depth, tt_move, &c)
        if table and depth - 1 > TT_MIN_DEPTH:
            value = etc_cutoff(s, &c, depth - 1, alpha, beta)
            if value != NO_CUTOFF:
                ps_end(PS_END_ETC)
                return value
    else:
        list_moves(b, &c)

    ps_searched(seeds_left)
    best = search_children(s, b, &c, depth, alpha, beta, ply, &best_move)    # 7
    if s.stop.stopped:
        return 0
    ps_node_end(best, alpha, beta, best_move, tt_move, NO_MOVE)
    if table:                                                           # 8
        store_node(s, key, diff, stored_depth, best, best_move, alpha, beta, horizon0, nodes0)
    return best


cdef int search_root(Search *s, const int *b, int depth, int alpha, int beta) noexcept nogil:
    """The root of an iteration or a probe: negamax's steps, less what would
    answer it without a move (the database, futility, the table's value, an
    enhanced cut-off: the table gives only its move). The best move is kept in
    s.root.move; a stopped iteration's, once proven, by search_children. A
    finished game, or depth 0, has no move to choose: negamax values it."""
    cdef Children c
    cdef int best, best_move, tt_move = NO_MOVE, stored_depth
    cdef int mine = kalah_row_sum(b), theirs = kalah_row_sum(b + KALAH_OPP_PIT)
    cdef bint table
    cdef uint64_t key = 0, horizon0 = s.stats.horizon, nodes0 = s.stats.nodes
    cdef tt_data e
    if mine == 0 or theirs == 0 or depth == 0:
        return negamax(s, b, depth, alpha, beta, 0, 0)

    if stopped_at_visit(s):                                             # 1
        return 0
    ps_visit(0, mine + theirs)
    stored_depth = depth if depth < TT_DEPTH_END else TT_DEPTH_END       # 5: its move
    table = tabled(s, depth, mine + theirs)
    if table:
        key = tt_key(b)
        if tt_probe(s.config.tt, key, &e):
            s.stats.tt_hits += 1
            tt_move = e.move
    if s.config.ordering:                                               # 6
        make_children(s, b, depth, tt_move, &c)
    else:
        list_moves(b, &c)
    ps_searched(mine + theirs)
    best = search_children(s, b, &c, depth, alpha, beta, 0, &best_move)     # 7
    if s.stop.stopped:
        return 0
    ps_node_end(best, alpha, beta, best_move, tt_move, NO_MOVE)
    if table:                                                           # 8
        store_node(s, key, b[KALAH_STORE] - b[KALAH_OPP_STORE], stored_depth, best, best_move,
                   alpha, beta, horizon0, nodes0)
    s.root.move = best_move
    return best
