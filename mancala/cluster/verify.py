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
from typing import Callable, Dict, List, Optional, Set, Tuple

from mancala.cluster.journal import Journal, JournalError, shown
from mancala.cluster.journal_lines import STANDING, Records, Statement, job_lines, statement
from mancala.cluster.closure import claim_holds, proves
from mancala.cluster.proof import Bounds, statements
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
    standing: Dict[str, int] = field(default_factory=dict)   # job lines by standing, as read
    resealed: Optional[str] = None                   # what was re-sealed, in a few words

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
                "standing": self.standing, "resealed": self.resealed, "ok": self.ok}


def holds(engine, key: Key, kind: str, bound: int, capture: str) -> Tuple[bool, int, int]:
    """Whether the statement is true, by a null-window search to the end of the
    game: (true, the search's fail-soft bound, its nodes)."""
    board = board_of(key, capture)
    beta = bound if kind == "at least" else bound + 1
    found, nodes = engine.null_window(board, beta)
    return (found >= beta) == (kind == "at least"), found, nodes


def open_journal(path: Path) -> Journal:
    """A journal to verify, opened to re-seal it where it can be written, else to
    read; foreign lines kept as they are. JournalError, one line, for a file that
    is no sound journal (checked whole before anything is searched)."""
    try:
        journal = Journal(path, None, create=False, foreign="keep")
    except JournalError as exc:
        if not str(exc).startswith("cannot open"):
            raise
        journal = Journal(path, None, create=False, foreign="keep", write=False)
    if journal.records is None:
        journal.close()
        raise JournalError(f"no journal at {shown(path)} (or it is empty)")
    return journal


def verify_journal(path, engine, sample: float = 1.0, seed: Optional[int] = None,
                   progress: Optional[Progress] = None, reseal: bool = True) -> Verification:
    """Recompute a journal's jobs (all of them with a result, or a ``sample``
    share drawn with ``seed``; None: a fresh seed, said in the result) with
    ``engine`` (a :class:`mancala.Engine`), and check its claims follow from
    them. What it recomputed and found true is re-sealed (``reseal``): the
    whole journal when every statement held, else the statements. The file is
    streamed twice; memory grows with its positions, not its lines.
    JournalError for a file that is no sound journal (damaged lines,
    contradictions: refused before anything is searched). path: a file, or a
    journal :func:`open_journal` opened (it is closed)."""
    if not 0 < sample <= 1:
        raise ValueError(f"the share of jobs to check is above 0 and at most 1, not {quote(sample)}")
    with (path if isinstance(path, Journal) else open_journal(Path(path))) as journal:
        path = journal.path
        records = journal.records
        capture = records.board.capture
        total = records.with_result
        chosen: Optional[Set[int]] = None                    # None: every statement
        if sample < 1 and total:
            if seed is None:
                seed = secrets.randbelow(2 ** 63)
            chosen = set(random.Random(seed).sample(range(total), max(1, math.ceil(sample * total))))
        else:
            seed = None
        wanted = total if chosen is None else len(chosen)
        start = time.perf_counter()
        found: Dict[Statement, Tuple[bool, int, int]] = {}
        disagreements, claimed_nodes, checked, index = [], 0, 0, -1
        for job, line in statements(job_lines(journal.fd, records), capture):
            if job["bound"] is None:
                continue
            index += 1
            if chosen is not None and index not in chosen:
                continue
            checked += 1
            said = statement(job)
            claimed_nodes += job["nodes"]
            if said not in found:
                found[said] = holds(engine, *said, capture)
                if progress is not None:
                    progress(checked, wanted, sum(n for _, _, n in found.values()),
                             time.perf_counter() - start)
            true, bound, _ = found[said]
            if not true:
                disagreements.append({"line": line, "key": [list(said[0][0]), said[0][1]],
                                      "beta": job["beta"], "bound": job["bound"], "says": said[1],
                                      "recomputed_bound": bound})
        claims, root = _claims(records)
        result = Verification(str(path), records.format, records.board, records.jobs, total,
                              checked, len(found), sample, seed, claimed_nodes, records.nodes,
                              sum(n for _, _, n in found.values()), time.perf_counter() - start,
                              disagreements, claims, root, standing=_standing(records))
        if reseal and not disagreements:
            result.resealed = journal.verified((s for s, (true, _, _) in found.items() if true),
                                               everything=chosen is None)
        return result


def _standing(records: Records) -> Dict[str, int]:
    """How many job lines have each standing (journal.STANDING)."""
    return {STANDING[code].replace(" ", "_"): records.count(code) for code in STANDING}


def _claims(records: Records) -> Tuple[List[dict], Bounds]:
    """Each claim with what the jobs do not prove of it, and the root's bounds."""
    expanded = [key for _, claim in records.claims for key in claim["expanded"]]
    root, moves = proves(records.ledger.known, records.board, expanded)
    claims = [{"line": line, **{k: v for k, v in claim.items() if k != "expanded"},
               "missing": claim_holds(claim, root, moves)} for line, claim in records.claims]
    return claims, root


__all__ = ["Verification", "verify_journal", "open_journal", "holds"]
