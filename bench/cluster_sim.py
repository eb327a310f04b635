"""How a cluster solve (or build) scales: the real manager on virtual workers.

    python bench/cluster_sim.py simulate --seeds S [--capture R] --endgame N \\
        --workers 1,2,4,...,1024 [--job-nodes B] [--hash-mb MB] [--json]
    python bench/cluster_sim.py build --seeds N --workers ...      (bench/cluster_sim_build.py)

``simulate`` runs :class:`mancala.cluster.manager.ProofManager`, the code a
cluster solve runs, with W virtual workers under a virtual clock. Every job
the manager asks is really computed here, on this machine's cores, by
:func:`mancala.cluster.solve.run_job` (the workers' own function), and lasts
its measured CPU time on the virtual clock; the manager sees the answers in
virtual-time order, so its splits, speculation, cancellations and waste are
the real ones. A cancelled job has cost its share of the nodes up to the
moment it was stopped.

**Tables.** Each job runs on a cleared table of ``--hash-mb`` (one thread),
as if every worker forgot everything between jobs: no job gains from the
worker's earlier ones (a real worker's warm table can only make it faster;
what an exhausted job learnt is carried by its harvest, as on the cluster).
So a job's answer and cost depend on (position, threshold, budget) alone and
are computed once: ``--cache`` (an SQLite file) keeps them across W values
and runs. The network and the driver's own time are free on the virtual
clock; the driver's CPU time is printed (``driver_seconds``) to be weighed.

**Speed-up** is against the one-machine solve on one thread with the table
``solve`` would use (its CPU time, measured once and cached), not against
the simulation on one worker (``w1_speedup`` is that).
"""
import argparse
import json
import multiprocessing
import os
import sqlite3
import sys
import time
from pathlib import Path

from mancala.board import Board
from mancala.cluster.manager import ProofManager
from mancala.cluster.solve import HARVEST_DEPTH, HARVEST_NODES, place, run_job

DEFAULT_CACHE = Path(os.environ.get("MANCALA_SIM_CACHE", Path.home() / ".cache" / "mancala-sim.sqlite"))
MODEL = f"v2: last job's table, 1 thread, harvest {HARVEST_DEPTH}x{HARVEST_NODES}"


# -- jobs, computed once ---------------------------------------------------------------

_engine = None


def _start_engine(capture, endgame_seeds, hash_mb):
    global _engine
    from mancala import endgame
    from mancala.engine import Engine
    db = endgame.load(capture, endgame_seeds) if endgame_seeds else None
    _engine = (Engine(hash_mb=hash_mb, endgame=db, threads=1), capture)


def _compute(task):
    """A job on a cleared table, or on the table a prior job left (run again first:
    the same search, node for node)."""
    engine, capture = _engine
    question, prior = task
    engine.clear()
    if prior is not None:
        key, beta, budget, harvested = prior
        run_job(engine, capture, key, beta, budget, harvesting=harvested)
    key, beta, budget = question
    return task, run_job(engine, capture, key, beta, budget)


