# A rectangle of one class of an endgame level, built by passes: a cluster
# build's task (mancala.cluster.build_plan cuts a level into them).


cdef class RectBuild:
    """One rectangle's build, on a thread of its own (so Ctrl-C can stop it)."""
    cdef egdb_table below
    cdef egdb_builder w
    cdef int stop
    cdef uint64_t done
    cdef uint64_t searched
    cdef int a
    cdef uint64_t i0, i1, j0, j1
    cdef int result
    cdef list views

    def halt(self):
        store_flag(&self.stop, True)

    def work(self):
        with nogil:
            self.result = egdb_build_rect(&self.w, self.a, self.i0, self.i1, self.j0, self.j1,
                                          &self.stop, &self.done, &self.searched)


def egdb_build_rectangle(levels, out, capture, a, rows, cols):
    """Build a rectangle of class a (blocks a and n - a, a <= n - a) of level
    n = len(levels) into out (a writable buffer of level n's size), by passes:
    the positions whose mover holds row i of the a seeds' rows against the
    opponent's row j of the n - a seeds' (block a), and the reverse (block
    n - a), for rows = (i0, i1) and cols = (j0, j1) of their rows' ranks (row
    ranks: egdb_rank's within a block). In a's own class (2a = n) rows and
    cols are equal, or rows lie below cols.

    out holds egdb_built bytes (value ^ 0x80; 0: not built) and gets them: the
    rectangle's positions are not finished (egdb_finish) into values, so that
    a rectangle built later in the same buffer reads them. What the rectangle
    needs of level n outside it (rows ranked below i0 in block n - a, below
    j0 in block a) must be built in out already, else the search takes the
    position (right, and slower). Returns the positions the search took.
    Ctrl-C stops it and is raised."""
    cdef int rule = check_code(capture, CAPTURE_RULES, "capture")
    cdef unsigned char[::1] view = out
    cdef RectBuild build = RectBuild()
    cdef int n = len(levels)
    check_egdb_seeds(n)
    if <uint64_t> view.shape[0] != level_positions(n):
        raise ValueError(f"level {n} holds {level_positions(n)} values, not {view.shape[0]}")
    if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a <= n - a:
        raise ValueError(f"a class of level {n} is a = 0..{n // 2}, not {quote(a)}")
    (i0, i1), (j0, j1) = rows, cols
    build.views = []
    fill_table(&build.below, build.views, levels)
    build.w.below = &build.below
    build.w.out = &view[0]
    build.w.n = n
    build.w.capture = rule
    build.a = a
    build.i0, build.i1, build.j0, build.j1 = i0, i1, j0, j1
    build.result = 1
    if not (0 <= i0 <= i1 <= egdb_row_count(a) and 0 <= j0 <= j1 <= egdb_row_count(n - a)
            and (2 * a != n or (i0, i1) == (j0, j1) or i1 <= j0)):
        raise ValueError(f"rows {i0}:{i1} and cols {j0}:{j1} are not a rectangle of class {a} "
                         f"of level {n}")
    Workers(build.work, [()], f"mancala endgame level {n}").run(build.halt)
    if build.result == -1:
        raise MemoryError(f"no memory for a tile of level {n}")
    if build.result == -2:
        raise ValueError(f"not a rectangle of class {a} of level {n}")
    return build.searched


def egdb_copy_grid(dst, uint64_t dst_start, uint64_t dst_stride, src, uint64_t src_start,
                   uint64_t src_stride, uint64_t rows, uint64_t width):
    """Copy `rows` runs of `width` bytes: run r from src[src_start + r * src_stride]
    to dst[dst_start + r * dst_stride] (a task's rectangle between a level's
    layout and its own file's, where its rows are its width apart)."""
    cdef unsigned char[::1] to = dst
    cdef const unsigned char[::1] source = src
    cdef uint64_t r
    if rows and width:
        if (dst_start + (rows - 1) * dst_stride + width > <uint64_t> to.shape[0]
                or src_start + (rows - 1) * src_stride + width > <uint64_t> source.shape[0]):
            raise ValueError(f"{rows} runs of {width} bytes do not fit ({to.shape[0]} and "
                             f"{source.shape[0]} bytes)")
        with nogil:
            for r in range(rows):
                memcpy(&to[dst_start + r * dst_stride], &source[src_start + r * src_stride], width)
