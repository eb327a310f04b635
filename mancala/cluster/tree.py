"""The proof tree a cluster solve keeps (:mod:`mancala.cluster.solve`).

Positions are keyed by their twelve pits and the side to move, stores left
out: a value is kept relative to the stores (the margin still to be won from
here), so transpositions that banked different seeds meet as one. A test of
position P at t ("is P's relative value at least t?") is true when P's bounds
say so, else (P expanded) when a move's test makes it true, false when every
move's makes it false; the next question to ask is the most-proving frontier
position by proof numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from mancala.board import Board
from mancala.geometry import NORTH, PITS, SOUTH, PovScore, row, store_slot

INF = 1 << 40
BUDGET_STEP = 4         # a position asked again after its job ran out gets this many times its budget
Key = Tuple[Tuple[int, ...], int]   # (the twelve pits, the side to move)


# -- positions -------------------------------------------------------------------------

def key_of(board: Board) -> Key:
    slots = board.pits
    return tuple(row(slots, SOUTH) + row(slots, NORTH)), board.to_move


def store_lead(board: Board) -> int:
    """Seeds banked, the mover's less the other side's."""
    slots = board.pits
    return PovScore(slots[store_slot(SOUTH)] - slots[store_slot(NORTH)], SOUTH).pov(board.to_move)


def board_of(key: Key, capture: str) -> Board:
    """The position of a key with both stores empty."""
    pits, to_move = key
    return Board(list(pits[:PITS]) + [0] + list(pits[PITS:]) + [0], to_move, capture=capture)


@dataclass
class Edge:
    """A move of an expanded position: the parent's relative value through it
    is sign * (the child's relative value) + offset; a move that ends the game
    has no child, only its final value (offset)."""
    move: int
    child: Optional[Key]
    sign: int
    offset: int


@dataclass
class Node:
    lo: int = -INF                 # bounds on the relative value
    hi: int = INF
    parity: int = 0                # relative values have the parity of the seeds in the pits
    edges: Optional[List[Edge]] = None
    depth: int = 0


def expand(key: Key, capture: str) -> List[Edge]:
    board = board_of(key, capture)
    edges = []
    for move in board.legal_moves:
        child = board.copy(stack=False)
        record = child.push(move)
        sign = 1 if record.extra_turn else -1
        if child.is_game_over():
            edges.append(Edge(move, None, 0, child.outcome().score.pov(board.to_move)))
        else:
            edges.append(Edge(move, key_of(child), sign, sign * store_lead(child)))
    return edges


@dataclass
class Manager:
    """The proof tree and the jobs: see the module docstring."""
    capture: str
    nodes: Dict[Key, Node] = field(default_factory=dict)
    test: int = 0
    budgets: Dict[Key, int] = field(default_factory=dict)   # a leaf to ask again: its next budget
    estimate: Optional[Callable[[Key], int]] = None         # a guess at a position's relative value

    def node(self, key: Key, depth: int = 0) -> Node:
        found = self.nodes.get(key)
        if found is None:
            found = self.nodes[key] = Node(parity=sum(key[0]) % 2, depth=depth)
        return found

    def learn(self, job: dict) -> bool:
        """A finished job into the tree; whether it was resolved. An unresolved
        job splits its position into its moves, or (``split`` false) leaves it a
        leaf to be asked again with :data:`BUDGET_STEP` times the budget."""
        node = self.node(job["key"], job["depth"])
        bound, beta = job["bound"], job["beta"]
        if bound is None:
            if job.get("split", True):
                self.split(job["key"])
            else:
                self.budgets[job["key"]] = BUDGET_STEP * job.get("budget", job["nodes"])
            return False
        if bound >= beta:
            node.lo = max(node.lo, bound if (bound - node.parity) % 2 == 0 else bound + 1)
        else:
            node.hi = min(node.hi, bound if (bound - node.parity) % 2 == 0 else bound - 1)
        return True

    def split(self, key: Key) -> bool:
        """Expand a leaf into its moves (its children become leaves), the most
        promising first by ``estimate`` (proof numbers break ties by this order,
        so the move most likely to prove is asked first); whether it was a leaf."""
        node = self.nodes[key]
        if node.edges is not None:
            return False
        node.edges = expand(key, self.capture)
        if self.estimate is not None:
            node.edges.sort(key=lambda edge: -(edge.offset if edge.child is None else
                                               edge.sign * self.estimate(edge.child) + edge.offset))
        for edge in node.edges:
            if edge.child is not None:
                self.node(edge.child, node.depth + 1)
        return True

    # a test: is key's relative value >= t? True, False or None (not known yet)
    def status(self, key: Key, t: int, memo: dict, stack: set) -> Optional[bool]:
        node = self.nodes[key]
        if node.lo >= t:
            return True
        if node.hi < t:
            return False
        if node.edges is None:
            return None
        if (key, t) in memo:
            return memo[key, t]
        if (key, t) in stack:
            return None
        stack.add((key, t))
        answer: Optional[bool] = False
        for edge in node.edges:
            found = self.literal(edge, t, memo, stack)
            if found:
                answer = True
                break
            if found is None:
                answer = None
        stack.discard((key, t))
        memo[key, t] = answer
        return answer

    def literal(self, edge: Edge, t: int, memo: dict, stack: set) -> Optional[bool]:
        """Whether the move reaches t: its child's test, negated when the other side moves."""
        if edge.child is None:
            return edge.offset >= t
        inner = self.status(edge.child, child_t(edge, t), memo, stack)
        return inner if inner is None or edge.sign > 0 else not inner

    def select(self, key: Key, t: int, busy: set) -> Optional[Tuple[Key, int, Optional[Key]]]:
        """The most-proving frontier question under 'key >= t' that is not in flight:
        (position, threshold, the expanded position it was reached from).

        Proof numbers, each position's test an OR over its moves (a move of the
        other side is its child's test negated: proof and disproof numbers
        swap). At every position the move with the smallest proof number is
        followed (for the position's own test: what standard proof-number
        search does at OR and AND nodes alike), among moves that still lead
        to a question not in flight."""
        numbers: Dict[Tuple[Key, int], Tuple[int, int, bool]] = {}

        def pn_dn(key: Key, t: int) -> Tuple[int, int, bool]:
            """(proof, disproof, has a question to ask) of 'key >= t'."""
            node = self.nodes[key]
            if node.lo >= t:
                return 0, INF, False
            if node.hi < t:
                return INF, 0, False
            if node.edges is None:
                return 1, 1, (key, t) not in busy
            if (key, t) in numbers:
                return numbers[key, t]
            numbers[key, t] = (INF, INF, False)     # a cycle (none in Kalah) leads nowhere
            pn, dn, open_ = INF, 0, False
            for edge in node.edges:
                p, d, o = edge_numbers(edge, t)
                pn, dn, open_ = min(pn, p), min(INF, dn + d), open_ or o
            numbers[key, t] = pn, dn, open_
            return numbers[key, t]

        def edge_numbers(edge: Edge, t: int) -> Tuple[int, int, bool]:
            if edge.child is None:
                return (0, INF, False) if edge.offset >= t else (INF, 0, False)
            p, d, o = pn_dn(edge.child, child_t(edge, t))
            return (p, d, o) if edge.sign > 0 else (d, p, o)

        if not pn_dn(key, t)[2]:
            return None
        parent = None
        while True:
            node = self.nodes[key]
            if node.edges is None:
                return key, t, parent
            best, best_cost = None, INF + 1
            for edge in node.edges:
                p, d, o = edge_numbers(edge, t)
                if o and p < best_cost:
                    best, best_cost = edge, p
            if best is None:        # cannot happen: the position has a question to ask
                return None
            parent, key, t = key, best.child, child_t(best, t)


def child_t(edge: Edge, t: int) -> int:
    """The child's question for 'the parent's value through edge >= t'."""
    # sign +1: r(child) + offset >= t <=> r(child) >= t - offset
    # sign -1: -r(child) + offset >= t <=> not r(child) >= offset - t + 1
    return t - edge.offset if edge.sign > 0 else edge.offset - t + 1


__all__ = ["Key", "INF", "BUDGET_STEP", "Edge", "Node", "Manager", "key_of", "store_lead", "board_of", "expand",
           "child_t"]
