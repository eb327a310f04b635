"""Solving on a Ray cluster: ``solve ... --cluster ADDRESS [--journal FILE]``.

As the large published solves were run (the checkers proof's manager, job-level
proof-number search), the driver keeps a proof tree over the first plies and
asks the workers one question at a time about positions at its frontier: is
the value at least t? A **job** is the compiled solver's null-window search
(:meth:`mancala.Engine.null_window`) on one position with a node budget, run by
a :class:`SolveWorker` actor that keeps its table warm and the endgame levels
mapped. It comes back proved (the value is at least t, with a fail-soft bound),
disproved (below t) or unresolved (the budget ran out). An unresolved position
is asked again with four times the budget on the same worker, whose table holds
what the last try learned (the tries before the last cost at most a third
of it), up to ``growth`` times the first budget; then it
is expanded into its children, and the question about it becomes a question
about them. A worker left with no question to ask expands the largest
position in flight (its job goes on; whichever answer comes first is used).

Positions are keyed by their twelve pits and the side to move, stores left
out: a value is kept relative to the stores (the margin still to be won from
here), so transpositions that banked different seeds meet as one. A question
goes to the worker that searched its position, or its parent, last (a warm
table), when that one is free; a position never searched goes where its
key's hash says.

The driver runs MTD(f) at the root as :meth:`mancala.Engine.solve` does:
null-window tests, each settled by the tree: a test of position P at t is
true when P's bounds say so, else (P expanded) when a child's test makes it
true, false when every child's makes it false. Which frontier position to ask
next is chosen by proof numbers (the most-proving leaf, jobs in flight left
out), so the workers spend their time where a proof is cheapest.

**Journal.** Every finished job is one JSON line appended to the journal and
fsync'd. A driver started again with the same journal replays it (bounds and
expansions) and does no finished job twice; a journal of another position,
rule or format is refused in one line; a torn last line is cut off.

**Faults.** A job is idempotent. A worker that dies (its node removed, killed)
is replaced and its jobs go to the others; the answer is the same.
"""
from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from mancala.board import Board
from mancala.cluster import ray_error_line, ray_module
from mancala.cluster.journal import Journal, JournalError, read_journal
from mancala.cluster.tree import BUDGET_STEP, Key, Manager, board_of, child_t, expand, key_of, store_lead
from mancala.errors import ClusterError, MancalaError, quote

DEFAULT_JOB_NODES = 4_000_000       # a few seconds of one core
ORDER_DEPTH = 8                     # the driver's short search that orders a split position's moves
MAX_GROWTH = 1024                   # an unresolved position's budget grows up to 1024 x the first, then it splits


# -- the worker ------------------------------------------------------------------------

class SolveWorker:
    """A cluster worker: one engine (its threads sharing its table, the levels mapped)."""

    def __init__(self, capture: str, hash_mb: float, endgame_seeds: Optional[int],
                 cache: Optional[str], threads: int = 1) -> None:
        from mancala import endgame
        from mancala.engine import Engine
        db = None
        if endgame_seeds:
            db = endgame.load(capture, endgame_seeds, Path(cache) if cache else None)
        self.capture = capture
        self.engine = Engine(hash_mb=hash_mb, endgame=db, threads=threads)

    def node(self) -> str:
        return ray_module().get_runtime_context().get_node_id()

    def job(self, key: Key, beta: int, budget: int) -> Tuple[Optional[int], int, float, float]:
        """(fail-soft bound or None if unresolved, nodes, seconds, CPU seconds of
        all its threads) for 'is the relative value of key at least beta?'."""
        start, cpu = time.perf_counter(), time.process_time()
        key = (tuple(key[0]), int(key[1]))
        bound, nodes = self.engine.null_window(board_of(key, self.capture), beta, nodes=budget)
        return bound, nodes, time.perf_counter() - start, time.process_time() - cpu


# -- the manager -----------------------------------------------------------------------

@dataclass
class ClusterSolveResult:
    value: int
    move: int
    optimal_moves: Tuple[int, ...]
    workers: int
    threads: int                   # a worker's
    jobs: int
    jobs_from_journal: int
    nodes: int
    seconds: float
    cpu: float                     # the jobs' CPU seconds, journal's included


Progress = Callable[[dict], None]


