/* egdb_build.h -- building a level of the endgame database a class at a time,
 * as passes over its rows instead of a memoised search a position at a time.
 *
 * A position of level n is a pair of rows: the mover's x (a seeds, rank i
 * among the rows of a seeds) and the opponent's y (b = n - a seeds, rank j);
 * its rank is egdb_block[n][a] + i * C(b + 5, 5) + j (egdb.h). What a move
 * from pit p does to x depends on x alone: the seeds it sows into x, whether
 * it banks one, how many of y's first pits get a seed, where the last seed
 * lands. So each row gets, once, the list of its moves (egdb_move: where the
 * child's value lies, as a base and a stride, and what is added to it), and
 * the ranks of the rows an opponent's row becomes (egdb_row: itself, its
 * first k pits given a seed, one pit emptied by a capture, ...). A position's
 * value is then a few loads: base + rank of the opponent's row's variant *
 * stride.
 *
 * Order. Blocks a and b = n - a are a class (egdb_rank): a move that banks
 * nothing leads from block a to block b and back, and sows the mover's seeds
 * toward his store, so the row it leaves behind ranks lower. Position (i, j)
 * of block a needs (j, i') of block b for some i' < i, and (j, i) of block b
 * needs (i, j') of block a, j' < j. Taking the rows of block a in tiles of
 * EGDB_TILE, and for each opponent's row j every position (i, j) then (j, i)
 * of the tile, meets every need before it is asked. (For a = b, block a's
 * own class, the tile's square comes first, in an order of its own,
 * egdb_build_square, then both (i, j) and (j, i) for the rows j above the
 * tile.) A position a pass cannot take (a child in this level missing) would
 * go to the search of egdb.h.
 * The tile keeps the build's memory use local: a tile's rows, the bytes they
 * write and the children's bytes they read stay in the caches while j runs.
 *
 * The values are egdb_solve's, byte for byte: the same rules (kalah.h), the
 * same ranks, the same levels below; tests compare the two.
 */
#ifndef MANCALA_EGDB_BUILD_H
#define MANCALA_EGDB_BUILD_H

#include <stdlib.h>
#include "egdb.h"

enum {
    EGDB_TILE = 256,        /* mover's rows a pass takes together */
    EGDB_VARIANTS = 19      /* egdb_row.var: the row, 6 x first pits + 1, 6 x one pit emptied, 6 x both */
};

/* The variants of a row as the opponent's: the ranks of the rows it becomes. */
enum {
    EGDB_VAR_SELF = 0,      /* the row itself */
    EGDB_VAR_SOWN = 0,      /* + k (1..6): its first k pits get a seed each (a move sown past the store) */
    EGDB_VAR_TAKEN = 7,     /* + m (0..5): pit m emptied (a capture facing it) */
    EGDB_VAR_ROUND = 13     /* + m (0..5): every pit gets a seed, then pit m is emptied (a capture after a lap) */
};

typedef struct {
    uint32_t var[EGDB_VARIANTS];    /* the variants' ranks, each among the rows of its own total */
    uint8_t pits[KALAH_PITS];
    uint8_t total;
} egdb_row;

/* What a move does, as far as the mover's row decides it. */
enum {
    EGDB_MOVE_LOWER,        /* the child is in a level below (or the game ends: base points at a zero) */
    EGDB_MOVE_SAME,         /* the child is in this level: rotated, opponent's row unchanged */
    EGDB_MOVE_CATCH,        /* the last seed lands in an empty own pit: a capture, or SAME if the rule takes nothing */
    EGDB_MOVE_LAP_CATCH,    /* sown round the board, the last seed lands in an empty own pit: a capture, or LOWER */
    EGDB_MOVE_LAPS          /* 13 seeds or more: played on the board (egdb_move_value) */
};

typedef struct {
    const uint8_t *base;    /* the child's byte: base[var[v] * stride] of the opponent's row */
    uint64_t stride;
    uint32_t rest_rank;     /* CATCH kinds: the rank of the mover's row after the capture */
    int8_t kind;            /* EGDB_MOVE_* */
    int8_t v;               /* which variant of the opponent's row (EGDB_VAR_*) */
    int8_t add;             /* value = add + child (neg = 0) or add - child (neg = -1) */
    int8_t neg;
    int8_t pit;             /* the pit played */
    int8_t facing;          /* CATCH kinds: the opponent's pit (0..5 of his row) facing the last seed */
    int8_t rest;            /* CATCH kinds: the seeds in the mover's row after the capture */
} egdb_move;

