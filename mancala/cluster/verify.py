"""Checking a cluster solve's journal by recomputing it (``solve --verify-journal``).

A journal is a proof anyone can check: every job with a result says of one
position that its value is at least, or at most, a bound; this machine's
single-machine engine searches each such statement again (a null-window
search at the bound itself, to the end of the game: value >= b is tested at
b, value <= b at b + 1), so a job is confirmed only if the statement it made
is true, whatever the search that made it. Then the jobs' statements are
propagated through the positions they hold (:mod:`mancala.cluster.proof`):
the journal's claim (the value, the optimal moves) must follow from them, that
is, the proof tree closes.

All jobs, or a random share of them (``sample``; the seed is said, so the
draw can be repeated): a forged line among n is missed by a share f with
probability 1 - f. Jobs that ran out of budget state nothing and cost nothing.
"""
from __future__ import annotations

import math
import random
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from mancala.cluster.journal import FORMATS_READ, shown, JournalError, Records, read_records
from mancala.cluster.proof import Bounds, claim_holds, claimed, proves, statements
from mancala.cluster.tree import Key, board_of
from mancala.errors import quote

Progress = Callable[[int, int, int, float], None]    # (searches done, searches, nodes, seconds)


@dataclass
class Verification:
    """What recomputing a journal found."""
    path: str
    format: int
    board: object                                    # the solve's position (a Board)
    jobs: int                                        # jobs in the journal
    with_result: int                                 # statements with a bound: the jobs' and what their
                                                     # lines say beside (proof.derived); others ran out
    checked: int                                     # jobs recomputed (all with a result, or a share)
    searches: int                                    # distinct statements searched
    sample: float
    seed: Optional[int]
    nodes_claimed: int                               # the checked jobs' own counts
    nodes_journal: int                               # every job's, those that ran out included
    nodes_recomputed: int
    seconds: float
    disagreements: List[dict] = field(default_factory=list)
    claims: List[dict] = field(default_factory=list)     # each: line, its fields (proof.check_claim), missing
    proves: Optional[Bounds] = None                  # the root's value as all the jobs give it

    @property
    def ok(self) -> bool:
        """No recomputed job disagrees and every claim follows from the jobs."""
        return not self.disagreements and not any(c["missing"] for c in self.claims)

    def as_json(self) -> dict:
        return {"journal": self.path, "format": self.format, "board": list(self.board.pits),
                "to_move": self.board.to_move, "capture": self.board.capture, "jobs": self.jobs,
                "jobs_with_result": self.with_result, "checked": self.checked,
                "searches": self.searches, "sample": self.sample, "seed": self.seed,
                "nodes_claimed": self.nodes_claimed, "nodes_journal": self.nodes_journal,
                "nodes_recomputed": self.nodes_recomputed,
                "seconds": round(self.seconds, 3), "disagreements": self.disagreements,
                "claims": self.claims, "proves": list(self.proves) if self.proves else None,
                "ok": self.ok}


def statement(job: dict) -> Tuple[Key, str, int]:
    """(position, "at least"/"at most", bound): what a job with a result says."""
    kind, bound = claimed(job)
    return job["key"], kind, bound


def holds(engine, key: Key, kind: str, bound: int, capture: str) -> Tuple[bool, int, int]:
    """Whether the statement is true, by a null-window search to the end of the
    game: (true, the search's fail-soft bound, its nodes)."""
    board = board_of(key, capture)
    beta = bound if kind == "at least" else bound + 1
    found, nodes = engine.null_window(board, beta)
    return (found >= beta) == (kind == "at least"), found, nodes


def verify_journal(path: Path, engine, sample: float = 1.0, seed: Optional[int] = None,
                   progress: Optional[Progress] = None) -> Verification:
    """Recompute a journal's jobs (all of them with a result, or a ``sample``
    share drawn with ``seed``; None: a fresh seed, said in the result) with
    ``engine`` (a :class:`mancala.Engine`), and check its claims follow from
    them. JournalError for a file that is no sound journal (damaged lines,
    contradictions: refused before anything is searched)."""
    if not 0 < sample <= 1:
        raise ValueError(f"the share of jobs to check is above 0 and at most 1, not {quote(sample)}")
    records = read_records(path, None, FORMATS_READ)
    if records is None:
        raise JournalError(f"no journal at {shown(path)} (or it is empty)")
    capture = records.board.capture
    every, lines = statements(records.jobs, records.job_lines, capture)   # moves and facts too
    with_result = [i for i, job in enumerate(every) if job["bound"] is not None]
    chosen = with_result
    if sample < 1 and with_result:
        if seed is None:
            seed = secrets.randbelow(2 ** 63)
        count = max(1, math.ceil(sample * len(with_result)))
        chosen = sorted(random.Random(seed).sample(with_result, count))
    else:
        seed = None
    start = time.perf_counter()
    found: Dict[Tuple[Key, str, int], Tuple[bool, int, int]] = {}
    wanted = {statement(every[i]) for i in chosen}
    disagreements, claimed_nodes = [], 0
    for i in chosen:
        job = every[i]
        said = statement(job)
        claimed_nodes += job["nodes"]
        if said not in found:
            found[said] = holds(engine, *said, capture)
            if progress is not None:
                progress(len(found), len(wanted), sum(n for _, _, n in found.values()),
                         time.perf_counter() - start)
        true, bound, _ = found[said]
        if not true:
            disagreements.append({"line": lines[i], "key": [list(said[0][0]), said[0][1]],
                                  "beta": job["beta"], "bound": job["bound"], "says": said[1],
                                  "recomputed_bound": bound})
    return Verification(str(path), records.format, records.board, len(records.jobs), len(with_result),
                        len(chosen), len(found), sample, seed, claimed_nodes,
                        sum(job["nodes"] for job in records.jobs), sum(n for _, _, n in found.values()),
                        time.perf_counter() - start, disagreements, *_claims(records))


def _claims(records: Records) -> Tuple[List[dict], Bounds]:
    """Each claim with what the jobs do not prove of it, and the root's bounds."""
    expanded = [key for _, claim in records.claims for key in claim["expanded"]]
    every, _ = statements(records.jobs, records.job_lines, records.board.capture)
    root, moves = proves(every, records.board, expanded)
    claims = [{"line": line, **{k: v for k, v in claim.items() if k != "expanded"},
               "missing": claim_holds(claim, root, moves)} for line, claim in records.claims]
    return claims, root


__all__ = ["Verification", "verify_journal", "holds", "statement"]