class Jobs:
    """Every job's answer and cost, from the cache or computed (on ``procs`` processes):
    a task is (question, prior), prior the job whose table it starts from or None."""

    def __init__(self, path, capture, endgame_seeds, hash_mb, procs):
        self.setting = json.dumps([capture, endgame_seeds, hash_mb, MODEL])
        self.db = sqlite3.connect(str(path), timeout=600)
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("create table if not exists jobs (setting text, question text, answer text, "
                        "primary key (setting, question))")
        self.memory = {}
        self.computed = 0
        args = (capture, endgame_seeds, hash_mb)
        self.pool = multiprocessing.Pool(procs, _start_engine, args) if procs > 1 else None
        if self.pool is None:
            _start_engine(*args)

    @staticmethod
    def name(task):
        ((pits, side), beta, budget), prior = task
        if prior is not None:
            (ppits, pside), pbeta, pbudget, harvested = prior
            prior = [list(ppits), pside, pbeta, pbudget, harvested]
        return json.dumps([list(pits), side, beta, budget, prior])

    def get_many(self, tasks):
        missing = []
        for task in tasks:
            if task in self.memory:
                continue
            row = self.db.execute("select answer from jobs where setting=? and question=?",
                                  (self.setting, self.name(task))).fetchone()
            if row:
                self.memory[task] = json.loads(row[0])
            elif task not in missing:
                missing.append(task)
        done = self.pool.imap_unordered(_compute, missing) if self.pool else map(_compute, missing)
        for task, answer in done:
            self.memory[task] = answer
            self.computed += 1
            self.db.execute("insert or replace into jobs values (?, ?, ?)",
                            (self.setting, self.name(task), json.dumps(answer)))
        self.db.commit()
        return [self.memory[task] for task in tasks]

    def baseline(self, board, hash_mb):
        """CPU seconds and nodes of the one-machine solve on one thread."""
        name = json.dumps(["baseline", board.pits, board.to_move, hash_mb])
        row = self.db.execute("select answer from jobs where setting=? and question=?",
                              (self.setting, name)).fetchone()
        if row:
            return json.loads(row[0])
        from mancala import endgame
        from mancala.engine import Engine
        capture, seeds, _, _ = json.loads(self.setting)
        engine = Engine(hash_mb=hash_mb, endgame=endgame.load(capture, seeds) if seeds else None,
                        threads=1)
        cpu = time.process_time()
        found = engine.solve(board)
        answer = {"cpu": time.process_time() - cpu, "nodes": found.nodes, "value": found.score}
        self.db.execute("insert or replace into jobs values (?, ?, ?)", (self.setting, name, json.dumps(answer)))
        self.db.commit()
        return answer


# -- virtual workers -------------------------------------------------------------------

class VirtualPool:
    """W workers on a virtual clock: a job lasts its measured CPU time, on the worker
    the cluster's placement picks (:func:`mancala.cluster.solve.place`), from the
    table that worker's last job left when that job was about the same position or
    its parent, else from a cleared one."""

    def __init__(self, workers, jobs, latency=0.0):
        self.size, self.jobs, self.latency = workers, jobs, latency
        self.clock = 0.0
        self.running = {}                   # job id: (job, start, task)
        self.idle = list(range(workers))
        self.last = {}                      # worker: (key, beta, nodes, harvested) of its last job
        self.searched = {}
        self.stopped = []                   # cancelled jobs' answers, due now
        self.busy_seconds = 0.0
        self.warm = 0

    def now(self):
        return self.clock

    def submit(self, job):
        assert self.idle, "a job was submitted with every worker busy"
        worker = job.worker = place(job, self.idle, self.searched)
        self.idle.remove(worker)
        self.searched[job.key] = worker
        prior = self.last.get(worker)
        if prior is not None and prior[0] not in (job.key, job.parent):
            prior = None
        self.warm += prior is not None
        task = ((job.key, job.beta, job.budget), prior)
        self.running[job.id] = (job, self.clock + self.latency, task)

    def _free(self, job, prior):
        self.idle.append(job.worker)
        self.last[job.worker] = prior

    def cancel(self, job):
        if job.id not in self.running:
            return
        job, start, task = self.running.pop(job.id)
        answer = self.jobs.get_many([task])[0]
        spent = max(0.0, self.clock - start)
        share = min(1.0, spent / answer["cpu"]) if answer["cpu"] > 0 else 1.0
        nodes = int(answer["nodes"] * share)
        self.busy_seconds += spent
        self._free(job, (job.key, job.beta, max(nodes, 1), False))
        self.stopped.append((job, {"bound": None, "nodes": nodes, "seconds": spent, "cpu": spent,
                                   "facts": [], "stopped": True}))

    def wait(self, timeout):
        if self.stopped:
            answers, self.stopped = self.stopped, []
            return answers
        if not self.running:
            return []
        running = list(self.running.values())
        answers = self.jobs.get_many([task for _, _, task in running])
        ends = [start + answer["cpu"] for (_, start, _), answer in zip(running, answers)]
        first = min(ends)
        self.clock = max(self.clock, first)
        ready = []
        for (job, start, task), answer, end in zip(running, answers, ends):
            if end <= first + 1e-12:
                del self.running[job.id]
                self.busy_seconds += answer["cpu"]
                self._free(job, (job.key, job.beta, job.budget, True))
                ready.append((job, {**answer, "seconds": answer["cpu"], "stopped": False}))
        return ready