static const uint8_t egdb_zero_byte = 0;    /* the child of a move that ends the game */

static inline uint32_t egdb_row_rank8(const uint8_t *pits, int total)
{
    int row[KALAH_PITS], i;
    for (i = 0; i < KALAH_PITS; i++)
        row[i] = pits[i];
    return (uint32_t)egdb_row_rank(row, total);
}

/* Fill r from its pits (total seeds): its rank and the ranks of its variants. */
static void egdb_row_fill(egdb_row *r, const int *pits, int total)
{
    int row[KALAH_PITS], k, m, i;
    for (i = 0; i < KALAH_PITS; i++)
        r->pits[i] = (uint8_t)pits[i];
    r->total = (uint8_t)total;
    r->var[EGDB_VAR_SELF] = (uint32_t)egdb_row_rank(pits, total);
    for (k = 1; k <= KALAH_PITS; k++) {
        for (i = 0; i < KALAH_PITS; i++)
            row[i] = pits[i] + (i < k);
        r->var[EGDB_VAR_SOWN + k] = (uint32_t)egdb_row_rank(row, total + k);
    }
    for (m = 0; m < KALAH_PITS; m++) {
        for (i = 0; i < KALAH_PITS; i++)
            row[i] = i == m ? 0 : pits[i];
        r->var[EGDB_VAR_TAKEN + m] = (uint32_t)egdb_row_rank(row, total - pits[m]);
        for (i = 0; i < KALAH_PITS; i++)
            row[i] = i == m ? 0 : pits[i] + 1;
        r->var[EGDB_VAR_ROUND + m] = (uint32_t)egdb_row_rank(row, total + KALAH_PITS - 1 - pits[m]);
    }
}

/* The child of a move that lands in a level below: its byte at
 * base[var[v] * stride] of the opponent's row. */
static inline void egdb_move_lower(egdb_move *m, const egdb_builder *w, int level, int block,
                                   uint64_t offset, uint64_t stride, int v)
{
    m->kind = EGDB_MOVE_LOWER;
    m->base = (const uint8_t *)w->below->level[level] + egdb_block[level][block] + offset;
    m->stride = stride;
    m->v = (int8_t)v;
}

/* A move after which the mover's row is empty: the game ends, worth `value`. */
static inline void egdb_move_ends(egdb_move *m, int value)
{
    m->kind = EGDB_MOVE_LOWER;
    m->base = &egdb_zero_byte;
    m->stride = 0;
    m->v = EGDB_VAR_SELF;
    m->add = (int8_t)value;
}

/* The moves of a mover's row (pits, a seeds) against an opponent's row of b
 * seeds in level w->n; returns how many (one a non-empty pit). */
