# BoardBase: the compiled half of mancala.Board (slots, side, rule, undo stack).

cdef enum:
    # One pushed move's undo record: the KALAH_SLOTS slots before it, then
    UNDO_TO_MOVE = KALAH_SLOTS  # the side that moved
    UNDO_PIT                    # the pit it played (0..5 from its left)
    UNDO_CAPTURED               # seeds its capture put in the store
    UNDO_FLAGS                  # its PLAY_* bits
    UNDO_STRIDE                 # ints a record: 18

cdef inline void board_view(BoardBase board, int *view) noexcept:
    """The prologue of every question about a Board: its slots as the side to
    move sees them (kalah.h). A Board is valid by construction: no checks."""
    orient(board.slots, board._to_move, view)


cdef class BoardBase:
    """A position with its move history; the compiled half of mancala.Board.

    Holds the 14 slots in absolute order, the side to move and the capture
    rule; push and pop keep an undo stack in C.
    """

    def __cinit__(self, *args, **kwargs):
        self._undo = NULL
        self._ply = 0
        self._undo_cap = 0
        memset(self.slots, 0, sizeof(self.slots))

    def __dealloc__(self):
        free(self._undo)

    def _load(self, slots, to_move, capture):
        """Set the position (validated) and forget the history."""
        cdef int b[KALAH_SLOTS]
        load_slots(slots, b)
        self._to_move = check_side(to_move)
        self._capture = check_code(capture, CAPTURE_RULES, "capture")
        memcpy(self.slots, b, sizeof(b))
        self._ply = 0

    def _copy_into(self, BoardBase other not None, bint stack=True):
        """Make other the same position (and history, if stack)."""
        memcpy(other.slots, self.slots, sizeof(self.slots))
        other._to_move = self._to_move
        other._capture = self._capture
        other._ply = 0
        if stack and self._ply:
            other._reserve(self._ply)
            memcpy(other._undo, self._undo, self._ply * UNDO_STRIDE * sizeof(int))
            other._ply = self._ply

    cdef int _reserve(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t cap = max(16, self._undo_cap)
        cdef int *grown
        if n <= self._undo_cap:
            return 0
        while cap < n:
            cap *= 2
        grown = <int *> realloc(self._undo, cap * UNDO_STRIDE * sizeof(int))
        if grown == NULL:
            raise MemoryError()
        self._undo = grown
        self._undo_cap = cap
        return 0

    @property
    def pits(self):
        """The 14 slots in absolute order: South 0..5, store 6, North 7..12, store 13."""
        return as_list(self.slots)

    @property
    def to_move(self):
        """0 (South) or 1 (North)."""
        return self._to_move

    @property
    def capture(self):
        """The capture rule: one of :data:`mancala.CAPTURE_RULES`."""
        return CAPTURE_RULES[self._capture]

    @property
    def ply(self):
        """Moves pushed since the position was set."""
        return self._ply

    @property
    def legal_moves(self):
        """The pits (0..5 from the mover's left) the side to move may play."""
        cdef int v[KALAH_SLOTS]
        board_view(self, v)
        return view_moves(v)

    def is_game_over(self):
        """Whether either row is empty (the remaining seeds then go to their owners)."""
        return row_empty(self.slots)

    def is_legal(self, pit):
        cdef int v[KALAH_SLOTS]
        board_view(self, v)
        number = as_index(pit)
        return (number is not None and 0 <= number < KALAH_PITS
                and not row_empty(v) and v[<int>number] > 0)

    def _push(self, pit):
        """Play pit; returns (player, pit, extra_turn, captured, game_over)."""
        cdef int v[KALAH_SLOTS]
        cdef int *rec
        cdef int mover = self._to_move, p, flags, captured
        board_view(self, v)
        p = check_pit(v, pit)
        self._reserve(self._ply + 1)
        flags = kalah_play(v, p, self._capture, &captured)
        rec = self._undo + self._ply * UNDO_STRIDE
        memcpy(rec, self.slots, sizeof(self.slots))
        rec[UNDO_TO_MOVE] = mover
        rec[UNDO_PIT] = p
        rec[UNDO_CAPTURED] = captured
        rec[UNDO_FLAGS] = flags
        self._ply += 1
        self._to_move = mover if flags & PLAY_EXTRA_TURN else 1 - mover
        orient(v, self._to_move, self.slots)
        return (mover, p, bool(flags & PLAY_EXTRA_TURN and not flags & PLAY_GAME_OVER),
                captured, bool(flags & PLAY_GAME_OVER))

    def _record(self, Py_ssize_t index):
        """The (player, pit, extra_turn, captured, game_over) of pushed move index."""
        if not 0 <= index < self._ply:
            raise IndexError(index)
        cdef int *rec = self._undo + index * UNDO_STRIDE
        return (rec[UNDO_TO_MOVE], rec[UNDO_PIT], bool(rec[UNDO_FLAGS] & PLAY_EXTRA_TURN and not rec[UNDO_FLAGS] & PLAY_GAME_OVER),
                rec[UNDO_CAPTURED], bool(rec[UNDO_FLAGS] & PLAY_GAME_OVER))

    def _pop(self):
        """Take back the last move; returns its record."""
        if self._ply == 0:
            raise IndexError("pop from a board with no moves")
        record = self._record(self._ply - 1)
        self._ply -= 1
        cdef int *rec = self._undo + self._ply * UNDO_STRIDE
        memcpy(self.slots, rec, sizeof(self.slots))
        self._to_move = rec[UNDO_TO_MOVE]
        return record

    def _same_position(self, BoardBase other not None):
        cdef int i
        for i in range(KALAH_SLOTS):
            if self.slots[i] != other.slots[i]:
                return False
        return self._to_move == other._to_move and self._capture == other._capture
