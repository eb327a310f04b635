/* proof_stats.h -- where a search's nodes go: counters for measuring, not for play.
 *
 * Built with -DMANCALA_STATS (`MANCALA_STATS=1` when the extension is built, see
 * setup.py) every hook below adds to one process-wide ps_stats; built without it
 * (the default, every wheel) each hook is an empty inline function the compiler
 * drops, so the search is the same machine code and the bench signature the same.
 * The counts are exact on one thread; threads would race on them (bench/proof_nodes.py
 * measures on one).
 *
 *   field            what is counted
 *   visits_by_ply    nodes (the search's own count) by ply from the root, the last
 *                    bucket every ply beyond it
 *   visits_by_seeds  nodes by the seeds left in the twelve pits
 *   searched_by_seeds  nodes whose children were searched (interior nodes)
 *   end[PS_END_*]    how a call of negamax (or a root searched) ended: a finished game, the database, a
 *                    horizon, futility, the table, an enhanced cut-off, a cut after
 *                    searching (fail high), all children below alpha (fail low), inside
 *   probe[PS_PROBE_*] table probes: missed; found and decisive; found but from another
 *                    depth; found but its bound on the wrong side of the window;
 *                    not probed at all (an untabled node: near the database or horizon)
 *   probe_older      probes that found an entry of an earlier search (an earlier test)
 *   cut_older        ... and that entry cut the node
 *   store[PS_STORE_*] table stores: into an empty way; over its own key; over an
 *                    entry of an earlier search; over one of this search
 *   store_flipped    stores over their own key whose bound is of the other side
 *                    (a lower bound replacing an upper one or back: one is lost)
 *   etc[PS_ETC_*]    enhanced cut-off tests: none; a child proven good enough (high);
 *                    every child proven too poor (low)
 *   cut_at[r]        nodes cut after searching, by the rank r of the move that cut
 *                    (0: the first searched; the last bucket every rank beyond)
 *   cut_waste        nodes searched under the moves tried before the one that cut,
 *                    summed over the cut nodes (a node under several such is counted
 *                    at each)
 *   waste_once       the nodes under some move tried before the one that cut, each
 *                    counted once: what a first move that cuts everywhere would save
 *   waste_by_seeds   waste_once by the seeds left at the cut node it was counted at
 *   late_cuts_by_seeds  cuts not by the first move, by the seeds left at the node
 *   cut_tt_move      cuts made by the table's move
 *   cut_no_tt_move   cuts at nodes the table had no move for
 *   all_nodes_tt     fail-low nodes that had a table move (it did not cut)
 */
#ifndef MANCALA_PROOF_STATS_H
#define MANCALA_PROOF_STATS_H

#include <stdint.h>
#include <string.h>

enum { PS_PLY = 64, PS_SEEDS = 145, PS_RANKS = 7 };
enum { PS_END_TERMINAL, PS_END_DATABASE, PS_END_HORIZON, PS_END_FUTILITY, PS_END_TABLE,
       PS_END_ETC, PS_END_CUT, PS_END_ALL, PS_END_INSIDE, PS_END_KINDS };
enum { PS_PROBE_MISS, PS_PROBE_CUT, PS_PROBE_DEPTH, PS_PROBE_SIDE, PS_PROBE_UNTABLED,
       PS_PROBE_KINDS };
enum { PS_STORE_EMPTY, PS_STORE_SAME, PS_STORE_OLDER, PS_STORE_CURRENT, PS_STORE_KINDS };
enum { PS_ETC_NONE, PS_ETC_HIGH, PS_ETC_LOW, PS_ETC_KINDS };

typedef struct {
    uint64_t visits_by_ply[PS_PLY];
    uint64_t visits_by_seeds[PS_SEEDS];
    uint64_t searched_by_seeds[PS_SEEDS];
    uint64_t end[PS_END_KINDS];
    uint64_t probe[PS_PROBE_KINDS];
    uint64_t probe_older;
    uint64_t cut_older;
    uint64_t store[PS_STORE_KINDS];
    uint64_t store_flipped;
    uint64_t etc[PS_ETC_KINDS];
    uint64_t cut_at[PS_RANKS];
    uint64_t cut_waste;
    uint64_t waste_once;
    uint64_t waste_by_seeds[PS_SEEDS];
    uint64_t late_cuts_by_seeds[PS_SEEDS];
    uint64_t cut_tt_move;
    uint64_t cut_no_tt_move;
    uint64_t all_nodes_tt;
} proof_stats;

