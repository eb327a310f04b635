/* tt.h -- the transposition table: entry layout, key, probe and store.
 *
 * A key is a hash of the twelve pits seen from the side to move; the stores
 * are left out. Values are stored relative to the store difference (score -
 * (own store - other store)): what the rest of the game is worth depends only on
 * the pits, so one entry serves every split of the seeds already stored.
 *
 * An entry is 16 bytes; four make a 64-byte bucket, one cache line. The key
 * is stored XORed with the data word, so an entry torn by two threads writing
 * at once fails the match instead of lying:
 *
 *   field         bits  meaning
 *   check           64  key ^ data; a probe must match all 64 bits of the key
 *   data            64  these fields (tt_data), 0 for an empty entry:
 *     value         16  bound on the rest of the game, in seeds (-144..144)
 *     depth          8  remaining depth searched; TT_DEPTH_END: to the end of the game
 *     bound          8  TT_LOWER, TT_UPPER or TT_EXACT = both; plus TT_RESOLVED: the
 *                       subtree met no horizon, so the value bounds the game's
 *                       true value and holds for every depth >= depth
 *     move           8  best pit 0..5 found here, TT_NO_MOVE if none
 *     generation     8  the search that wrote it: older entries are replaced first
 *     work           8  bits in the count of nodes the subtree took: costlier stays
 *     (padding)      8
 */
#ifndef MANCALA_TT_H
#define MANCALA_TT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "kalah.h"
#include "proof_stats.h"

enum { TT_LOWER = 1, TT_UPPER = 2, TT_EXACT = TT_LOWER | TT_UPPER, TT_RESOLVED = 4 };
enum { TT_DEPTH_END = 255, TT_DEPTH_MAX = 254, TT_NO_MOVE = 255, TT_WAYS = 4 };

typedef struct {
    int16_t value;
    uint8_t depth;
    uint8_t bound;
    uint8_t move;
    uint8_t generation;
    uint8_t work;
    uint8_t pad;
} tt_data;

typedef struct {
    uint64_t check;
    uint64_t data;
} tt_entry;

typedef struct {
    tt_entry way[TT_WAYS];
} tt_bucket;

typedef struct {
    tt_bucket *buckets;     /* NULL when the table is off */
    uint64_t n_buckets;
    uint8_t generation;
    void *mapping;          /* what mmap gave: buckets is it rounded up to a huge page */
    size_t mapped;
} tt_table;

/* The layout the table relies on: a tt_data packs into the data word, four
   16-byte entries fill one 64-byte cache line, and every field holds its range. */
KALAH_STATIC_ASSERT(sizeof(tt_data) == sizeof(uint64_t), "tt_data packs into one 64-bit data word");
KALAH_STATIC_ASSERT(sizeof(tt_entry) == 16, "an entry is two 64-bit words");
KALAH_STATIC_ASSERT(sizeof(tt_bucket) == 64, "a bucket is one 64-byte cache line");
KALAH_STATIC_ASSERT(KALAH_MAX_SEEDS <= UINT8_MAX, "tt_key packs each pit into a byte");
KALAH_STATIC_ASSERT(KALAH_MAX_SEEDS <= INT16_MAX, "a value in seeds fits tt_data.value");
KALAH_STATIC_ASSERT(TT_DEPTH_MAX < TT_DEPTH_END && TT_DEPTH_END <= UINT8_MAX, "depths fit tt_data.depth");
KALAH_STATIC_ASSERT((int)KALAH_PITS <= (int)TT_NO_MOVE && TT_NO_MOVE <= UINT8_MAX, "a pit and TT_NO_MOVE fit tt_data.move apart");

enum { TT_HUGE_PAGE = 2 << 20 };

/* Map n_buckets of zeroed memory; 0 on success, -1 if the system refuses.
 *
 * A probe lands anywhere in the table, so the pages are aligned and advised
 * as huge pages, and all are touched here: otherwise a short search would pay
 * a page fault for most of its nodes, and the allocation would hide in the
 * timing of the first searches (measured: left to fault lazily, the bench's
 * summed search time was 2.8x). So a table costs its size in zeroing up front:
 * callers size it to the work (mancala/limits.py: solve_table_mb), and never
 * beyond the memory available (check_hash_mb), lest this loop meet the OOM killer. */