def simulate(board, workers, jobs, job_nodes):
    pool = VirtualPool(workers, jobs)
    result = ProofManager(board, pool, job_nodes=job_nodes).run()
    return result, pool


def parse_counts(text, p):
    try:
        counts = [int(w) for w in text.split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--workers is a list of whole numbers from 1, such as 1,2,4, not {text!r}")
    return counts


def run_simulate(args, p):
    counts = parse_counts(args.workers, p)
    board = Board(seeds=args.seeds, capture=args.capture)
    for pit in args.moves:
        board.push(pit - 1)
    jobs = Jobs(args.cache, args.capture, args.endgame, args.hash_mb, args.procs)
    base = jobs.baseline(board, args.baseline_mb) if args.baseline_mb else None
    rows = []
    w1 = None
    for count in counts:
        clock = time.perf_counter()
        result, pool = simulate(board, count, jobs, args.job_nodes)
        wall = pool.clock
        if count == 1:
            w1 = wall
        wasted = sum(result.wasted.values())
        row = {"workers": count, "seconds": round(wall, 2),
               "speedup": round(base["cpu"] / wall, 2) if base else None,
               "efficiency": round(base["cpu"] / wall / count, 3) if base else None,
               "w1_speedup": round(w1 / wall, 2) if w1 else None,
               "nodes": result.nodes, "wasted_nodes": wasted, "useful_nodes": result.useful_nodes,
               "wasted": result.wasted, "jobs": result.jobs, "value": result.value,
               "moves": list(result.optimal_moves), "busy": round(pool.busy_seconds / wall / count, 3), "warm_jobs": pool.warm,
               "driver_seconds": round(result.manager_seconds, 2),
               "real_seconds": round(time.perf_counter() - clock, 1), "computed": jobs.computed}
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            if len(rows) == 1:
                if base:
                    print(f"one machine, one thread: {base['cpu']:,.1f} s, {base['nodes']:,} nodes, "
                          f"value {base['value']:+d}")
                print(f"{'workers':>7} {'wall s':>9} {'speed-up':>8} {'effic.':>7} {'nodes':>15} "
                      f"{'wasted':>7} {'jobs':>7} {'busy':>6} {'value':>5}")
            print(f"{count:>7} {wall:>9,.1f} {row['speedup'] or 0:>8.2f} {row['efficiency'] or 0:>7.1%} "
                  f"{result.nodes:>15,} {wasted / max(result.nodes, 1):>7.1%} {result.jobs:>7,} "
                  f"{row['busy']:>6.1%} {result.value:>+5d}", flush=True)
    return 0


def run_build(argv):
    try:
        import cluster_sim_build
    except ImportError:
        print("cluster_sim.py build: bench/cluster_sim_build.py is not here yet", file=sys.stderr)
        return 2
    return cluster_sim_build.main(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["build"]:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        return run_build(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="the manager's own code on W virtual workers")
    s.add_argument("--seeds", type=int, required=True)
    s.add_argument("--capture", default="standard", choices=["standard", "empty", "none"])
    s.add_argument("--moves", type=lambda t: [int(m) for m in t.split()], default=[],
                   help="pits 1..6 played first from the start, e.g. '1 3'")
    s.add_argument("--endgame", type=int, default=0, help="the endgame database's seeds (0: none)")
    s.add_argument("--workers", default="1,2,4,8,16,32,64,128,256,512,1024")
    s.add_argument("--job-nodes", type=int, default=2_000_000, help="a job's node budget")
    s.add_argument("--hash-mb", type=float, default=64, help="a job's (cleared) table")
    s.add_argument("--baseline-mb", type=float, default=1024,
                   help="the one-machine solve's table, for the speed-up (0: no baseline)")
    s.add_argument("--procs", type=int, default=1, help="processes computing jobs here")
    s.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    s.add_argument("--json", action="store_true")
    sub.add_parser("build", help="a cluster build on W virtual workers (bench/cluster_sim_build.py)")
    args = p.parse_args(argv)
    return run_simulate(args, p)


if __name__ == "__main__":
    sys.exit(main())
