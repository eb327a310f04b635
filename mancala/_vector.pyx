# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled half of mancala.vector: n Kalah boards stepped at once in C.

Three layers, as in the core: the rules of csrc/kalah.h (the same header the
core plays its moves with), ``nogil`` functions over board pointers (a
seeded random pit, a small fixed-depth alpha-beta, one step of one board),
and a thin class, VectorCore, that loops over the whole batch without the GIL.

NumPy is not needed to build or import this module: the outputs are typed
memoryviews that mancala.vector allocates as NumPy arrays.

Every board is kept *seen from the side to move* (kalah.h), with ``mover``
saying which side that is (0 South, 1 North); the observation is that view.
"""
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from mancala._kalah cimport *


cdef enum:
    INF = 1000                  # beyond any margin: at most 144 seeds exist
    OPPONENT_NONE = 0           # self-play: the agent moves for both sides
    OPPONENT_RANDOM = 1         # a uniformly random legal pit (seeded, per board)
    OPPONENT_AI = 2             # fixed-depth alpha-beta, store difference at the leaves
    REWARD_WIN = 0              # +1 / 0 / -1 when a game ends
    REWARD_MARGIN = 1           # the final store difference when a game ends
    STREAM_OPPONENT = 1         # the two random streams of a board: the opponent's,
    STREAM_SAMPLE = 2           # and sample_actions'

MAX_OPPONENT_DEPTH = 8          # ai:depth=K; each ply costs about four times the one before
MAX_BOARDS = 1 << 20            # about 230 bytes a board of state and outputs: 230 MB at the top
OPPONENTS = ("none", "random", "ai")
REWARDS = ("win", "margin")

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL


cdef inline uint64_t splitmix64(uint64_t *state) noexcept nogil:
    """The next 64 random bits of a splitmix64 stream (Steele, Lea, Flood 2014)."""
    state[0] += GOLDEN
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t stream_start(uint64_t seed, Py_ssize_t board, int stream) noexcept nogil:
    """The first state of one board's stream: distinct for every (seed, board, stream)."""
    cdef uint64_t state = seed
    cdef uint64_t mixed = splitmix64(&state)
    state = mixed ^ ((<uint64_t>board << 2) | <uint64_t>stream)
    return splitmix64(&state)


# NTH_PIT[m][r]: the r-th non-empty pit (from 0) of a row whose non-empty pits
# are the bits of m; PIT_COUNT[m]: how many there are. Filled at import.
cdef uint8_t NTH_PIT[1 << KALAH_PITS][KALAH_PITS]
cdef uint8_t PIT_COUNT[1 << KALAH_PITS]


def _fill_pit_tables():
    cdef int m, p, count
    for m in range(1 << KALAH_PITS):
        count = 0
        for p in range(KALAH_PITS):
            if m >> p & 1:
                NTH_PIT[m][count] = p
                count += 1
        PIT_COUNT[m] = count


_fill_pit_tables()


cdef inline int random_pit(const int *b, uint64_t *state) noexcept nogil:
    """A uniformly random non-empty pit of the mover (b has one: the game is on).

    Without a branch: the row's non-empty pits as six bits pick a table row.
    Multiply-shift over 32 random bits: each pit's chance is off by under 2**-29.
    """
    cdef int m = ((b[0] != 0) | (b[1] != 0) << 1 | (b[2] != 0) << 2
                  | (b[3] != 0) << 3 | (b[4] != 0) << 4 | (b[5] != 0) << 5)
    return NTH_PIT[m][((splitmix64(state) >> 32) * PIT_COUNT[m]) >> 32]


