"""What a cluster solve's finished jobs add up to: every job kept as a few
numbers (:class:`Finished`), and the answer with what it cost and what it rests
on (:class:`ProofResult`)."""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple


@dataclass
class ProofResult:
    value: Optional[int]           # None for a bound question
    move: Optional[int]
    optimal_moves: Tuple[int, ...]
    lower: int                     # bounds on the value known at the end
    upper: int
    holds: Optional[bool]          # a bound question's answer
    jobs: int                      # run now
    jobs_from_journal: int
    nodes: int                     # the jobs run now: measured
    cpu: float
    seconds: float                 # the pool's clock
    useful_nodes: int
    wasted: Dict[str, int] = field(default_factory=dict)   # nodes: exhausted, cancelled, unused
    manager_seconds: float = 0.0   # the driver's own CPU time
    workers: int = 0
    threads: int = 0
    nodes_from_journal: int = 0    # as the journal's lines say: read, not measured
    rests_on: int = 0              # the journal's jobs the answer uses
    on_trust: int = 0              # of them, taken on trust and not recomputed here


class Finished:
    """Every finished job, in order (its number is its place), as a few numbers:
    its nodes, CPU time, how it ended and where it came from. A million-job
    journal resumes in tens of megabytes."""
    ANSWERED, EXHAUSTED, CANCELLED = 0, 1, 2
    RUN, JOURNAL, ON_TRUST = 0, 1, 2            # asked now; read from the journal; and taken on trust

    def __init__(self) -> None:
        self.nodes, self.cpu = array("q"), array("d")
        self.kind, self.origin = bytearray(), bytearray()
        self.total = [0, 0, 0]                  # nodes by how they ended
        self.from_journal = [0, 0]              # jobs and nodes read from the journal

    def add(self, entry: dict, origin: int) -> int:
        kind = self.CANCELLED if entry["cancelled"] else \
            self.EXHAUSTED if entry["bound"] is None else self.ANSWERED
        self.nodes.append(entry["nodes"])
        self.cpu.append(entry["cpu"])
        self.kind.append(kind)
        self.origin.append(origin)
        self.total[kind] += entry["nodes"]
        if origin != self.RUN:
            self.from_journal[0] += 1
            self.from_journal[1] += entry["nodes"]
        return len(self.nodes) - 1

    def __len__(self) -> int:
        return len(self.nodes)


__all__ = ["Finished", "ProofResult"]
