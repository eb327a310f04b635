# Endgame databases, a level at a time: build (on threads, or a range of ranks
# for a worker elsewhere), checksum, verify, map read only, look up.

from posix.mman cimport MAP_FAILED, MAP_SHARED, PROT_READ, mmap, munmap
from libc.errno cimport errno
from libc.string cimport strerror
from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_FillInfo

cdef extern from *:
    uint64_t __atomic_fetch_add(uint64_t *slot, uint64_t value, int order) nogil
    int __ATOMIC_RELAXED


cdef enum:
    EGDB_SHARED_LEVEL = 8   # smaller levels take a moment: the calling thread builds them alone
    EGDB_WORK = 1 << 16     # ranks a building thread takes at a time


def egdb_size(max_seeds):
    """Positions (bytes) in a database of levels 0..max_seeds."""
    return egdb_count(check_egdb_seeds(max_seeds))


def egdb_level_size(n):
    """Positions (bytes) of level n: those with exactly n seeds in the pits."""
    return level_positions(check_egdb_seeds(n))


cdef int fill_table(egdb_table *t, list views, levels) except -1:
    """Point t at levels[0..] (buffers, level n's size each); views keeps their
    views alive. t is left as it was when levels are refused."""
    cdef const unsigned char[::1] view
    cdef egdb_table made
    cdef int n
    if len(levels) > EGDB_MAX_SEEDS + 1:
        raise InvalidLimitError(f"an endgame database has at most {EGDB_MAX_SEEDS + 1} levels, "
                                f"not {len(levels)}")
    egdb_init_binomials()
    memset(&made, 0, sizeof(made))
    for n, values in enumerate(levels):
        view = values
        if <uint64_t> view.shape[0] != level_positions(n):
            raise ValueError(f"level {n} of an endgame database holds {level_positions(n)} values, "
                             f"not {view.shape[0]}")
        views.append(view)
        made.level[n] = <const signed char *> &view[0]
    made.max_seeds = len(levels) - 1
    memcpy(t, &made, sizeof(made))
    return 0


cdef class LevelBuild:
    """What the threads building one level share."""
    cdef egdb_table below
    cdef egdb_builder w
    cdef int stop               # set to end the build early (Ctrl-C)
    cdef int out_of_memory      # a thread could not allocate its tile
    cdef uint64_t done          # positions built so far
    cdef uint64_t searched      # positions a pass left to the search (egdb_solve)
    cdef uint64_t next_work     # the first rank (or class, in classes) no thread has taken yet
    cdef uint64_t end           # one past the last rank to build
    cdef int classes[EGDB_MAX_SEEDS + 1]    # the classes to build by passes (a <= n - a), largest first
    cdef int n_classes
    cdef list views

    def halt(self):
        """Tell every thread to stop (Ctrl-C)."""
        store_flag(&self.stop, True)

    def work(self):
        """One thread's share: runs of EGDB_WORK ranks taken in turn till none is left."""
        cdef uint64_t first
        with nogil:
            while not load_flag(&self.stop):
                first = __atomic_fetch_add(&self.next_work, EGDB_WORK, __ATOMIC_RELAXED)
                if first >= self.end:
                    break
                egdb_build_range(&self.w, first, min(first + EGDB_WORK, self.end), &self.stop,
                                 &self.done)

    def work_classes(self):
        """One thread's share: whole classes taken in turn (largest first) till none is left."""
        cdef uint64_t k
        cdef int built
        with nogil:
            while not load_flag(&self.stop):
                k = __atomic_fetch_add(&self.next_work, 1, __ATOMIC_RELAXED)
                if k >= <uint64_t> self.n_classes:
                    break
                built = egdb_build_class(&self.w, self.classes[k], &self.stop, &self.done,
                                         &self.searched)
                if built < 0:
                    store_flag(&self.out_of_memory, True)
                    store_flag(&self.stop, True)


