# The twin-compatible API: the questions mancala._reference answers, on
# untrusted lists of 14 slots (every argument checked).

def is_game_over(slots):
    """Whether either row of six pits is empty."""
    cdef int b[KALAH_SLOTS]
    load_slots(slots, b)
    return row_empty(b)


def legal_moves(slots, to_move):
    """The non-empty pits (0..5 from the mover's left) of the side to move."""
    cdef int v[KALAH_SLOTS]
    list_view(slots, to_move, v)
    return view_moves(v)


def play(slots, to_move, pit, capture):
    """Apply a legal move: (new_slots, next_to_move, seeds captured)."""
    cdef int a[KALAH_SLOTS]
    cdef int v[KALAH_SLOTS]
    cdef int mover = list_view(slots, to_move, v), flags, captured
    pit = check_pit(v, pit)
    flags = kalah_play(v, pit, check_code(capture, CAPTURE_RULES, "capture"), &captured)
    if not flags & PLAY_EXTRA_TURN:
        mover = 1 - mover
    orient(v, mover, a)
    return as_list(a), mover, captured


def score(slots, to_move):
    """Store difference from the side to move's view."""
    cdef int v[KALAH_SLOTS]
    list_view(slots, to_move, v)
    return v[KALAH_STORE] - v[KALAH_OPP_STORE]


def evaluate(slots, to_move, capture, evaluation):
    """The static evaluation (EVALUATIONS) from the side to move's view."""
    cdef int v[KALAH_SLOTS]
    list_view(slots, to_move, v)
    return evaluate_view(v, check_code(capture, CAPTURE_RULES, "capture"),
                         check_code(evaluation, EVALUATIONS, "evaluation"))


def perft(slots, to_move, depth, capture):
    """Leaf positions after exactly `depth` moves (finished games count as leaves)."""
    cdef int v[KALAH_SLOTS]
    cdef int d = check_depth(depth, 0), rule = check_code(capture, CAPTURE_RULES, "capture")
    cdef uint64_t total
    list_view(slots, to_move, v)
    with nogil:
        total = perft_view(v, d, rule)
    return total


cdef tuple plain_search(slots, to_move, depth, capture, evaluation, bint prune):
    cdef int v[KALAH_SLOTS]
    cdef int value, d = check_depth(depth, 0)
    cdef Search s
    cdef tt_table none
    list_view(slots, to_move, v)
    memset(&s, 0, sizeof(s))
    memset(&none, 0, sizeof(none))
    s.config.tt = &none
    s.mode.capture = check_code(capture, CAPTURE_RULES, "capture")
    s.mode.evaluation = check_code(evaluation, EVALUATIONS, "evaluation")
    s.config.prune = prune
    s.config.egdb.max_seeds = -1
    s.mode.untabled_seeds = -1
    s.limits.signals = on_main_thread()
    s.limits.clock = CLOCK_MONOTONIC
    begin(&s, 0, 0)
    with nogil:
        value = search_root(&s, v, d, -INF, INF)
    if s.stop.interrupted:
        raise_interrupt(&s)
    return value, (None if s.root.move == NO_MOVE else s.root.move), s.stats.nodes


def alphabeta(slots, to_move, depth, capture, evaluation=0):
    """Plain fail-soft alpha-beta, natural move order, no table: (score, move, nodes).

    Node for node the tree of mancala._reference.alphabeta.
    """
    return plain_search(slots, to_move, depth, capture, evaluation, True)


def minimax(slots, to_move, depth, capture, evaluation=0):
    """Plain minimax (negamax without cut-offs): (score, move, nodes)."""
    return plain_search(slots, to_move, depth, capture, evaluation, False)