cdef int alphabeta(const int *b, int depth, int alpha, int beta, int capture, int *best_pit) noexcept nogil:
    """Fail-soft negamax alpha-beta over a game in progress, ``depth`` moves deep.

    The textbook search of mancala._reference.alphabeta (store difference at
    the leaves, exact margin at the end), but trying the moves that end in
    the mover's store first, then the others from pit 0: the same value, and
    the env against ai:depth=6 steps 2.8x faster than in pit order (1.2x at
    depth 4). Ties keep the move tried first. An extra
    turn keeps the window and the sign. The value is the mover's, in seeds;
    *best_pit gets the move.
    """
    cdef int child[KALAH_SLOTS]
    cdef int order[KALAH_PITS]
    cdef int pit, k, count = 0, flags, captured, value, best = -INF - 1, unused
    for pit in range(KALAH_PITS):               # extra turns first
        if b[pit] and b[pit] % KALAH_CYCLE == KALAH_STORE - pit:
            order[count] = pit
            count += 1
    for pit in range(KALAH_PITS):
        if b[pit] and b[pit] % KALAH_CYCLE != KALAH_STORE - pit:
            order[count] = pit
            count += 1
    for k in range(count):
        pit = order[k]
        memcpy(child, b, sizeof(child))
        flags = kalah_play(child, pit, capture, &captured)
        if flags & PLAY_GAME_OVER or depth == 1:
            # a leaf: the child is the mover's view after an extra turn, else the opponent's
            value = child[KALAH_STORE] - child[KALAH_OPP_STORE]
            if not flags & PLAY_EXTRA_TURN:
                value = -value
        elif flags & PLAY_EXTRA_TURN:
            value = alphabeta(child, depth - 1, alpha, beta, capture, &unused)
        else:
            value = -alphabeta(child, depth - 1, -beta, -alpha, capture, &unused)
        if value > best:
            best = value
            best_pit[0] = pit
            if best > alpha:
                alpha = best
                if alpha >= beta:
                    break
    return best


cdef inline void start_board(int *b, int seeds) noexcept nogil:
    cdef int i
    for i in range(KALAH_PITS):
        b[i] = seeds
        b[KALAH_OPP_PIT + i] = seeds
    b[KALAH_STORE] = 0
    b[KALAH_OPP_STORE] = 0


def best_pit(slots, int depth, int capture):
    """(pit, value) of the C opponent's search on 14 slots seen from the mover.

    For the tests, which hold its value and move against mancala._reference. The game
    must be on (a non-empty row each side); depth 1..MAX_OPPONENT_DEPTH.
    """
    cdef int b[KALAH_SLOTS]
    cdef int i, pit = -1, value
    if len(slots) != KALAH_SLOTS or not all(0 <= s <= KALAH_MAX_SEEDS for s in slots) \
            or not 1 <= depth <= MAX_OPPONENT_DEPTH or not 0 <= capture < CAPTURE_RULE_COUNT:
        raise ValueError(f"best_pit: 14 slots of 0..144 seeds, depth 1..8, capture 0..{CAPTURE_RULE_COUNT - 1}")
    for i in range(KALAH_SLOTS):
        b[i] = slots[i]
    if sum(slots[:KALAH_PITS]) == 0 or sum(slots[KALAH_OPP_PIT:KALAH_OPP_STORE]) == 0:
        raise ValueError("best_pit: the game is over")
    with nogil:
        value = alphabeta(b, depth, -INF, INF, capture, &pit)
    return pit, value


