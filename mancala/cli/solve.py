"""``python -m mancala solve``: the perfect-play value of a position, searched for real."""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Optional

from mancala import book, endgame
from mancala.board import Board, start_slots
from mancala.cli import options, solve_verify
from mancala.cli.signals import Stops, stop_signals
from mancala.errors import CommandError
from mancala.cli.position import add_position_arguments, board_from
from mancala.cluster import Address, joined, parse_address
from mancala.cluster.journal import Journal
from mancala.cluster.solve import DEFAULT_JOB_NODES, solve as solve_on
from mancala.engine import Engine
from mancala.geometry import SIDE_NAMES, seeds_in_pits
from mancala.limits import MAX_SEEDS_PER_PIT, MIN_SEEDS, solve_table_mb
from mancala._core import MAX_SEEDS

MARGIN = options.whole("a bound on the value", -MAX_SEEDS, MAX_SEEDS)
DEFAULT_THREADS = 2     # one machine's solve: threads sharing its table

# --json names the fields that hold pits 0..5 (people see 1..6) as indices
JSON_FIELDS = {"move": "move_index", "optimal_moves": "optimal_move_indices", "pv": "pv_indices"}
BOOK_STARTS = [(3, "standard"), (3, "empty"), (4, "standard"), (4, "empty")]


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve", help="perfect-play value and optimal moves of a position",
        description="Solve a position exactly: null-window searches over the final margin "
                    "(MTD(f)) to the end of the game, with a transposition table and, when "
                    "built, an endgame database. Progress goes to stderr. Pits are shown 1..6 "
                    "from the mover's left; --json gives pit indices 0..5 (move_index, "
                    "optimal_move_indices, pv_indices).")
    add_position_arguments(p)
    p.add_argument("--hash-mb", type=options.megabytes, default=None, metavar="MB",
                   help="transposition table size (default: by the seeds the search must get "
                        "through, 16 MB up to 36 seeds, doubling every 2 seeds up to 256 MB for "
                        "Kalah(6,4) and 1024 MB above; an endgame database of N seeds counts a "
                        "board of S seeds as S - N + 18 when fewer; at most half the memory available)")
    p.add_argument("--endgame", type=options.endgame_seeds, default=None, metavar="N",
                   help="use the endgame database of positions with at most N seeds in the pits, "
                        "building and caching it first if needed (on two threads from nothing: "
                        "N = 22 in seconds (548 MB), 28 in about a minute (5.6 GB), 30 in under "
                        "3 minutes (11 GB)); 0 for none. "
                        "Default: the largest one cached")
    p.add_argument("--threads", type=options.threads, default=None, metavar="N",
                   help="threads sharing each search, and building a missing endgame database "
                        "(default 2; 1 gives the same node counts on every run); with --cluster, "
                        "the threads of each worker (default: a node's CPUs, one worker a node)")
    p.add_argument("--all", action="store_true", help="also list every optimal move (one more search each)")
    p.add_argument("--book", action="store_true",
                   help="answer a standard start from the shipped opening book instead of searching")
    p.add_argument("--update-book", action="store_true",
                   help="solve the Kalah(6,3) and (6,4) starts again into mancala/data/openings.json, "
                        "or with --seeds only that start; other entries are kept")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="solve on a Ray cluster: local[:N] (a runtime on this machine, N CPUs), auto "
                        "(the cluster `ray start` made here) or ray://HOST:PORT; the driver keeps a "
                        "proof tree and the workers run its null-window tests as jobs; the endgame "
                        "levels must be where every node sees them (extra: cluster)")
    p.add_argument("--journal", type=Path, default=None, metavar="FILE",
                   help="with --cluster: append every finished job to FILE, each line checked; a "
                        "solve started again with it does no finished job twice; a file that is not "
                        "this solve's journal is refused, never written; one another installation "
                        "sealed is refused too, unless verified here (--verify-journal) or taken on "
                        "trust (--trust-journal)")
    p.add_argument("--trust-journal", action="store_true",
                   help="with --journal: take the lines another installation sealed (or an older "
                        "version wrote) on trust, without recomputing them; every answer then says "
                        "how many of the jobs it rests on were taken on trust")
    p.add_argument("--job-nodes", type=options.whole("--job-nodes", 1000, 2 ** 62), default=None,
                   metavar="N", help="with --cluster: the node budget of one job, after which its position is "
                        "split into its moves (default 4,000,000: seconds of one core)")
    solve_verify.add_arguments(p)
    bound = p.add_mutually_exclusive_group()
    bound.add_argument("--at-least", type=MARGIN, default=None, metavar="T",
                       help="ask one question instead of solving: is the value (for the side to "
                            "move) at least T? proved or refuted, journaled with --cluster")
    bound.add_argument("--at-most", type=MARGIN, default=None, metavar="T",
                       help="ask one question instead of solving: is the value (for the side to "
                            "move) at most T?")
    p.set_defaults(run=run)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def table_mb(args: argparse.Namespace, board: Optional[Board]) -> float:
    """--hash-mb, or the solve's default for board and the database it will use
    (board None, as for the book's starts: the full default)."""
    if args.hash_mb is not None:
        return args.hash_mb
    if board is None:
        return solve_table_mb()
    reach = endgame.cached_seeds(board.capture) if args.endgame is None else args.endgame
    return solve_table_mb(seeds_in_pits(board.pits), reach)


