"""Solving on a Ray cluster: ``solve ... --cluster ADDRESS [--journal FILE]``.

The driver runs a :class:`mancala.cluster.manager.ProofManager` (the proof
tree, what to ask, the journal) over a :class:`RayPool`: one
:class:`SolveWorker` actor per worker, each an engine whose threads share its
table, with the endgame levels mapped. A job (:func:`run_job`) is the compiled
solver's null-window search (:meth:`mancala.Engine.null_window`) on one
position with a node budget; one that runs out of budget then asks its warm
table, with a few thousand nodes a question, what it settled about the
position's moves and their moves on the way, so the split that follows keeps
that work.

A question goes to the worker that searched its position or its parent last
(a warm table) when that one is free, else to any free worker. A job the
manager no longer needs is stopped at once (the actor's second thread stops
its engine). A worker whose node dies is replaced and its job asked again.
"""
from __future__ import annotations

import contextlib
import threading
import time
import zlib
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from mancala import endgame
from mancala.board import Board
from mancala.cluster import ray_error_line, ray_module
from mancala.cluster.journal import Journal, JournalError, read_journal
from mancala.cluster.manager import Job, ProofManager, ProofResult
from mancala.cluster.tree import Key, board_of, child_t, expand
from mancala.engine import Engine
from mancala.errors import ClusterError, MancalaError, quote

DEFAULT_JOB_NODES = 4_000_000       # a few seconds of one core
HARVEST_DEPTH = 2                   # an exhausted job asks its table about its position's moves, and theirs
HARVEST_NODES = 200                  # with this budget each (a question the table settled costs a few nodes)


# -- the worker ------------------------------------------------------------------------

def run_job(engine, capture: str, key: Key, beta: int, budget: int,
            stopped=lambda: False, harvesting: bool = True) -> dict:
    """'Is the relative value of key at least beta?' within budget nodes:
    {"bound": fail-soft bound or None (exhausted), "move" that reached a bound at
    least beta (else None), "nodes", "seconds", "cpu" (all
    its threads), "facts": what an exhausted search settled below (see
    :func:`harvest`), "stopped": stopped() said so}."""
    start, cpu = time.perf_counter(), time.process_time()
    key = (tuple(key[0]), int(key[1]))
    board = board_of(key, capture)
    bound, nodes = engine.null_window(board, beta, nodes=budget)
    move = None
    if bound is not None and bound >= beta:      # the move that reached it: the table's at the root
        move = next(iter(engine._searcher.principal_variation(board, 1)), None)
    facts: list = []
    if bound is None and harvesting and not stopped():
        nodes += harvest(engine, capture, key, beta, HARVEST_DEPTH, facts, stopped)
    return {"bound": bound, "move": move, "nodes": nodes, "seconds": time.perf_counter() - start,
            "cpu": time.process_time() - cpu, "facts": facts, "stopped": bool(stopped())}


def harvest(engine, capture: str, key: Key, beta: int, depth: int, facts: list,
            stopped=lambda: False) -> int:
    """Ask the table (a few nodes each) the question of every move of key that
    'key >= beta' asks: [move, bound or None, [the same for its moves]] into
    facts, for the moves settled or with something settled below; the nodes."""
    spent = 0
    for edge in expand(key, capture):
        if edge.child is None or stopped():
            continue
        t = child_t(edge, beta)
        bound, nodes = engine.null_window(board_of(edge.child, capture), t, nodes=HARVEST_NODES)
        spent += nodes
        below: list = []
        if bound is None and depth > 1:
            spent += harvest(engine, capture, edge.child, t, depth - 1, below, stopped)
        if bound is not None or below:
            facts.append([edge.move, bound, below])
    return spent


class SolveWorker:
    """A cluster worker: one engine (its threads sharing its table, the levels mapped)."""

    def __init__(self, capture: str, hash_mb: float, endgame_seeds: Optional[int],
                 cache: Optional[str], threads: int = 1, vouched: Optional[List[str]] = None) -> None:
        db = None
        if endgame_seeds:       # vouched: the levels as the driver checked them (their seals are its key's)
            db = endgame.load(capture, endgame_seeds, Path(cache) if cache else None, vouched=vouched)
        self.capture = capture
        self.engine = Engine(hash_mb=hash_mb, endgame=db, threads=threads)
        self.lock = threading.Lock()                # guards current and stopping
        self.one_at_a_time = threading.Lock()       # a job handed over waits for the one stopped
        self.current: Optional[int] = None
        self.stopping: set = set()

    def node(self) -> str:
        return ray_module().get_runtime_context().get_node_id()

    def job(self, number: int, key: Key, beta: int, budget: int) -> dict:
        with self.one_at_a_time:
            with self.lock:
                if number in self.stopping:         # stopped before it began
                    self.stopping.discard(number)
                    return {"bound": None, "move": None, "nodes": 0, "seconds": 0.0, "cpu": 0.0,
                            "facts": [], "stopped": True}
                self.current = number
            try:
                return run_job(self.engine, self.capture, key, beta, budget,
                               stopped=lambda: number in self.stopping)
            finally:
                with self.lock:
                    self.current = None
                    self.stopping.discard(number)

    def stop(self, number: int) -> None:
        """Stop job number, running or still to begin."""
        with self.lock:
            self.stopping.add(number)
            if self.current == number:
                self.engine.stop()


# -- the workers on Ray ----------------------------------------------------------------

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


def place(job: Job, free: List[int], searched: Dict[Key, int]) -> int:
    """The free worker for job: the one that searched its position, or else its
    parent, last (its table holds most of what the job needs), else where the
    position's hash says."""
    for key in (job.key, job.parent):
        if key in searched and searched[key] in free:
            return searched[key]
    return free[worker_of(job.key, len(free))]


