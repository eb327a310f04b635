/* kalah.h -- the board layout and one move of Kalah, for the compiled core.
 *
 * The search keeps a position *seen from the side to move*:
 *
 *             12  11  10   9   8   7        <- the opponent's pits
 *       [13]                          [6]   <- 13: opponent's store, 6: mover's store
 *              0   1   2   3   4   5        <- the mover's pits (pit 0 farthest from its store)
 *
 * Pit i faces pit 12 - i. Sowing runs up the indices and skips slot 13, so it
 * cycles through the 13 slots 0..12. A move that hands the turn over rotates
 * the board by seven slots, so the new mover is at the bottom again.
 *
 * Everything here is plain C over an int[14] (and one 64-bit mixer): no allocation,
 * nothing that can fail.
 */
#ifndef MANCALA_KALAH_H
#define MANCALA_KALAH_H

#include <stdint.h>
#include <string.h>

enum {
    KALAH_PITS = 6,                         /* pits per side */
    KALAH_STORE = KALAH_PITS,               /* the mover's store: slot 6 */
    KALAH_OPP_PIT = KALAH_PITS + 1,         /* the opponent's first pit: slot 7 */
    KALAH_OPP_STORE = 2 * KALAH_PITS + 1,   /* the opponent's store: slot 13 */
    KALAH_SLOTS = 2 * KALAH_PITS + 2,       /* 14 */
    KALAH_CYCLE = KALAH_SLOTS - 1,          /* slots a sowing visits: 13 */
    KALAH_HALF = KALAH_PITS + 1,            /* one player's pits and store: 7 */
    KALAH_MAX_SEEDS = 144                   /* 12 pits x 12 seeds: the biggest legal game */
};

/* Compile-time checks of the layouts the code relies on (C11, or C++11). */
#ifdef __cplusplus
#define KALAH_STATIC_ASSERT static_assert
#else
#define KALAH_STATIC_ASSERT _Static_assert
#endif

KALAH_STATIC_ASSERT(KALAH_PITS == 6, "kalah_row_sum, tt_key and the core's arrays are written for six pits");
KALAH_STATIC_ASSERT(KALAH_SLOTS == 14 && KALAH_HALF * 2 == KALAH_SLOTS, "two halves of pits and a store");

/* The capture rules: a rule is its number here, its name (mancala.CAPTURE_RULES,
 * in this order) and kalah_captures. A rule is added here, in the twin
 * (mancala/_reference.py), in mancala.board.CAPTURE_WORDS and on docs/rules.md;
 * every range check reads CAPTURE_RULE_COUNT. */
enum { CAPTURE_STANDARD, CAPTURE_EMPTY, CAPTURE_NONE, CAPTURE_RULE_COUNT };

static inline const char *kalah_capture_name(int capture)
{
    static const char *const names[CAPTURE_RULE_COUNT] = {"standard", "empty", "none"};
    return names[capture];
}

/* Whether a move whose last seed lands in an empty pit of the mover's (one
 * that held no seed before this one: after a lap, the pit it started from)
 * captures, the pit facing it then holding `facing` seeds. */
static inline int kalah_captures(int capture, int facing)
{
    return capture == CAPTURE_EMPTY || (capture == CAPTURE_STANDARD && facing > 0);
}

/* The one 64-bit mixer: the table's keys (tt.h) and the endgame files' checksums
 * (egdb.h) both fold through it. MurmurHash3's finaliser (fmix64): each input bit
 * flips about half of the output's. Changing it moves every table entry (the bench
 * signature) and every level file's checksum. */
static inline uint64_t kalah_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* Bits of what kalah_play returns. */
enum { PLAY_EXTRA_TURN = 1, PLAY_GAME_OVER = 2 };

static inline int kalah_row_sum(const int *row)
{
    return row[0] + row[1] + row[2] + row[3] + row[4] + row[5];
}

/* Swap the two halves: the other player becomes the mover. */
static inline void kalah_rotate(int *b)
{
    int half[KALAH_HALF];
    memcpy(half, b, sizeof half);
    memcpy(b, b + KALAH_HALF, sizeof half);
    memcpy(b + KALAH_HALF, half, sizeof half);
}

/* Play the mover's non-empty pit `pit` (0..5) on b, in place.
 *
 * Sows with whole laps added at once, captures by `capture`, sweeps the rows
 * into the stores if a row is empty afterwards, and rotates the board unless
 * the mover keeps the turn. Returns PLAY_* bits; *captured gets the seeds a
 * capture put in the store (0 if none).
 */
static inline __attribute__((always_inline)) int kalah_play(int *b, int pit, int capture, int *captured)
{
    int seeds = b[pit], laps = seeds / KALAH_CYCLE, rest = seeds % KALAH_CYCLE;
    int last = pit, flags = 0, i, mine, theirs;

    b[pit] = 0;
    if (laps)
        for (i = 0; i < KALAH_CYCLE; i++)
            b[i] += laps;
    for (i = 0; i < rest; i++) {
        if (++last == KALAH_CYCLE)
            last = 0;
        b[last]++;
    }

    *captured = 0;
    if (last == KALAH_STORE) {
        flags = PLAY_EXTRA_TURN;
    } else if (last < KALAH_PITS && b[last] == 1) {
        /* b[last] == 1: the pit was empty before its one seed of this move
           (with exactly 13 seeds that is the starting pit). */
        int facing = KALAH_CYCLE - 1 - last;
        if (kalah_captures(capture, b[facing])) {
            *captured = b[facing] + 1;
            b[KALAH_STORE] += *captured;
            b[facing] = 0;
            b[last] = 0;
        }
    }

    mine = kalah_row_sum(b);
    theirs = kalah_row_sum(b + KALAH_OPP_PIT);
    if (mine == 0 || theirs == 0) {
        b[KALAH_STORE] += mine;
        b[KALAH_OPP_STORE] += theirs;
        memset(b, 0, KALAH_PITS * sizeof *b);
        memset(b + KALAH_OPP_PIT, 0, KALAH_PITS * sizeof *b);
        flags |= PLAY_GAME_OVER;
    }
    if (!(flags & PLAY_EXTRA_TURN))
        kalah_rotate(b);
    return flags;
}

#endif