static int egdb_row_moves(egdb_move *moves, const egdb_builder *w, const uint8_t *pits, int a, int b)
{
    int n = w->n, p, s, i, k, q, last, count = 0, left;
    uint8_t sown[KALAH_PITS];
    egdb_move *m;
    for (p = 0; p < KALAH_PITS; p++) {
        s = pits[p];
        if (!s)
            continue;
        m = &moves[count++];
        memset(m, 0, sizeof *m);
        m->pit = (int8_t)p;
        if (s >= KALAH_CYCLE) {
            m->kind = EGDB_MOVE_LAPS;
            continue;
        }
        memcpy(sown, pits, sizeof sown);
        sown[p] = 0;
        if (s < KALAH_PITS - p) {
            /* the last seed lands in an own pit: nothing banked, the turn passes; same level */
            last = p + s;
            for (i = p + 1; i <= last; i++)
                sown[i]++;
            m->kind = EGDB_MOVE_SAME;
            m->base = w->out + egdb_block[n][b] + egdb_row_rank8(sown, a);
            m->stride = egdb_row_count(a);
            m->v = EGDB_VAR_SELF;
            m->neg = -1;
            if (pits[last] == 0) {      /* a capture if the rule takes it (egdb_pass_value) */
                m->kind = EGDB_MOVE_CATCH;
                m->facing = (int8_t)(KALAH_PITS - 1 - last);
                sown[last] = 0;
                m->rest = (int8_t)(a - 1);
                m->rest_rank = egdb_row_rank8(sown, a - 1);
            }
            continue;
        }
        for (i = p + 1; i < KALAH_PITS; i++)
            sown[i]++;
        m->add = 1;                     /* one seed in the store */
        if (s == KALAH_PITS - p) {
            /* the last seed in the store: the mover moves again, in level n - 1 */
            if (a == 1) {               /* his row empty: the opponent sweeps his */
                egdb_move_ends(m, 1 - b);
            } else {
                egdb_move_lower(m, w, n - 1, a - 1, egdb_row_rank8(sown, a - 1) * egdb_row_count(b),
                                1, EGDB_VAR_SELF);
            }
            continue;
        }
        m->neg = -1;
        k = s - (KALAH_PITS - p);       /* seeds sown into the opponent's pits */
        if (k <= KALAH_PITS) {
            /* the last seed in the opponent's row, the turn passes: level n - 1 */
            left = a - 1 - k;
            if (left == 0) {
                egdb_move_ends(m, 1 - (b + k));
            } else {
                egdb_move_lower(m, w, n - 1, b + k, egdb_row_rank8(sown, left),
                                egdb_row_count(left), EGDB_VAR_SOWN + k);
            }
            continue;
        }
        /* round the board (13 - p .. 12 seeds): the opponent's pits a seed each, the last in own pit q < p */
        q = s - KALAH_CYCLE + p;
        for (i = 0; i <= q; i++)
            sown[i]++;
        left = a - (KALAH_HALF);
        egdb_move_lower(m, w, n - 1, b + KALAH_PITS, egdb_row_rank8(sown, left),
                        egdb_row_count(left), EGDB_VAR_SOWN + KALAH_PITS);
        if (pits[q] == 0) {             /* a capture if the rule takes it, else the child above */
            m->kind = EGDB_MOVE_LAP_CATCH;
            m->facing = (int8_t)(KALAH_PITS - 1 - q);
            sown[q] = 0;
            m->rest = (int8_t)(left - 1);
            m->rest_rank = egdb_row_rank8(sown, left - 1);
        }
    }
    return count;
}

/* The board of the position with mover's row x and opponent's row opp (stores empty). */
static inline void egdb_rows_board(int *pos, const egdb_row *x, const egdb_row *opp)
{
    int i;
    for (i = 0; i < KALAH_PITS; i++) {
        pos[i] = x->pits[i];
        pos[KALAH_OPP_PIT + i] = opp->pits[i];
    }
    pos[KALAH_STORE] = pos[KALAH_OPP_STORE] = 0;
}

/* The value of a capture: `taken` seeds into the mover's store (besides `add`
 * sown there), the opponent's row left as its variant v (total theirs), the
 * mover's as m->rest seeds of rank m->rest_rank; the turn passes. */
static inline int egdb_capture_value(const egdb_builder *w, const egdb_move *m, int taken,
                                     const egdb_row *opp, int v, int theirs)
{
    int level = theirs + m->rest;
    if (m->rest == 0 || theirs == 0)        /* a row empty: each sweeps his own */
        return m->add + taken + m->rest - theirs;
    return m->add + taken - (int8_t)w->below->level[level][egdb_block[level][theirs]
        + (uint64_t)opp->var[v] * egdb_row_count(m->rest) + m->rest_rank];
}

/* The value of the position with mover's row x (moves: its moves against
 * opp's total) and opponent's row opp; EGDB_UNKNOWN if a child in this level
 * is not built yet. */
enum { EGDB_UNKNOWN = 1000 };

