"""The proof manager of a cluster solve: which questions its workers are asked.

As the large published solves were run (the checkers proof's manager, the
Othello solve's planner, job-level proof-number search), the manager keeps a
proof tree over the first plies (:class:`mancala.cluster.tree.Tree`) and asks
its workers questions about positions at the tree's frontier: is the value at
least t? A **job** is the compiled solver's null-window search on one position
with a node budget; it comes back proved, disproved (each with a fail-soft
bound) or exhausted, and an exhausted job's position is split into its moves
at once (never asked again with a larger budget on one worker), with what its
search settled about them on the way (:func:`mancala.cluster.solve.run_job`).

The policy, in the order :meth:`ProofManager.run` applies it each round:

1. **Goals.** The value's tests ("is the root at least t?"), two at once, the
   pair that brackets the guess (a short search's score, as MTD(f) starts):
   one is expected to hold and one to fail, so a right guess settles the value
   in one round; each answer moves the bracket. Then, the value known, each
   move's test (one, or all of them with ``all_moves``). Or one test only: a
   bound question (``at_least``).
2. **Needed questions** for the goals, most-proving first, with the questions
   in flight counted as settled the way their estimates predict, so the
   workers spread over the frontier (:meth:`Tree.select`).
3. **Splits for idle workers.** While a worker is idle and nothing needed is
   left to ask, the shallowest position in flight is split (its job goes on;
   whichever answer comes first is used), so a large cluster fills the top of
   the tree in its first seconds instead of waiting on one job.
4. **Speculation.** Still idle: questions that hedge against a prediction
   (the other moves where one is expected to prove), then further hypotheses
   about the value beyond the bracket.
5. **Cancelling.** A job whose question no goal needs any more is stopped;
   its worker is free at once.

Every job is one line of the journal, fsync'd, with why it was asked (needed
or speculative) and how it ended (answered, exhausted and split, cancelled):
a driver started again replays it and asks no finished job again. At the end
the jobs whose answers the proof uses are **useful**, the others **wasted**
(speculation, splits, cancelled work, tests MTD(f) passed by).

The workers are a :class:`Pool`: Ray actors (:mod:`mancala.cluster.solve`) or
virtual ones on a virtual clock (``bench/cluster_sim.py``), which runs this
very code to show how it scales.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Protocol, Tuple

from mancala.board import Board
from mancala.cluster.finished import Finished, ProofResult
from mancala.cluster.policy import Policy
from mancala.engine import Engine
from mancala.errors import JournalError
from mancala.cluster.tree import INF, Key, Question, Tree, board_of, child_t, key_of, store_lead, tighten

WAIT = 0.25                 # the longest the driver waits for an answer before it looks again
ESTIMATE_DEPTH = 8          # the short search that predicts a position's tests and orders its moves


@dataclass
class Job:
    """A question asked of a worker."""
    id: int
    key: Key
    beta: int
    budget: int
    test: int               # the goal's test number (MTD(f)'s count)
    depth: int
    speculative: bool
    parent: Optional[Key]   # the position it was reached from (a warm table's likely holder)
    started: float = 0.0
    cancelled: bool = False
    worker: int = -1


class Pool(Protocol):
    """Workers that answer jobs: :func:`mancala.cluster.solve.run_job`'s dict, or
    None when the worker died (the job is lost and asked again)."""
    size: int

    def submit(self, job: Job) -> None: ...

    def cancel(self, job: Job) -> None: ...

    def wait(self, timeout: float) -> List[Tuple[Job, Optional[dict]]]: ...

    def now(self) -> float: ...


Progress = Callable[[dict], None]


def _timed(method):
    """The driver's own CPU time, counted (the simulation reports it)."""
    def timed(self, *args):
        start = time.thread_time()
        try:
            return method(self, *args)
        finally:
            self.cpu_used += time.thread_time() - start
    return timed


