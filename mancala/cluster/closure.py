"""What a journal's statements prove together.

Each position's bounds as its own statements give them (the :class:`Ledger`,
one int a position), propagated through the rules (:class:`Closure`): a
position's value is the best of its moves' (a move that lets the other side
move counts the child's value negated). So results that contradict each
other across the tree are found (:func:`contradiction`), and so is what the
statements prove about the root: a journal's claim holds when the root's
bounds close on it (:func:`proves`, :func:`claim_holds`).
"""
from __future__ import annotations

import itertools
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from mancala.board import Board
from mancala.cluster.proof import Bounds, at_least, at_most, claimed, seeds_of, shown_key
from mancala.cluster.tree import Edge, Key, Packed, board_of, expand, key_of, pack, store_lead, unpack
from mancala.errors import JournalError


def _error(message: str) -> Exception:
    return JournalError(message)


Entry = int        # a position's bounds and the lines that set them, in one int (Ledger.entry)
_BIAS, _BITS, _LINE = 512, 10, 32


def entry(lo: int, hi: int, lo_line: Optional[int] = None, hi_line: Optional[int] = None) -> Entry:
    """A ledger's entry: bounds (within +-MAX_SEEDS) and their lines (0: none) in
    one int, a few dozen bytes where a list took a hundred: a journal of a
    million positions keeps a million of them."""
    return ((lo + _BIAS) | (hi + _BIAS) << _BITS | (lo_line or 0) << 2 * _BITS
            | (hi_line or 0) << (2 * _BITS + _LINE))


def bounds_of(found: Entry) -> Bounds:
    mask = (1 << _BITS) - 1
    return (found & mask) - _BIAS, (found >> _BITS & mask) - _BIAS


def lines_of(found: Entry) -> Tuple[Optional[int], Optional[int]]:
    mask = (1 << _LINE) - 1
    return (found >> 2 * _BITS & mask) or None, (found >> (2 * _BITS + _LINE)) or None


class Ledger:
    """Each position's bounds as the statements so far give them, and the lines
    that gave them: a statement that contradicts them is refused. Memory: one
    entry a position (an int), whatever the number of lines."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.known: Dict[Packed, Entry] = {}

    def add(self, job: dict, line: Optional[int], where: str) -> None:
        """A statement (a job that ran out of budget states nothing, but its
        position is kept: the closure propagates through it)."""
        key = job["key"]
        seeds = seeds_of(key)
        packed = pack(key)
        found = self.known.get(packed)
        if found is None:
            found = entry(-seeds, seeds)
        said = claimed(job)
        if said is None:
            self.known[packed] = found
            return
        (lo, hi), (lo_line, hi_line) = bounds_of(found), lines_of(found)
        if said[0] == "at least" and at_least(said[1], seeds) > lo:
            lo, lo_line = at_least(said[1], seeds), line
        elif said[0] == "at most" and at_most(said[1], seeds) < hi:
            hi, hi_line = at_most(said[1], seeds), line
        self.known[packed] = entry(lo, hi, lo_line, hi_line)
        if lo > hi:
            other = hi_line if said[0] == "at least" else lo_line
            other_said = f"at most {hi}" if said[0] == "at least" else f"at least {lo}"
            raise _error(f"{where} says the value of {shown_key(key)} is {said[0]} {said[1]}; "
                         + (f"line {other}" if other else "the journal") + f" says {other_said}: "
                         f"they contradict each other")


def own_bounds(jobs: Iterable[dict]) -> Dict[Packed, Entry]:
    """Each position's bounds from its own statements (the parity of its seeds
    applied), as a :class:`Ledger` keeps them."""
    ledger = Ledger(Board())
    for job in jobs:
        key, seeds = job["key"], seeds_of(job["key"])
        packed = pack(key)
        lo, hi = bounds_of(ledger.known.get(packed, entry(-seeds, seeds)))
        said = claimed(job)
        if said is not None and said[0] == "at least":
            lo = max(lo, at_least(said[1], seeds))
        elif said is not None:
            hi = min(hi, at_most(said[1], seeds))
        ledger.known[packed] = entry(lo, hi)
    return ledger.known


def through(edge: Edge, child: Bounds) -> Bounds:
    """The parent's bounds through a move, from the child's."""
    if edge.child is None:
        return edge.offset, edge.offset
    if edge.sign > 0:
        return child[0] + edge.offset, child[1] + edge.offset
    return edge.offset - child[1], edge.offset - child[0]


class Closure:
    """Every position's bounds from its own statements (``own``: a ledger's
    entries) and its moves' (the best move's value is the position's),
    propagated through the positions the statements hold. Memory: an int a
    position (its bounds: :func:`entry`); its moves are worked out when it is
    visited, and forgotten."""

    def __init__(self, own: Dict[Packed, Entry], capture: str, expanded: Iterable[Key] = ()) -> None:
        self.capture = capture
        self.own = own
        self.extra = {pack(key) for key in expanded} - own.keys()   # propagated through too
        self.memo: Dict[Packed, Entry] = {}

    def holds(self, packed: Packed) -> bool:
        return packed in self.own or packed in self.extra

    def known(self, packed: Packed) -> Bounds:
        """What is known of a position reached by a move: its closure when computed,
        its own statements' bounds, else its range."""
        found = self.memo.get(packed)
        if found is None:
            found = self.own.get(packed)
        if found is not None:
            return bounds_of(found)
        seeds = sum(packed[:12])
        return -seeds, seeds

    def bounds(self, start: Key) -> Bounds:
        """start's bounds (depth first without recursion: a forged chain may be long)."""
        return self._bounds(pack(start))

    def _bounds(self, start: Packed) -> Bounds:
        if start in self.memo:
            return bounds_of(self.memo[start])
        frames: List[List] = [[start, expand(unpack(start), self.capture), 0]]
        path = {start}
        while frames:
            frame = frames[-1]
            packed, edges, i = frame
            if i < len(edges):
                frame[2] = i + 1
                if edges[i].child is not None:
                    child = pack(edges[i].child)
                    if self.holds(child) and child not in self.memo and child not in path:
                        frames.append([child, expand(edges[i].child, self.capture), 0])
                        path.add(child)
                continue
            frames.pop()
            path.discard(packed)
            self.memo[packed] = entry(*self._combine(packed, edges))
        return bounds_of(self.memo[start])

    def _combine(self, packed: Packed, edges: List[Edge]) -> Bounds:
        seeds = sum(packed[:12])
        found = self.own.get(packed)
        lo, hi = bounds_of(found) if found is not None else (-seeds, seeds)
        if edges:
            ways = [through(edge, None if edge.child is None else self.known(pack(edge.child)))
                    for edge in edges]
            lo = max(lo, max(w[0] for w in ways))
            hi = min(hi, max(w[1] for w in ways))
        else:                                   # the game is over: its margin, exactly
            board = board_of(unpack(packed), self.capture)
            if board.is_game_over():
                final = board.outcome().score.pov(board.to_move)
                lo, hi = max(lo, final), min(hi, final)
        return at_least(lo, seeds), at_most(hi, seeds)

    def first_broken(self) -> Optional[Key]:
        """A position whose bounds contradict each other, or None."""
        for packed in itertools.chain(self.own, self.extra):
            lo, hi = self._bounds(packed)
            if lo > hi:
                return unpack(packed)
        return None


