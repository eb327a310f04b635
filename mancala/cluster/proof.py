"""What a cluster solve's journal lines may say (what they prove together:
:mod:`mancala.cluster.closure`).

A job asks of a position (its twelve pits and the side to move, stores left
out) whether its relative value (the margin still to be won from here) is at
least ``beta``; its fail-soft ``bound`` says the value is at least the bound
(bound >= beta) or at most it (bound < beta). With S seeds in the pits the
value lies in -S..S and has the parity of S: a bound outside that range, a
bound that is no whole number (``true``), or two jobs on one position that
cannot both be true are refused, naming the line.

Jobs on different positions constrain each other through the rules: a
position's value is the best of its moves' (a move that lets the other side
move counts the child's value negated): :mod:`mancala.cluster.closure`
propagates every job's bounds through the positions the journal holds.
"""
from __future__ import annotations

import math
from typing import Iterable, Iterator, List, Optional, Tuple

from mancala.board import MAX_SEEDS, Board
from mancala.cluster.tree import Edge, Key, child_t, expand, key_of, store_lead
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
                raise _error(f"{where}: a fact about pit {quote(fact[0])} of {shown_key(key)}, "
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
    raise _error(f"{where} names move {quote(move)}, not a legal move of {shown_key(key)}")


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


def shown_key(key: Key) -> str:
    return f"pits {','.join(map(str, key[0]))} ({'South' if key[1] == 0 else 'North'} to move)"


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


__all__ = ["parse_job", "derived", "statements", "check_claim", "claimed", "value_range", "seeds_of",
           "at_least", "at_most", "shown_key", "Bounds"]
