# Endgame databases, a level at a time: build it (on threads, or a range of
# ranks for a worker elsewhere), its sizes and its blocks (the classes). Its
# checks, mapping and look-ups are _core_endgame_check.pxi's.

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


def egdb_blocks(n):
    """Level n's blocks as (start, stop) ranks: block a holds the positions whose
    mover has a of the n seeds. Blocks a and n - a make a class: no position of
    it leads to a position of the level outside it."""
    cdef int level = check_egdb_seeds(n)
    return [(egdb_block[level][a], egdb_block[level][a + 1]) for a in range(level + 1)]