def worker_shape(threads: Optional[int], workers: Optional[int]) -> Tuple[int, int]:
    """(threads a worker, workers) on the cluster Ray is connected to: threads
    default to the CPUs of its smallest node, workers to as many as its nodes hold."""
    cpus = [int(n.get("Resources", {}).get("CPU", 0)) for n in ray_module().nodes() if n.get("Alive")]
    cpus = [c for c in cpus if c > 0] or [1]
    if threads is None:
        threads = min(cpus)
    elif isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads a worker is a whole number from 1, not {quote(threads)}")
    if threads > max(cpus):
        raise ClusterError(f"no node of the cluster has {threads} CPUs for a worker "
                           f"(the largest has {max(cpus)})")
    return threads, workers or max(1, sum(c // threads for c in cpus))


def worker_of(key: Key, count: int) -> int:
    return zlib.crc32(bytes(key[0]) + bytes([key[1]])) % count


def solve(board: Board, *, hash_mb: float, endgame_seeds: Optional[int] = None,
          cache: Optional[Path] = None, journal: Optional[Path] = None,
          job_nodes: int = DEFAULT_JOB_NODES, all_moves: bool = False,
          progress: Optional[Progress] = None, workers: Optional[int] = None,
          threads: Optional[int] = None, growth: int = MAX_GROWTH) -> ClusterSolveResult:
    """Solve board on the cluster :func:`mancala.cluster.connect` joined (see the
    module docstring). Each worker runs ``threads`` threads that share its table
    of ``hash_mb`` (default: a node's CPUs, so one worker a node: a node's cores
    share one table, as on one machine); ``workers`` defaults to as many as the
    nodes' CPUs hold. A position whose job runs out of budget is asked
    again with four times the budget, up to ``growth`` times ``job_nodes``,
    then split (1: split at once). Raises JournalError for another solve's journal,
    ClusterError when the cluster fails, GameOverError... for a finished game,
    ValueError."""
    ray = ray_module()
    if board.is_game_over():
        raise MancalaError("the game is over: nothing to solve")
    start = time.perf_counter()
    manager = Manager(board.capture, estimate=_estimator(board.capture))
    root_board = board.copy(stack=False)
    root = key_of(root_board)
    lead = store_lead(root_board)
    manager.node(root)
    done = read_journal(journal, board) if journal is not None else []
    for job in done:
        manager.learn(job)
    log = Journal(journal, board)
    threads, count = worker_shape(threads, workers)
    remote = ray.remote(num_cpus=threads, max_restarts=0)(SolveWorker)
    args = (board.capture, hash_mb, endgame_seeds, str(cache) if cache else None, threads)
    actors = [remote.remote(*args) for _ in range(count)]
    alive = list(range(count))
    pending: Dict = {}
    busy: set = set()
    stats = {"jobs": 0, "nodes": sum(j["nodes"] for j in done), "replaced": 0,
             "cpu": sum(j["cpu"] for j in done)}

    expanded_by: Dict[Key, int] = {}              # position: the job (journal number) that expanded it
    tried_by: Dict[Key, int] = {}                 # a leaf to ask again: the job that ran out
    for number, job in enumerate(done):
        if job["bound"] is None:
            if job["split"]:
                expanded_by.setdefault(job["key"], number)
            else:
                tried_by[job["key"]] = number
    coming: Dict[int, object] = {}                 # replaced workers not up yet: their first answer

    load = [0] * count                              # jobs in flight, each worker
    searched_by: Dict[Key, int] = {}               # position: the worker that searched it last

    def choose(key: Key, parent: Optional[Key]) -> int:
        """The worker for a question about key: the one that searched key (or else
        its parent) last, whose table holds most of what the question needs, if it
        is free; else a free one; else that one.
        A position never searched goes where its hash says."""
        preferred = searched_by.get(key, searched_by.get(parent))
        if preferred not in alive:
            preferred = alive[worker_of(key, len(alive))]
        if load[preferred] == 0:
            return preferred
        free = [index for index in alive if load[index] == 0]
        if free:
            return free[worker_of(key, len(free))]
        return preferred

    def submit(question: Tuple[Key, int, Optional[Key]], test: int) -> None:
        key, beta, parent = question
        index = choose(key, parent)
        load[index] += 1
        searched_by[key] = index
        budget = manager.budgets.get(key, job_nodes)
        ref = actors[index].job.remote(key, beta, budget)
        after = tried_by.get(key, expanded_by.get(parent) if parent else None)
        pending[ref] = ((key, beta), test, index, after, budget)
        busy.add((key, beta))

    def replace(index: int, exc: BaseException) -> None:
        nonlocal alive
        alive = [i for i in alive if i != index]
        stats["replaced"] += 1
        if stats["replaced"] > 2 * count + 2:         # they die as they start: say why
            raise ClusterError(f"the cluster's workers keep failing: {ray_error_line(exc)}")
        actors[index] = remote.remote(*args)          # placed when the cluster has room
        coming[index] = actors[index].node.remote()

    def collect(timeout: float) -> None:
        ready = ray.wait(list(pending), num_returns=1, timeout=timeout)[0] if pending else []
        if not pending:
            time.sleep(0.1)
        for ref in ready:
            question, test, index, after, budget = pending.pop(ref)
            busy.discard(question)
            load[index] -= 1
            try:
                bound, nodes, seconds, cpu = ray.get(ref)
            except ray.exceptions.RayActorError as exc:
                if index in alive:
                    replace(index, exc)
                continue                                # asked again by select, elsewhere
            except ray.exceptions.RayTaskError as exc:
                raise ClusterError(f"a job failed on the cluster: {ray_error_line(exc)}") from None
            key, beta = question
            # out of budget: asked again with a bigger budget on the same worker (its
            # table warm), up to growth times job_nodes, then split into its moves
            split = bound is None and BUDGET_STEP * budget > job_nodes * growth
            job = {"key": key, "beta": beta, "bound": bound, "nodes": nodes,
                   "seconds": round(seconds, 4), "cpu": round(cpu, 4), "test": test,
                   "depth": manager.nodes[key].depth, "after": after, "split": split,
                   "budget": budget}
            number = len(done) + stats["jobs"]
            if bound is None and split and key not in expanded_by:
                expanded_by[key] = number
            if bound is None and not split:
                tried_by[key] = number
            manager.learn(job)
            log.add(job)
            stats["jobs"] += 1
            stats["nodes"] += nodes
            stats["cpu"] += cpu
        for index, ref in list(coming.items()):       # replacements that are up join the pool
            if ray.wait([ref], timeout=0)[0]:
                del coming[index]
                alive.append(index)
                alive.sort()

    def steal() -> bool:
        """A worker is free and no question is left to ask: split the position of
        the largest job in flight, so its moves become questions (that job goes on:
        whichever answers first is used). Whether one was split."""
        if all(load[index] for index in alive):
            return False
        flying = [(budget, question[0]) for question, _, _, _, budget in pending.values()
                  if manager.nodes[question[0]].edges is None]
        if not flying:
            return False
        key = max(flying)[1]
        manager.split(key)
        if key in tried_by:
            expanded_by.setdefault(key, tried_by[key])
        return True

    def settle(key: Key, t: int, test: int) -> bool:
        """Run jobs till 'key >= t' is known."""
        while True:
            answer = manager.status(key, t, {}, set())
            if answer is not None:
                return answer
            while len(pending) < len(alive):
                question = manager.select(key, t, busy)
                if question is None:
                    if not steal():
                        break
                    continue
                submit(question, test)
            if progress is not None:
                progress({"t": t + lead, "done": stats["jobs"] + len(done), "running": len(pending),
                          "nodes": stats["nodes"], "seconds": time.perf_counter() - start,
                          "positions": len(manager.nodes)})
            if not pending and not coming:
                raise ClusterError("the cluster solve has no job to run and no answer")
            collect(timeout=1.0)

    try:
        # MTD(f) over the root's relative value, as Engine.solve steps
        node = manager.nodes[root]
        parity = node.parity
        guess = _guess(root_board) - lead
        value = guess if (guess - parity) % 2 == 0 else guess + 1
        while True:
            lower, upper = node.lo, node.hi
            if lower >= upper:
                break
            if value <= lower:
                value = lower
            if value > upper:
                value = upper
            beta = value + 1 if value == lower else value
            manager.test += 1
            if settle(root, beta, manager.test):
                node.lo = max(node.lo, beta if (beta - parity) % 2 == 0 else beta + 1)
                value = node.lo
            else:
                node.hi = min(node.hi, beta - 1 if (beta - 1 - parity) % 2 == 0 else beta - 2)
                value = node.hi
        exact = node.lo
        edges = expand(root, board.capture) if node.edges is None else node.edges
        optimal = []
        for edge in edges:                      # which moves keep the value
            if edge.child is None:
                keeps = edge.offset >= exact
            else:
                manager.node(edge.child, 1)
                inner = settle(edge.child, child_t(edge, exact), manager.test)
                keeps = inner if edge.sign > 0 else not inner
            if keeps:
                optimal.append(edge.move)
                if not all_moves:
                    break
        if not optimal:                         # a journal line is false (verify-journal says which)
            raise JournalError("no move keeps the value the journal's jobs give: one of its lines is false")
        log.claim(exact + lead, optimal, all_moves,
                  [key for key, known in manager.nodes.items() if known.edges is not None])
        seconds = time.perf_counter() - start
        return ClusterSolveResult(exact + lead, optimal[0], tuple(optimal), count, threads, stats["jobs"],
                                  len(done), stats["nodes"], seconds, stats["cpu"])
    finally:
        for actor in actors:                    # stops the jobs still running (Ctrl-C too)
            try:
                ray.kill(actor)
            except Exception:                   # already gone
                pass
        log.close()


def _estimator(capture: str) -> Callable[[Key], int]:
    """A short search's score of a position (stores empty: its relative value)."""
    from mancala.engine import Engine
    engine = Engine(hash_mb=16, endgame=None)
    return lambda key: engine.search(board_of(key, capture), depth=ORDER_DEPTH).score


def _guess(board: Board) -> int:
    from mancala.engine import Engine, SOLVE_GUESS_DEPTH
    return Engine(hash_mb=16, endgame=None).search(board, depth=SOLVE_GUESS_DEPTH).score


__all__ = ["solve", "ClusterSolveResult", "SolveWorker", "JournalError", "read_journal", "DEFAULT_JOB_NODES"]
