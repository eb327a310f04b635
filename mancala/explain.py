"""The game tree of a small search, node by node: minimax and alpha-beta for learners.

Most people meet Kalah in a course where they write minimax and alpha-beta
(the textbook recipe, leaves scored by the store difference). This module
builds the tree their code walks, over the pure-Python twin's rules
(:mod:`mancala._reference`), so a page or a terminal can show it: every
node with its board, the move that led to it, the value backed up to it and,
for alpha-beta, the window (alpha, beta) it was searched with and the moves it
cut off, with the window that cut them.

The tree is told the textbook way, as MAX and MIN: MAX is the side to move at
the root, every value is from MAX's point of view (MAX's store minus MIN's,
in seeds; the final margin once the game is over), MAX nodes take the
largest child value and MIN nodes the smallest. An extra turn keeps the
mover, so a MAX node's child can be a MAX node again. Alpha is the most MAX
is sure of on the way to a node, beta the least MIN is; a node whose value
reaches past its window is cut: its remaining moves are never searched. It
is node for node the negamax of :func:`mancala._reference.minimax` and
:func:`mancala._reference.alphabeta` (same nodes, same values, same best move).

Two things that make the engine fast change the counts, and :func:`node_counts`
shows by how much:

- move ordering: ``order="engine"`` searches moves that earn an extra turn
  first, then by the seeds the move puts in the mover's store (captures),
  ties to the pit nearest the store: the engine's order, without its table
  move. Minimax visits every node whatever the order; alpha-beta cuts sooner
  when the best move comes first.
- a transposition table: ``table=True`` remembers each searched position
  with its depth, its value and whether that value is exact or only a bound
  (alpha-beta's cut nodes give bounds), and a position met again by another
  move order is answered from it when the bound settles it (a node of kind
  ``"table"``). Entries match by exact depth, so values stay those of the
  plain search.

    >>> from mancala import explain
    >>> tree = explain.search_tree([0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0], 0, 2, "standard",
    ...                            prune=True)
    >>> tree.value, tree.best_move, tree.nodes
    (4, 5, 5)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mancala import _reference as twin
from mancala.errors import InvalidBoardError, InvalidLimitError, InvalidRuleError, quote

INF = twin.INF                  #: beyond any value: an open end of a window
MAX_DEPTH = 8                   #: the deepest explained search (pure Python: seconds at 8)
MAX_TREE_NODES = 20_000         #: a tree larger than this is counted, not built
ORDERS = ("natural", "engine")
SEARCHES = ("minimax", "alphabeta")
EXACT, LOWER, UPPER = "exact", "lower", "upper"     #: what a table entry knows of a value


@dataclass
class Cut:
    """The moves alpha-beta did not search at a node, and why."""

    pits: List[int]             #: the moves left unsearched (pit indices 0..5)
    value: int                  #: the child value that caused the cut (MAX's view)
    alpha: int                  #: the node's window when that child's value came back: at a
    beta: int                   #: MAX node value >= beta, at a MIN node value <= alpha


@dataclass
class Node:
    """One position the search visited."""

    number: int                 #: visit order, 1 for the root (for stepping through)
    board: Tuple[int, ...]      #: the 14 slots
    to_move: int                #: 0 South, 1 North
    role: str                   #: "max" or "min"
    depth: int                  #: moves left to search from here
    move: Optional[int] = None  #: the pit (0..5 from its mover's left) that led here; None at the root
    extra_turn: bool = False    #: that move earned an extra turn (the same side moves again here)
    captured: int = 0           #: seeds that move captured
    alpha: Optional[int] = None  #: the window the node was searched with (alpha-beta only)
    beta: Optional[int] = None
    kind: str = "inner"         #: "inner", "leaf" (depth 0), "end" (game over), "table" (answered by the table)
    value: int = 0              #: the value backed up (MAX's view)
    bound: Optional[str] = None  #: for a "table" node: what the table knew ("exact", "lower", "upper")
    best: Optional[int] = None  #: the pit of the best child
    children: List["Node"] = field(default_factory=list)
    cut: Optional[Cut] = None

    def walk(self):
        """This node and every node below it, in visit order."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Tree:
    """One search from one position."""

    search: str                 #: "minimax" or "alphabeta"
    order: str                  #: "natural" or "engine"
    table: bool                 #: with a transposition table
    nodes: int                  #: positions visited (the root included), as the twin counts them
    value: int                  #: the root's value (MAX's view: the side to move at the root)
    best_move: Optional[int]    #: the root's best pit (None when the game is over)
    root: Optional[Node]        #: the tree, or None when it has more than ``max_nodes`` nodes


