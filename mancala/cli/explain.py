"""``python -m mancala explain``: the game tree of minimax and alpha-beta, for learners.

The trees come from :mod:`mancala.explain`; this module only draws them:
one line a node, indented by depth, with the move that led to it, MAX or
MIN, alpha-beta's window, the value backed up, and the moves cut off with the
window that cut them. Pits are 1..6 from the mover's left here; ``--json``
gives pit indices 0..5 (``pit_index``, ``best_index``, ``pit_indices``).

A tree longer than :data:`SHOWN_LINES` lines is cut there, with a line that
says how many more there are; ``--all`` draws every node, through the pager
(``$PAGER``, else ``less``) when the output is a terminal.
"""
from __future__ import annotations

import argparse
import json
import pydoc
import sys
from typing import List, Optional

from mancala import explain as _explain
from mancala.geometry import SIDE_NAMES
from mancala.cli import options
from mancala.cli.options import is_terminal
from mancala.cli.position import add_position_arguments, board_from

DEFAULT_DEPTH = 3
SHOWN_LINES = 60                # a tree's lines shown without --all
LETTERS = "ABCDEFGHIJKL"        # A-F South's pits, G-L North's, as the game shows them
ROWS = (("minimax", "plain", "minimax"), ("minimax", "table", "minimax + table"),
        ("alphabeta", "plain", "alpha-beta"), ("alphabeta", "table", "alpha-beta + table"))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain", help="the game tree of minimax and alpha-beta from a position, for learners",
        description="Draw the game tree a textbook minimax and alpha-beta search (store "
                    "difference at the leaves) walk from a position: every node with the move "
                    "that led to it, MAX or MIN (MAX is the side to move), the value backed up "
                    "(MAX's store minus MIN's), alpha-beta's window [alpha, beta] and the moves "
                    "it cuts off with the window that cut them; then the nodes each search "
                    "visits, with and without the engine's move order and a transposition "
                    "table. The counts are those of mancala._reference's minimax and alphabeta.",
        epilog="Pits are 1..6 from the mover's left (and their letters, A-F South, G-L North); "
               "--json gives pit indices 0..5.")
    add_position_arguments(p)
    p.add_argument("--depth", type=options.whole("depth", 1, _explain.MAX_DEPTH),
                   default=DEFAULT_DEPTH, metavar="D",
                   help=f"moves to search ahead, 1..{_explain.MAX_DEPTH} (default {DEFAULT_DEPTH})")
    p.add_argument("--order", choices=_explain.ORDERS, default="natural",
                   help="alpha-beta's move order: natural (pit 1 first, the textbook's) or "
                        "engine (extra turns, then captures and store gains first)")
    p.add_argument("--table", action="store_true",
                   help="alpha-beta with a transposition table")
    p.add_argument("--show", choices=("both", "minimax", "alphabeta", "counts"), default="both",
                   help="which trees to draw (default both); the counts always follow")
    p.add_argument("--all", action="store_true",
                   help=f"draw every node of a tree (else the first {SHOWN_LINES} lines of each); "
                        "paged on a terminal")
    p.add_argument("--json", action="store_true",
                   help="print both trees and the counts as one JSON document")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    board = board_from(args)
    result = _explain.explain(board, depth=args.depth, order=args.order, table=args.table)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    lines = [str(board)]
    mover = SIDE_NAMES[board.to_move]
    other = SIDE_NAMES[1 - board.to_move]
    lines.append(f"\nMAX is {mover} (to move), MIN is {other}; values are {mover}'s store minus "
                 f"{other}'s, in seeds (the final margin once the game is over).")
    trees = {"both": (result.minimax, result.alphabeta), "minimax": (result.minimax,),
             "alphabeta": (result.alphabeta,), "counts": ()}[args.show]
    for tree in trees:
        lines.append("")
        lines.extend(bounded(draw(tree, args.depth), None if args.all else SHOWN_LINES))
    lines.append("")
    lines.extend(counts(result.counts, args.depth))
    text = "\n".join(lines)
    if args.all and is_terminal(sys.stdout):
        pydoc.pager(text + "\n")
    else:
        print(text)
    return 0


def bounded(lines: List[str], most: Optional[int]) -> List[str]:
    """The first ``most`` lines of a drawn tree and a line saying how many more there
    are ('  ... 1,537 more lines: --all draws every node'); all of them for None."""
    if most is None or len(lines) <= most + 1:
        return lines
    hidden = len(lines) - most
    return lines[:most] + [f"  ... {hidden:,} more lines: --all draws every node"]