def engine_for(args: argparse.Namespace, capture: str, board: Optional[Board] = None) -> Engine:
    """The engine a solve on this machine uses: its table (:func:`table_mb`), its
    threads (``--threads``, else DEFAULT_THREADS) and the database ``--endgame`` asks for."""
    hash_mb, threads = table_mb(args, board), args.threads or DEFAULT_THREADS
    if args.endgame is None:
        return Engine(hash_mb=hash_mb, threads=threads)
    if args.endgame == 0:
        return Engine(hash_mb=hash_mb, endgame=None, threads=threads)
    return Engine(hash_mb=hash_mb, endgame=ensure_endgame(args, capture), threads=threads)


def ensure_endgame(args: argparse.Namespace, capture: str) -> endgame.EndgameDatabase:
    """The database --endgame asks for, built first where levels are missing."""
    def progress(seeds: int, done: int, total: int, seconds: float) -> None:
        say(f"endgame database ({capture}): {seeds} seeds, {done:,} of {total:,} positions, {seconds:.1f} s")

    return endgame.ensure(capture, args.endgame, progress, args.threads or DEFAULT_THREADS)


def solve(board: Board, engine: Engine, all_moves: bool) -> dict:
    def progress(lower: int, upper: int, nodes: int, seconds: float) -> None:
        low = "-inf" if lower < -MAX_SEEDS else f"{lower:+d}"
        high = "+inf" if upper > MAX_SEEDS else f"{upper:+d}"
        say(f"  value in [{low}, {high}]  {nodes:,} nodes  {seconds:.1f} s")

    start = time.perf_counter()
    result = engine.solve(board, progress=progress)
    optimal = engine.optimal_moves(board, result.score) if all_moves else (result.move,)
    return {
        "board": board.pits, "to_move": board.to_move, "capture": board.capture,
        "value": result.score, "move": result.move, "optimal_moves": list(optimal),
        "pv": list(result.pv), "nodes": result.nodes, "seconds": round(time.perf_counter() - start, 3),
        "endgame_seeds": result.endgame, "exact": result.exact, "from_book": False,
    }


def bound_question(board: Board, engine: Engine, at_least: int) -> dict:
    """Is the value at least at_least? One null-window search on this machine."""
    start = time.perf_counter()
    bound, nodes = engine.null_window(board, at_least)
    holds = bound >= at_least
    return {"board": board.pits, "to_move": board.to_move, "capture": board.capture,
            "holds": holds, "lower": bound if holds else None, "upper": None if holds else bound,
            "nodes": nodes, "seconds": round(time.perf_counter() - start, 3),
            "endgame_seeds": getattr(engine.endgame, "max_seeds", None)}


