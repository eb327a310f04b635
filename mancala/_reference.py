"""The slow twin of ``mancala._core``: Kalah rules and search in plain Python.

Same module-level functions, same answers, same node counts as the compiled
core, written the textbook way (sowing seed by seed) so that the two are
independent and the tests can hold one against the other.

The board is 14 slots, in sowing order::

            12  11  10   9   8   7          <- North pits (player 1)
      [13]                          [6]
             0   1   2   3   4   5          <- South pits (player 0)

A move is a pit number 0..5 counted from the mover's left: pit ``i`` is slot
``i`` for South and slot ``7 + i`` for North.
"""
from mancala import _learned
from mancala._learned import COUNTS, FACING, SCALE, TOTALS

PITS = 6                          # pits per row
SLOTS = 2 * (PITS + 1)            # 14: two rows and two stores
STORES = (PITS, SLOTS - 1)        # store slot of player 0 and of player 1

CAPTURE_RULES = ("standard", "empty", "none")
STANDARD, EMPTY, NONE = range(len(CAPTURE_RULES))

EVALUATIONS = ("store", "positional", "learned")
STORE, POSITIONAL, LEARNED = range(len(EVALUATIONS))

INF = 1000                        # beyond any margin: at most 12 * 12 seeds exist

__all__ = [
    "CAPTURE_RULES", "EVALUATIONS",
    "is_game_over", "legal_moves", "play", "score", "evaluate",
    "perft", "minimax", "alphabeta",
]


def _first_pit(player):
    return player * (PITS + 1)


def _row(slots, player):
    first = _first_pit(player)
    return slots[first:first + PITS]


def is_game_over(slots):
    """True when either row of six pits is empty."""
    return sum(_row(slots, 0)) == 0 or sum(_row(slots, 1)) == 0


def legal_moves(slots, to_move):
    """The pit numbers of the mover's non-empty pits, ascending."""
    if is_game_over(slots):
        return []
    return [pit for pit, seeds in enumerate(_row(slots, to_move)) if seeds > 0]


def play(slots, to_move, pit, capture):
    """Sow ``pit`` for ``to_move``; return ``(new_slots, next_to_move, captured)``."""
    if pit not in range(PITS):
        raise ValueError(f"pit must be 0..5, got {pit!r}")
    if is_game_over(slots):
        raise ValueError(f"the game is over: {list(slots)!r}")
    board = list(slots)
    start = _first_pit(to_move) + pit
    if board[start] == 0:
        raise ValueError(f"pit {pit!r} is empty")
    own_store = STORES[to_move]
    other_store = STORES[1 - to_move]

    seeds, board[start] = board[start], 0
    slot = start
    while seeds > 0:
        slot = (slot + 1) % SLOTS
        if slot == other_store:
            continue
        board[slot] += 1
        seeds -= 1

    captured = 0
    own_pits = range(_first_pit(to_move), _first_pit(to_move) + PITS)
    if slot in own_pits and board[slot] == 1 and capture != NONE:
        opposite = SLOTS - 2 - slot
        if board[opposite] > 0 or capture == EMPTY:
            captured = board[slot] + board[opposite]
            board[slot] = board[opposite] = 0
            board[own_store] += captured

    next_to_move = to_move if slot == own_store else 1 - to_move
    if is_game_over(board):
        for player in (0, 1):
            first = _first_pit(player)
            for s in range(first, first + PITS):
                board[STORES[player]] += board[s]
                board[s] = 0
    return board, next_to_move, captured


def score(slots, to_move):
    """Store difference from ``to_move``'s point of view."""
    return slots[STORES[to_move]] - slots[STORES[1 - to_move]]


def _final_margin(slots, to_move):
    """The score once each row is swept into its owner's store."""
    own, other = sum(_row(slots, to_move)), sum(_row(slots, 1 - to_move))
    return score(slots, to_move) + own - other


def _extra_turn_moves(slots, player):
    """How many of ``player``'s moves would end in their own store."""
    return sum(1 for i, n in enumerate(_row(slots, player))
               if n > 0 and (n == PITS - i or n == SLOTS - 1 + PITS - i))


def _best_capture(slots, player, capture):
    """The most seeds one move of ``player`` would capture now (no laps)."""
    if capture == NONE:
        return 0
    first = _first_pit(player)
    best = 0
    for i, n in enumerate(_row(slots, player)):
        last = i + n
        if n == 0 or n >= SLOTS - 1 or last >= PITS or slots[first + last] != 0:
            continue
        facing = slots[SLOTS - 2 - (first + last)]
        if facing > 0 or capture == EMPTY:
            best = max(best, facing + 1)
    return best


