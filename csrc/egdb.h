/* egdb.h -- endgame databases: the perfect-play value of every position with
 * at most N seeds in the twelve pits, one level of seeds at a time.
 *
 * A position is seen from the side to move (kalah.h) with the stores left out:
 * what the rest of the game is worth to the mover does not depend on the
 * stores, so one byte serves every split of the seeds already stored. The
 * value is the final margin minus the current store difference, -n..n for n
 * seeds in the pits, with n's parity.
 *
 * Levels: level n holds the positions with exactly n seeds in the pits,
 * C(n + 11, 11) of them, ranked densely (egdb_rank): by the seeds the mover
 * holds, then each row's lexicographic rank in the combinatorial number
 * system, the mover's first. A database of N seeds is
 * levels 0..N, C(N + 12, 12) bytes in all (86,493,225 for N = 18). A level's
 * positions lead only to levels below it and to itself (a move that banks
 * nothing and captures nothing), so levels are built from 0 up and each is
 * kept apart: a file of its own, mapped or held by whoever reads it.
 */
#ifndef MANCALA_EGDB_H
#define MANCALA_EGDB_H

#include <stdint.h>
#include <string.h>
#include "kalah.h"

enum {
    EGDB_PITS = 2 * KALAH_PITS,     /* 12 pits in the key */
    EGDB_MAX_SEEDS = 36,            /* the largest N built: C(48, 12) bytes ~ 70 GB is beyond use anyway */
    EGDB_CHUNK_BITS = 20,           /* a level is checksummed in chunks of 2^20 values (1 MiB) */
    EGDB_CHUNK = 1 << EGDB_CHUNK_BITS
};

KALAH_STATIC_ASSERT(EGDB_MAX_SEEDS < -INT8_MIN,
                    "a value -n..n fits a signed byte, and -128 is none (egdb_built's 'not computed')");
KALAH_STATIC_ASSERT(EGDB_PITS + 2 == KALAH_SLOTS, "the key is every slot but the two stores");

typedef struct {
    const int8_t *level[EGDB_MAX_SEEDS + 1];    /* level[n][rank]: positions with n seeds; NULL above N */
    int max_seeds;                              /* N: levels 0..N are all present; -1: no database */
} egdb_table;

/* C(n, k) for n < EGDB_MAX_SEEDS + EGDB_PITS + 2, k <= EGDB_PITS; filled by egdb_init_binomials. */
static uint64_t egdb_binomial[EGDB_MAX_SEEDS + EGDB_PITS + 2][EGDB_PITS + 1];

/* egdb_block[n][a]: the first rank of block a of level n (the positions whose
 * mover holds a of the n seeds); egdb_block[n][n + 1] is the level's size. */
static uint64_t egdb_block[EGDB_MAX_SEEDS + 1][EGDB_MAX_SEEDS + 2];

/* The placements of t seeds in a row of six pits: C(t + 5, 5). */
static inline uint64_t egdb_row_count(int t)
{
    return egdb_binomial[t + KALAH_PITS - 1][KALAH_PITS - 1];
}

static void egdb_init_binomials(void)
{
    int n, k, a;
    if (egdb_binomial[0][0])
        return;
    for (n = 0; n < EGDB_MAX_SEEDS + EGDB_PITS + 2; n++) {
        egdb_binomial[n][0] = 1;
        for (k = 1; k <= EGDB_PITS && k <= n; k++)
            egdb_binomial[n][k] = egdb_binomial[n - 1][k - 1] + (k < n ? egdb_binomial[n - 1][k] : 0);
    }
    for (n = 0; n <= EGDB_MAX_SEEDS; n++)
        for (a = 0; a <= n; a++)
            egdb_block[n][a + 1] = egdb_block[n][a] + egdb_row_count(a) * egdb_row_count(n - a);
}

/* Positions with at most n seeds in the pits (levels 0..n): C(n + 12, 12). */
static inline uint64_t egdb_count(int n)
{
    return egdb_binomial[n + EGDB_PITS][EGDB_PITS];
}