class _Search:
    """The textbook search as MAX/MIN over the twin's rules; counts every node it enters."""

    def __init__(self, capture: int, max_player: int, prune: bool, order: str, table: bool,
                 build: bool) -> None:
        self.capture = capture
        self.max_player = max_player
        self.prune = prune
        self.order = order
        self.table: Optional[Dict[tuple, Tuple[int, str]]] = {} if table else None
        self.build = build
        self.nodes = 0

    def visit(self, slots: List[int], to_move: int, depth: int, alpha: int, beta: int,
              node: Optional[Node]) -> Tuple[int, Optional[int]]:
        """The node's value and best move; fills ``node`` (when building)."""
        self.nodes += 1
        is_max = to_move == self.max_player
        if twin.is_game_over(slots) or depth == 0:
            value = twin.evaluate(slots, to_move, self.capture, twin.STORE)
            value = value if is_max else -value
            if node is not None:
                node.kind = "end" if twin.is_game_over(slots) else "leaf"
                node.value = value
            return value, None
        key = (tuple(slots), to_move, depth)
        if self.table is not None and key in self.table:
            value, bound = self.table[key]
            if bound == EXACT or (bound == LOWER and value >= beta) or \
                    (bound == UPPER and value <= alpha):
                if node is not None:
                    node.kind, node.value, node.bound = "table", value, bound
                return value, None
        children = [(pit, *twin.play(slots, to_move, pit, self.capture))
                    for pit in twin.legal_moves(slots, to_move)]
        if self.order == "engine":
            children.sort(key=lambda child: _order_key(slots, to_move, *child), reverse=True)
        best, best_pit = (-INF if is_max else INF), None
        a, b = alpha, beta
        for index, (pit, child, next_to_move, captured) in enumerate(children):
            child_node = None
            if node is not None:
                child_node = Node(self.nodes + 1, tuple(child), next_to_move,
                                  "max" if next_to_move == self.max_player else "min", depth - 1,
                                  pit, next_to_move == to_move and not twin.is_game_over(child),
                                  captured,
                                  a if self.prune else None, b if self.prune else None)
                node.children.append(child_node)
            value, _ = self.visit(child, next_to_move, depth - 1, a, b, child_node)
            if (value > best) if is_max else (value < best):    # strict: ties keep the earlier move
                best, best_pit = value, pit
            window = (a, b)
            if is_max:
                a = max(a, best)
            else:
                b = min(b, best)
            if self.prune and a >= b:
                rest = [later[0] for later in children[index + 1:]]
                if rest and node is not None:
                    node.cut = Cut(rest, value, *window)
                break
        if self.table is not None:
            bound = EXACT
            if self.prune:
                bound = UPPER if best <= alpha else LOWER if best >= beta else EXACT
            self.table[key] = (best, bound)
        if node is not None:
            node.value, node.best = best, best_pit
        return best, best_pit


def _order_key(slots: Sequence[int], to_move: int, pit: int, child: Sequence[int],
               next_to_move: int, captured: int) -> Tuple[int, int, int]:
    """The engine's order, highest first: extra turn, then store gain, then the pit nearest the store."""
    gain = twin.score(child, to_move) - twin.score(slots, to_move)
    return (next_to_move == to_move and not twin.is_game_over(child), gain, pit)


def _position(board: Any, to_move: Optional[int], capture: Optional[str]) -> Tuple[List[int], int, int]:
    """(slots, to_move, capture index) of a mancala.Board or of 14 slots."""
    if hasattr(board, "pits") and hasattr(board, "to_move"):
        slots, to_move = list(board.pits), board.to_move if to_move is None else to_move
        capture = board.capture if capture is None else capture
    else:
        try:
            slots = [int(n) for n in board]
        except (TypeError, ValueError):
            raise InvalidBoardError(f"a board is 14 seed counts, not {quote(board)}") from None
        if len(slots) != twin.SLOTS or any(n < 0 for n in slots):
            raise InvalidBoardError(f"a board is 14 seed counts, none negative, not {quote(board)}")
    to_move = 0 if to_move is None else to_move
    if to_move not in (0, 1):
        raise InvalidBoardError(f"to_move is 0 (South) or 1 (North), not {quote(to_move)}")
    capture = "standard" if capture is None else capture
    if capture not in twin.CAPTURE_RULES:
        raise InvalidRuleError(f"unknown capture rule {quote(capture)}; choose one of "
                               f"{', '.join(twin.CAPTURE_RULES)}")
    return slots, to_move, twin.CAPTURE_RULES.index(capture)


def _check_depth(depth: object) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidLimitError(f"an explained search is 1 to {MAX_DEPTH} moves deep, "
                                f"not {quote(depth)}")
    return depth


def search_tree(board: Any, to_move: Optional[int] = None, depth: int = 3,
                capture: Optional[str] = None, *, prune: bool = True, order: str = "natural",
                table: bool = False, max_nodes: int = MAX_TREE_NODES) -> Tree:
    """The tree of minimax (``prune=False``) or alpha-beta from a position.

    ``board`` is a :class:`mancala.Board` or 14 slots (then ``to_move``,
    default South, and ``capture``, default standard). The tree is built
    when it has at most ``max_nodes`` nodes; else only counted (``root`` None).
    Raises InvalidBoardError, InvalidRuleError or InvalidLimitError (depth
    outside 1..:data:`MAX_DEPTH`, an unknown order).
    """
    slots, to_move, code = _position(board, to_move, capture)
    depth = _check_depth(depth)
    if order not in ORDERS:
        raise InvalidLimitError(f"the move order is one of {', '.join(ORDERS)}, not {quote(order)}")
    count = _Search(code, to_move, prune, order, table, build=False)
    value, best = count.visit(list(slots), to_move, depth, -INF, INF, None)
    root = None
    if count.nodes <= max_nodes:
        builder = _Search(code, to_move, prune, order, table, build=True)
        root = Node(1, tuple(slots), to_move, "max", depth,
                    alpha=-INF if prune else None, beta=INF if prune else None)
        builder.visit(list(slots), to_move, depth, -INF, INF, root)
    return Tree("alphabeta" if prune else "minimax", order, table, count.nodes, value, best, root)


