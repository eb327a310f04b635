# Argument checks for what Python hands the core: boards as lists, sides,
# rule codes, pits, depths, database sizes. Each raises one clear line.

cdef int load_slots(object slots, int *out) except -1:
    """Copy a 14-int sequence into out, or raise InvalidBoardError quoting it."""
    cdef Py_ssize_t i
    cdef long total = 0
    if isinstance(slots, (str, bytes, Mapping, Set)):
        raise InvalidBoardError(f"a board is a list of 14 seed counts, not {quote(slots)}")
    try:
        n = len(slots)
    except TypeError:
        raise InvalidBoardError(f"a board is a list of 14 seed counts, not {quote(slots)}") from None
    if n != KALAH_SLOTS:
        raise InvalidBoardError(f"a board has 14 slots, not {n}: {quote(slots)}")
    for i in range(KALAH_SLOTS):
        try:
            item = slots[i]
        except (LookupError, TypeError):
            raise InvalidBoardError(f"a board is a list of 14 seed counts, not {quote(slots)}") from None
        try:
            if isinstance(item, bool):
                raise TypeError
            item = index(item)
        except TypeError:
            raise InvalidBoardError(f"slot {i} holds {quote(item)}, not a seed count: {quote(slots)}") from None
        if item < 0:
            raise InvalidBoardError(f"slot {i} holds {quote(item)} seeds, fewer than 0: {quote(slots)}")
        if item > KALAH_MAX_SEEDS:
            raise InvalidBoardError(
                f"slot {i} holds {quote(item)} seeds; a board holds at most {KALAH_MAX_SEEDS}: {quote(slots)}")
        out[i] = item
        total += item
    if total > KALAH_MAX_SEEDS:
        raise InvalidBoardError(
            f"the board holds {total} seeds; at most {KALAH_MAX_SEEDS} are allowed: {quote(slots)}")
    return 0


cdef int list_view(object slots, object to_move, int *view) except -1:
    """The list API's prologue: a checked board (slots in absolute order) and
    side to move, put in view as the mover sees it; returns the side."""
    cdef int a[KALAH_SLOTS]
    cdef int side
    load_slots(slots, a)
    side = check_side(to_move)
    orient(a, side, view)
    return side


cdef object as_index(object value):
    """value as an int if it is a whole number (int, NumPy integer: anything with
    __index__) and not a bool, else None."""
    if isinstance(value, bool):
        return None
    try:
        return index(value)
    except TypeError:
        return None


cdef int check_side(object to_move) except -1:
    side = as_index(to_move)
    if side is None or side not in (0, 1):
        raise InvalidBoardError(f"the side to move is 0 (South) or 1 (North), not {quote(to_move)}")
    return side


cdef int check_code(object code, tuple names, str what) except -1:
    if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code < len(names):
        raise InvalidRuleError(f"{what} is an index into {names}, not {quote(code)}")
    return code


cdef int check_pit(const int *view, object pit) except -1:
    """The pit as an int, or IllegalMoveError naming the legal ones."""
    number = as_index(pit)
    if row_empty(view):
        raise IllegalMoveError(f"no move is legal: the game is over (pit {quote(pit)})")
    if number is None or not 0 <= number < KALAH_PITS:
        raise IllegalMoveError(f"a pit is 0..5, not {quote(pit)}; legal: {view_moves(view)}")
    if view[<int>number] == 0:
        raise IllegalMoveError(f"pit {number} is empty; legal: {view_moves(view)}")
    return number


cdef list view_moves(const int *view):
    if row_empty(view):
        return []
    return [pit for pit in range(KALAH_PITS) if view[pit]]


cdef list as_list(const int *slots):
    return [slots[i] for i in range(KALAH_SLOTS)]



cdef int check_depth(object depth, int lowest) except -1:
    if isinstance(depth, bool) or not isinstance(depth, int) or not lowest <= depth <= TT_DEPTH_MAX:
        raise InvalidLimitError(f"depth is a whole number from {lowest} to {TT_DEPTH_MAX}, not {quote(depth)}")
    return depth



cdef int check_egdb_seeds(object max_seeds) except -1:
    if isinstance(max_seeds, bool) or not isinstance(max_seeds, int) or not 0 <= max_seeds <= EGDB_MAX_SEEDS:
        raise InvalidLimitError(f"an endgame database covers 0 to {EGDB_MAX_SEEDS} seeds, not {quote(max_seeds)}")
    egdb_init_binomials()
    return max_seeds