/* Positions with exactly n seeds in the pits (level n): C(n + 11, 11). */
static inline uint64_t egdb_level_size(int n)
{
    return egdb_binomial[n + EGDB_PITS - 1][EGDB_PITS - 1];
}

/* The lexicographic rank of a row of six pits (its first pit most
 * significant) among the rows holding `total` seeds: 0 is every seed in the
 * last pit, C(total + 5, 5) - 1 every seed in the first. */
static inline uint64_t egdb_row_rank(const int *row, int total)
{
    uint64_t rank = 0;
    int i, left = total, rest;
    for (i = 0; i < KALAH_PITS - 1 && left; i++) {
        rest = KALAH_PITS - 1 - i;      /* pits after this one */
        /* placements that put fewer seeds here: C(left + rest, rest) - C(left - x + rest, rest) */
        rank += egdb_binomial[left + rest][rest] - egdb_binomial[left - row[i] + rest][rest];
        left -= row[i];
    }
    return rank;
}

/* The row of rank `rank` among those holding `total` seeds. */
static inline void egdb_row_unrank(int *row, int total, uint64_t rank)
{
    int i, left = total, rest, x;
    for (i = 0; i < KALAH_PITS - 1; i++) {
        rest = KALAH_PITS - 1 - i;
        /* the most seeds x here such that the placements with fewer than x come to <= rank */
        for (x = 0; x < left; x++)
            if (egdb_binomial[left + rest][rest] - egdb_binomial[left - (x + 1) + rest][rest] > rank)
                break;
        if (x)
            rank -= egdb_binomial[left + rest][rest] - egdb_binomial[left - x + rest][rest];
        row[i] = x;
        left -= x;
    }
    row[KALAH_PITS - 1] = left;
}

/* Step a row to the next rank among those of its total; 0 past the last. */
static inline int egdb_row_next(int *row)
{
    int i, last = row[KALAH_PITS - 1];
    if (last) {         /* one seed from the last pit to the one before it */
        row[KALAH_PITS - 2] += 1;
        row[KALAH_PITS - 1] = last - 1;
        return 1;
    }
    /* the last pit is empty: carry from the rightmost non-empty pit k into k - 1 */
    for (i = KALAH_PITS - 2; i > 0; i--) {
        if (row[i]) {
            row[i - 1] += 1;
            row[KALAH_PITS - 1] = row[i] - 1;
            row[i] = 0;
            return 1;
        }
    }
    return 0;
}

static inline void egdb_row_first(int *row, int total)
{
    memset(row, 0, (KALAH_PITS - 1) * sizeof(int));
    row[KALAH_PITS - 1] = total;
}

/* The rank of b's twelve pits within level `seeds` (b seen from the mover):
 * block by the mover's seeds a, then the mover's row's rank, then the
 * opponent's. A move that banks nothing keeps both rows' totals (it sows
 * within the mover's row), so a position and every position of its level it
 * leads to lie in blocks a and n - a: those two blocks are a class, built
 * apart from the rest of the level (mancala.cluster.build). */
static inline uint64_t egdb_rank(const int *b, int seeds)
{
    int a = kalah_row_sum(b);
    return egdb_block[seeds][a] + egdb_row_rank(b, a) * egdb_row_count(seeds - a)
        + egdb_row_rank(b + KALAH_OPP_PIT, seeds - a);
}

/* The pits of the position of rank `rank` in level `seeds` (stores left as they are). */
static inline void egdb_unrank(int *b, int seeds, uint64_t rank)
{
    int a = 0;
    uint64_t within, others;
    while (egdb_block[seeds][a + 1] <= rank)
        a++;
    within = rank - egdb_block[seeds][a];
    others = egdb_row_count(seeds - a);
    egdb_row_unrank(b, a, within / others);
    egdb_row_unrank(b + KALAH_OPP_PIT, seeds - a, within % others);
}