def _positional_term(slots, player, capture):
    own = sum(_row(slots, player))
    return (_extra_turn_moves(slots, player)
            + (own + 2 * _best_capture(slots, player, capture)) // 4)


def learned_terms(slots, player, capture):
    """The learned evaluation's terms for ``player``, in mancala._learned's
    order: its weighted terms, then a 0/1 term for each cell of its tables
    (the pits', the rows', the empty pits' by the seeds facing them)."""
    other = 1 - player
    pits = [*_row(slots, player), *_row(slots, other)]
    terms = [1, *pits]
    for side in (player, other):
        terms += [_extra_turn_moves(slots, side), _best_capture(slots, side, capture),
                  list(_row(slots, side)).count(0)]
    facing = [*reversed(_row(slots, other)), *reversed(_row(slots, player))]
    cells = ([(COUNTS, n) for n in pits]                                    # pit by pit
             + [(TOTALS, sum(_row(slots, side))) for side in (player, other)]
             + [(FACING, f if n == 0 else None) for n, f in zip(pits, facing)])   # empty pits only
    for columns, n in cells:
        terms += [int(n is not None and min(n, columns - 1) == column) for column in range(columns)]
    return terms


def _learned_weights(phase):
    """A phase's weights (MIDGAME or ENDGAME, mancala._learned) in learned_terms' order."""
    tables = [getattr(_learned, f"{phase}_{part}") for part in ("PITS", "TOTALS", "FACING")]
    return [*getattr(_learned, phase), *(w for table in tables for row in table for w in row)]


def _learned_term(slots, player, capture):
    """What the learned evaluation adds for ``player`` (the weights: mancala._learned)."""
    midgame, endgame = _learned_weights("MIDGAME"), _learned_weights("ENDGAME")
    terms = learned_terms(slots, player, capture)
    other = 1 - player
    in_pits = sum(_row(slots, player)) + sum(_row(slots, other))
    stores = sum(slots) - in_pits
    blended = (in_pits * sum(w * t for w, t in zip(midgame, terms))
               + stores * sum(w * t for w, t in zip(endgame, terms)))
    whole = SCALE * sum(slots)
    rounded = (abs(blended) + whole // 2) // whole          # halves away from zero
    rounded = rounded if blended >= 0 else -rounded
    return max(-in_pits, min(in_pits, rounded))


def evaluate(slots, to_move, capture, evaluation):
    """Heuristic value for ``to_move``; the exact margin once the game is over."""
    if evaluation not in range(len(EVALUATIONS)):
        raise ValueError(f"evaluation must be 0..{len(EVALUATIONS) - 1}, got {evaluation!r}")
    if is_game_over(slots):
        return _final_margin(slots, to_move)
    value = score(slots, to_move)
    if evaluation == STORE:
        return value
    if evaluation == LEARNED:
        return value + _learned_term(slots, to_move, capture)
    return (value + _positional_term(slots, to_move, capture)
            - _positional_term(slots, 1 - to_move, capture))


def perft(slots, to_move, depth, capture):
    """Leaf positions after exactly ``depth`` moves; a finished game is a leaf."""
    if depth == 0 or is_game_over(slots):
        return 1
    total = 0
    for pit in legal_moves(slots, to_move):
        child, next_to_move, _ = play(slots, to_move, pit, capture)
        total += perft(child, next_to_move, depth - 1, capture)
    return total


class _Search:
    """Negamax over (slots, to_move); counts every position it visits.

    One recursion serves both searches, as in the compiled core: with
    ``prune`` it is fail-soft alpha-beta, without it full-width minimax (the
    window is then carried along but never cuts a node off).
    """

    def __init__(self, capture, evaluation, prune):
        self.capture = capture
        self.evaluation = evaluation
        self.prune = prune
        self.nodes = 0
        self.best_move = None

    def negamax(self, slots, to_move, depth, alpha, beta, root=False):
        self.nodes += 1
        if is_game_over(slots):
            return _final_margin(slots, to_move)
        if depth == 0:
            return evaluate(slots, to_move, self.capture, self.evaluation)
        best = -INF
        for pit in legal_moves(slots, to_move):
            child, next_to_move, _ = play(slots, to_move, pit, self.capture)
            if next_to_move == to_move:     # extra turn: same side, same window
                value = self.negamax(child, next_to_move, depth - 1, alpha, beta)
            else:
                value = -self.negamax(child, next_to_move, depth - 1, -beta, -alpha)
            if value > best:                # strict: ties keep the earlier pit
                best = value
                if root:
                    self.best_move = pit
            if best > alpha:
                alpha = best
            if self.prune and alpha >= beta:
                break
        return best


def _negamax(slots, to_move, depth, capture, evaluation, prune):
    search = _Search(capture, evaluation, prune)
    value = search.negamax(list(slots), to_move, depth, -INF, INF, root=True)
    return value, search.best_move, search.nodes


def minimax(slots, to_move, depth, capture, evaluation=STORE):
    """Full-width negamax to ``depth``: ``(score, best pit or None, nodes)``."""
    return _negamax(slots, to_move, depth, capture, evaluation, prune=False)


def alphabeta(slots, to_move, depth, capture, evaluation=STORE):
    """Fail-soft alpha-beta negamax to ``depth``: ``(score, best pit or None, nodes)``."""
    return _negamax(slots, to_move, depth, capture, evaluation, prune=True)
