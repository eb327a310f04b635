# Atomics for the flags, the busy table and the counts that threads sharing one
# table read and write without locks (ABDADA: see negamax, step 7; one search
# on several threads: SearchShare).

cdef enum:
    BUSY_SLOTS = 1 << 14    # the busy table: keys of positions being searched, for sharing threads
    CACHE_LINE = 64         # bytes: what one thread writes often, others keep off (SearchShare)
    SHARED_POLLS = 64       # a shared node limit is polled at least this often: a thread passes it by 1/64 at most


cdef extern from *:
    """
    static inline int load_flag(const int *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
    static inline void store_flag(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELAXED); }
    static inline uint64_t load_key(const uint64_t *slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }
    static inline void store_key(uint64_t *slot, uint64_t key) { __atomic_store_n(slot, key, __ATOMIC_RELAXED); }
    static inline void clear_key(uint64_t *slot, uint64_t key) {
        __atomic_compare_exchange_n(slot, &key, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    static inline uint64_t add_count(uint64_t *total, uint64_t more) {
        return __atomic_add_fetch(total, more, __ATOMIC_RELAXED);
    }
    static inline uint64_t load_count(const uint64_t *total) { return __atomic_load_n(total, __ATOMIC_RELAXED); }
    static inline int raise_to(int *deepest, int value) {
        int seen = __atomic_load_n(deepest, __ATOMIC_RELAXED);
        while (seen < value)
            if (__atomic_compare_exchange_n(deepest, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                return 1;
        return 0;
    }
    """
    void __builtin_prefetch(const void *address) nogil
    int load_flag(const int *flag) nogil       # another thread may set it
    void store_flag(int *flag, int value) nogil
    uint64_t load_key(const uint64_t *slot) nogil   # the busy table (see negamax)
    void store_key(uint64_t *slot, uint64_t key) nogil
    void clear_key(uint64_t *slot, uint64_t key) nogil  # only if it still holds key
    uint64_t add_count(uint64_t *total, uint64_t more) nogil    # the new total
    uint64_t load_count(const uint64_t *total) nogil
    bint raise_to(int *deepest, int value) nogil    # *deepest = value if below it: whether this call did


cdef inline uint64_t *busy_slot(const Search *s, uint64_t key) noexcept nogil:
    """Where the busy table marks key's position as being searched (s.config.busy: not NULL).

    Sharing threads mark each subtree they enter and clear the mark as they
    leave; the others put a marked subtree off till last (negamax, step 7).
    """
    return &s.config.busy[key & (BUSY_SLOTS - 1)]


cdef inline uint64_t shared_nodes(Search *s) noexcept nogil:
    """Add this thread's nodes since its last count to its sharers' total
    (s.mode.shared: not NULL); the total of every thread's so far."""
    cdef uint64_t more = s.stats.nodes - s.limits.counted
    s.limits.counted = s.stats.nodes
    return add_count(&s.config.share.nodes, more)


cdef inline bint first_to_finish(Search *s, int depth) noexcept nogil:
    """After an iteration of depth finished: whether this thread is the first of its
    sharers to finish that depth (always, alone)."""
    return not s.mode.shared or raise_to(&s.config.share.deepest, depth)
