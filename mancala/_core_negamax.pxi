# The alpha-beta search itself: negamax.

cdef int negamax(Search *s, const int *b, int depth, int alpha, int beta, int ply,
                 uint64_t key) noexcept nogil:
    """Fail-soft negamax value of b (mover's view) searched `depth` more moves.

    key is b's table key if the caller has it (and prefetched its bucket), else 0.

    1. count the node, poll the limits
    2. terminal: exact final margin; few seeds left: the endgame database's
    3. leaf: evaluation (a horizon: the value is not the game's)
    4. futility: the seeds left in play cannot bring the value inside the window
    5. probe the table
    6. order the moves (or keep the natural order); a child the table
       already proves good enough cuts at once (enhanced transposition cut-off)
    7. search the children: an extra turn keeps the window and the sign;
       a child another thread is searching waits till last (ABDADA)
    8. store the result, marked resolved if no horizon was met below
    """
    cdef int children[6][14]
    cdef int child_flags[6]
    cdef uint64_t child_keys[6]
    cdef uint64_t child_db[6]
    cdef int order[12]      # the moves in search order, then those put off till last
    cdef int keys[6]
    cdef int *child
    cdef uint64_t *busy
    cdef int pit, n_moves = 0, n_listed, i, j, k, flags, captured, gain, value, best = -INF
    cdef int best_move = NO_MOVE, tt_move = NO_MOVE, alpha0 = alpha
    cdef int stored_depth, bound, seeds_left, mine, theirs, child_seeds
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
    if s.egdb.values != NULL and seeds_left <= s.egdb.max_seeds and ply > 0:
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
    if s.use_tt and depth > TT_MIN_DEPTH:
        if key == 0:
            key = tt_key(b)
        if tt_probe(s.tt, key, &e):
            s.tt_hits += 1
            tt_move = e.move
            if ply > 0 and (e.depth == stored_depth or
                            (e.bound & TT_RESOLVED and e.depth <= stored_depth)):
                value = e.value + diff
                if ((e.bound & TT_EXACT) == TT_EXACT
                        or (e.bound & TT_LOWER and value >= beta)
                        or (e.bound & TT_UPPER and value <= alpha)):
                    if not e.bound & TT_RESOLVED:
                        s.horizon += 1
                    return value

    if s.ordering:                                                      # 6
        # make every child now (children[pit]): the ordering needs their stores
        for pit in range(KALAH_PITS):
            if b[pit] == 0:
                continue
            child = children[pit]
            memcpy(child, b, KALAH_SLOTS * sizeof(int))
            flags = child_flags[pit] = kalah_play(child, pit, s.capture, &captured)
            child_keys[pit] = 0
            child_seeds = seeds_left - (child[KALAH_STORE] + child[KALAH_OPP_STORE]
                                        - b[KALAH_STORE] - b[KALAH_OPP_STORE])
            if s.egdb.values != NULL and child_seeds <= s.egdb.max_seeds and not flags & PLAY_GAME_OVER:
                # the database knows this child: fetch its byte now, read it when searched
                child_db[pit] = egdb_index(child, child_seeds)
                __builtin_prefetch(&s.egdb.values[child_db[pit]])
                flags = child_flags[pit] = flags | CHILD_IN_DATABASE
            elif s.use_tt and depth - 1 > TT_MIN_DEPTH and not flags & PLAY_GAME_OVER:
                # the table is far bigger than the cache: ask for the child's bucket early
                child_keys[pit] = tt_key(child)
                tt_prefetch(s.tt, child_keys[pit])
            if flags & PLAY_EXTRA_TURN:
                gain = child[KALAH_STORE] - child[KALAH_OPP_STORE] - diff
            else:
                gain = child[KALAH_OPP_STORE] - child[KALAH_STORE] - diff
            k = order_key(pit, flags, gain, tt_move)
            j = n_moves
            while j > 0 and keys[j - 1] < k:
                keys[j] = keys[j - 1]
                order[j] = order[j - 1]
                j -= 1
            keys[j] = k
            order[j] = pit
            n_moves += 1
        if s.use_tt and depth - 1 > TT_MIN_DEPTH and ply > 0:
            value = etc_cutoff(s, children, child_flags, child_keys, child_db, order, n_moves,
                               depth - 1, alpha, beta)
            if value != NO_CUTOFF:
                return value
    else:
        for pit in range(KALAH_PITS):
            if b[pit]:
                order[n_moves] = pit
                n_moves += 1

    n_listed = n_moves
    i = 0
    while i < n_listed:                                                 # 7
        pit = order[i]
        i += 1
        child = children[pit]
        child_key = 0
        if s.ordering:
            flags = child_flags[pit]
            child_key = child_keys[pit]
        else:
            # natural order makes each child only when its turn comes
            memcpy(child, b, KALAH_SLOTS * sizeof(int))
            flags = kalah_play(child, pit, s.capture, &captured)
        if flags & CHILD_IN_DATABASE:
            # its exact value is one byte away: no call needed
            s.nodes += 1
            value = child[KALAH_STORE] - child[KALAH_OPP_STORE] + s.egdb.values[child_db[pit]]
            if not flags & PLAY_EXTRA_TURN:
                value = -value
        elif depth == 1:
            # the children are leaves: visit them here rather than with a call each
            s.nodes += 1
            if flags & PLAY_GAME_OVER or s.evaluation == EVAL_STORE:
                # a finished child is swept already: its stores are the final margin
                value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
            else:
                value = evaluate_view(child, s.capture, s.evaluation)
            if not flags & PLAY_GAME_OVER:
                s.horizon += 1
            if not flags & PLAY_EXTRA_TURN:
                value = -value
        else:
            busy = NULL
            if child_key and s.busy != NULL and i <= n_moves:
                busy = &s.busy[child_key & (BUSY_SLOTS - 1)]
                if i > 1 and load_key(busy) == child_key:
                    # another thread is in this subtree: take it last, when the table may know it
                    order[n_listed] = pit
                    n_listed += 1
                    continue
                store_key(busy, child_key)
            if flags & PLAY_EXTRA_TURN:
                value = negamax(s, child, depth - 1, alpha, beta, ply + 1, child_key)
            else:
                value = -negamax(s, child, depth - 1, -beta, -alpha, ply + 1, child_key)
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

    if s.use_tt and depth > TT_MIN_DEPTH:                               # 8
        bound = TT_LOWER if best >= beta else (TT_EXACT if best > alpha0 else TT_UPPER)
        if s.horizon == horizon0:
            bound |= TT_RESOLVED
        tt_store(s.tt, key, best - diff, stored_depth, bound, best_move, s.nodes - nodes0)
    if ply == 0:
        s.root_move = best_move
    return best
