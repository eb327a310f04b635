"""``python -m mancala bench``: search a fixed list of positions, report the speed.

Every position is searched by a fresh ``Engine`` without endgame databases, so
neither what one search leaves in the table nor what the cache directory holds
changes the next: with a depth limit the total node count is a behaviour
signature, the same run after run (tests/data/bench_signature.txt pins one).
With ``--compare`` the textbook alpha-beta also runs compiled and in pure
Python (``mancala._reference``) on the same trees: the node counts must agree,
and the ratio of the times is the speed the compiled core buys.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from typing import Any, Dict, List, Optional

import mancala
from mancala import _reference
from mancala.board import capture_code
from mancala.cli import options
from mancala.cli.format import ms as _ms
from mancala.engine import Engine, SearchLimit
from mancala.limits import DEFAULT_DEPTH, DEFAULT_HASH_MB
from mancala.positions import BENCH_POSITIONS, Position, load_positions

DEFAULT_COMPARE_DEPTH = 8
# The compiled tree is searched first and is the same tree the twin will walk;
# beyond this many nodes (tens of seconds of pure Python) the twin is skipped.
# The compiled search stops there too: at depth 30 even it would run for hours.
TWIN_NODE_BUDGET = 3_000_000
TWIN_NODES_PER_SECOND = 150_000     # the pure-Python twin, roughly: for the warning
TWIN_WARN_SECONDS = 5               # a longer twin run is announced on stderr first


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench", help="search a fixed list of positions and report nodes, time and table use",
        description="Search a fixed list of positions, each with a fresh engine, and report "
                    "depth, nodes, time, nodes/s, best move (pit 1..6 from the mover's left; "
                    "--json: move_index 0..5), "
                    "score and table use. With a depth limit the total node count is a "
                    "behaviour signature: identical run after run.")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=options.depth, metavar="N",
                       help=f"search every position to depth N (default {DEFAULT_DEPTH})")
    limit.add_argument("--time", type=options.seconds, metavar="S",
                       help="search every position for S seconds instead of to a depth")
    p.add_argument("--hash-mb", type=options.megabytes, default=float(DEFAULT_HASH_MB), metavar="MB",
                   help=f"transposition table size (default {DEFAULT_HASH_MB}; 0 for none)")
    p.add_argument("--positions", metavar="FILE",
                   help="positions to search, one a line: NAME SLOTS SIDE CAPTURE "
                        "(default: the packaged list, mancala/data/bench_positions.txt)")
    p.add_argument("--compare", action="store_true",
                   help="also search plain alpha-beta trees compiled and in pure Python: "
                        "node counts must agree; prints both times and the speed ratio")
    p.add_argument("--compare-depth", type=options.depth, default=DEFAULT_COMPARE_DEPTH, metavar="N",
                   help=f"depth of the --compare trees (default {DEFAULT_COMPARE_DEPTH})")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document on stdout (progress still goes to stderr)")
    p.set_defaults(run=run)


# -- measuring

def search_position(position: Position, limit: SearchLimit, hash_mb: float) -> Dict[str, Any]:
    """One position searched by a fresh engine: what the bench reports for it."""
    # no endgame database: what the cache directory holds must not change the counts
    engine = Engine(hash_mb=hash_mb, endgame=None)
    result = engine.search(position.board(), limit)
    return {
        "name": position.name,
        "pits": list(position.pits),
        "to_move": position.to_move,
        "capture": position.capture,
        "depth": result.depth,
        "nodes": result.nodes,
        "time": result.elapsed,
        "nps": result.nps,
        "move_index": result.move,      # pit 0..5 from the mover's left
        "score": result.score,
        "exact": result.exact,
        "tt_hits": result.tt_hits,
        "hashfull": engine.hashfull(),
    }


def compare_position(position: Position, depth: int) -> Dict[str, Any]:
    """The same plain alpha-beta tree, compiled and in pure Python."""
    board, engine = position.board(), Engine(plain=True)
    start = time.perf_counter()
    compiled = engine.search(board, depth=depth, nodes=TWIN_NODE_BUDGET + 1)
    compiled_time = time.perf_counter() - start
    finished = compiled.depth == depth or compiled.exact
    row: Dict[str, Any] = {
        "name": position.name,
        "depth": depth,
        "nodes_compiled": compiled.nodes,
        "time_compiled": compiled_time,
        "move_index_compiled": compiled.move,
        "score_compiled": compiled.score,
        "nodes_python": None, "time_python": None, "move_index_python": None, "score_python": None,
        "ratio": None,
        "match": None,          # None: the twin was skipped
        "compiled_complete": True,  # False: stopped past TWIN_NODE_BUDGET nodes, a lower bound
    }
    if not finished or compiled.nodes > TWIN_NODE_BUDGET:
        # a stopped search: its count is the budget's and its move is no answer
        row.update(nodes_compiled=max(compiled.nodes, TWIN_NODE_BUDGET + 1), move_index_compiled=None,
                   score_compiled=None, compiled_complete=finished)
        print(f"compare {position.name}: pure Python skipped: the tree has more than "
              f"{TWIN_NODE_BUDGET:,} nodes (the twin's budget, TWIN_NODE_BUDGET)",
              file=sys.stderr, flush=True)
        return row
    if compiled.nodes / TWIN_NODES_PER_SECOND > TWIN_WARN_SECONDS:
        print(f"compare {position.name}: pure Python walks {compiled.nodes:,} nodes, about "
              f"{compiled.nodes / TWIN_NODES_PER_SECOND:.0f} s", file=sys.stderr, flush=True)
    start = time.perf_counter()
    score, move, nodes = _reference.alphabeta(
        position.pits, position.to_move, depth, capture_code(position.capture))
    python_time = time.perf_counter() - start
    row.update(nodes_python=nodes, time_python=python_time, move_index_python=move,
               score_python=score, ratio=_ratio(python_time, compiled_time),
               match=(nodes, score, move) == (compiled.nodes, compiled.score, compiled.move))
    return row


def _ratio(slow: float, fast: float) -> Optional[float]:
    return slow / fast if fast > 0 else None


def totals(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    nodes = sum(row["nodes"] for row in rows)
    elapsed = sum(row["time"] for row in rows)
    return {"positions": len(rows), "nodes": nodes, "time": elapsed,
            "nps": nodes / elapsed if elapsed > 0 else 0.0}


def compare_totals(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    done = [row for row in rows if row["match"] is not None]
    python_time = sum(row["time_python"] for row in done)
    compiled_time = sum(row["time_compiled"] for row in done)
    return {
        "positions": len(done),
        "skipped": len(rows) - len(done),
        "nodes_python": sum(row["nodes_python"] for row in done),
        "nodes_compiled": sum(row["nodes_compiled"] for row in done),
        "time_python": python_time,
        "time_compiled": compiled_time,
        "ratio": _ratio(python_time, compiled_time),
        "match": all(row["match"] for row in done),
    }


# -- the command

def run(args: argparse.Namespace) -> int:
    positions = load_positions(args.positions)
    source = str(BENCH_POSITIONS if args.positions is None else args.positions)
    if args.time is not None:
        limit = SearchLimit(time=args.time)
        what = f"{args.time:g} s a position"
    else:
        limit = SearchLimit(depth=args.depth or DEFAULT_DEPTH)
        what = f"depth {limit.depth}"
    # the human report streams its rows; with --json, stdout holds only the JSON
    show = _Progress(sys.stderr) if args.json else _Text(sys.stdout)

    show.header(len(positions), what, args.hash_mb, source)
    rows = []
    for position in positions:
        rows.append(search_position(position, limit, args.hash_mb))
        show.row(rows[-1])
    summary = totals(rows)
    signature = summary["nodes"] if args.time is None else None
    show.totals(summary, signature)
    report: Dict[str, Any] = {
        "command": "bench",
        "version": mancala.__version__,
        "python": platform.python_version(),
        "positions_file": source,
        "limit": {"depth": limit.depth, "time": limit.time},
        "hash_mb": args.hash_mb,
        "positions": rows,
        "totals": summary,
        "signature": signature,
    }

    status = 0
    if args.compare:
        show.compare_header(args.compare_depth)
        compared = []
        for position in positions:
            compared.append(compare_position(position, args.compare_depth))
            show.compare_row(compared[-1])
            if compared[-1]["match"] is False:
                status = 1
                print(_mismatch(compared[-1]), file=sys.stderr, flush=True)
        summary = compare_totals(compared)
        show.compare_totals(summary)
        report["compare"] = {"depth": args.compare_depth, "positions": compared, "totals": summary}

    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return status


def _mismatch(row: Dict[str, Any]) -> str:
    return (f"MISMATCH {row['name']} at depth {row['depth']}: the pure-Python twin and the "
            f"compiled plain alpha-beta walked different trees (nodes {row['nodes_python']} vs "
            f"{row['nodes_compiled']}, score {row['score_python']} vs {row['score_compiled']}, "
            f"move pit {_move(row['move_index_python'])} vs {_move(row['move_index_compiled'])}): "
            f"a bug in one of them")


# -- output

def _score(value: Optional[int]) -> str:
    return "-" if value is None else f"{value:+d}"


def _move(value: Optional[int]) -> str:
    """A pit index 0..5 as people see it: 1..6."""
    return "-" if value is None else str(value + 1)


class _Progress:
    """With --json: one line on stderr as each position finishes, nothing else."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def header(self, *args) -> None:
        pass

    totals = compare_header = compare_totals = header

    def row(self, row: Dict[str, Any]) -> None:
        print(f"bench {row['name']}: depth {row['depth']}, {row['nodes']} nodes, "
              f"{_ms(row['time'])} ms", file=self.stream, flush=True)

    def compare_row(self, row: Dict[str, Any]) -> None:
        if row["match"] is None:
            print(f"compare {row['name']}: skipped ({row['nodes_compiled']} nodes is too many "
                  f"for pure Python)", file=self.stream, flush=True)
            return
        print(f"compare {row['name']}: {row['nodes_python']} / {row['nodes_compiled']} nodes, "
              f"{_ms(row['time_python'])} / {_ms(row['time_compiled'])} ms",
              file=self.stream, flush=True)