/* Step b (with `seeds` in its pits) to the position of the next rank; 0 past the last. */
static inline int egdb_next(int *b, int seeds)
{
    int a;
    if (egdb_row_next(b + KALAH_OPP_PIT))
        return 1;
    a = kalah_row_sum(b);
    egdb_row_first(b + KALAH_OPP_PIT, seeds - a);
    if (egdb_row_next(b))
        return 1;
    if (a == seeds)
        return 0;
    egdb_row_first(b, a + 1);
    egdb_row_first(b + KALAH_OPP_PIT, seeds - a - 1);
    return 1;
}

/* The value of b's pits for the mover (b's stores are ignored), from the levels present. */
static inline int egdb_value(const egdb_table *t, const int *b, int seeds)
{
    return t->level[seeds][egdb_rank(b, seeds)];
}

/* What a build of level n reads and writes: the levels below it, read only,
 * and the level itself as it is being filled. A value being built is kept as
 * its byte XOR 0x80 (egdb_built), so that zero -- untouched memory, whether a
 * fresh mapping or pages a worker never needed -- means "not computed yet";
 * egdb_finish turns a finished range into values. */
typedef struct {
    const egdb_table *below;    /* levels 0..n-1 */
    uint8_t *out;               /* level n, as egdb_built bytes; 0: not computed */
    int n, capture;
} egdb_builder;

static inline uint8_t egdb_built(int value) { return (uint8_t)(int8_t)value ^ 0x80u; }

static int egdb_solve(const egdb_builder *w, const int *b);

/* One move's value, from pos's mover's view: played on the board (kalah_play),
 * the child's stores holding what the move banked, the rest looked up in the
 * levels below or, when nothing was banked, solved in level n. The search
 * (egdb_solve) and the passes' long moves (egdb_build.h) both score moves so. */
static int egdb_move_value(const egdb_builder *w, const int *pos, int pit)
{
    int child[KALAH_SLOTS], flags, captured, value, left;
    memcpy(child, pos, sizeof child);
    flags = kalah_play(child, pit, w->capture, &captured);
    value = child[KALAH_STORE] - child[KALAH_OPP_STORE];
    if (!(flags & PLAY_GAME_OVER)) {
        left = w->n - child[KALAH_STORE] - child[KALAH_OPP_STORE];
        value += left < w->n ? egdb_value(w->below, child, left) : egdb_solve(w, child);
    }
    return flags & PLAY_EXTRA_TURN ? value : -value;
}

/* Value of the position with pits from b (n seeds, stores ignored), computing
 * what of level n is missing (its children in level n first). Recursion stays
 * short: a move that banks nothing moves seeds nearer their stores, so chains
 * are bounded. Threads may build one level together: a value is written
 * whole (one byte, atomically), and one not written yet is computed again, to
 * the same byte. */
static int egdb_solve(const egdb_builder *w, const int *b)
{
    int pos[KALAH_SLOTS];
    int pit, value, best = -KALAH_MAX_SEEDS - 1, mine, theirs;
    uint64_t rank = egdb_rank(b, w->n);
    uint8_t known = __atomic_load_n(&w->out[rank], __ATOMIC_RELAXED);

    if (known)
        return (int8_t)(known ^ 0x80u);
    memcpy(pos, b, sizeof pos);
    pos[KALAH_STORE] = pos[KALAH_OPP_STORE] = 0;
    mine = kalah_row_sum(pos);
    theirs = kalah_row_sum(pos + KALAH_OPP_PIT);
    if (mine == 0 || theirs == 0) {
        best = mine - theirs;
    } else {
        for (pit = 0; pit < KALAH_PITS; pit++) {
            if (!pos[pit])
                continue;
            value = egdb_move_value(w, pos, pit);
            if (value > best)
                best = value;
        }
    }
    __atomic_store_n(&w->out[rank], egdb_built(best), __ATOMIC_RELAXED);
    return best;
}

/* Solve the positions of ranks [from, to) of level w->n, counting them into
 * *done now and then; returns early (0) when *stop is set (NULL: never). */
