"""The proof manager's rules (:class:`mancala.cluster.manager.ProofManager`),
each a number with its reason, in one place: the simulator
(``bench/cluster_sim.py simulate --policy``) varies them one at a time, and
docs/cluster.md says what each was measured to do."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    """The manager's rules, each a number with its reason (the simulator,
    ``bench/cluster_sim.py --policy``, varies them one at a time)."""
    tests: int = 2              # the value's tests asked at once as needed work (the bracket)
    tests_after: int = 0        # and once one of them is answered (0: as many); the others wait as
                                # speculation
    hypotheses: int = 4         # and as speculation, when workers are still idle
    step: int = 4               # an exhausted question asked again gets this many times its budget,
    growth: int = 64            # up to this many times the first, then it is split (1: split at once)
    split_stops: bool = False   # a position split for an idle worker has its job stopped
    speculate: bool = True      # idle workers hedge against predictions (else they wait)
    plan: int = 0               # needed leaves a worker, planned by splitting on estimates before
                                # the first job (0: the root alone)
    root_depth: int = 0         # the depth of the search that makes MTD(f)'s first guess, within
                                # one job's nodes (0: the estimates' own depth); Kalah(6,4)'s depth 8
                                # says +4, depth 19 the value, +8, yet neither wins at every width
                                # (docs/cluster.md)


__all__ = ["Policy"]