Statements = Callable[[], Iterable[Tuple[dict, int]]]    # a fresh pass over (statement, its line)


def contradiction(own: Dict[Packed, Entry], again: Statements, board: Board) -> Optional[str]:
    """None when the statements' results fit together (own: their ledger's
    entries); else the first line whose statement makes them contradict each
    other, said as "N ...". Found by halving over fresh passes (``again``): a
    contradiction among the first k statements stays one among more. Only a
    journal that is refused pays for the passes."""
    if not own or Closure(own, board.capture).first_broken() is None:
        return None

    def first(count: int) -> Tuple[Optional[Key], Optional[Tuple[dict, int]]]:
        taken = list(itertools.islice(again(), count))
        broken = Closure(own_bounds(s for s, _ in taken), board.capture).first_broken()
        return broken, (taken[-1] if taken else None)

    good, bad = 0, sum(1 for _ in again())         # the first good fit; the first bad do not
    while bad - good > 1:
        middle = (good + bad) // 2
        if first(middle)[0] is None:
            good = middle
        else:
            bad = middle
    key, (job, line) = first(bad)
    said = claimed(job)
    where = "what the lines before it say of its moves" if key == job["key"] else \
        f"the lines before it through the moves of {shown_key(key)}"
    return (f"{line} says the value of {shown_key(job['key'])} is {said[0]} {said[1]}, "
            f"which contradicts {where}")


def proves(own: Dict[Packed, Entry], board: Board, expanded: Iterable[Key] = ()
           ) -> Tuple[Bounds, Dict[int, Bounds]]:
    """What the statements prove about the solve's root (own: their ledger's
    entries; stores included: the value from the mover's view) and about each
    of its moves; expanded: positions the solve split whose own jobs are not in
    the journal (the claim's)."""
    closure = Closure(own, board.capture, expanded)
    root = key_of(board)
    lead = store_lead(board)
    lo, hi = closure.bounds(root)
    moves = {}
    for edge in expand(root, board.capture):
        child = None
        if edge.child is not None:
            packed = pack(edge.child)
            child = closure._bounds(packed) if closure.holds(packed) else closure.known(packed)
        moves[edge.move] = through(edge, child)
    return (lo + lead, hi + lead), {m: (a + lead, b + lead) for m, (a, b) in moves.items()}


def claim_holds(claim: dict, root: Bounds, moves: Dict[int, Bounds]) -> List[str]:
    """What the jobs fail to prove of a claim (empty: the proof closes)."""
    if claim["claim"] == "bound":
        t = claim["at_least"]
        if claim["holds"] and root[0] < t:
            return [f"the value is at least {t:+d}: the jobs prove {_interval(root)}"]
        if not claim["holds"] and root[1] >= t:
            return [f"the value is below {t:+d}: the jobs prove {_interval(root)}"]
        return []
    value = claim["value"]
    missing = []
    if root != (value, value):
        missing.append(f"the value {value:+d}: the jobs prove {_interval(root)}")
    for move in claim["moves"]:
        if moves[move][0] < value:
            missing.append(f"pit {move + 1} keeps {value:+d}: the jobs prove {_interval(moves[move])}")
    if claim["all"]:
        for move, bounds in moves.items():
            if move not in claim["moves"] and bounds[1] >= value:
                missing.append(f"pit {move + 1} loses against {value:+d}: the jobs prove "
                               f"{_interval(bounds)}")
    return missing


def _interval(bounds: Bounds) -> str:
    lo, hi = bounds
    return f"{lo:+d}" if lo == hi else f"{lo:+d}..{hi:+d}"


__all__ = ["Entry", "entry", "bounds_of", "lines_of", "Ledger", "own_bounds", "through", "Closure",
           "contradiction", "proves", "claim_holds"]