def run(args: argparse.Namespace) -> int:
    # '' too: one line, before any work
    address = parse_address(args.cluster) if args.cluster is not None else None
    if args.verify_journal is not None:
        return solve_verify.run(args, engine_for)
    if args.sample is not None or args.seed is not None:
        raise CommandError("--sample and --seed go with --verify-journal")
    if args.update_book:
        return update_book(args)
    board = board_from(args)
    if board.is_game_over():
        raise CommandError("the game is over: nothing to solve")
    entry = book.lookup(board) if args.book else None
    if args.book and entry is None:
        held = book.describe(book.load())
        per_pit = board.pits[0]
        start = f"Kalah(6,{per_pit}) {board.capture}" if board.to_move == 0 and \
            MIN_SEEDS <= per_pit <= MAX_SEEDS_PER_PIT and board.pits == start_slots(per_pit) else None
        raise CommandError(f"the opening book holds {held}; "
                           + (f"not {start}" if start else "this position is not a start"))
    at_least = args.at_least if args.at_most is None else args.at_most + 1
    if at_least is not None and (args.all or args.book or args.update_book):
        raise CommandError("--at-least and --at-most ask one question: not with --all or --book")
    if (args.journal or args.job_nodes) and args.cluster is None:
        raise CommandError("--journal and --job-nodes go with --cluster")
    if args.trust_journal and args.journal is None:
        raise CommandError("--trust-journal goes with --journal")
    if address is not None and (args.book or args.update_book):
        raise CommandError("--cluster solves by search, not from the opening book")
    if address is not None:
        with stop_signals() as stops:
            report = cluster_solve(board, args, address, stops, at_least)
    elif at_least is not None:
        report = bound_question(board, engine_for(args, board.capture, board), at_least)
    elif entry is not None:
        report = {"board": board.pits, "to_move": board.to_move, "capture": board.capture,
                  "value": entry.value, "move": entry.moves[0], "optimal_moves": list(entry.moves),
                  "pv": [entry.moves[0]], "nodes": 0, "seconds": 0.0, "endgame_seeds": None,
                  "exact": True, "from_book": True}
    else:
        engine = engine_for(args, board.capture, board)
        say(f"solving ({board.seeds} seeds, capture {board.capture}, {engine.threads} thread(s), "
            f"table {engine.hash_mb:g} MB"
            + (f", endgame database of {engine.endgame.max_seeds} seeds)"
               if hasattr(engine.endgame, "max_seeds") else ")"))
        report = solve(board, engine, args.all)
    if at_least is not None:
        return say_bound(report, board, args)
    if args.json:
        print(json.dumps({JSON_FIELDS.get(key, key): value for key, value in report.items()},
                         indent=2))
        return 0
    side = SIDE_NAMES[board.to_move]
    print(board)
    source = "from the opening book" if report["from_book"] else (
        f"{report['nodes']:,} nodes, {report['seconds']:.1f} s"
        + (f", endgame database of {report['endgame_seeds']} seeds" if report["endgame_seeds"] else ""))
    print(f"\nPerfect play: {side} {'wins' if report['value'] > 0 else 'loses' if report['value'] < 0 else 'draws'}"
          f" by {abs(report['value'])} ({report['value']:+d} for {side}; {source})")
    label = "optimal moves" if args.all or report["from_book"] else "best move"
    print(f"{label}: " + ", ".join(f"pit {m + 1}" for m in report["optimal_moves"]))
    say_journal(report)
    if len(report["pv"]) > 1:
        print("line: " + " ".join(str(m + 1) for m in report["pv"][:30]))
    return 0


def cluster_solve(board: Board, args: argparse.Namespace, address: Address, stops: Stops,
                  at_least: Optional[int] = None) -> dict:
    """solve --cluster: the same report, with "cluster" added. A worker runs
    ``--threads`` threads (none given: a node's CPUs); on a local runtime the
    default table is divided among the workers (they share this machine's
    memory), a table given is each worker's. stops: checked as the solve reports."""
    threads, hash_mb = args.threads, table_mb(args, board)
    with contextlib.ExitStack() as stack:       # the journal opened, locked and checked once, before Ray
        journal = None if args.journal is None else stack.enter_context(
            Journal(args.journal, board, foreign="trust" if args.trust_journal else "refuse"))
        return _cluster_solve(board, args, address, stops, at_least, threads, hash_mb, journal)


