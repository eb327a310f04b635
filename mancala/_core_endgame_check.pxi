# Endgame levels as files hold them: checksum chunks and their hashes, each
# value's range, the first byte two levels differ at, a position by its rank,
# a file mapped read only, look-ups.

from posix.mman cimport MAP_FAILED, MAP_SHARED, PROT_READ, mmap, munmap
from libc.errno cimport errno
from libc.string cimport memcmp, strerror
from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_FillInfo

cdef list level_chunks(int n):
    """The checksum chunks of level n: each block (egdb.h) cut into pieces of
    EGDB_CHUNK values, as (start, stop) ranks. A block (so a class) is whole
    chunks: whoever builds it alone can hash it alone."""
    cdef int a
    cdef uint64_t first, end
    chunks = []
    egdb_init_binomials()
    for a in range(n + 1):
        first, end = egdb_block[n][a], egdb_block[n][a + 1]
        while first < end:
            chunks.append((first, min(first + EGDB_CHUNK, end)))
            first += EGDB_CHUNK
    return chunks


def egdb_chunks(n):
    """Level n's checksum chunks as (start, stop) ranks, in order (see level_chunks)."""
    return level_chunks(check_egdb_seeds(n))


cdef enum:
    CHECK_CHUNKS_A_THREAD = 8   # a level of fewer chunks than this a thread is checked by one
    CHUNK_UNCHECKED = -3        # a chunk's outcome (LevelCheck.outcome), else its first bad index
    CHUNK_MISMATCH = -2
    CHUNK_SOUND = -1


cdef class LevelCheck:
    """What the threads checking one level share: chunks taken in turn, each
    verified then hashed; the first problem a thread finds stops every thread
    from taking more, and a chunk once taken is finished, so every chunk
    before the first problem is checked whatever the threads' order."""
    cdef const signed char *values
    cdef int level
    cdef uint64_t n_chunks
    cdef uint64_t *bounds       # n_chunks + 1: chunk i is values[bounds[i]:bounds[i + 1]]
    cdef uint64_t *hashes       # each chunk's, once checked
    cdef const uint64_t *want   # the hashes a file records, or NULL
    cdef int64_t *outcome       # each chunk's: CHUNK_UNCHECKED, CHUNK_SOUND, CHUNK_MISMATCH or a bad index
    cdef uint64_t next_chunk    # the first chunk no thread has taken
    cdef int stop

    def halt(self):
        """Tell every thread to stop (Ctrl-C)."""
        store_flag(&self.stop, True)

    def work(self):
        """One thread's share: chunks taken in turn till none is left or one failed."""
        cdef uint64_t i, first, last
        cdef int64_t result
        with nogil:
            while not load_flag(&self.stop):
                i = __atomic_fetch_add(&self.next_chunk, 1, __ATOMIC_RELAXED)
                if i >= self.n_chunks:
                    break
                first, last = self.bounds[i], self.bounds[i + 1]
                result = egdb_verify_level(self.values, self.level, first, last)
                if result < 0:
                    self.hashes[i] = egdb_chunk_hash(self.values + first, last - first)
                    result = CHUNK_MISMATCH if self.want != NULL and self.hashes[i] != self.want[i] \
                        else CHUNK_SOUND
                self.outcome[i] = result
                if result != CHUNK_SOUND:
                    store_flag(&self.stop, True)