def node_counts(board: Any, to_move: Optional[int] = None, depth: int = 3,
                capture: Optional[str] = None, *, known: Sequence[Tree] = ()
                ) -> Dict[str, Dict[str, Dict[str, int]]]:
    """Nodes each way: ``counts[search][order]["plain" or "table"]``, for
    search in minimax/alphabeta and order natural/engine. ``known`` are trees
    of this position and depth already searched (their counts are reused).

    Minimax's counts are searched once for both orders: it visits every node
    whatever the order, and with the table it expands each (position, depth)
    once and enters each of its children once, whichever comes first.
    """
    found = {(tree.search, tree.order, tree.table): tree.nodes for tree in known}
    counts: Dict[str, Dict[str, Dict[str, int]]] = {}
    for search in SEARCHES:
        counts[search] = {}
        for order in ORDERS:
            counts[search][order] = {}
            for kind in ("plain", "table"):
                same = (search, order if search == "alphabeta" else ORDERS[0], kind == "table")
                if same not in found:
                    found[same] = search_tree(board, to_move, depth, capture,
                                              prune=search == "alphabeta", order=same[1],
                                              table=same[2], max_nodes=0).nodes
                counts[search][order][kind] = found[same]
    return counts


@dataclass
class Explanation:
    """Minimax and alpha-beta from one position, and the node counts each way."""

    board: Tuple[int, ...]
    to_move: int
    capture: str
    depth: int
    minimax: Tree
    alphabeta: Tree
    counts: Dict[str, Dict[str, Dict[str, int]]]

    def to_json(self) -> Dict[str, Any]:
        """The explanation as ``python -m mancala explain --json`` prints it."""
        return {
            "board": list(self.board), "to_move": self.to_move, "capture": self.capture,
            "depth": self.depth, "max_player": self.to_move,
            "values": "MAX's store minus MIN's (MAX: the side to move at the root), in seeds",
            "minimax": tree_json(self.minimax),
            "alphabeta": tree_json(self.alphabeta),
            "counts": self.counts,
        }


def explain(board: Any, to_move: Optional[int] = None, depth: int = 3,
            capture: Optional[str] = None, *, order: str = "natural", table: bool = False,
            max_nodes: int = MAX_TREE_NODES) -> Explanation:
    """Minimax and alpha-beta trees from a position (alpha-beta in ``order``,
    with a table if ``table``), and every node count. Raises what
    :func:`search_tree` raises."""
    slots, to_move, code = _position(board, to_move, capture)
    capture = twin.CAPTURE_RULES[code]
    minimax = search_tree(slots, to_move, depth, capture, prune=False, max_nodes=max_nodes)
    alphabeta = search_tree(slots, to_move, depth, capture, prune=True, order=order, table=table,
                            max_nodes=max_nodes)
    return Explanation(tuple(slots), to_move, capture, depth, minimax, alphabeta,
                       node_counts(slots, to_move, depth, capture, known=(minimax, alphabeta)))


def _window(value: Optional[int]) -> Optional[int]:
    """A window's end for JSON: None for an open end (plus or minus infinity)."""
    return None if value is None or abs(value) >= INF else value


def node_json(node: Node) -> Dict[str, Any]:
    """A node and its subtree as JSON (pits as pit indices 0..5; open window ends as null)."""
    return {
        "number": node.number, "pit_index": node.move, "extra_turn": node.extra_turn,
        "captured": node.captured, "board": list(node.board), "to_move": node.to_move,
        "role": node.role, "depth": node.depth, "kind": node.kind,
        "alpha": _window(node.alpha), "beta": _window(node.beta),
        "value": node.value, "table_bound": node.bound, "best_index": node.best,
        "cut": None if node.cut is None else {
            "pit_indices": node.cut.pits, "value": node.cut.value,
            "alpha": _window(node.cut.alpha), "beta": _window(node.cut.beta)},
        "children": [node_json(child) for child in node.children],
    }


def tree_json(tree: Tree) -> Dict[str, Any]:
    return {"search": tree.search, "order": tree.order, "table": tree.table, "nodes": tree.nodes,
            "value": tree.value, "best_index": tree.best_move,
            "root": None if tree.root is None else node_json(tree.root)}


__all__ = ["Node", "Cut", "Tree", "Explanation", "search_tree", "node_counts", "explain",
           "node_json", "tree_json", "MAX_DEPTH", "MAX_TREE_NODES", "ORDERS", "INF"]
