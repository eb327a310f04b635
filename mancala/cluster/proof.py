"""What a cluster solve's journal lines may say, and what they prove together.

A job asks of a position (its twelve pits and the side to move, stores left
out) whether its relative value (the margin still to be won from here) is at
least ``beta``; its fail-soft ``bound`` says the value is at least the bound
(bound >= beta) or at most it (bound < beta). With S seeds in the pits the
value lies in -S..S and has the parity of S: a bound outside that range, a
bound that is no whole number (``true``), or two jobs on one position that
cannot both be true are refused, naming the line.

Jobs on different positions constrain each other through the rules: a
position's value is the best of its moves' (a move that lets the other side
move counts the child's value negated). :func:`closure` propagates every
job's bounds through the positions the journal holds, so results that
contradict each other across the tree are found (:func:`contradiction`), and
so is what the jobs prove about the root: a journal's claim holds when the
root's bounds close on it.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from mancala.board import MAX_SEEDS, Board
from mancala.cluster.tree import (Edge, Key, Packed, board_of, child_t, expand, key_of, pack, store_lead,
                                  unpack)
from mancala.errors import JournalError, quote

Bounds = Tuple[int, int]        # (lowest, highest) a relative value can be


def _error(message: str) -> Exception:
    return JournalError(message)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seeds_of(key: Key) -> int:
    return sum(key[0])


def value_range(key: Key) -> Bounds:
    """What a position's relative value can be: -S..S for S seeds in its pits."""
    seeds = seeds_of(key)
    return -seeds, seeds


def at_least(value: int, seeds: int) -> int:
    """The smallest value >= value with the parity of seeds."""
    return value if (value - seeds) % 2 == 0 else value + 1


def at_most(value: int, seeds: int) -> int:
    return value if (value - seeds) % 2 == 0 else value - 1


def parse_job(record: dict, board: Board, where: str) -> dict:
    """A job record checked and normalised (key a tuple, numbers ints): every field
    it needs present and of its kind, its position one the solve of board can
    reach by seeds (no more seeds in the pits than the root's), its bound within
    the position's value range. Other fields pass through. JournalError naming
    where."""
    try:
        key = _key(record["key"], board, where)
        job = {k: v for k, v in record.items() if k != "check"}
        job.update(key=key, beta=record["beta"], bound=record["bound"], nodes=record["nodes"],
                   seconds=record["seconds"], cpu=record.get("cpu", record["seconds"]),
                   test=record["test"], depth=record["depth"], after=record.get("after"),
                   split=record.get("split", True), budget=record.get("budget", record["nodes"]))
    except (KeyError, TypeError, AttributeError):
        raise _error(f"{where} is not a job: {quote(record)}") from None
    for name, low in (("nodes", 0), ("test", 0), ("depth", 0), ("budget", 0)):
        if not _whole(job[name]) or job[name] < low:
            raise _error(f"{where}: {name} is {quote(job[name])}, not a whole number from {low}")
    for name in ("seconds", "cpu"):
        if not isinstance(job[name], (int, float)) or isinstance(job[name], bool) \
                or not math.isfinite(job[name]) or job[name] < 0:
            raise _error(f"{where}: {name} is {quote(job[name])}, not a number of seconds")
    if job["after"] is not None and (not _whole(job["after"]) or job["after"] < 0):
        raise _error(f"{where}: after is {quote(job['after'])}, not a job's number or null")
    if not isinstance(job["split"], bool):
        raise _error(f"{where}: split is {quote(job['split'])}, not true or false")
    beta, bound = job["beta"], job["bound"]
    if not _whole(beta) or not -MAX_SEEDS <= beta <= MAX_SEEDS + 1:
        raise _error(f"{where}: beta is {quote(beta)}, not a margin from {-MAX_SEEDS} to {MAX_SEEDS + 1}")
    if bound is not None and not _whole(bound):
        raise _error(f"{where}: the bound is {quote(bound)}, not a whole number or null")
    low, high = value_range(key)
    if bound is not None and not low <= bound <= high:
        raise _error(f"{where}: the bound {bound} is outside what the position's {high} seeds "
                     f"in the pits allow ({low}..{high})")
    return job


def claimed(job: dict) -> Optional[Tuple[str, int]]:
    """What a job says: ("at least", b) or ("at most", b); None when it ran out of budget."""
    bound = job["bound"]
    if bound is None:
        return None
    return ("at least", bound) if bound >= job["beta"] else ("at most", bound)