static inline int egdb_pass_value(const egdb_builder *w, const egdb_row *x, const egdb_move *moves,
                                  int count, const egdb_row *opp)
{
    int best = -KALAH_MAX_SEEDS - 1, value, k, seeds;
    uint8_t byte;
    const egdb_move *m = moves;
    for (k = 0; k < count; k++, m++) {
        switch (m->kind) {
        case EGDB_MOVE_LAP_CATCH:
            seeds = opp->pits[m->facing] + 1;
            if (kalah_captures(w->capture, seeds)) {
                value = egdb_capture_value(w, m, seeds + 1, opp, EGDB_VAR_ROUND + m->facing,
                                           opp->total + KALAH_PITS - seeds);
                break;
            }
            /* fall through: nothing is captured, the child is in the level below */
        case EGDB_MOVE_LOWER:
            value = (int8_t)m->base[(uint64_t)opp->var[m->v] * m->stride];
            value = m->add + ((value ^ m->neg) - m->neg);
            break;
        case EGDB_MOVE_CATCH:
            seeds = opp->pits[m->facing];
            if (kalah_captures(w->capture, seeds)) {
                value = egdb_capture_value(w, m, seeds + 1, opp, EGDB_VAR_TAKEN + m->facing,
                                           opp->total - seeds);
                break;
            }
            /* fall through: the rule takes nothing (standard: the facing pit is empty) */
        case EGDB_MOVE_SAME:
            byte = __atomic_load_n(&m->base[(uint64_t)opp->var[EGDB_VAR_SELF] * m->stride],
                                   __ATOMIC_RELAXED);
            if (!byte)
                return EGDB_UNKNOWN;
            value = -(int8_t)(byte ^ 0x80u);
            break;
        default: {      /* EGDB_MOVE_LAPS */
            int pos[KALAH_SLOTS];
            egdb_rows_board(pos, x, opp);
            value = egdb_move_value(w, pos, m->pit);
        }
        }
        if (value > best)
            best = value;
    }
    return best;
}

/* Build the position (x, opp) of rank `rank` by its passes, or by egdb_solve
 * when a child in this level is missing. */
static inline void egdb_pass_position(const egdb_builder *w, uint64_t rank, const egdb_row *x,
                                      const egdb_move *moves, int count, const egdb_row *opp,
                                      uint64_t *searched)
{
    int value = egdb_pass_value(w, x, moves, count, opp), pos[KALAH_SLOTS];
    if (value == EGDB_UNKNOWN) {
        egdb_rows_board(pos, x, opp);
        egdb_solve(w, pos);
        ++*searched;
        return;
    }
    __atomic_store_n(&w->out[rank], egdb_built(value), __ATOMIC_RELAXED);
}

/* Block a's own class (a = n - a): the positions whose rows are both rows of
 * the tile (xs[0..size), their moves x_moves, KALAH_PITS a row), the first at
 * `corner` (rank of (0, 0)) and `rows` apart. (u, v) needs (v, u') for u' < u:
 * taking the shells u = 0, 1, ... and in each (u, v) then (v, u) for v = 0..u
 * meets every need inside the square; those outside it were met before. */
static void egdb_build_square(const egdb_builder *w, uint64_t corner, uint64_t rows,
                              const egdb_row *xs, const egdb_move *x_moves, const int *x_count,
                              int size, uint64_t *searched)
{
    int u, v;
    for (u = 0; u < size; u++)
        for (v = 0; v <= u; v++) {
            egdb_pass_position(w, corner + u * rows + v, &xs[u], &x_moves[u * KALAH_PITS],
                               x_count[u], &xs[v], searched);
            if (v < u)
                egdb_pass_position(w, corner + v * rows + u, &xs[v], &x_moves[v * KALAH_PITS],
                                   x_count[v], &xs[u], searched);
        }
}

/* Build part of the class of blocks a and b = w->n - a of level w->n, a <= b
 * (as built bytes): the positions whose mover holds row i of block a's rows
 * against the opponent's row j of block b's, and the reverse ones of block b,
 * for i in [i0, i1) and j in [j0, j1). The passes meet every need inside the
 * rectangle; what it needs outside it (rows below i0 in block b, below j0 in
 * block a: a move sows its rows toward lower ranks) must be built already,
 * else egdb_solve takes the position. In a's own class (a = b) the rectangle
 * is a square on the diagonal ([i0, i1) = [j0, j1)) or lies below it
 * (i1 <= j0); its positions are then (i, j) and (j, i). Counts positions into
 * *done now and then; returns early (0) when *stop is set (NULL: never), -1
 * when memory runs out, -2 for a rectangle that is none of these. *searched
 * (may be NULL) counts the positions egdb_solve had to take. */
