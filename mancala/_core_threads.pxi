# Atomics for the flags and the busy table that threads sharing one table
# read and write without locks (ABDADA: see negamax, step 7).

cdef enum:
    BUSY_SLOTS = 1 << 14    # the busy table: keys of positions being searched, for sharing threads


cdef extern from *:
    """
    static inline int load_flag(const int *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }
    static inline void store_flag(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_RELAXED); }
    static inline uint64_t load_key(const uint64_t *slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }
    static inline void store_key(uint64_t *slot, uint64_t key) { __atomic_store_n(slot, key, __ATOMIC_RELAXED); }
    static inline void clear_key(uint64_t *slot, uint64_t key) {
        __atomic_compare_exchange_n(slot, &key, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    """
    void __builtin_prefetch(const void *address) nogil
    int load_flag(const int *flag) nogil       # another thread may set it
    void store_flag(int *flag, int value) nogil
    uint64_t load_key(const uint64_t *slot) nogil   # the busy table (see negamax)
    void store_key(uint64_t *slot, uint64_t key) nogil
    void clear_key(uint64_t *slot, uint64_t key) nogil  # only if it still holds key


cdef inline uint64_t *busy_slot(const Search *s, uint64_t key) noexcept nogil:
    """Where the busy table marks key's position as being searched (s.config.busy: not NULL).

    Sharing threads mark each subtree they enter and clear the mark as they
    leave; the others put a marked subtree off till last (negamax, step 7).
    """
    return &s.config.busy[key & (BUSY_SLOTS - 1)]
