/* egdb.h -- endgame databases: the perfect-play value of every position with
 * at most N seeds in the twelve pits.
 *
 * A position is seen from the side to move (kalah.h) with the stores left out:
 * what the rest of the game is worth to the mover does not depend on the
 * stores, so one byte serves every split of the seeds already stored. The
 * value is the final margin minus the current store difference, -n..n for n
 * seeds in the pits.
 *
 * Index: positions with n seeds come after all positions with fewer; within
 * n, the twelve pits (mover's 0..5, then opponent's 7..12) are ranked
 * lexicographically in the combinatorial number system, so the index is
 * dense: sum over n <= N of C(n + 11, 11) = C(N + 12, 12) bytes in all
 * (86,493,225 for N = 18).
 */
#ifndef MANCALA_EGDB_H
#define MANCALA_EGDB_H

#include <stdint.h>
#include <string.h>
#include "kalah.h"

enum {
    EGDB_PITS = 2 * KALAH_PITS,     /* 12 pits in the key */
    EGDB_MAX_SEEDS = 36,            /* the largest N built: C(48, 12) bytes ~ 70 GB is beyond use anyway */
    EGDB_UNKNOWN = -128             /* a value not computed yet (building only) */
};

KALAH_STATIC_ASSERT(EGDB_MAX_SEEDS <= INT8_MAX && EGDB_UNKNOWN < -EGDB_MAX_SEEDS,
                    "a value -n..n fits a signed byte, apart from the unknown marker");
KALAH_STATIC_ASSERT(EGDB_PITS + 2 == KALAH_SLOTS, "the key is every slot but the two stores");

typedef struct {
    int8_t *values;         /* one value a position, by egdb_index; NULL when absent */
    int max_seeds;          /* N: positions with at most N seeds in the pits */
    uint64_t size;          /* C(N + 12, 12) */
} egdb_table;

/* C(n, k) for n < 64 + EGDB_PITS, k <= EGDB_PITS; filled by egdb_init_binomials. */
static uint64_t egdb_binomial[EGDB_MAX_SEEDS + EGDB_PITS + 2][EGDB_PITS + 1];

static void egdb_init_binomials(void)
{
    int n, k;
    if (egdb_binomial[0][0])
        return;
    for (n = 0; n < EGDB_MAX_SEEDS + EGDB_PITS + 2; n++) {
        egdb_binomial[n][0] = 1;
        for (k = 1; k <= EGDB_PITS && k <= n; k++)
            egdb_binomial[n][k] = egdb_binomial[n - 1][k - 1] + (k < n ? egdb_binomial[n - 1][k] : 0);
    }
}

/* Positions with at most n seeds in the pits: C(n + 12, 12). */
static inline uint64_t egdb_count(int n)
{
    return egdb_binomial[n + EGDB_PITS][EGDB_PITS];
}

/* The index of b's twelve pits (b seen from the mover; seeds <= N). */
static inline uint64_t egdb_index(const int *b, int seeds)
{
    static const int slot[EGDB_PITS] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12};
    uint64_t index = seeds ? egdb_count(seeds - 1) : 0;
    int i, left = seeds, rest;
    for (i = 0; i < EGDB_PITS - 1 && left; i++) {
        rest = EGDB_PITS - 1 - i;       /* pits after this one */
        /* positions that put fewer seeds here: C(left + rest, rest) - C(left - x + rest, rest) */
        index += egdb_binomial[left + rest][rest] - egdb_binomial[left - b[slot[i]] + rest][rest];
        left -= b[slot[i]];
    }
    return index;
}

static int egdb_solve(egdb_table *t, const int *b, int seeds, int capture);

/* The value of b's pits for the mover (b's stores are ignored). */
static inline int egdb_value(egdb_table *t, const int *b, int seeds)
{
    return t->values[egdb_index(b, seeds)];
}

/* Value of the position with pits from b and empty stores, computing what is
 * missing (children first). Recursion stays short: a move that keeps every
 * seed in the pits moves them nearer their stores, so chains are bounded.
 * Threads may build one level together: a value is written whole (one byte,
 * atomically), and one not written yet is computed again, to the same byte. */