class ProofManager:
    """Solve board (or answer 'is its value at least at_least?') with pool's workers."""

    def __init__(self, board: Board, pool: Pool, *, job_nodes: int, journal=None,
                 done: Iterable[dict] = (), all_moves: bool = False, at_least: Optional[int] = None,
                 progress: Optional[Progress] = None, estimate: Optional[Callable[..., int]] = None,
                 speculate: bool = True, policy: Policy = Policy()) -> None:
        self.pool, self.job_nodes, self.journal = pool, job_nodes, journal
        self.all_moves, self.progress = all_moves, progress
        self.policy = policy
        self.speculate = speculate and policy.speculate
        self.root, self.lead = key_of(board), store_lead(board)
        self.tree = Tree(board.capture, estimate or estimator(board.capture))
        node = self.tree.node(self.root)
        node.estimate = self.tree.estimate(self.root)
        # the first guess of MTD(f): a deeper search at the root (every test it misses costs a
        # tree), no longer than one job, so a small proof does not wait on it
        guess = self.tree.estimate(self.root, policy.root_depth, job_nodes) if policy.root_depth \
            else node.estimate
        self.guess = tighten(guess, node.parity, up=True)
        self.at_least = None if at_least is None else at_least - self.lead
        self.lo, self.hi = -INF, INF
        self.value: Optional[int] = None
        self.goals: List[Tuple[Question, int]] = []           # (question, its test number)
        self.tests: Dict[object, int] = {}                     # a root threshold or ("move", m): its number
        self.needed = 1                                        # the goals asked as needed work
        self.harvested: Dict[Key, tuple] = {}                  # an exhausted leaf: what its job settled below
        self.running: Dict[int, Job] = {}
        self.rounds, self.goals_checked = 0, []
        self.ids = itertools.count()
        self.done = done                                       # the journal's, read once by run()
        self.planned = False
        self.finished = Finished()
        self.cpu_used = 0.0

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> ProofResult:
        """Ask until the answer is known (see the module docstring); the pool is left
        running: its owner stops it."""
        self._resume()
        while self._plan():
            self._dispatch()
            self._receive(self.pool.wait(WAIT))
            self._report()
        for job in list(self.running.values()):
            self._cancel(job)
        result = self._result()
        self._claim(result)
        return result

    # -- 1. goals ------------------------------------------------------------------------
    @_timed
    def _plan(self) -> bool:
        """The goals for this round; False when the answer is known."""
        status = self.tree.status
        if self.at_least is not None:
            self.goals = [((self.root, self.at_least), 1)]
            self.needed = 1
            return status(self.root, self.at_least) is None
        lo, hi = self.tree.bounds(self.root)
        for t in self.tests:                               # the tests settled so far
            if not isinstance(t, int):
                continue
            found = status(self.root, t)
            if found is True:
                lo = max(lo, t)
            elif found is False:
                hi = min(hi, t - 1)
        parity = self.tree.nodes[self.root].parity
        self.lo, self.hi = tighten(lo, parity, up=True), tighten(hi, parity, up=False)
        if self.lo < self.hi:
            guess = min(max(self.guess, self.lo), self.hi)
            spread = 2 * self.policy.hypotheses
            order = sorted(range(self.lo + 2 if self.lo > -INF // 2 else guess - spread,
                                 min(self.hi, guess + spread) + 1, 2),
                           key=lambda t: abs(t - guess - 1))
            self.goals = [((self.root, t), self._test(t)) for t in order[:self.policy.hypotheses]
                          if t > self.lo]
            # once a test is answered the next one is known: one at a time (a refuted +10 settles +12)
            bracketed = self.lo > -INF // 2 or self.hi < INF // 2
            self.needed = self.policy.tests_after if bracketed and self.policy.tests_after else \
                self.policy.tests
            return True
        self.value = self.lo
        root = self.tree.nodes[self.root]
        if not self.all_moves and root.lo >= self.value and root.move is not None:
            return False                                  # the job that proved it named its move
        if root.edges is None:                             # the root was answered whole
            self.tree.split(self.root)
        self.goals = []
        for edge in self.tree.nodes[self.root].edges:
            if edge.child is None:
                keeps: Optional[bool] = edge.offset >= self.value
            else:
                question = (edge.child, child_t(edge, self.value))
                found = status(*question)
                keeps = None if found is None else found == (edge.sign > 0)
                if keeps is None:
                    self.goals.append((question, self._test(("move", edge.move))))
            if keeps and not self.all_moves:
                return False                              # a move that keeps the value
        self.needed = len(self.goals) if self.all_moves else 1
        return bool(self.goals)

    def _test(self, what) -> int:
        if what not in self.tests:
            self.tests[what] = len(self.tests) + 1
        return self.tests[what]

    # -- 2..4. dispatch ------------------------------------------------------------------
    @_timed
    def _dispatch(self) -> None:
        needed = self.goals[:self.needed]
        free = self.pool.size - sum(not job.cancelled for job in self.running.values())
        if free <= 0:
            return
        if self.policy.plan and not self.planned:      # before the first job: start wide
            self.planned = True
            self.tree.plan([goal for goal, _ in needed], self.policy.plan * self.pool.size)
        free -= self._submit(self._needed(needed, free), speculative=False)
        while free > 0 and self._split_for_idle():
            free -= self._submit(self._needed(needed, free), speculative=False)
        if not self.speculate:
            return
        for question, test in needed + self.goals[len(needed):]:
            picked = self.tree.select(question[0], question[1], free, speculative=True)
            free -= self._submit([(q, test) for q in picked], speculative=True)

    def _needed(self, goals: List[Tuple[Question, int]], free: int) -> List[Tuple[Question, int]]:
        """Up to free needed questions. One that exhausted a budget before is asked
        again with the policy's step times it (its worker's table warm) while that
        keeps every worker busy, and split into its moves when a worker would wait,
        or when it reached the policy's growth times the first budget."""
        while True:
            picked: List[Tuple[Question, int]] = []
            for goal, test in goals:
                picked += [(q, test) for q in self.tree.select(goal[0], goal[1], free - len(picked))]
            big = [q for q, _ in picked
                   if self.tree.nodes[q[0]].budget > self.job_nodes * self.policy.growth
                   or (len(picked) < free and self.tree.nodes[q[0]].budget > self.job_nodes)]
            if not big:
                return picked
            for q, _ in picked:
                self.tree.land(q)
            self._split(max(big, key=lambda q: self.tree.nodes[q[0]].budget)[0])

    def _submit(self, picked: List[Tuple[Question, int]], speculative: bool) -> int:
        for (key, beta), test in picked:
            node = self.tree.nodes[key]
            job = Job(next(self.ids), key, beta, max(node.budget, self.job_nodes), test, node.depth,
                      speculative, node.parent, self.pool.now())
            self.running[job.id] = job
            self.pool.submit(job)
        return len(picked)

    def _split_for_idle(self) -> bool:
        """Split the shallowest position in flight that is still a leaf, the latest
        started first (the least work lost), and stop its job: its worker, its
        table warm with the position, takes one of the moves."""
        leaves = [job for job in self.running.values() if not job.speculative and not job.cancelled
                  and self.tree.nodes[job.key].edges is None]
        if not leaves:
            return False
        job = min(leaves, key=lambda j: (j.depth, -j.started))
        self._split(job.key)
        if self.policy.split_stops:
            self._cancel(job)
        return True

    def _split(self, key: Key) -> None:
        """Split a leaf, with what its last exhausted job settled below it."""
        self.tree.split(key)
        found = self.harvested.pop(key, None)
        if found is not None:
            self._learn_facts(key, *found)

    # -- answers -------------------------------------------------------------------------
    @_timed
    def _receive(self, answers: List[Tuple[Job, Optional[dict]]]) -> None:
        for job, answer in answers:
            self.running.pop(job.id, None)
            if not any(j.key == job.key and j.beta == job.beta for j in self.running.values()):
                self.tree.land((job.key, job.beta))
            if answer is None:                          # the worker died: asked again
                continue
            cancelled = job.cancelled or bool(answer.get("stopped"))
            entry = {"key": job.key, "beta": job.beta, "bound": answer["bound"],
                     "nodes": answer["nodes"], "seconds": round(answer["seconds"], 4),
                     "cpu": round(answer["cpu"], 4), "test": job.test, "depth": job.depth,
                     "split": False, "budget": job.budget,
                     "speculative": job.speculative, "cancelled": cancelled,
                     "facts": answer.get("facts") or [], "move": answer.get("move")}
            self._learn(entry, len(self.finished))
            self.finished.add(entry, Finished.RUN)
            if self.journal is not None:
                self.journal.add(entry)
        if answers:
            self._cancel_unneeded()

    def _learn(self, entry: dict, number: int) -> None:
        key, beta, bound = entry["key"], entry["beta"], entry["bound"]
        self.tree.node(key, entry["depth"])
        if entry.get("cancelled"):
            return
        if bound is not None:
            self.tree.learn(key, beta, bound, number, move=entry.get("move"))
            return
        # exhausted: asked again with a larger budget, or split (see _needed)
        node = self.tree.nodes[key]
        node.budget = max(node.budget, self.policy.step * entry["budget"])
        if entry.get("facts"):
            self.harvested[key] = (beta, entry["facts"], number)
        else:
            self.harvested.pop(key, None)
        if entry.get("split") or node.edges is not None:
            self._split(key)

    def _learn_facts(self, key: Key, beta: int, facts: list, number: int) -> None:
        """What an exhausted job settled below its position: [move, bound or None, facts below]."""
        edges = {edge.move: edge for edge in self.tree.nodes[key].edges or ()}
        for move, bound, below in facts:
            edge = edges.get(move)
            if edge is None or edge.child is None:
                continue
            t = child_t(edge, beta)
            if bound is not None:
                self.tree.learn(edge.child, t, bound, number)
            elif below:
                self.harvested[edge.child] = (t, below, number)
                self._split(edge.child)

    def _cancel_unneeded(self) -> None:
        """Stop the jobs whose question is settled, or (every so often, and when the
        goals change) that no goal reaches any more."""
        goals = [question for question, _ in self.goals]
        self.rounds += 1
        if goals != self.goals_checked or self.rounds % 32 == 0:
            self.goals_checked = goals
            wanted = self.tree.open_questions(goals)
            unneeded = [job for job in self.running.values() if (job.key, job.beta) not in wanted]
        else:
            unneeded = [job for job in self.running.values()
                        if self.tree.status(job.key, job.beta) is not None]
        for job in unneeded:
            self._cancel(job)

    def _cancel(self, job: Job) -> None:
        if not job.cancelled:
            job.cancelled = True
            self.pool.cancel(job)

    # -- the journal, the report, the result -----------------------------------------------
    def _resume(self) -> None:
        for entry in self.done:
            entry = {"cancelled": False, "speculative": False, "facts": [], **entry}
            self._learn(entry, len(self.finished))
            self.finished.add(entry, Finished.ON_TRUST if entry.get("on_trust") else Finished.JOURNAL)
        self.done = ()

    def _report(self) -> None:
        if self.progress is None:
            return
        total = self.finished.total
        spent, lost = sum(total), total[Finished.EXHAUSTED] + total[Finished.CANCELLED]
        t = self.goals[0][0][1] + self.lead if self.goals and self.value is None else None
        self.progress({"t": t, "lower": self._absolute(self.lo), "upper": self._absolute(self.hi),
                       "done": len(self.finished), "running": len(self.running),
                       "speculative": sum(j.speculative for j in self.running.values()),
                       "nodes": spent, "lost_nodes": lost, "seconds": self.pool.now(),
                       "positions": len(self.tree.nodes)})

    def _claim(self, result: "ProofResult") -> None:
        """The answer, the journal's last line, written only once its jobs prove it
        (:meth:`mancala.cluster.journal.Journal.claim`: JournalError when they do not,
        or contradict each other: then a line is false)."""
        if self.journal is None:
            return
        expanded = [key for key, node in self.tree.nodes.items() if node.edges is not None]
        if self.at_least is not None:
            self.journal.claim_bound(self.at_least + self.lead, bool(result.holds), expanded)
        elif not result.optimal_moves:
            raise JournalError("no move keeps the value the journal's jobs give: one of its lines is false")
        else:
            self.journal.claim(result.value, result.optimal_moves, self.all_moves, expanded)

    def _absolute(self, relative: int) -> Optional[int]:
        return None if abs(relative) >= INF // 2 else relative + self.lead

    def _result(self) -> ProofResult:
        claims: List[Tuple[Key, int, bool]] = []
        holds = value = move = None
        optimal: Tuple[int, ...] = ()
        if self.at_least is not None:
            holds = self.tree.status(self.root, self.at_least)
            claims.append((self.root, self.at_least, holds))
            lo, hi = self.tree.bounds(self.root)
            lo = max(lo, self.at_least) if holds else lo
            hi = hi if holds else min(hi, self.at_least - 1)
        else:
            lo = hi = value = self.value
            claims += [(self.root, value, True), (self.root, value + 1, False)]
            moves = []
            for edge in self.tree.nodes[self.root].edges or ():
                found = None if edge.child is None else self.tree.status(edge.child, child_t(edge, value))
                if edge.offset >= value if edge.child is None else found == (edge.sign > 0):
                    moves.append(edge.move)
                if edge.child is not None and found is not None and self.all_moves:
                    claims.append((edge.child, child_t(edge, value), found))
            root = self.tree.nodes[self.root]
            if not moves and root.move is not None and root.lo >= value:
                moves.append(root.move)
            optimal = tuple(sorted(moves))
            move = root.move if root.move in optimal else (optimal[0] if optimal else None)
            value += self.lead
        parity = self.tree.nodes[self.root].parity
        useful = self.tree.proof(claims)
        done = self.finished
        wasted = {"exhausted": 0, "cancelled": 0, "unused": 0}
        names = {Finished.ANSWERED: "unused", Finished.EXHAUSTED: "exhausted",
                 Finished.CANCELLED: "cancelled"}
        for kind, nodes in enumerate(done.total):
            wasted[names[kind]] += nodes
        for number in useful:
            wasted[names[done.kind[number]]] -= done.nodes[number]
        journal_jobs, journal_nodes = done.from_journal
        return ProofResult(value, move, optimal, self._absolute(tighten(lo, parity, True)),
                           self._absolute(tighten(hi, parity, False)), holds,
                           len(done) - journal_jobs, journal_jobs, sum(done.total) - journal_nodes,
                           sum(cpu for cpu, origin in zip(done.cpu, done.origin) if origin == Finished.RUN),
                           self.pool.now(), sum(done.nodes[n] for n in useful), wasted, self.cpu_used,
                           nodes_from_journal=journal_nodes,
                           rests_on=sum(done.origin[n] != Finished.RUN for n in useful),
                           on_trust=sum(done.origin[n] == Finished.ON_TRUST for n in useful))


def estimator(capture: str) -> Callable[..., int]:
    """A short search's score of a position (stores empty: its relative value),
    ``estimate(key, depth=ESTIMATE_DEPTH, nodes=None)``: the deepest depth finished
    within ``nodes`` when given."""
    engine = Engine(hash_mb=16, endgame=None)
    return lambda key, depth=ESTIMATE_DEPTH, nodes=None: \
        engine.search(board_of(key, capture), depth=depth, nodes=nodes).score


__all__ = ["ProofManager", "ProofResult", "Finished", "Job", "Pool", "Policy", "estimator", "WAIT"]