def draw(tree: _explain.Tree, depth: int) -> List[str]:
    """The tree, one line a node."""
    title = "Minimax" if tree.search == "minimax" else "Alpha-beta"
    how = "" if tree.search == "minimax" else \
        f" ({tree.order} move order{', with a table' if tree.table else ''})"
    lines = [f"{title}{how}, {depth} move{'' if depth == 1 else 's'} deep: "
             f"{tree.nodes:,} node{'' if tree.nodes == 1 else 's'}, value {tree.value:+d}"
             + (f", best pit {tree.best_move + 1}" if tree.best_move is not None else "") + "."]
    if tree.root is None:
        lines.append(f"  (the tree has more than {_explain.MAX_TREE_NODES:,} nodes: too many to "
                     "draw; try a smaller --depth)")
        return lines
    lines.append("  * marks each node's best move; [alpha, beta] is the window a node is "
                 "searched with." if tree.search == "alphabeta" else
                 "  * marks each node's best move.")
    _draw(tree.root, None, 1, lines)
    return lines


def _draw(node: _explain.Node, parent: Optional[_explain.Node], level: int,
          lines: List[str]) -> None:
    indent = "  " * level
    best = "*" if parent is not None and parent.best == node.move else " "
    text = f"{indent}{best}#{node.number} "
    if parent is not None:
        text += f"pit {node.move + 1} ({LETTERS[6 * parent.to_move + node.move]})"
        notes = []
        if node.captured:
            notes.append(f"captures {node.captured}")
        if node.extra_turn:
            notes.append("extra turn")
        if notes:
            text += " " + ", ".join(notes)
        text += ": "
    else:
        text += "root: "
    if node.kind == "end":
        text += f"game over, {_value(node.value)}"
    elif node.kind == "leaf":
        text += f"leaf, {_value(node.value)}"
    else:
        text += f"{node.role.upper()} ({SIDE_NAMES[node.to_move]} to move)"
        if node.alpha is not None:
            text += f" [{_end(node.alpha)}, {_end(node.beta)}]"
        if node.kind == "table":
            known = {"exact": "exactly", "lower": "at least", "upper": "at most"}[node.bound]
            text += f" = {_value(node.value)} from the table ({known} {_value(node.value)})"
        else:
            text += f" = {_value(node.value)}"
    lines.append(text)
    for child in node.children:
        _draw(child, node, level + 1, lines)
    if node.cut is not None:
        cut = node.cut
        pits = ", ".join(f"{pit + 1} ({LETTERS[6 * node.to_move + pit]})" for pit in cut.pits)
        window = f"window [{_end(cut.alpha)}, {_end(cut.beta)}]"
        if node.role == "max":
            why = (f"{_value(cut.value)} >= beta {_end(cut.beta)} ({window}): MIN can already "
                   f"hold MAX to {_end(cut.beta)} elsewhere, so it will not come here")
        else:
            why = (f"{_value(cut.value)} <= alpha {_end(cut.alpha)} ({window}): MAX can already "
                   f"make {_end(cut.alpha)} elsewhere, so it will not come here")
        lines.append(f"{indent}   x cut pit{'s' if len(cut.pits) > 1 else ''} {pits}: {why}")


def counts(table, depth: int) -> List[str]:
    """The node counts, each search by each order, with and without a table."""
    lines = [f"Nodes visited, {depth} move{'' if depth == 1 else 's'} deep:",
             f"  {'':<20}{'natural order':>15}{'engine order':>15}"]
    for search, kind, label in ROWS:
        row = table[search]
        lines.append(f"  {label:<20}{row['natural'][kind]:>15,}{row['engine'][kind]:>15,}")
    lines.append("  (engine order: extra turns first, then by the seeds a move puts in the "
                 "mover's store; a table answers positions met again by another move order)")
    return lines


def _value(value: int) -> str:
    return f"{value:+d}"


def _end(value: Optional[int]) -> str:
    if value is None:
        return "?"
    if value <= -_explain.INF:
        return "-inf"
    if value >= _explain.INF:
        return "+inf"
    return f"{value:+d}"


__all__ = ["add_parser", "run", "draw", "counts", "bounded", "SHOWN_LINES"]