class RayPool:
    """The manager's workers as Ray actors (see the module docstring)."""

    def __init__(self, count: int, threads: int, args: tuple) -> None:
        self.ray = ray_module()
        self.remote = self.ray.remote(num_cpus=threads, max_restarts=0, max_concurrency=3)(SolveWorker)
        self.args, self.count = args, count
        self.actors = [self.remote.remote(*args) for _ in range(count)]
        self.alive = list(range(count))
        self.busy: Dict[int, Job] = {}                 # worker: its job
        self.refs: Dict[object, Job] = {}
        self.searched: Dict[Key, int] = {}             # position: the worker that searched it last
        self.coming: Dict[int, object] = {}            # replaced workers not up yet
        self.replaced = 0
        self.start = time.perf_counter()

    @property
    def size(self) -> int:
        return len(self.alive)

    def now(self) -> float:
        return time.perf_counter() - self.start

    def submit(self, job: Job) -> None:
        free = [index for index in self.alive if index not in self.busy]
        if not free:
            raise ClusterError("a job was submitted with every worker busy")
        index = job.worker = place(job, free, self.searched)
        self.busy[index] = job
        self.searched[job.key] = index
        self.refs[self.actors[index].job.remote(job.id, job.key, job.beta, job.budget)] = job

    def cancel(self, job: Job) -> None:
        """Stop job; its worker takes the next job at once (that one waits for the
        engine, a moment)."""
        if self.busy.get(job.worker) is job:
            self.actors[job.worker].stop.remote(job.id)
            del self.busy[job.worker]

    def wait(self, timeout: float) -> List[Tuple[Job, Optional[dict]]]:
        ray = self.ray
        ready = []
        if self.refs:
            if ray.wait(list(self.refs), num_returns=1, timeout=timeout)[0]:
                ready = ray.wait(list(self.refs), num_returns=len(self.refs), timeout=0)[0]
        else:
            time.sleep(min(timeout, 0.1))
        answers = []
        for ref in ready:
            job = self.refs.pop(ref)
            if self.busy.get(job.worker) is job:
                del self.busy[job.worker]
            try:
                answers.append((job, ray.get(ref)))
            except ray.exceptions.RayActorError as exc:
                answers.append((job, None))             # asked again, elsewhere
                self._replace(job.worker, exc)
            except ray.exceptions.RayTaskError as exc:
                raise ClusterError(f"a job failed on the cluster: {ray_error_line(exc)}") from None
        for index, ref in list(self.coming.items()):    # replacements that are up join the pool
            if ray.wait([ref], timeout=0)[0]:
                del self.coming[index]
                self.alive = sorted(self.alive + [index])
        if not self.alive and not self.coming:
            raise ClusterError("the cluster has no worker left")
        return answers

    def _replace(self, index: int, exc: BaseException) -> None:
        self.busy.pop(index, None)
        if index not in self.alive:
            return
        self.alive.remove(index)
        self.replaced += 1
        if self.replaced > 2 * self.count + 2:           # they die as they start: say why
            raise ClusterError(f"the cluster's workers keep failing: {ray_error_line(exc)}")
        self.actors[index] = self.remote.remote(*self.args)   # placed when the cluster has room
        self.coming[index] = self.actors[index].node.remote()

    def close(self) -> None:
        for actor in self.actors:                     # stops the jobs still running (Ctrl-C too)
            try:
                self.ray.kill(actor)
            except Exception:                         # already gone
                pass


def solve(board: Board, *, hash_mb: float, endgame_seeds: Optional[int] = None,
          cache: Optional[Path] = None, journal=None, job_nodes: int = DEFAULT_JOB_NODES,
          all_moves: bool = False, progress=None, workers: Optional[int] = None,
          threads: Optional[int] = None, at_least: Optional[int] = None,
          vouched: Optional[List[str]] = None, answered=None) -> ProofResult:
    """Solve board on the cluster :func:`mancala.cluster.connect` joined, or with
    ``at_least`` answer one question: is its value at least that? Each worker runs
    ``threads`` threads sharing its table of ``hash_mb`` (default: a node's CPUs,
    one worker a node); ``workers`` defaults to as many as the nodes' CPUs hold.
    ``journal``: an open :class:`Journal` of this solve (its jobs are resumed,
    the new ones appended), or a path to open (a foreign journal refused).
    ``vouched``: the endgame levels' digests as the driver checked their seals
    (``[level.digest for level in db.files]``), for workers that hold other keys.
    ``answered()``: called once the answer is known and journaled, before the
    workers are stopped (a command settles its stops there).
    Raises JournalError for another solve's journal, ClusterError when the
    cluster fails, MancalaError for a finished game, ValueError."""
    if board.is_game_over():
        raise MancalaError("the game is over: nothing to solve")
    with contextlib.ExitStack() as stack:
        if journal is not None and not isinstance(journal, Journal):
            journal = stack.enter_context(Journal(Path(journal), board))
        threads, count = worker_shape(threads, workers)
        pool = RayPool(count, threads, (board.capture, hash_mb, endgame_seeds,
                                        str(cache) if cache else None, threads, vouched))
        stack.callback(pool.close)
        manager = ProofManager(board, pool, job_nodes=job_nodes, journal=journal,
                               done=journal.jobs() if journal is not None else (),
                               all_moves=all_moves, at_least=at_least, progress=progress)
        result = manager.run()
        result.workers, result.threads = count, threads
        if answered is not None:
            answered()
        return result


__all__ = ["solve", "run_job", "harvest", "place", "RayPool", "SolveWorker", "JournalError", "read_journal",
           "DEFAULT_JOB_NODES"]