class _Text:
    """The human report on stdout, a row as each position finishes."""

    NAME = 16

    def __init__(self, stream) -> None:
        self.stream = stream

    def line(self, text: str = "") -> None:
        print(text, file=self.stream, flush=True)

    def header(self, count: int, what: str, hash_mb: float, source: str) -> None:
        self.line(f"mancala bench: {count} positions, {what}, {hash_mb:g} MB table, "
                  f"a fresh engine each ({source})")
        self.line(f"{'position':<{self.NAME}} {'depth':>5} {'nodes':>11} {'ms':>9} "
                  f"{'nodes/s':>11} {'pit':>4} {'score':>5} {'tt hits':>10} {'fill':>5}")

    def row(self, row: Dict[str, Any]) -> None:
        self.line(f"{row['name']:<{self.NAME}} {row['depth']:>5} {row['nodes']:>11,} "
                  f"{_ms(row['time']):>9} {row['nps']:>11,.0f} {_move(row['move_index']):>4} "
                  f"{_score(row['score']):>5} {row['tt_hits']:>10,} {row['hashfull']:>5}")

    def totals(self, summary: Dict[str, Any], signature: Optional[int]) -> None:
        self.line(f"{'total':<{self.NAME}} {'':>5} {summary['nodes']:>11,} "
                  f"{_ms(summary['time']):>9} {summary['nps']:>11,.0f}")
        self.line("(pit: the best move, 1..6 from the mover's left; score: seeds, side to move's view; "
                  "fill: table entries in use, per mille)")
        if signature is not None:
            self.line(f"signature: {signature} nodes")
        else:
            self.line("(time-limited: node counts vary from run to run; no signature)")

    def compare_header(self, depth: int) -> None:
        self.line()
        self.line(f"compare: plain alpha-beta to depth {depth} (no table, natural move order), "
                  f"pure Python (mancala._reference) vs compiled (Engine(plain=True))")
        self.line(f"{'position':<{self.NAME}} {'nodes':>11} {'python ms':>10} "
                  f"{'compiled ms':>11} {'speed-up':>8}  trees agree")

    def compare_row(self, row: Dict[str, Any]) -> None:
        if row["match"] is None:
            nodes = (f"{row['nodes_compiled']:,}" if row["compiled_complete"]
                     else f">{TWIN_NODE_BUDGET:,}")
            self.line(f"{row['name']:<{self.NAME}} {nodes:>11} "
                      f"{'skipped':>10} {_ms(row['time_compiled']):>11} {'':>8}  "
                      f"(too many nodes for pure Python)")
            return
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.0f}x"
        agree = "yes" if row["match"] else (
            f"MISMATCH: python {row['nodes_python']:,} nodes, score {_score(row['score_python'])},"
            f" pit {_move(row['move_index_python'])}")
        self.line(f"{row['name']:<{self.NAME}} {row['nodes_compiled']:>11,} "
                  f"{_ms(row['time_python']):>10} {_ms(row['time_compiled']):>11} "
                  f"{ratio:>8}  {agree}")

    def compare_totals(self, summary: Dict[str, Any]) -> None:
        ratio = "-" if summary["ratio"] is None else f"{summary['ratio']:.0f}x"
        self.line(f"{'total':<{self.NAME}} {summary['nodes_compiled']:>11,} "
                  f"{_ms(summary['time_python']):>10} {_ms(summary['time_compiled']):>11} "
                  f"{ratio:>8}  " + ("yes" if summary["match"] else "NO: see MISMATCH above"))
        if summary["skipped"]:
            self.line(f"({summary['skipped']} positions skipped: more than "
                      f"{TWIN_NODE_BUDGET:,} nodes for pure Python)")
