# Searcher: the search state and table behind mancala.Engine.

cdef class Searcher:
    """The search state and transposition table behind mancala.Engine.

    Every method takes the position as a BoardBase (a mancala.Board): its C
    slots, side to move and rule are read as they are, valid by construction.
    One entry searches: search(board, request, role), a SearchRequest in and
    a Found out (mancala.search_values); the GIL is released while it searches.
    One thread at a time: a call while another thread is inside a method raises
    RuntimeError (mancala.Engine serialises its calls with a lock).
    """

    def __cinit__(self, hash_mb=0, ordering=True, futility=True):
        cdef double mb = hash_mb
        cdef uint64_t buckets
        cdef int failed = 0
        memset(&self.s, 0, sizeof(self.s))
        self.s.config.tt = &self.table
        self.s.config.egdb.max_seeds = -1
        if not 0 <= mb <= MAX_HASH_MB:
            raise InvalidLimitError(f"hash_mb is 0 (no table) to {MAX_HASH_MB} MB, not {quote(hash_mb)}")
        self.s.config.ordering = ordering
        self.s.config.futility = futility
        self.s.config.prune = True
        self.s.config.abort = &self._abort
        if mb > 0:
            buckets = max(<uint64_t> 1, <uint64_t> (mb * 1024 * 1024 / sizeof(tt_bucket)))
            with nogil:     # touching every page takes a while (0.6 s for 256 MB): others run
                failed = tt_alloc(&self.table, buckets)
        if failed:
            raise MemoryError(f"cannot allocate a {hash_mb} MB transposition table")
        self.s.config.use_tt = self.table.buckets != NULL

    def __dealloc__(self):
        drop_interrupt(&self.s)
        tt_free(&self.table)
        free(self._busy)
        free(self._share_memory)

    cdef int _enter(self) except -1:
        """Mark the searcher in use, or refuse: its state is one C struct."""
        if self._running:
            raise RuntimeError("this Searcher is in use by another thread; "
                               "give each thread its own, or call it under a lock")
        self._running = True
        return 0

    def share_table(self, Searcher owner not None):
        """Search in owner's table from now on, and stop when owner.abort() is called.

        Entries are written lock-free (tt.h): torn ones are misses, never lies.
        Sharers searching the same position split the work: each marks the
        subtrees it is in, and the others put those off till last.
        """
        self._enter()
        try:
            self._share_table(owner)
        finally:
            self._running = False

    def _share_table(self, Searcher owner):
        if owner._busy == NULL:
            owner._busy = <uint64_t *> calloc(BUSY_SLOTS, sizeof(uint64_t))
            if owner._busy == NULL:
                raise MemoryError()
            owner.s.config.busy = owner._busy
        if owner._share == NULL:
            # a cache line of its own: every thread adds to it at its polls
            owner._share_memory = calloc(1, sizeof(SearchShare) + 2 * CACHE_LINE)
            if owner._share_memory == NULL:
                raise MemoryError()
            owner._share = <SearchShare *> ((<uintptr_t> owner._share_memory + 2 * CACHE_LINE - 1)
                                            & ~(<uintptr_t> CACHE_LINE - 1))
            owner.s.config.share = owner._share
        self.s.config.tt = &owner.table
        self.s.config.use_tt = owner.table.buckets != NULL
        self.s.config.abort = &owner._abort
        self.s.config.busy = owner._busy
        self.s.config.share = owner._share
        self._table_owner = owner

    def begin_shared(self):
        """Before a search on several threads (this searcher and those that share its
        table, see search's shared): no nodes counted and no depth finished yet."""
        if self._share == NULL:
            raise RuntimeError("no searcher shares this one's table")
        self._share.nodes = 0
        self._share.deepest = 0
        self._share.clock = this_threads_clock()    # the first thread's: it calls this

    def abort(self, bint stop=True):
        """Stop (or, with False, allow again) the searches that watch this searcher."""
        store_flag(&self._abort, stop)

    def set_endgame(self, levels):
        """Answer positions with few seeds in the pits from levels (a sequence of
        buffers, level n's values by rank: csrc/egdb.h), those with at most
        len(levels) - 1 seeds; None or empty: no database."""
        self._enter()
        try:
            self._set_endgame(levels)
        finally:
            self._running = False

    def _set_endgame(self, levels):
        views = []
        if levels:
            fill_table(&self.s.config.egdb, views, levels)
        else:
            memset(&self.s.config.egdb, 0, sizeof(self.s.config.egdb))
            self.s.config.egdb.max_seeds = -1
        self._egdb_owner = views

    @property
    def table_bytes(self):
        return self.s.config.tt.n_buckets * sizeof(tt_bucket)

    @property
    def nodes(self):
        """Nodes of the last search."""
        return self.s.stats.nodes

    @property
    def tt_hits(self):
        """Table probes that found their position in the last search."""
        return self.s.stats.tt_hits

    def clear(self):
        """Empty the table."""
        self._enter()
        try:
            with nogil:
                tt_clear(self.s.config.tt)
        finally:
            self._running = False

    def hashfull(self):
        """Per mille of the first 1000 buckets' entries in use."""
        cdef uint64_t i, used = 0, n
        cdef int w
        if self.s.config.tt.buckets == NULL:
            return 0
        n = min(<uint64_t> 1000, self.s.config.tt.n_buckets)
        for i in range(n):
            for w in range(TT_WAYS):
                if self.s.config.tt.buckets[i].way[w].data:
                    used += 1
        return <int> (used * 1000 // (TT_WAYS * n))

    cdef int _setup(self, BoardBase board, int evaluation, int *view) except -1:
        """The prologue of a search: board as its mover sees it, and the search's mode:
        its rule, the evaluation, futility where it is valid, the rest off."""
        board_view(board, view)
        memset(&self.s.mode, 0, sizeof(self.s.mode))
        self.s.mode.capture = board._capture
        self.s.mode.evaluation = check_code(evaluation, EVALUATIONS, "evaluation")
        # futility cuts with bounds on the store difference: valid for evaluations that
        # stay within the seeds in the pits (store, learned), not for positional
        self.s.mode.futility = self.s.config.futility and self.s.mode.evaluation != EVAL_POSITIONAL
        self.s.mode.untabled_seeds = -1
        return 0

    def evaluate(self, BoardBase board not None, evaluation):
        """The static evaluation (an index into EVALUATIONS) from the side to move's view."""
        cdef int v[KALAH_SLOTS]
        board_view(board, v)
        return evaluate_view(v, board._capture, check_code(evaluation, EVALUATIONS, "evaluation"))

    cdef int _load(self, BoardBase board, object request, object role, int *view) except -1:
        """Copy request (a SearchRequest) and role (this thread's SearchRole) into
        s.mode and s.limits, and board, as its mover sees it, into view: the one
        place a search's numbers enter the core, each by its name."""
        cdef double soft = request.soft_time
        cdef uint64_t nodes = request.nodes
        cdef int play = request.play
        cdef bint shared = role.shared, helper = role.helper
        self._setup(board, EVALUATIONS.index(request.evaluation), view)
        if shared and self.s.config.share == NULL:
            raise RuntimeError("a shared search needs a searcher that shares a table")
        self.s.limits.signals = on_main_thread()
        self.s.limits.clock = self.s.config.share.clock if shared else this_threads_clock()
        begin(&self.s, request.time, 0 if shared else nodes, not helper, role.started)
        self.s.mode.shared = shared
        self.s.mode.helper = shared and helper
        # ABDADA's marks live in the busy table of searchers that share one
        self.s.mode.defer = role.defer and self.s.config.busy != NULL
        if shared and nodes:
            self.s.limits.shared_node_limit = nodes
            # each thread may pass the total by its nodes between two polls
            self.s.limits.poll_every = max(1, min(<uint64_t> POLL_CLOCK, nodes // SHARED_POLLS))
            self.s.limits.next_poll = self.s.limits.poll_every
        if soft > 0 and not self.s.mode.helper:
            self.s.limits.soft_deadline = self.s.limits.started + soft
            if play & PLAY_CLOCK:
                self.s.clock.soft_base = soft
        self.s.mode.keep_partial = request.keep_partial
        self.s.mode.deeper_tt = play & PLAY_DEEPER_TT != 0
        self.s.mode.pvs = play & PLAY_PVS != 0
        self.s.mode.aspiration = ASPIRATION_WINDOW if play & PLAY_ASPIRATION else 0
        if request.beta is not None and self.s.config.egdb.max_seeds >= 0:
            # just above the database a position's children are mostly one byte each:
            # searched again, it costs less than a table probe (a cache miss)
            self.s.mode.untabled_seeds = self.s.config.egdb.max_seeds + TT_DB_MARGIN
        return 0

    def search(self, BoardBase board not None, request, role=None):
        """Answer request (a mancala.search_values.SearchRequest) for board, as
        this thread's role (a SearchRole; None: alone): a Found.

        A deepening search: iterative deepening to request.depth, the last
        finished iteration's score, move and depth (move None if none finished);
        request.progress(depth, score, move, nodes, exact) is called after each
        finished iteration, and an exception it raises stops the search and is
        raised here. A stopped iteration's root move is played when proven
        better with request.keep_partial (see keep_root); request.play: the play
        mode's parts (PLAY_* flags); 0, the exact-depth mode: a fresh searcher's
        nodes are the same run after run.

        A bound question (request.beta): a null-window search to the end of the
        game, is the value >= beta? Its score is a fail-soft bound (>= beta: a
        lower bound, reached by move; else an upper bound), finished False if a
        limit stopped it first. The search over the margin (MTD(f)) lives in
        mancala.solving.

        A shared role (after begin_shared on the table's owner): one of several
        threads searching the same position at once in one table; the node
        limit is all of theirs together, progress is called by the first to
        finish each depth (Found.first says whether this one was, for the depth
        it answers with), and with defer each puts off the subtrees another is
        in (ABDADA). A helper keeps no time of its own (no soft limit) and
        leaves the table's generation alone.
        """
        cdef int v[KALAH_SLOTS]
        cdef Outcome out
        cdef int max_depth, beta, value = 0
        cdef bint iterative, question
        # imported here: mancala.search_values imports this module
        from mancala.search_values import Found, SearchRequest, SearchRole
        if not isinstance(request, SearchRequest):
            raise TypeError(f"search takes a SearchRequest, not {quote(request)}")
        role = SearchRole() if role is None else role
        question = request.beta is not None
        beta = request.beta if question else 0
        max_depth = check_depth(request.depth, 1)
        iterative = request.iterative
        self._enter()
        try:
            self._load(board, request, role, v)
            self.s.root.progress = NULL if request.progress is None or question \
                else <PyObject *> request.progress
            try:
                with nogil:
                    if question:
                        value = search_root(&self.s, v, SOLVE_DEPTH, beta - 1, beta)
                    else:
                        out = deepen(&self.s, v, max_depth, iterative)
            finally:
                self.s.root.progress = NULL
                if role.shared:
                    shared_nodes(&self.s)
            if self.s.stop.interrupted:
                raise_interrupt(&self.s)
        finally:
            self._running = False
        if question:
            if self.s.stop.stopped:
                return Found(nodes=self.s.stats.nodes, tt_hits=self.s.stats.tt_hits)
            return Found(score=value, move=None if self.s.root.move == NO_MOVE else self.s.root.move,
                         finished=True, nodes=self.s.stats.nodes, tt_hits=self.s.stats.tt_hits)
        return Found(score=out.score, move=None if out.move == NO_MOVE else out.move, depth=out.depth,
                     exact=bool(out.exact), finished=out.depth > 0, nodes=self.s.stats.nodes,
                     tt_hits=self.s.stats.tt_hits, first=bool(out.first))

    def principal_variation(self, BoardBase board not None, int limit=64):
        """Follow the table's best moves from board, as far as the table holds them."""
        cdef int v[KALAH_SLOTS]
        cdef int flags, captured, pit
        cdef tt_data e
        cdef list pv = []
        if self.s.config.tt.buckets == NULL:
            return pv
        board_view(board, v)
        while len(pv) < limit and not row_empty(v):
            if not tt_probe(self.s.config.tt, tt_key(v), &e) or e.move >= KALAH_PITS or v[e.move] == 0:
                break
            pit = e.move
            pv.append(pit)
            kalah_play(v, pit, board._capture, &captured)
        return pv


def proof_stats():
    """Where the searches since the last reset_proof_stats() spent their nodes
    (csrc/proof_stats.h says each field): a dict, or None when the core was
    built without the counters (the default; MANCALA_STATS=1 at build time
    puts them in). Counted process-wide: exact for one thread searching."""
    cdef ps_counts st
    if not ps_enabled():
        return None
    ps_read(&st)
    return st


def reset_proof_stats():
    """Start proof_stats()'s counts again from zero."""
    ps_reset()