def _cluster_solve(board: Board, args: argparse.Namespace, address: Address, stops: Stops,
                   at_least: Optional[int], threads: Optional[int], hash_mb: float,
                   journal: Optional[Journal]) -> dict:
    seeds, found = args.endgame, None
    if seeds is None:
        found = endgame.find(board.capture)
        seeds = found.max_seeds if found is not None else 0
    elif seeds:
        found = ensure_endgame(args, board.capture)    # builds what is missing, here
    # the levels' seals checked here: workers on other machines (other keys) take them by digest
    vouched = [level.digest for level in found.files] if seeds and found is not None else None
    cache = endgame.files.cache_dir().resolve()

    def progress(p: dict) -> None:
        asking = "the moves" if p["t"] is None else f"value >= {p['t']:+d}"
        known = ", ".join("?" if b is None else f"{b:+d}" for b in (p["lower"], p["upper"]))
        say(f"  [{known}] testing {asking}: jobs {p['done']:,} done, {p['running']} running "
            f"({p['speculative']} speculative); {p['positions']:,} positions; {p['nodes']:,} nodes, "
            f"{p['lost_nodes'] / max(p['nodes'], 1):.0%} exhausted or cancelled; {p['seconds']:.1f} s")

    def table(cpus: int) -> float:
        """A worker's table: on this machine, the default is shared by the workers."""
        if args.hash_mb is None and address.kind == "local":
            return max(16, hash_mb * (threads or cpus) // cpus)
        return hash_mb

    def details(cpus: int) -> str:
        return (f"{board.seeds} seeds, capture {board.capture}; a table of {table(cpus):g} MB "
                f"per worker" + (f", endgame database of {seeds} seeds in {cache}" if seeds else ""))

    with joined(address, "solving", say, details) as cpus:
        result = solve_on(board, hash_mb=table(cpus), endgame_seeds=seeds or None, cache=cache,
                          journal=journal, job_nodes=args.job_nodes or DEFAULT_JOB_NODES,
                          all_moves=args.all, threads=threads, progress=stops.watching(Throttled(progress)),
                          at_least=at_least, vouched=vouched,
                          # settled before the workers stop and the runtime shuts down
                          answered=lambda: stops.settle("the solve was finished"))
    return {
        "board": board.pits, "to_move": board.to_move, "capture": board.capture,
        "value": result.value, "move": result.move, "optimal_moves": list(result.optimal_moves),
        "pv": [result.move] if result.move is not None else [], "nodes": result.nodes, "seconds": round(result.seconds, 3),
        "endgame_seeds": seeds or None, "exact": True, "from_book": False,
        "holds": result.holds, "lower": result.lower, "upper": result.upper,
        "journal": None if journal is None else {
            "jobs_read": result.jobs_from_journal, "nodes_read": result.nodes_from_journal,
            "jobs_the_answer_rests_on": result.rests_on, "taken_on_trust": result.on_trust},
        "cluster": {"workers": result.workers, "threads": result.threads, "jobs": result.jobs,
                    "jobs_from_journal": result.jobs_from_journal, "nodes": result.nodes,
                    "nodes_from_journal": result.nodes_from_journal,
                    "seconds": round(result.seconds, 3), "cpu_seconds": round(result.cpu, 3),
                    "useful_nodes": result.useful_nodes, "wasted_nodes": result.wasted,
                    "driver_cpu_seconds": round(result.manager_seconds, 3)},
    }


def say_bound(report: dict, board: Board, args: argparse.Namespace) -> int:
    """The answer to --at-least or --at-most."""
    asked = f"at least {args.at_least:+d}" if args.at_most is None else f"at most {args.at_most:+d}"
    proved = report.pop("holds") == (args.at_most is None)
    report = {**report, "question": asked, "proved": proved}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    side = SIDE_NAMES[board.to_move]
    print(board)
    known = "[" + ", ".join("?" if bound is None else f"{bound:+d}"
                            for bound in (report["lower"], report["upper"])) + "]"
    print(f"\nIs the value for {side} (to move) {asked}? {'Yes: proved' if proved else 'No: refuted'} "
          f"({report['nodes']:,} nodes, {report['seconds']:.1f} s; the value is in {known})")
    say_journal(report)
    return 0


def say_journal(report: dict) -> None:
    """What an answer resumed from a journal rests on: the journal's jobs it uses,
    how many were taken on trust, the nodes read and not measured."""
    used = report.get("journal")
    if not used or not used["jobs_read"]:
        return
    trust = used["taken_on_trust"]
    print(f"from the journal: {used['jobs_read']:,} jobs read ({used['nodes_read']:,} nodes, as the "
          f"journal says: not measured here); the answer rests on {used['jobs_the_answer_rests_on']:,} "
          f"of them, " + (f"{trust:,} taken on trust and not recomputed here" if trust else
                           "none taken on trust"))


class Throttled:
    """A progress callback called at most once a second."""

    def __init__(self, show) -> None:
        self.show, self.last = show, 0.0

    def __call__(self, p: dict) -> None:
        now = time.monotonic()
        if now - self.last >= 1.0:
            self.last = now
            self.show(p)


def update_book(args: argparse.Namespace) -> int:
    """Solve the quick starts again (Kalah(6,3) and (6,4)), or with --seeds that start
    only; the book's other entries are kept."""
    given = [flag for flag, used in (("--board", args.board is not None), ("--moves", args.moves),
                                     ("--to-move", args.to_move is not None)) if used]
    if given:
        raise CommandError(f"--update-book solves standard starts (--seeds, --capture), "
                           f"not {' or '.join(given)}")
    entries = book.load() if book.BOOK_PATH.exists() else {}
    starts = BOOK_STARTS if args.seeds is None else [(args.seeds, args.capture)]
    for seeds, capture in starts:
        board = Board(seeds=seeds, capture=capture)
        say(f"Kalah(6,{seeds}) {capture}:")
        report = solve(board, engine_for(args, capture), all_moves=True)
        entries[seeds, capture] = book.BookEntry(seeds, capture, report["value"],
                                                 tuple(report["optimal_moves"]),
                                                 report["nodes"], report["seconds"])
        say(f"  {report['value']:+d}, optimal first moves "
            f"{', '.join(str(m + 1) for m in report['optimal_moves'])} ({report['seconds']:.1f} s)")
    book.save(entries.values())
    print(f"wrote {book.BOOK_PATH}")
    return 0