cdef class VectorCore:
    """n boards, their movers and random streams, in C arrays, and the output
    arrays it writes (bound once: typed memoryviews, one row per board).

    step() and sample_actions() allocate nothing.
    """
    cdef int n, seeds, capture, opponent, depth, reward
    cdef int *boards            # n x 14 slots, each board seen from its mover
    cdef uint8_t *mover         # the side to move: 0 South, 1 North
    cdef uint64_t *rng          # two streams a board: [2i] the opponent's, [2i + 1] sample_actions'
    # the outputs (see mancala.vector): rows of final_obs / final_score are
    # zero except where terminated is set, which step() relies on to clear them
    cdef object bound           # the bound arrays' memoryviews: they keep the pointers below valid
    cdef int *obs               # n x 14
    cdef uint8_t *mask          # n x 6
    cdef uint8_t *to_move       # n
    cdef double *rewards        # n
    cdef uint8_t *terminated    # n
    cdef int *final_obs         # n x 14
    cdef int *final_score       # n

    def __cinit__(self, int n, int seeds, int capture, int opponent, int depth, int reward):
        # mancala.vector checks every argument; these guard only the memory
        if not 1 <= n <= MAX_BOARDS or not 1 <= seeds <= 12 or not 0 <= capture < CAPTURE_RULE_COUNT \
                or not 0 <= opponent <= OPPONENT_AI or not 0 <= depth <= MAX_OPPONENT_DEPTH \
                or not 0 <= reward <= REWARD_MARGIN:
            raise ValueError("VectorCore: argument out of range")
        self.n, self.seeds, self.capture = n, seeds, capture
        self.opponent, self.depth, self.reward = opponent, depth, reward
        self.boards = <int *>malloc(n * KALAH_SLOTS * sizeof(int))
        self.mover = <uint8_t *>malloc(n * sizeof(uint8_t))
        self.rng = <uint64_t *>malloc(2 * n * sizeof(uint64_t))
        if self.boards == NULL or self.mover == NULL or self.rng == NULL:
            raise MemoryError(f"VectorCore: no memory for {n} boards")
        self.seed(0)
        self.restart()

    def __dealloc__(self):
        free(self.boards)
        free(self.mover)
        free(self.rng)

    def bind(self, int[:, ::1] obs, uint8_t[:, ::1] mask, uint8_t[::1] to_move, double[::1] rewards,
             uint8_t[::1] terminated, int[:, ::1] final_obs, int[::1] final_score):
        """Keep the output arrays every later call writes (n rows each; 14 or 6 columns)."""
        for rows, cols, want in ((obs.shape[0], obs.shape[1], KALAH_SLOTS),
                                 (mask.shape[0], mask.shape[1], KALAH_PITS),
                                 (final_obs.shape[0], final_obs.shape[1], KALAH_SLOTS),
                                 (to_move.shape[0], 1, 1), (rewards.shape[0], 1, 1),
                                 (terminated.shape[0], 1, 1), (final_score.shape[0], 1, 1)):
            if rows != self.n or cols != want:
                raise ValueError(f"VectorCore.bind: {self.n} x {want} expected, not {rows} x {cols}")
        self.bound = (obs, mask, to_move, rewards, terminated, final_obs, final_score)
        self.obs, self.mask, self.to_move, self.rewards = &obs[0, 0], &mask[0, 0], &to_move[0], &rewards[0]
        self.terminated, self.final_obs, self.final_score = &terminated[0], &final_obs[0, 0], &final_score[0]

    def seed(self, uint64_t seed):
        """Restart every board's two random streams from ``seed``."""
        cdef Py_ssize_t i
        with nogil:
            for i in range(self.n):
                self.rng[2 * i] = stream_start(seed, i, STREAM_OPPONENT)
                self.rng[2 * i + 1] = stream_start(seed, i, STREAM_SAMPLE)

    def restart(self):
        """Every board back to the start, South to move."""
        cdef Py_ssize_t i
        with nogil:
            for i in range(self.n):
                start_board(self.boards + i * KALAH_SLOTS, self.seeds)
                self.mover[i] = 0

    def observe(self):
        """Write every board's view, legal pits and side to move; clear the rest (nothing ended)."""
        cdef Py_ssize_t i
        self._check_bound()
        with nogil:
            for i in range(self.n):
                self.write_view(i)
                memset(self.final_obs + i * KALAH_SLOTS, 0, KALAH_SLOTS * sizeof(int))
                self.final_score[i] = 0
                self.rewards[i] = 0
                self.terminated[i] = 0

    def legal_pits(self, Py_ssize_t i):
        """The legal pits of board ``i`` (for error messages)."""
        if not 0 <= i < self.n:
            raise IndexError(i)
        cdef const int *b = self.boards + i * KALAH_SLOTS
        return [p for p in range(KALAH_PITS) if b[p]]

    def sample_actions(self, int64_t[::1] out):
        """A uniformly random legal pit for every board, from its own seeded stream."""
        cdef Py_ssize_t i
        if out.shape[0] != self.n:
            raise ValueError(f"VectorCore.sample_actions: {self.n} rows expected, not {out.shape[0]}")
        with nogil:
            for i in range(self.n):
                out[i] = random_pit(self.boards + i * KALAH_SLOTS, &self.rng[2 * i + 1])

    def step(self, const int64_t[::1] actions):
        """Play actions[i] on board i, every board at once; -1, or the first board whose pit is illegal.

        Nothing changes when a pit is illegal. Otherwise each board plays its
        move, then (with an opponent) the opponent's replies until South is to
        move again; a finished game is written to final_obs / final_score
        (seen from the side that made the agent's move), paid in rewards, and
        its board restarts. obs / mask / to_move then describe every board.
        """
        cdef Py_ssize_t i, n = self.n, bad = -1
        cdef int64_t a
        self._check_bound()
        if actions.shape[0] != n:
            raise ValueError(f"VectorCore.step: {n} actions expected, not {actions.shape[0]}")
        with nogil:
            for i in range(n):
                a = actions[i]
                if a < 0 or a >= KALAH_PITS or not self.boards[i * KALAH_SLOTS + a]:
                    bad = i
                    break
            if bad < 0:
                for i in range(n):
                    self.step_one(i, <int>actions[i])
        return bad

    cdef inline void step_one(self, Py_ssize_t i, int pit) noexcept nogil:
        """One board's step: the agent's pit, the opponent's replies, the end and restart, the outputs.

        The common path (a move, no end) is short so that it inlines into
        step's loop; replies and the end of a game are calls.
        """
        cdef int *b = self.boards + i * KALAH_SLOTS
        cdef int actor = self.mover[i], flags, captured
        if self.terminated[i]:
            self.clear_final(i)
        flags = kalah_play(b, pit, self.capture, &captured)
        self.mover[i] ^= not flags & PLAY_EXTRA_TURN
        if self.opponent != OPPONENT_NONE and self.mover[i] == 1 and not flags & PLAY_GAME_OVER:
            flags = self.replies(i)
        if flags & PLAY_GAME_OVER:
            self.finish(i, actor)
        self.write_view(i)

    cdef int replies(self, Py_ssize_t i) noexcept nogil:
        """The opponent plays North on board i until South is to move or the game is over: the last PLAY_* bits."""
        cdef int *b = self.boards + i * KALAH_SLOTS
        cdef int flags, captured, reply
        while True:
            if self.opponent == OPPONENT_RANDOM:
                reply = random_pit(b, &self.rng[2 * i])
            else:
                alphabeta(b, self.depth, -INF, INF, self.capture, &reply)
            flags = kalah_play(b, reply, self.capture, &captured)
            if not flags & PLAY_EXTRA_TURN:
                self.mover[i] ^= 1
            if self.mover[i] == 0 or flags & PLAY_GAME_OVER:
                return flags

    cdef void finish(self, Py_ssize_t i, int actor) noexcept nogil:
        """Board i's game is over: its final view (from ``actor``), score and reward, then a new game."""
        cdef int *b = self.boards + i * KALAH_SLOTS
        cdef int *final_obs = self.final_obs + i * KALAH_SLOTS
        cdef int margin
        memcpy(final_obs, b, KALAH_SLOTS * sizeof(int))
        if self.mover[i] != actor:
            kalah_rotate(final_obs)
        margin = final_obs[KALAH_STORE] - final_obs[KALAH_OPP_STORE]
        self.final_score[i] = margin
        if self.reward == REWARD_MARGIN:
            self.rewards[i] = margin
        else:
            self.rewards[i] = (margin > 0) - (margin < 0)
        self.terminated[i] = 1
        start_board(b, self.seeds)
        self.mover[i] = 0

    cdef void clear_final(self, Py_ssize_t i) noexcept nogil:
        """Board i's game ended in the last step: back to zeros (rows are zero except where terminated)."""
        memset(self.final_obs + i * KALAH_SLOTS, 0, KALAH_SLOTS * sizeof(int))
        self.final_score[i] = 0
        self.terminated[i] = 0
        self.rewards[i] = 0

    cdef inline void write_view(self, Py_ssize_t i) noexcept nogil:
        """Board i's observation, legal pits and side to move."""
        cdef const int *b = self.boards + i * KALAH_SLOTS
        cdef uint8_t *mask = self.mask + i * KALAH_PITS
        cdef int p
        memcpy(self.obs + i * KALAH_SLOTS, b, KALAH_SLOTS * sizeof(int))
        for p in range(KALAH_PITS):
            mask[p] = b[p] != 0
        self.to_move[i] = self.mover[i]

    def _check_bound(self):
        if self.bound is None:
            raise ValueError("VectorCore: bind() the output arrays first")