def egdb_check_level(values, n, expected=None, threads=1):
    """One pass over level n's values, chunk by chunk (egdb_chunks), shared by
    ``threads`` (1..MAX_THREADS; a small level is checked by one): each value
    must be one a position of the level can have (|v| <= n, v = n mod 2) and,
    when ``expected`` (the chunks' hashes a file records) is given, each chunk
    must hash to its entry. Returns (hashes, problem): the chunks' hashes
    (egdb_chunk_hashes) and None, or, at the first problem in the level's
    order, the hashes before it and ("value", index) or ("chunk", chunk number)."""
    cdef const unsigned char[::1] view = values
    cdef int level = check_egdb_seeds(n)
    cdef uint64_t size = view.shape[0]
    cdef Py_ssize_t i, n_chunks
    cdef LevelCheck check = LevelCheck()
    cdef uint64_t *memory
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise InvalidLimitError(f"threads is 1 to {MAX_THREADS}, not {quote(threads)}")
    if size != level_positions(level):
        raise ValueError(f"level {n} holds {level_positions(level)} values, not {size}")
    parts = level_chunks(level)
    n_chunks = len(parts)
    if expected is not None and len(expected) != n_chunks:
        raise ValueError(f"level {n} has {n_chunks} checksum chunks, not {len(expected)}")
    memory = <uint64_t *> calloc(4 * n_chunks + 1, sizeof(uint64_t))
    if memory == NULL:
        raise MemoryError()
    try:
        check.values = <const signed char *> &view[0]
        check.level = level
        check.n_chunks = n_chunks
        check.bounds = memory
        check.hashes = memory + n_chunks + 1
        check.outcome = <int64_t *> (memory + 2 * n_chunks + 1)
        for i in range(n_chunks):
            check.bounds[i] = parts[i][0]
            check.outcome[i] = CHUNK_UNCHECKED
        check.bounds[n_chunks] = size
        if expected is not None:
            for i in range(n_chunks):
                memory[3 * n_chunks + 1 + i] = expected[i]
            check.want = memory + 3 * n_chunks + 1
        threads = min(threads, n_chunks // CHECK_CHUNKS_A_THREAD)
        if threads > 1:
            Workers(check.work, [()] * threads, f"mancala endgame check {n}").run(check.halt)
        else:
            check.work()
        hashes = []
        for i in range(n_chunks):
            if check.outcome[i] == CHUNK_SOUND:
                hashes.append(check.hashes[i])
            elif check.outcome[i] == CHUNK_MISMATCH:
                return hashes, ("chunk", i)
            elif check.outcome[i] >= 0:
                return hashes, ("value", check.outcome[i])
            else:
                raise AssertionError(f"chunk {i} of level {n} was left unchecked")
        return hashes, None
    finally:
        free(memory)


def egdb_chunk_hashes(values, start=0, stop=None):
    """The hashes of level n's checksum chunks (egdb_chunks) that make up
    values[start:stop] (values: the whole level; start and stop on chunk
    boundaries, as a block's are): what a worker that built part of a level
    reports, for egdb_fold."""
    cdef const unsigned char[::1] view = values
    cdef uint64_t first = start, last = view.shape[0] if stop is None else stop
    cdef int n = 0
    egdb_init_binomials()
    while n <= EGDB_MAX_SEEDS and level_positions(n) < <uint64_t> view.shape[0]:
        n += 1
    if n > EGDB_MAX_SEEDS or level_positions(n) != <uint64_t> view.shape[0]:
        raise ValueError(f"{view.shape[0]} values are no level's")
    hashes = []
    inside = False
    for chunk_start, chunk_stop in level_chunks(n):
        if chunk_start == first:
            inside = True
        if inside and chunk_stop <= last:
            hashes.append(egdb_chunk_hash(<const signed char *> &view[chunk_start],
                                          chunk_stop - chunk_start))
            if chunk_stop == last:
                return hashes
    raise ValueError(f"{start}:{stop} is not a run of whole checksum chunks of level {n}")


def egdb_fold(n, hashes):
    """Level n's checksum from all its chunks' hashes, in order (egdb_chunk_hashes)."""
    cdef int level = check_egdb_seeds(n)
    cdef Py_ssize_t i, count = len(hashes)
    cdef uint64_t *chunks = <uint64_t *> calloc(max(count, 1), sizeof(uint64_t))
    if chunks == NULL:
        raise MemoryError()
    try:
        for i in range(count):
            chunks[i] = hashes[i]
        return egdb_level_checksum(level, chunks, count)
    finally:
        free(chunks)


def egdb_verify(values, n, start=0, stop=None):
    """The first index in values[start:stop] (level n's values) whose byte is no
    value a position of the level can have (|v| <= n and v = n mod 2), or -1."""
    cdef const unsigned char[::1] view = values
    cdef int level = check_egdb_seeds(n)
    cdef uint64_t first = start, last = view.shape[0] if stop is None else stop
    cdef int64_t bad = -1
    if first > last or last > <uint64_t> view.shape[0]:
        raise ValueError(f"{start}:{stop} is not a part of {view.shape[0]} values")
    if first < last:
        with nogil:
            bad = egdb_verify_level(<const signed char *> &view[0], level, first, last)
    return bad


cdef enum:
    DIFFERENCE_PIECE = 1 << 16  # bytes compared at a time before a differing piece is looked into


cdef int64_t first_difference(const unsigned char *a, const unsigned char *b, uint64_t first,
                              uint64_t last) noexcept nogil:
    cdef uint64_t end
    while first < last:
        end = min(first + DIFFERENCE_PIECE, last)
        if memcmp(a + first, b + first, end - first) != 0:
            while a[first] == b[first]:
                first += 1
            return first
        first = end
    return -1


def egdb_first_difference(a, b, start=0, stop=None):
    """The first index in [start, stop) where buffers a and b (of one length:
    two copies of a level) hold different bytes, or -1."""
    cdef const unsigned char[::1] x = a
    cdef const unsigned char[::1] y = b
    cdef uint64_t first, last
    cdef int64_t found = -1
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"{x.shape[0]} values against {y.shape[0]}: not two copies of a level")
    if start < 0 or (stop is not None and not start <= stop <= x.shape[0]) or start > x.shape[0]:
        raise ValueError(f"{start}:{stop} is not a part of {x.shape[0]} values")
    first, last = start, x.shape[0] if stop is None else stop
    if first < last:
        with nogil:
            found = first_difference(&x[0], &y[0], first, last)
    return found