static int egdb_build_range(const egdb_builder *w, uint64_t from, uint64_t to,
                            const int *stop, uint64_t *done)
{
    int b[KALAH_SLOTS] = {0};
    uint64_t rank, counted = from;
    if (from >= to)
        return 1;
    egdb_unrank(b, w->n, from);
    for (rank = from; rank < to; rank++) {
        egdb_solve(w, b);
        egdb_next(b, w->n);
        if ((rank & 4095) == 4095) {
            __atomic_fetch_add(done, rank + 1 - counted, __ATOMIC_RELAXED);
            counted = rank + 1;
            if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
                return 0;
        }
    }
    __atomic_fetch_add(done, to - counted, __ATOMIC_RELAXED);
    return 1;
}

/* Turn the built bytes of ranks [from, to) into values (every one computed). */
static void egdb_finish(uint8_t *out, uint64_t from, uint64_t to)
{
    uint64_t i;
    for (i = from; i < to; i++)
        out[i] ^= 0x80u;
}

/* Checksums. A chunk of values (EGDB_CHUNK of them, the last one of a level
 * shorter) hashes on its own, so parts of a level built apart can be summed up
 * without reading each other's bytes; a level's checksum folds its chunks'
 * hashes in order. Both catch accidents; forged files are caught by
 * egdb_verify_level. Four lanes of 64-bit words keep the multiplier busy; kalah.h's
 * kalah_mix folds them. */
static uint64_t egdb_chunk_hash(const int8_t *values, uint64_t size)
{
    const uint64_t prime = 0x100000001b3ULL;
    uint64_t lane[4] = {0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL, 0x94d049bb133111ebULL, size};
    uint64_t i = 0, word;
    int k;
    for (; i + 32 <= size; i += 32)
        for (k = 0; k < 4; k++) {
            memcpy(&word, values + i + 8 * k, 8);
            lane[k] = (lane[k] ^ word) * prime;
        }
    for (k = 0; i < size; i++, k = (k + 1) & 3)     /* the tail, a byte at a time */
        lane[k] = (lane[k] ^ (uint8_t)values[i]) * prime;
    return kalah_mix(lane[0] ^ kalah_mix(lane[1] ^ kalah_mix(lane[2] ^ kalah_mix(lane[3]))));
}

/* The checksum of level n from its chunks' hashes, in order. */
static uint64_t egdb_level_checksum(int n, const uint64_t *chunks, uint64_t n_chunks)
{
    uint64_t h = kalah_mix(0x6b616c6168ULL ^ (uint64_t)n), i;     /* "kalah" */
    for (i = 0; i < n_chunks; i++)
        h = kalah_mix(h ^ chunks[i]) + i;
    return h;
}

/* The first index in [from, to) of level n whose byte is not a value its
 * position can have, or -1. With n seeds in the pits every seed ends in one
 * store or the other, so the rest of the game is worth 2k - n to the mover
 * (k of them his): |v| <= n and v = n (mod 2). A checksum only catches
 * accidents; this catches a forged file, whose wrong values would be reported
 * as exact. A max and an or: vectorised. */
static int64_t egdb_verify_level(const int8_t *values, int n, uint64_t from, uint64_t to)
{
    const uint8_t *bytes = (const uint8_t *)values;
    /* shifted up by n, a good value is an even number 0..2n (the byte wraps) */
    const uint8_t shift = (uint8_t)n, top = (uint8_t)(2 * n);
    uint8_t high = 0, bits = 0;
    uint64_t i;
    for (i = from; i < to; i++) {
        uint8_t u = (uint8_t)(bytes[i] + shift);
        high = u > high ? u : high;
        bits |= u;
    }
    if (high > top || (bits & 1u))
        for (i = from; i < to; i++) {
            uint8_t u = (uint8_t)(bytes[i] + shift);
            if (u > top || (u & 1u))
                return (int64_t)i;
        }
    return -1;
}

/* FNV-1a over the values, continued from h: the checksum of the single-file
 * databases of format 1, still read (and split into levels) once. */
static const uint64_t egdb_fnv_start = 0xcbf29ce484222325ULL;  /* FNV's offset basis */

static inline uint64_t egdb_fnv_more(uint64_t h, const int8_t *values, uint64_t size)
{
    uint64_t i;
    for (i = 0; i < size; i++) {
        h ^= (uint8_t)values[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

#endif
