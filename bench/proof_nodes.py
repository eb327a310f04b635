"""Where a proof's nodes go: exact solves on one thread, their nodes counted by test.

    python bench/proof_nodes.py [--seeds 4] [--moves "3 6"] [--endgame 14] [--hash-mb 64]
                                [--positions FILE [--only s5-]] [--json FILE]

Solves the start of Kalah(6,seeds) (after --moves, pits 1..6 from each mover's
left), or every position of a positions file (``--positions
bench/data/thread_positions.txt --only s5-``: the ten Kalah(6,5) positions from
real games), each with a fresh ``Engine(hash_mb, threads=1)`` and the cached
standard endgame database cut to --endgame seeds (build it first: ``python -m
mancala endgame build --seeds N``). Node counts on one thread are the same run
after run: compare them, never seconds. Printed: each solve's value, its nodes
and each MTD(f) test's (the window after it, its nodes; the first includes the
first guess's depth-8 search).

With a core built with the counters (``MANCALA_STATS=1``: in a copy of the tree,
``MANCALA_STATS=1 python setup.py build_ext --inplace``, then
``PYTHONPATH=that-copy python bench/proof_nodes.py ...``) also where the nodes
went, over all the solves (csrc/proof_stats.h names each count): by ply, by
seeds left in the pits, how each node ended (a finished game, the database,
futility, the table, an enhanced cut-off, a cut after searching, all moves
failing low), the table's probes and stores, and at which rank the move that
cut came. Without them the node counts are the same (the counters cost nothing
when compiled out).
"""
import argparse
import json
import sys
import time
from pathlib import Path

from mancala import Board, Engine, _core, endgame
from mancala.positions import load_positions

END = ("finished game", "database", "horizon", "futility", "table", "enhanced cut-off",
       "cut after search", "all fail low", "inside window")
PROBE = ("miss", "found, cuts", "found, other depth", "found, wrong side", "untabled")
STORE = ("into empty", "over own key", "over older search", "over this search")
ETC = ("no cut", "a child high enough", "every child too low")


def positions(args):
    if args.positions:
        return [(p.name, p.board()) for p in load_positions(args.positions) if p.name.startswith(args.only)]
    board = Board(seeds=args.seeds)
    for move in args.moves.split():
        board.push(int(move) - 1)
    return [(f"Kalah(6,{args.seeds})" + (f" after {args.moves}" if args.moves else ""), board)]


def solve(name, board, db, args):
    tests = []
    before = [0]

    def progress(lower, upper, nodes, seconds):
        tests.append({"lower": lower, "upper": upper, "nodes": nodes - before[0]})
        before[0] = nodes

    engine = Engine(args.hash_mb, threads=1, endgame=db)
    started = time.perf_counter()
    result = engine.solve(board, progress=progress)
    seconds = time.perf_counter() - started
    print(f"{name}: {result.score:+d} in {result.nodes:,} nodes ({seconds:.1f} s, {len(tests)} tests: "
          + ", ".join(f"[{t['lower']},{t['upper']}] {t['nodes']:,}" for t in tests) + ")", flush=True)
    return {"name": name, "value": result.score, "nodes": result.nodes, "seconds": round(seconds, 2),
            "tests": tests}


def share(part, whole):
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def show(stats, nodes):
    print(f"\nwhere the {nodes:,} nodes went (csrc/proof_stats.h):")
    by_ply = stats["visits_by_ply"]
    last = max((i for i, n in enumerate(by_ply) if n), default=0)
    print("by ply:    " + " ".join(f"{i}:{share(n, nodes).strip()}" for i, n in enumerate(by_ply[:last + 1])))
    seeds, searched = stats["visits_by_seeds"], stats["searched_by_seeds"]
    waste, late = stats["waste_by_seeds"], stats["late_cuts_by_seeds"]
    print("by seeds left: nodes, of them searched below; cuts not by the first move there, "
          "and the nodes under the moves tried before (counted once)")
    for n in range(len(seeds)):
        if seeds[n]:
            print(f"  {n:3d}  {seeds[n]:>14,} {share(seeds[n], nodes)}  {searched[n]:>13,}  "
                  f"{late[n]:>11,}  {waste[n]:>13,} {share(waste[n], nodes)}")
    calls = sum(stats["end"])
    print(f"how the {calls:,} calls of negamax (and roots searched) ended:")
    for word, n in zip(END, stats["end"]):
        print(f"  {word:<20} {n:>14,} {share(n, calls)}")
    probes = sum(stats["probe"])
    print(f"table, {probes:,} nodes reaching the probe:")
    for word, n in zip(PROBE, stats["probe"]):
        print(f"  {word:<20} {n:>14,} {share(n, probes)}")
    print(f"  found an earlier test's entry {stats['probe_older']:,}, of them cut {stats['cut_older']:,}")
    stores = sum(stats["store"])
    print(f"stores {stores:,}:")
    for word, n in zip(STORE, stats["store"]):
        print(f"  {word:<20} {n:>14,} {share(n, stores)}")
    print(f"  over its own key with a bound of the other side: {stats['store_flipped']:,}")
    tries = sum(stats["etc"])
    print(f"enhanced cut-offs, {tries:,} tries: " + ", ".join(
        f"{word} {n:,} ({share(n, tries).strip()})" for word, n in zip(ETC, stats["etc"])))
    cuts = sum(stats["cut_at"])
    print(f"cuts after searching {cuts:,}, by the rank of the move that cut: " + ", ".join(
        f"{r + 1}:{share(n, cuts).strip()}" for r, n in enumerate(stats["cut_at"])))
    print(f"  the table's move cut {stats['cut_tt_move']:,}; no table move at {stats['cut_no_tt_move']:,}; "
          f"nodes under moves tried before the one that cut {stats['cut_waste']:,} (summed over the cut "
          f"nodes), {stats['waste_once']:,} counted once ({share(stats['waste_once'], nodes).strip()})")
    print(f"  fail-low nodes with a table move: {stats['all_nodes_tt']:,}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--moves", default="")
    parser.add_argument("--positions", type=Path)
    parser.add_argument("--only", default="", help="only the positions whose name starts so")
    parser.add_argument("--endgame", type=int, default=14)
    parser.add_argument("--hash-mb", type=float, default=64)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    db = endgame.load("standard", args.endgame) if args.endgame else None
    counting = getattr(_core, "proof_stats", lambda: None)() is not None    # older cores have none
    if counting:
        _core.reset_proof_stats()
    solves = [solve(name, board, db, args) for name, board in positions(args)]
    total = sum(s["nodes"] for s in solves)
    print(f"all: {total:,} nodes, {len(solves)} solves (endgame {args.endgame}, {args.hash_mb:g} MB)")
    stats = _core.proof_stats() if counting else None
    if counting:
        show(stats, total)
    else:
        print("(no counters in this build: MANCALA_STATS=1 at build time puts them in)", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                         "solves": solves, "nodes": total, "stats": stats}, indent=1))


if __name__ == "__main__":
    main()