static inline int ps_seeds(const int *b)
{
    int n = 0;
    for (int i = 0; i < 6; i++)
        n += b[i] + b[7 + i];
    return n;
}

#ifdef MANCALA_STATS

static proof_stats ps_stats;

static inline int ps_enabled(void) { return 1; }
static inline void ps_read(proof_stats *out) { *out = ps_stats; }
static inline void ps_reset(void) { memset(&ps_stats, 0, sizeof ps_stats); }

static inline void ps_visit(int ply, int seeds)
{
    ps_stats.visits_by_ply[ply < PS_PLY ? ply : PS_PLY - 1]++;
    ps_stats.visits_by_seeds[seeds < PS_SEEDS ? seeds : PS_SEEDS - 1]++;
}

/* A child valued in place (the database's byte, or a leaf): a node at ply. */
static inline void ps_visit_board(int ply, const int *b) { ps_visit(ply, ps_seeds(b)); }
static inline void ps_end(int kind) { ps_stats.end[kind]++; }
static inline void ps_searched(int seeds) { ps_stats.searched_by_seeds[seeds]++; }

static inline void ps_probe(int kind, int older)
{
    ps_stats.probe[kind]++;
    ps_stats.probe_older += older != 0;
    ps_stats.cut_older += older != 0 && kind == PS_PROBE_CUT;
}

static inline void ps_store(int kind, int old_bound, int new_bound)
{
    ps_stats.store[kind]++;
    if (kind == PS_STORE_SAME && (old_bound & 3) != 3 && (new_bound & 3) != 3
            && (old_bound & 3) != (new_bound & 3))
        ps_stats.store_flipped++;
}

static inline void ps_etc(int kind) { ps_stats.etc[kind]++; }

static inline uint64_t ps_waste_now(void) { return ps_stats.waste_once; }

/* A cut after searching: the move of rank (0: first) cut, after waste nodes under
   the moves before it; waste_once was w0 when the node's first move began and
   w_before when the one that cut did (what its waste already counted). */
static inline void ps_cut(int rank, uint64_t waste, uint64_t w0, uint64_t w_before, int seeds)
{
    ps_stats.cut_at[rank < PS_RANKS ? rank : PS_RANKS - 1]++;
    ps_stats.cut_waste += waste;
    ps_stats.waste_once += waste - (w_before - w0);
    ps_stats.waste_by_seeds[seeds] += waste - (w_before - w0);
    ps_stats.late_cuts_by_seeds[seeds] += rank > 0;
}

/* A searched node's end: cut (fail high) or not, and what the table said of its move. */
static inline void ps_node_end(int best, int alpha, int beta, int best_move, int tt_move, int no_move)
{
    if (best >= beta) {
        ps_stats.end[PS_END_CUT]++;
        if (tt_move == no_move)
            ps_stats.cut_no_tt_move++;
        else if (best_move == tt_move)
            ps_stats.cut_tt_move++;
    } else if (best <= alpha) {
        ps_stats.end[PS_END_ALL]++;
        ps_stats.all_nodes_tt += tt_move != no_move;
    } else {
        ps_stats.end[PS_END_INSIDE]++;
    }
}

#else

static inline int ps_enabled(void) { return 0; }
static inline void ps_read(proof_stats *out) { memset(out, 0, sizeof *out); }
static inline void ps_reset(void) { }
static inline void ps_visit(int ply, int seeds) { (void)ply; (void)seeds; }
static inline void ps_visit_board(int ply, const int *b) { (void)ply; (void)b; }
static inline void ps_end(int kind) { (void)kind; }
static inline void ps_searched(int seeds) { (void)seeds; }
static inline void ps_probe(int kind, int older) { (void)kind; (void)older; }
static inline void ps_store(int kind, int old_bound, int new_bound) { (void)kind; (void)old_bound; (void)new_bound; }
static inline void ps_etc(int kind) { (void)kind; }
static inline uint64_t ps_waste_now(void) { return 0; }
static inline void ps_cut(int rank, uint64_t waste, uint64_t w0, uint64_t w_before, int seeds)
{
    (void)rank; (void)waste; (void)w0; (void)w_before; (void)seeds;
}
static inline void ps_node_end(int best, int alpha, int beta, int best_move, int tt_move, int no_move)
{
    (void)best; (void)alpha; (void)beta; (void)best_move; (void)tt_move; (void)no_move;
}

#endif
#endif
