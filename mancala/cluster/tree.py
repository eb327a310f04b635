"""The proof tree a cluster solve keeps (:mod:`mancala.cluster.manager`).

Positions are keyed by their twelve pits and the side to move, stores left
out: a value is kept relative to the stores (the margin still to be won from
here), so transpositions that banked different seeds meet as one. A test of
position P at t ("is P's relative value at least t?") is true when P's bounds
say so, else (P expanded) when a move's test makes it true, false when every
move's makes it false.

Which question to ask next (:meth:`Tree.select`) is chosen by proof numbers,
each position's test an OR over its moves (a move of the other side is its
child's test negated: proof and disproof numbers swap), following at every
position the move with the smallest proof number. A question in flight counts
as settled the way its position's estimate predicts (a short search's score),
so the next pick is another leaf: where one move is expected to prove a test,
its other moves wait; where every move must fail, they all go at once (the
checkers proof's frontier, "young brothers wait" in parallel alpha-beta).
Asked ``speculative``, a question in flight is instead an ordinary leaf that
nobody may ask again, so the pick hedges against a prediction that fails.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from mancala.board import Board
from mancala.geometry import NORTH, PITS, SOUTH, PovScore, row, store_slot

INF = 1 << 40
Key = Tuple[Tuple[int, ...], int]   # (the twelve pits, the side to move)
Question = Tuple[Key, int]          # is the relative value of key at least beta?
Packed = bytes                      # a key in 13 bytes (twelve pits, the side): what a journal's ledger keeps
Numbers = Tuple[int, int, bool]     # proof number, disproof number, a question left to ask below


# -- positions -------------------------------------------------------------------------

def key_of(board: Board) -> Key:
    slots = board.pits
    return tuple(row(slots, SOUTH) + row(slots, NORTH)), board.to_move


def pack(key: Key) -> Packed:
    """A position's key in 13 bytes (a pit holds at most 144 seeds): a journal's
    positions are kept so, a few dozen bytes each instead of a few hundred."""
    return bytes(key[0]) + bytes((key[1],))


def unpack(packed: Packed) -> Key:
    return tuple(packed[:12]), packed[12]


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


def child_t(edge: Edge, t: int) -> int:
    """The child's question for 'the parent's value through edge >= t'."""
    # sign +1: r(child) + offset >= t <=> r(child) >= t - offset
    # sign -1: -r(child) + offset >= t <=> not r(child) >= offset - t + 1
    return t - edge.offset if edge.sign > 0 else edge.offset - t + 1


def tighten(bound: int, parity: int, up: bool) -> int:
    """A bound moved to the values' parity (the seeds in the pits'), up or down."""
    return bound if (bound - parity) % 2 == 0 else bound + (1 if up else -1)


@dataclass(slots=True)
class Node:
    lo: int = -INF                 # bounds on the relative value, from answers
    hi: int = INF
    parity: int = 0                # relative values have the parity of the seeds in the pits
    edges: Optional[List[Edge]] = None
    depth: int = 0
    estimate: Optional[int] = None  # a short search's score: what a test is predicted to say
    lo_by: int = -1                # the job whose answer set lo (hi), -1 none
    hi_by: int = -1
    parent: Optional[Key] = None   # the first position expanded into it
    budget: int = 0                # a leaf whose job ran out: the budget to ask it again with
    move: Optional[int] = None     # the move that reached lo, from the job that set it


# -- the tree --------------------------------------------------------------------------

class Tree:
    """Positions, their bounds and moves; tests, selection and the proof's jobs.

    Tests, proof numbers and propagated bounds are remembered between calls and
    forgotten for a position and every position above it when something below
    changes (an answer, a split, a question sent or back), so a round of the
    manager costs what changed, not the whole tree."""

    def __init__(self, capture: str, estimate: Optional[Callable[[Key], int]] = None) -> None:
        self.capture = capture
        self.nodes: Dict[Key, Node] = {}
        self.estimate = estimate
        self.parents: Dict[Key, Set[Key]] = {}
        self.flying: Dict[Question, bool] = {}          # questions in flight: their predicted answers
        self._status: Dict[Key, Dict[int, Optional[bool]]] = {}
        self._numbers: Tuple[dict, dict] = ({}, {})     # needed, speculative
        self._bounds: Dict[Key, Tuple[int, int]] = {}

    def node(self, key: Key, depth: int = 0) -> Node:
        found = self.nodes.get(key)
        if found is None:
            found = self.nodes[key] = Node(parity=sum(key[0]) % 2, depth=depth)
        return found

    def _changed(self, key: Key, numbers_only: bool = False) -> None:
        """Forget what was worked out for key and every position above it."""
        stack, seen = [key], set()
        while stack:
            here = stack.pop()
            if here in seen:
                continue
            seen.add(here)
            self._numbers[0].pop(here, None)
            self._numbers[1].pop(here, None)
            if not numbers_only:
                self._status.pop(here, None)
                self._bounds.pop(here, None)
            stack.extend(self.parents.get(here, ()))

    def learn(self, key: Key, beta: int, bound: int, job: int, depth: int = 0,
              move: Optional[int] = None) -> None:
        """A fail-soft answer to 'key >= beta': the value is at least bound (reached
        by move, when known) if bound >= beta, else at most bound."""
        node = self.node(key, depth)
        if bound >= beta:
            lo = tighten(bound, node.parity, up=True)
            if lo > node.lo:
                node.lo, node.lo_by, node.move = lo, job, move
                self._changed(key)
        else:
            hi = tighten(bound, node.parity, up=False)
            if hi < node.hi:
                node.hi, node.hi_by = hi, job
                self._changed(key)

    def split(self, key: Key) -> bool:
        """Expand a leaf into its moves (its children become leaves), the most
        promising first by ``estimate`` (proof numbers break ties by this order);
        whether it was a leaf."""
        node = self.nodes[key]
        if node.edges is not None:
            return False
        edges = expand(key, self.capture)
        for edge in edges:
            if edge.child is not None:
                child = self.node(edge.child, node.depth + 1)
                self.parents.setdefault(edge.child, set()).add(key)
                if child.parent is None:
                    child.parent = key
                if child.estimate is None and self.estimate is not None:
                    child.estimate = self.estimate(edge.child)
        edges.sort(key=lambda e: -(e.offset if e.child is None else
                                   e.sign * (self.nodes[e.child].estimate or 0) + e.offset))
        node.edges = edges
        self._changed(key)
        return True

    def predicted(self, key: Key, t: int) -> bool:
        """What 'key >= t' is expected to say (true when nothing is known)."""
        estimate = self.nodes[key].estimate
        return estimate is None or estimate >= t

    def fly(self, question: Question) -> None:
        """A question sent: counted as settled the way it is predicted to be."""
        self.flying[question] = self.predicted(*question)
        self._changed(question[0], numbers_only=True)

    def land(self, question: Question) -> None:
        """A question back (or no longer in flight)."""
        if self.flying.pop(question, None) is not None:
            self._changed(question[0], numbers_only=True)

    # a test: is key's relative value >= t? True, False or None (not known yet)
    def status(self, key: Key, t: int) -> Optional[bool]:
        node = self.nodes[key]
        if node.lo >= t:
            return True
        if node.hi < t:
            return False
        if node.edges is None:
            return None
        memo = self._status.setdefault(key, {})
        if t in memo:
            return memo[t]
        memo[t] = None                          # a cycle (none in Kalah) settles nothing
        answer: Optional[bool] = False
        for edge in node.edges:
            found = self.literal(edge, t)
            if found:
                answer = True
                break
            if found is None:
                answer = None
        self._status.setdefault(key, {})[t] = answer
        return answer

    def literal(self, edge: Edge, t: int) -> Optional[bool]:
        """Whether the move reaches t: its child's test, negated when the other side moves."""
        if edge.child is None:
            return edge.offset >= t
        inner = self.status(edge.child, child_t(edge, t))
        return inner if inner is None or edge.sign > 0 else not inner

    def bounds(self, key: Key) -> Tuple[int, int]:
        """The bounds on key's relative value that the answers below it give
        (minimax of the leaves' fail-soft bounds), with its own."""
        if key in self._bounds:
            return self._bounds[key]
        node = self.nodes[key]
        self._bounds[key] = node.lo, node.hi
        if node.edges is not None:
            lo, hi = -INF, -INF
            for edge in node.edges:
                if edge.child is None:
                    low = high = edge.offset
                else:
                    c_lo, c_hi = self.bounds(edge.child)
                    low, high = ((c_lo + edge.offset, c_hi + edge.offset) if edge.sign > 0
                                 else (edge.offset - c_hi, edge.offset - c_lo))
                lo, hi = max(lo, max(low, -INF)), max(hi, min(high, INF))
            self._bounds[key] = max(node.lo, lo), min(node.hi, hi)
        return self._bounds[key]

    # -- what to ask -------------------------------------------------------------------
    def select(self, key: Key, t: int, count: int, speculative: bool = False) -> List[Question]:
        """Up to count questions to ask for 'key >= t', most-proving first, none of
        them in flight; each one picked is sent (:meth:`fly`)."""
        picked: List[Question] = []
        while len(picked) < count and self._numbers_of(key, t, speculative)[2]:
            path = [(key, t)]
            while self.nodes[path[-1][0]].edges is not None:
                here, at = path[-1]
                best, best_pn = None, INF + 1
                for edge in self.nodes[here].edges:
                    if edge.child is not None:
                        p, d, o = self._numbers_of(edge.child, child_t(edge, at), speculative)
                        p = p if edge.sign > 0 else d
                        if o and p < best_pn:
                            best, best_pn = edge, p
                if best is None:                # cannot happen: the numbers said a question is left
                    raise AssertionError(f"no question below {here} at {at}")
                path.append((best.child, child_t(best, at)))
            picked.append(path[-1])
            self.fly(path[-1])
        return picked

    def plan(self, goals: List[Question], want: int) -> None:
        """Split by the estimates alone, the shallowest needed leaf first, until the
        goals need ``want`` questions (or no leaf is left to split): the frontier
        planned before any job is spent."""
        while True:
            picked: List[Question] = []
            for key, t in goals:
                picked += self.select(key, t, want - len(picked))
            for question in picked:
                self.land(question)
            if len(picked) >= want or not picked:
                return
            shallow = min(picked, key=lambda q: self.nodes[q[0]].depth)[0]
            if not self.split(shallow) or not self.nodes[shallow].edges:
                return

    def _numbers_of(self, key: Key, t: int, speculative: bool) -> Numbers:
        """(proof, disproof, a question left to ask) of 'key >= t'."""
        node = self.nodes[key]
        if node.lo >= t:
            return 0, INF, False
        if node.hi < t:
            return INF, 0, False
        if node.edges is None:
            if (key, t) not in self.flying:
                return 1, 1, True
            if speculative:
                return 1, 1, False
            return (0, INF, False) if self.flying[key, t] else (INF, 0, False)
        memo = self._numbers[speculative].setdefault(key, {})
        if t in memo:
            return memo[t]
        memo[t] = INF, INF, False               # a cycle (none in Kalah) leads nowhere
        pn, dn, open_ = INF, 0, False
        for edge in node.edges:
            if edge.child is None:
                p, d, o = (0, INF, False) if edge.offset >= t else (INF, 0, False)
            else:
                p, d, o = self._numbers_of(edge.child, child_t(edge, t), speculative)
                if edge.sign < 0:
                    p, d = d, p
            pn, dn, open_ = min(pn, p), min(INF, dn + d), open_ or o
        if pn == 0 or dn == 0:
            open_ = False                       # settled, or predicted to be
        self._numbers[speculative].setdefault(key, {})[t] = pn, dn, open_
        return pn, dn, open_

    def open_questions(self, goals: Iterable[Question]) -> Set[Question]:
        """Every question not yet settled under the goals not yet settled (leaves
        and expanded positions): a job asking anything else is no longer needed."""
        seen: Set[Question] = set()
        stack = list(goals)
        while stack:
            key, t = stack.pop()
            if (key, t) in seen or self.status(key, t) is not None:
                continue
            seen.add((key, t))
            node = self.nodes[key]
            if node.edges is not None:
                stack.extend((e.child, child_t(e, t)) for e in node.edges if e.child is not None)
        return seen

    def proof(self, claims: Iterable[Tuple[Key, int, bool]]) -> Set[int]:
        """The jobs whose answers prove the claims ('key >= t' is true or false, as
        the tree says): one move for a test that holds, every move for one that
        does not. The jobs outside it were work the answer did not need."""
        jobs: Set[int] = set()
        seen: Set[Tuple[Key, int]] = set()
        stack = list(claims)
        while stack:
            key, t, holds = stack.pop()
            if (key, t) in seen:
                continue
            seen.add((key, t))
            node = self.nodes[key]
            if holds and node.lo >= t:
                jobs.add(node.lo_by)
            elif not holds and node.hi < t:
                jobs.add(node.hi_by)
            elif node.edges is not None:
                for edge in node.edges:
                    found = self.literal(edge, t)
                    if edge.child is not None and found == holds:
                        stack.append((edge.child, child_t(edge, t), holds == (edge.sign > 0)))
                    if holds and found:
                        break
        jobs.discard(-1)
        return jobs


__all__ = ["Key", "Packed", "Question", "INF", "pack", "unpack", "Edge", "Node", "Tree", "key_of", "store_lead", "board_of",
           "expand", "child_t", "tighten"]
