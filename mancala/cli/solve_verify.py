"""``python -m mancala solve --verify-journal FILE``: a cluster solve's journal
checked by recomputing its jobs here (:mod:`mancala.cluster.verify`)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mancala.cli import options
from mancala.cluster.verify import open_journal, verify_journal
from mancala.errors import CommandError, quote

# what --verify-journal leaves aside: the position is the journal's, the search this machine's
NOT_WITH_VERIFY = (("--seeds", "seeds", None), ("--board", "board", None), ("--moves", "moves", []),
                   ("--to-move", "to_move", None), ("--cluster", "cluster", None),
                   ("--journal", "journal", None), ("--job-nodes", "job_nodes", None),
                   ("--trust-journal", "trust_journal", False),
                   ("--book", "book", False), ("--update-book", "update_book", False),
                   ("--all", "all", False))


def fraction(text: str) -> float:
    """--sample: a share of the jobs, above 0 and at most 1."""
    value = options.number(text)                 # ASCII only; NaN for anything else
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"the share of jobs to check is above 0 and at most 1, "
                                         f"not {quote(text)}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verify-journal", type=str, default=None, metavar="FILE",
                   help="check a cluster solve's journal: recompute every job's result here (the "
                        "position is the journal's; --endgame, --hash-mb, --threads as for a solve), "
                        "say the nodes, and check that the journal's claim follows from its jobs; "
                        "exit 1 naming each line that disagrees; what it recomputed and found true "
                        "is re-sealed, so a solve resumes from it as from its own")
    p.add_argument("--sample", type=fraction, default=None, metavar="SHARE",
                   help="with --verify-journal: recompute this share of the jobs (0.1: a tenth), "
                        "drawn at random (the seed is said)")
    p.add_argument("--seed", type=options.seed, default=None, metavar="N",
                   help="with --sample: the draw's seed, to repeat a check")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, engine_for) -> int:
    """solve --verify-journal; engine_for(args, capture, board): the engine a solve would use."""
    given = [flag for flag, name, default in NOT_WITH_VERIFY if getattr(args, name) != default]
    if given:
        raise CommandError(f"--verify-journal takes the position from the journal; "
                           f"{', '.join(given)} do not go with it")
    if args.seed is not None and args.sample is None:
        raise CommandError("--seed goes with --sample")
    if not args.verify_journal:
        raise CommandError("--verify-journal needs a file's name, not ''")
    path = Path(args.verify_journal)
    journal = open_journal(path)                          # refused in one line before any search
    records = journal.records
    board = records.board
    try:
        engine = engine_for(args, board.capture, board)
    except BaseException:
        journal.close()
        raise
    database = getattr(engine.endgame, "max_seeds", None)
    say(f"verifying {path} ({board.seeds} seeds, capture {board.capture}, format {records.format}; "
        f"{records.jobs:,} jobs) on {engine.threads} thread(s), table {engine.hash_mb:g} MB"
        + (f", endgame database of {database} seeds" if database is not None else ""))
    last = [0.0]

    def progress(done: int, total: int, nodes: int, seconds: float) -> None:
        if seconds - last[0] >= 1.0 or done == total:
            last[0] = seconds
            say(f"  {done:,} of {total:,} statements, {nodes:,} nodes, {seconds:.1f} s")

    found = verify_journal(journal, engine, args.sample or 1.0, args.seed, progress)
    if args.json:
        print(json.dumps(found.as_json(), indent=2))
        return 0 if found.ok else 1
    print(f"journal {path}: format {found.format}, {found.jobs:,} jobs, {found.with_result:,} with a "
          f"result (the others ran out of budget: they state nothing)")
    share = "" if found.sample >= 1 else f" (a share of {found.sample:g}, seed {found.seed})"
    print(f"recomputed {found.checked:,} of {found.with_result:,}{share} in {found.searches:,} searches: "
          f"{found.nodes_recomputed:,} nodes here against {found.nodes_claimed:,} in the journal "
          f"({found.nodes_journal:,} with the jobs that ran out); {found.seconds:.1f} s")
    for bad in found.disagreements:
        print(f"line {bad['line']}: DISAGREES: the value of pits "
              f"{','.join(map(str, bad['key'][0]))} ({'South' if bad['key'][1] == 0 else 'North'} "
              f"to move) is {bad['says']} {bad['bound']}, it says; recomputed, it is not "
              f"(the search at that bound gives {bad['recomputed_bound']})")
    if not found.disagreements:
        print("every recomputed job agrees")
    lo, hi = found.proves
    print("the jobs prove the value " + (f"{lo:+d}" if lo == hi else f"is in {lo:+d}..{hi:+d}"))
    for claim in found.claims:
        if claim["claim"] == "bound":
            what = (f"line {claim['line']} claims the value is "
                    + ("at least " if claim["holds"] else "below ") + f"{claim['at_least']:+d}")
        else:
            what = (f"line {claim['line']} claims {claim['value']:+d}, "
                    + ("optimal moves " if claim["all"] else "best move ")
                    + ", ".join(f"pit {m + 1}" for m in claim["moves"]))
        if claim["missing"]:
            print(f"{what}: NOT PROVED: " + "; ".join(claim["missing"]))
        else:
            print(f"{what}: the jobs prove it" + ("" if found.sample >= 1 else
                                                 " (if the jobs not recomputed hold)"))
    if not found.claims:
        print("no claim: the solve that wrote it did not finish")
    standing = ", ".join(f"{count:,} {name.replace('_', ' ')}" for name, count in found.standing.items()
                         if count)
    print(f"its job lines: {standing or 'none'}" + (f"; re-sealed: {found.resealed}" if found.resealed
                                                   else ""))
    return 0 if found.ok else 1