static int egdb_build_rect(const egdb_builder *w, int a, uint64_t i0, uint64_t i1, uint64_t j0,
                           uint64_t j1, const int *stop, uint64_t *done, uint64_t *searched)
{
    int n = w->n, b = n - a, tile_pits[KALAH_PITS], row[KALAH_PITS], i, size;
    int self, diagonal, y_count;
    uint64_t rows_a, rows_b, first, j, j_from, counted = 0, found = 0, block_a, block_b;
    egdb_row *xs, y;
    egdb_move *x_moves, y_moves[KALAH_PITS];
    int *x_count;
    int result = 1;

    if (a < 0 || a > b)
        return -2;
    self = a == b;
    block_a = egdb_block[n][a];
    block_b = egdb_block[n][b];
    rows_a = egdb_row_count(a);
    rows_b = egdb_row_count(b);
    diagonal = self && i0 == j0 && i1 == j1;
    if (i0 > i1 || i1 > rows_a || j0 > j1 || j1 > rows_b || (self && !diagonal && i1 > j0))
        return -2;
    if (a == 0) {       /* a row empty: the game is over, each sweeps his own */
        for (j = j0; j < j1 && i0 < i1; j++) {
            w->out[block_a + j] = egdb_built(-n);
            w->out[block_b + j] = egdb_built(n);
        }
        __atomic_fetch_add(done, i0 < i1 ? 2 * (j1 - j0) - (n == 0 && j1 > j0) : 0,
                           __ATOMIC_RELAXED);
        return 1;
    }
    xs = (egdb_row *)malloc(EGDB_TILE * sizeof *xs);
    x_moves = (egdb_move *)malloc(EGDB_TILE * KALAH_PITS * sizeof *x_moves);
    x_count = (int *)malloc(EGDB_TILE * sizeof *x_count);
    if (!xs || !x_moves || !x_count) {
        result = -1;
        goto end;
    }
    if (i0 < i1)
        egdb_row_unrank(tile_pits, a, i0);
    for (first = i0; first < i1; first += EGDB_TILE) {
        size = i1 - first < EGDB_TILE ? (int)(i1 - first) : EGDB_TILE;
        for (i = 0; i < size; i++) {
            egdb_row_fill(&xs[i], tile_pits, a);
            x_count[i] = egdb_row_moves(&x_moves[i * KALAH_PITS], w, xs[i].pits, a, b);
            egdb_row_next(tile_pits);
        }
        if (diagonal) {
            /* the tile's square first, in shells: (u, v) and (v, u) for v <= u, u rising */
            egdb_build_square(w, block_a + first * rows_a + first, rows_a, xs, x_moves, x_count,
                              size, &found);
            counted += (uint64_t)size * size;
            j_from = first + size;  /* the rows below the tile took the positions of theirs */
        } else {
            j_from = j0;
        }
        if (j_from >= j1)
            continue;
        egdb_row_unrank(row, b, j_from);
        for (j = j_from; j < j1; j++, egdb_row_next(row)) {
            egdb_row_fill(&y, row, b);
            y_count = egdb_row_moves(y_moves, w, y.pits, b, a);
            for (i = 0; i < size; i++) {
                egdb_pass_position(w, block_a + (first + i) * rows_b + j, &xs[i],
                                   &x_moves[i * KALAH_PITS], x_count[i], &y, &found);
                egdb_pass_position(w, block_b + j * rows_a + first + i, &y, y_moves, y_count,
                                   &xs[i], &found);
            }
            counted += 2 * size;
            if (counted >= (1u << 16)) {
                __atomic_fetch_add(done, counted, __ATOMIC_RELAXED);
                counted = 0;
                if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
                    result = 0;
                    goto end;
                }
            }
        }
    }
end:
    __atomic_fetch_add(done, counted, __ATOMIC_RELAXED);
    if (searched)
        __atomic_fetch_add(searched, found, __ATOMIC_RELAXED);
    free(xs);
    free(x_moves);
    free(x_count);
    return result;
}

/* Build the class of blocks a and w->n - a of level w->n (the whole class,
 * as built bytes): egdb_build_rect over all its rows. Returns as it does. */
static int egdb_build_class(const egdb_builder *w, int a, const int *stop, uint64_t *done,
                            uint64_t *searched)
{
    int b = w->n - a;
    if (a > b)
        a = b;
    return egdb_build_rect(w, a, 0, egdb_row_count(a), 0, egdb_row_count(w->n - a), stop, done,
                           searched);
}

#endif