static int egdb_solve(egdb_table *t, const int *b, int seeds, int capture)
{
    int pos[KALAH_SLOTS], child[KALAH_SLOTS];
    int pit, flags, captured, value, best = -KALAH_MAX_SEEDS - 1, mine, theirs, left;
    uint64_t index = egdb_index(b, seeds);
    int8_t known = __atomic_load_n(&t->values[index], __ATOMIC_RELAXED);

    if (known != EGDB_UNKNOWN)
        return known;
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
            memcpy(child, pos, sizeof child);
            flags = kalah_play(child, pit, capture, &captured);
            /* child's stores hold what this move banked, from the child's mover's view */
            value = child[KALAH_STORE] - child[KALAH_OPP_STORE];
            if (!(flags & PLAY_GAME_OVER)) {
                left = seeds - child[KALAH_STORE] - child[KALAH_OPP_STORE];
                value += egdb_solve(t, child, left, capture);
            }
            if (!(flags & PLAY_EXTRA_TURN))
                value = -value;
            if (value > best)
                best = value;
        }
    }
    __atomic_store_n(&t->values[index], (int8_t)best, __ATOMIC_RELAXED);
    return best;
}

/* One thread's share of a level: runs of EGDB_RUN positions in index order, dealt in turn. */
typedef struct {
    egdb_table *t;
    int seeds, capture;
    int part, parts;        /* this thread solves the runs numbered part, part + parts, ... */
    uint64_t visited;       /* positions of the level enumerated so far */
    const int *stop;        /* another thread sets *stop to end the build early (NULL: never) */
} egdb_share;

enum { EGDB_RUN = 4096 };   /* long enough that neighbours (which share children) stay together */

/* Solve this share's placements of `left` more seeds in pits i..11 of b (pits before i set). */
static void egdb_fill(egdb_share *share, int *b, int i, int left)
{
    static const int slot[EGDB_PITS] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12};
    int v;
    if (share->stop && __atomic_load_n(share->stop, __ATOMIC_RELAXED))
        return;
    if (i == EGDB_PITS - 1) {
        b[slot[i]] = left;
        if (share->visited++ / EGDB_RUN % share->parts == (uint64_t)share->part)
            egdb_solve(share->t, b, share->seeds, share->capture);
        return;
    }
    for (v = 0; v <= left; v++) {
        b[slot[i]] = v;
        egdb_fill(share, b, i + 1, left - v);
    }
    b[slot[i]] = 0;
}

/* Part `part` of `parts` of the positions with exactly n seeds in the pits
 * (levels below n are done; all parts together make the level); *stop
 * (unless NULL) set by another thread leaves the level unfinished. */
static void egdb_build_level(egdb_table *t, int n, int capture, int part, int parts,
                             const int *stop)
{
    int b[KALAH_SLOTS] = {0};
    egdb_share share = {t, n, capture, part, parts, 0, stop};
    egdb_fill(&share, b, 0, n);
}

/* FNV-1a over the values, continued from h (egdb_checksum_start, or what the
 * values before these hashed to): a file that does not hash to its header is rebuilt. */
static const uint64_t egdb_checksum_start = 0xcbf29ce484222325ULL;  /* FNV's offset basis */

static inline uint64_t egdb_checksum_more(uint64_t h, const int8_t *values, uint64_t size)
{
    uint64_t i;
    for (i = 0; i < size; i++) {
        h ^= (uint8_t)values[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static inline uint64_t egdb_checksum(const int8_t *values, uint64_t size)
{
    return egdb_checksum_more(egdb_checksum_start, values, size);
}

/* The first index in [from, to) whose byte is not a value its position can
 * have, or -1 when there is none. With n seeds in the pits every seed ends in
 * one store or the other, so the rest of the game is worth 2k - n to the
 * mover (k of them his): |v| <= n and v = n (mod 2). EGDB_UNKNOWN (-128) is
 * outside every level. A checksum only catches accidents; this catches a
 * forged file, whose wrong values would be reported as exact.
 * Needs egdb_init_binomials. Vectorised per level, so it runs at memory speed. */
static int64_t egdb_verify(const int8_t *values, uint64_t from, uint64_t to)
{
    const uint8_t *bytes = (const uint8_t *)values;
    uint64_t i, end;
    int n;
    for (n = 0; n <= EGDB_MAX_SEEDS && from < to; n++) {
        /* shifted up by n, a good value is an even number 0..2n (the byte wraps) */
        const uint8_t shift = (uint8_t)n, top = (uint8_t)(2 * n);
        uint8_t high = 0, bits = 0;     /* the largest shifted value, and all their bits or-ed */
        end = egdb_count(n) < to ? egdb_count(n) : to;
        if (from >= end)
            continue;
        for (i = from; i < end; i++) {  /* a max and an or: the compiler vectorises this */
            uint8_t u = (uint8_t)(bytes[i] + shift);
            high = u > high ? u : high;
            bits |= u;
        }
        if (high > top || (bits & 1u))
            for (i = from; i < end; i++) {
                uint8_t u = (uint8_t)(bytes[i] + shift);
                if (u > top || (u & 1u))
                    return (int64_t)i;
            }
        from = end;
    }
    return from < to ? (int64_t)from : -1;  /* beyond the largest level: nothing is valid */
}

#endif