def egdb_position(n, rank):
    """The twelve pits of the position of ``rank`` in level n, the mover's six
    first (from the mover's left), then the opponent's: what its byte is the value of."""
    cdef int level = check_egdb_seeds(n)
    cdef int v[KALAH_SLOTS]
    egdb_init_binomials()
    if not 0 <= rank < level_positions(level):
        raise ValueError(f"level {n} has {level_positions(level)} positions, not one of rank {rank}")
    memset(v, 0, sizeof(v))
    egdb_unrank(v, level, rank)
    return [v[i] for i in range(KALAH_PITS)] + [v[KALAH_OPP_PIT + i] for i in range(KALAH_PITS)]


def egdb_fnv(values, previous=None):
    """FNV-1a of values, continued from ``previous`` (the hash of the values
    before them): the checksum of a format-1 single-file database."""
    cdef const unsigned char[::1] view = values
    cdef uint64_t h = egdb_fnv_start if previous is None else previous
    if previous is None and view.shape[0] == 0:
        return 0
    if view.shape[0]:
        with nogil:
            h = egdb_fnv_more(h, <const signed char *> &view[0], view.shape[0])
    return h


def egdb_lookup(levels, slots, to_move):
    """The value of a position's pits for the side to move (its rest of the
    game), from levels 0..N (level n's values by rank)."""
    cdef int v[KALAH_SLOTS]
    cdef egdb_table t
    cdef int seeds
    views = []
    fill_table(&t, views, levels)
    list_view(slots, to_move, v)
    seeds = kalah_row_sum(v) + kalah_row_sum(v + KALAH_OPP_PIT)
    if seeds > t.max_seeds:
        raise ValueError(f"the position has {seeds} seeds in its pits; the database covers {t.max_seeds}")
    return egdb_value(&t, v, seeds)


def egdb_rank_of(slots, to_move):
    """(level, rank) of a position's pits seen from the side to move."""
    cdef int v[KALAH_SLOTS]
    cdef int seeds
    list_view(slots, to_move, v)
    seeds = kalah_row_sum(v) + kalah_row_sum(v + KALAH_OPP_PIT)
    check_egdb_seeds(seeds)
    return seeds, egdb_rank(v, seeds)


cdef class MappedLevel:
    """``size`` bytes of an open file from ``offset`` on, mapped read only and
    shared with every process that maps it (the page cache holds one copy).

    Exposes them as a read-only buffer. If the file shrinks under the mapping,
    reading the lost part gives zeros instead of killing the process
    (csrc/guard.h) and ``damaged`` turns True: whoever read it must throw its
    answer away. Unmapped when the last reference (a view included) goes.
    Raises OSError if the file cannot be mapped, MemoryError past 1024 mappings.
    """
    cdef char *base
    cdef size_t length
    cdef Py_ssize_t offset, size
    cdef int slot

    def __cinit__(self, int fd, Py_ssize_t offset, Py_ssize_t size):
        cdef void *p
        self.base = NULL
        self.slot = -1
        if offset < 0 or size <= 0:
            raise ValueError(f"a mapping of {size} bytes from {offset}")
        if guard_install():
            raise OSError(errno, strerror(errno).decode())
        self.length = offset + size
        p = mmap(NULL, self.length, PROT_READ, MAP_SHARED, fd, 0)
        if p == MAP_FAILED:
            raise OSError(errno, strerror(errno).decode())
        self.slot = guard_add(p, self.length)
        if self.slot < 0:
            munmap(p, self.length)
            raise MemoryError("too many endgame levels mapped at once")
        self.base = <char *> p
        self.offset = offset
        self.size = size

    def __dealloc__(self):
        if self.base != NULL:
            guard_remove(self.slot)
            munmap(self.base, self.length)

    def __getbuffer__(self, Py_buffer *buffer, int flags):
        if flags & PyBUF_WRITABLE:
            raise BufferError("a mapped endgame level is read only")
        PyBuffer_FillInfo(buffer, self, self.base + self.offset, self.size, 1, flags)

    def __len__(self):
        return self.size

    @property
    def damaged(self):
        """The file shrank under the mapping: some reads found zeros, not its bytes."""
        return guard_damaged(self.slot) != 0

    def guard(self):
        """Make sure SIGBUS is handled here (another library may have taken it since)."""
        if guard_install():
            raise OSError(errno, strerror(errno).decode())