def derived(job: dict, capture: str, where: str) -> List[dict]:
    """What a job line says beside its own bound, each as a job of its own
    (``derived``, no nodes): the move that reached a bound at least beta
    (``move``: through it the position is worth at least beta), and what an
    exhausted search then asked its table about the position's moves
    (``facts``: [move, bound or null, the same for that move's moves], each
    the fail-soft bound of the question 'position >= beta' asks of the move).
    JournalError naming where for a move that is not legal or facts of no
    such shape."""
    found: List[dict] = []
    move = job.get("move")
    if move is not None:
        if job["bound"] is None or job["bound"] < job["beta"]:
            raise _error(f"{where} names a move without a bound at least beta")
        edge = _edge(job["key"], move, capture, where)
        if edge.child is not None:
            t = child_t(edge, job["beta"])
            low, high = value_range(edge.child)
            bound = max(t, low) if edge.sign > 0 else min(t - 1, high)
            found.append(_said(job, edge.child, t, bound))
    stack = [(job["key"], job["beta"], job.get("facts") or [])]
    while stack:
        key, beta, facts = stack.pop()
        if not isinstance(facts, list):
            raise _error(f"{where}: facts are {quote(facts)}, not a list")
        for fact in facts:
            if not isinstance(fact, list) or len(fact) != 3 or not isinstance(fact[2], list) \
                    or not (fact[1] is None or _whole(fact[1])):
                raise _error(f"{where}: a fact is {quote(fact)}, not [move, bound or null, facts]")
            edge = _edge(key, fact[0], capture, where)
            if edge.child is None:
                raise _error(f"{where}: a fact about pit {quote(fact[0])} of {_shown(key)}, "
                             f"which ends the game")
            t = child_t(edge, beta)
            if fact[1] is not None:
                low, high = value_range(edge.child)
                if not low <= fact[1] <= high:
                    raise _error(f"{where}: a fact's bound {fact[1]} is outside what its "
                                 f"position allows ({low}..{high})")
                found.append(_said(job, edge.child, t, fact[1]))
            stack.append((edge.child, t, fact[2]))
    return found


def _edge(key: Key, move: object, capture: str, where: str) -> Edge:
    for edge in expand(key, capture):
        if _whole(move) and edge.move == move:
            return edge
    raise _error(f"{where} names move {quote(move)}, not a legal move of {_shown(key)}")


def _said(job: dict, key: Key, beta: int, bound: int) -> dict:
    return {"key": key, "beta": beta, "bound": bound, "nodes": 0, "seconds": 0.0, "cpu": 0.0,
            "test": job["test"], "depth": job["depth"] + 1, "after": None, "split": False,
            "budget": 0, "derived": True}


def statements(jobs: Iterable[Tuple[dict, int]], capture: str) -> Iterator[Tuple[dict, int]]:
    """Every job with what its line says beside (:func:`derived`), each with its line."""
    for job, line in jobs:
        yield job, line
        for said in derived(job, capture, f"line {line}"):
            yield said, line


def check_claim(record: dict, board: Board, where: str) -> dict:
    """A solve's claim record checked: the root's value (stores included) within
    what the board allows, its optimal moves legal moves, the positions it says
    the solve split (``expanded``) positions of the solve."""
    value, moves, every = record.get("value"), record.get("moves"), record.get("all")
    expanded = record.get("expanded", [])
    low, high = value_range(key_of(board))
    lead = store_lead(board)
    if record.get("claim") == "bound":      # a bound question's answer: is the value at least T?
        t, holds = record.get("at_least"), record.get("holds")
        if not _whole(t) or not isinstance(holds, bool) or not isinstance(expanded, list):
            raise _error(f"{where} is not a claim: {quote(record)}")
        if not low + lead <= t <= high + lead + 1:
            raise _error(f"{where} asks of a value at least {t}, outside what the board allows "
                         f"({low + lead}..{high + lead})")
        keys = [_key(key, board, where) for key in expanded]
        return {"claim": "bound", "at_least": t, "holds": holds, "expanded": keys}
    if record.get("claim") != "value" or not _whole(value) or not isinstance(every, bool) \
            or not isinstance(moves, list) or not moves or not all(_whole(m) for m in moves) \
            or len(set(moves)) != len(moves) or not isinstance(expanded, list):
        raise _error(f"{where} is not a claim: {quote(record)}")
    if not low + lead <= value <= high + lead:
        raise _error(f"{where} claims a value of {value}, outside what the board allows "
                     f"({low + lead}..{high + lead})")
    if not set(moves) <= set(board.legal_moves):
        raise _error(f"{where} claims moves {quote(moves)}, not all legal")
    keys = [_key(key, board, where) for key in expanded]
    return {"claim": "value", "value": value, "moves": list(moves), "all": every, "expanded": keys}


def _key(given: object, board: Board, where: str) -> Key:
    """A position's key as a line gives it ([pits, side]), checked."""
    try:
        pits, to_move = given
        key = (tuple(pits), to_move)
    except (TypeError, ValueError):
        raise _error(f"{where} has no position: {quote(given)}") from None
    if len(key[0]) != 12 or not all(_whole(p) and p >= 0 for p in key[0]) or key[1] not in (0, 1) \
            or not _whole(key[1]):
        raise _error(f"{where} has no position: {quote(given)}")
    root = sum(board.pits) - board.pits[6] - board.pits[13]
    if seeds_of(key) > root:
        raise _error(f"{where} has a position of {seeds_of(key)} seeds in the pits; the solve's has {root}")
    return key


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
            raise _error(f"{where} says the value of {_shown(key)} is {said[0]} {said[1]}; "
                         + (f"line {other}" if other else "the journal") + f" says {other_said}: "
                         f"they contradict each other")


def _shown(key: Key) -> str:
    return f"pits {','.join(map(str, key[0]))} ({'South' if key[1] == 0 else 'North'} to move)"


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
        f"the lines before it through the moves of {_shown(key)}"
    return (f"{line} says the value of {_shown(job['key'])} is {said[0]} {said[1]}, "
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


__all__ = ["parse_job", "derived", "statements", "check_claim", "claimed", "Ledger", "Closure", "contradiction", "proves",
           "claim_holds", "value_range", "own_bounds"]