cdef tuple whole_classes(int n, list ranges):
    """The classes of level n (as a <= n - a, largest first) that the rank
    ranges cover whole, and the ranges left once their blocks are taken out."""
    cdef int a
    merged = []     # (no negative index: this module is compiled without wraparound)
    for start, stop in sorted(ranges):
        if merged and start <= merged[len(merged) - 1][1]:
            merged[len(merged) - 1][1] = max(merged[len(merged) - 1][1], stop)
        elif start < stop:
            merged.append([start, stop])
    covered = lambda first, end: any(lo <= first and end <= hi for lo, hi in merged)
    classes = []
    for a in range(n // 2 + 1):
        if covered(egdb_block[n][a], egdb_block[n][a + 1]) \
                and covered(egdb_block[n][n - a], egdb_block[n][n - a + 1]):
            classes.append(a)
    taken = sorted((egdb_block[n][c], egdb_block[n][c + 1]) for a in classes for c in {a, n - a})
    left = []
    for lo, hi in merged:
        for first, end in taken:
            if first >= hi or end <= lo:
                continue
            if first > lo:
                left.append((lo, first))
            lo = max(lo, end)
        if lo < hi:
            left.append((lo, hi))
    size = lambda a: egdb_row_count(a) * egdb_row_count(n - a) * (1 if 2 * a == n else 2)
    return sorted(classes, key=lambda a: (-size(a), a)), left, [tuple(r) for r in merged]


def egdb_build_level(levels, out, capture, threads=1, progress=None, ranges=None, search=False):
    """Build level n = len(levels) into out, from levels 0..n-1: the whole level,
    or the rank ranges [(start, stop), ...] given.

    out: a writable buffer of level n's size, zero where nothing is built yet
    (a fresh anonymous mapping is); values the build needs beyond the ranges
    are computed into it too (as built bytes, egdb.h), and the ranges' bytes
    are values when it returns (so a range built later in the same buffer must
    come in the same call). Classes the ranges cover whole (blocks a and n - a,
    egdb_blocks) are built by passes over their rows (csrc/egdb_build.h),
    threads taking whole classes, largest first; other ranks by the search
    (egdb_solve), threads sharing each range (from level 8 up).
    progress(done, total) is called from this thread about five times a
    second. Ctrl-C stops every thread and is raised. search=True builds every
    rank by the search: the reference the passes are tested against.
    """
    cdef int rule = check_code(capture, CAPTURE_RULES, "capture")
    cdef unsigned char[::1] view = out
    cdef LevelBuild build = LevelBuild()
    cdef int n = len(levels)
    cdef uint64_t first, end
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise InvalidLimitError(f"threads is 1 to {MAX_THREADS}, not {quote(threads)}")
    check_egdb_seeds(n)
    if <uint64_t> view.shape[0] != level_positions(n):
        raise ValueError(f"level {n} holds {level_positions(n)} values, not {view.shape[0]}")
    ranges = [(0, view.shape[0])] if ranges is None else list(ranges)
    for start, stop in ranges:
        if not 0 <= start <= stop <= view.shape[0]:
            raise ValueError(f"ranks {start}:{stop} are not a part of level {n} "
                             f"({view.shape[0]} positions)")
    total = sum(stop - start for start, stop in ranges)
    build.views = []
    fill_table(&build.below, build.views, levels)
    build.w.below = &build.below
    build.w.out = &view[0]
    build.w.n = n
    build.w.capture = rule
    report = None if progress is None else lambda: progress(min(build.done, total), total)
    classes, searched_ranges, merged = whole_classes(n, ranges)
    if search:
        classes, searched_ranges = [], merged
    if classes:
        build.n_classes = len(classes)
        for k, a in enumerate(classes):
            build.classes[k] = a
        build.next_work = 0
        Workers(build.work_classes, [()] * min(threads, len(classes)),
                f"mancala endgame level {n}").run(build.halt, report)
        if build.out_of_memory:
            raise MemoryError(f"no memory for a tile of level {n}")
    for start, stop in searched_ranges:
        build.next_work = start
        build.end = stop
        Workers(build.work, [()] * (threads if n >= EGDB_SHARED_LEVEL else 1),
                f"mancala endgame level {n}").run(build.halt, report)
    for start, stop in merged:      # each rank once, however the ranges overlap
        first, end = start, stop
        with nogil:
            egdb_finish(&view[0], first, end)
    if progress is not None:
        progress(total, total)


def egdb_build(max_seeds, capture, progress=None, threads=1, search=False):
    """Every level 0..max_seeds, built in memory: a list of bytearrays (level n's
    values by rank, one signed byte a position; see csrc/egdb.h).
    progress(seeds, done_positions, all_positions) is called after each level;
    search: as egdb_build_level's."""
    cdef int top = check_egdb_seeds(max_seeds)
    levels = []
    for n in range(top + 1):
        out = bytearray(level_positions(n))
        egdb_build_level(levels, out, capture, threads, search=search)
        levels.append(out)
        if progress is not None:
            progress(n, egdb_count(n), egdb_count(top))
    return levels


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


def egdb_blocks(n):
    """Level n's blocks as (start, stop) ranks: block a holds the positions whose
    mover has a of the n seeds. Blocks a and n - a make a class: no position of
    it leads to a position of the level outside it."""
    cdef int level = check_egdb_seeds(n)
    return [(egdb_block[level][a], egdb_block[level][a + 1]) for a in range(level + 1)]


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