static inline int tt_alloc(tt_table *t, uint64_t n_buckets)
{
    size_t bytes = (size_t)n_buckets * sizeof(tt_bucket);
    void *p;
    if (n_buckets == 0 || bytes / sizeof(tt_bucket) != n_buckets || bytes > SIZE_MAX - TT_HUGE_PAGE)
        return -1;
    p = mmap(NULL, bytes + TT_HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    t->mapping = p;
    t->mapped = bytes + TT_HUGE_PAGE;
    t->buckets = (tt_bucket *)(((uintptr_t)p + TT_HUGE_PAGE - 1) & ~(uintptr_t)(TT_HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
    madvise(t->buckets, bytes, MADV_HUGEPAGE);
#endif
    for (size_t at = 0; at < bytes; at += 4096)
        ((volatile char *)t->buckets)[at] = 0;
    t->n_buckets = n_buckets;
    return 0;
}

static inline void tt_free(tt_table *t)
{
    if (t->mapping)
        munmap(t->mapping, t->mapped);
    t->mapping = NULL;
    t->buckets = NULL;
    t->n_buckets = 0;
}

static inline void tt_clear(tt_table *t)
{
    if (t->buckets)
        memset(t->buckets, 0, (size_t)t->n_buckets * sizeof(tt_bucket));
}

/* Pits hold at most KALAH_MAX_SEEDS < 256 seeds, so each fits a byte. */
static inline uint64_t tt_key(const int *b)
{
    uint64_t lo = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16
                | (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40;
    uint64_t hi = (uint64_t)b[7] | (uint64_t)b[8] << 8 | (uint64_t)b[9] << 16
                | (uint64_t)b[10] << 24 | (uint64_t)b[11] << 32 | (uint64_t)b[12] << 40;
    return kalah_mix(lo ^ kalah_mix(hi + 0x9e3779b97f4a7c15ULL));
}

static inline tt_bucket *tt_bucket_of(const tt_table *t, uint64_t key)
{
    return t->buckets + (uint64_t)(((unsigned __int128)key * t->n_buckets) >> 64);
}

/* Start loading key's bucket now, so it is in cache when the probe comes. */
static inline void tt_prefetch(const tt_table *t, uint64_t key)
{
    __builtin_prefetch(tt_bucket_of(t, key));
}

static inline uint64_t tt_pack(tt_data d)
{
    uint64_t word;
    memcpy(&word, &d, sizeof word);
    return word;
}

static inline tt_data tt_unpack(uint64_t word)
{
    tt_data d;
    memcpy(&d, &word, sizeof d);
    return d;
}

/* Copy key's entry into *out: 1 if found, 0 if not. */
static inline int tt_probe(const tt_table *t, uint64_t key, tt_data *out)
{
    tt_bucket *bk = tt_bucket_of(t, key);
    int i;
    for (i = 0; i < TT_WAYS; i++) {
        uint64_t data = bk->way[i].data;
        if (data && (bk->way[i].check ^ data) == key) {
            *out = tt_unpack(data);
            return 1;
        }
    }
    return 0;
}

/* Keep the entry with this key if there is one; otherwise replace the
   cheapest entry of an older search, then the cheapest of this one (by the
   work its subtree took: a solve's entries all have the same depth). */
static inline void tt_store(tt_table *t, uint64_t key, int value, int depth, int bound, int move,
                            uint64_t nodes)
{
    tt_bucket *bk = tt_bucket_of(t, key);
    tt_entry *e = &bk->way[0];
    tt_data d;
    int i, rank, work = 0, cheapest = 1 << 30;
    int kind = PS_STORE_CURRENT, old_bound = 0;     /* what is replaced: proof_stats.h's only */
    for (i = 0; i < TT_WAYS; i++) {
        uint64_t data = bk->way[i].data;
        tt_data old = tt_unpack(data);
        if (!data || (bk->way[i].check ^ data) == key) {
            e = &bk->way[i];
            kind = data ? PS_STORE_SAME : PS_STORE_EMPTY;
            old_bound = old.bound;
            break;
        }
        rank = old.work + (old.generation == t->generation ? 256 : 0);
        if (rank < cheapest) {
            cheapest = rank;
            e = &bk->way[i];
            kind = old.generation == t->generation ? PS_STORE_CURRENT : PS_STORE_OLDER;
        }
    }
    ps_store(kind, old_bound, bound);
    work = nodes ? 64 - __builtin_clzll(nodes) : 0;
    d.value = (int16_t)value;
    d.depth = (uint8_t)depth;
    d.bound = (uint8_t)bound;
    d.move = (uint8_t)move;
    d.generation = t->generation;
    d.work = (uint8_t)work;
    d.pad = 0;
    e->data = tt_pack(d);
    e->check = key ^ e->data;
}

#endif
