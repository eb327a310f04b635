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

**Tables.** A job runs on one thread with a table of ``--hash-mb``. A
virtual worker's table holds the jobs it ran since it last took an unrelated
one (a job about none of their positions nor a move of one of them), at most
HISTORY of them; a job unrelated to what its worker's table holds, or past
HISTORY, starts on a cleared table. To run a job on such a table, an engine
here replays the table's jobs first (one thread: the same searches, node for
node) unless one of ``--engines`` already holds exactly them; the replay is
not timed. A real worker's table keeps more than that (unrelated jobs' entries
too, and a table larger than 64 MB on a real node), so the model leans to the
slow side. A job's answer and cost depend on (question, the table's jobs)
alone and are computed once: ``--cache`` (an SQLite file) keeps them across W
values and runs. The network and the driver's own time are free on the
virtual clock; the driver's CPU time is printed (``driver_seconds``) to be
weighed.

**Speed-up** is against the one-machine solve on one thread with the table
``solve`` would use (its CPU time, measured once and cached), not against
the simulation on one worker (``w1_speedup`` is that).
"""
import argparse
import hashlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

from mancala.board import Board
from mancala.cluster.manager import ProofManager
from mancala.cluster.solve import HARVEST_DEPTH, HARVEST_NODES, place, run_job

DEFAULT_CACHE = Path(os.environ.get("MANCALA_SIM_CACHE", Path.home() / ".cache" / "mancala-sim.sqlite"))
HISTORY = 8                 # a worker's table remembers at most this many jobs
MODEL = f"v3: a table holds up to {HISTORY} related jobs, 1 thread, harvest {HARVEST_DEPTH}x{HARVEST_NODES}"


# -- jobs, computed once ---------------------------------------------------------------

class Engines:
    """Engines whose tables hold known histories: a history is the tuple of jobs
    (question, harvested) run on the table since it was cleared. A job on a
    history no engine holds clears the least recently used one and runs the
    history again first (the same searches, node for node: one thread)."""

    def __init__(self, capture, endgame_seeds, hash_mb, count):
        from mancala import endgame
        from mancala.engine import Engine
        db = endgame.load(capture, endgame_seeds) if endgame_seeds else None
        self.capture = capture
        self.engines = [Engine(hash_mb=hash_mb, endgame=db, threads=1) for _ in range(count)]
        self.held = [None] * count          # each engine's history (None: unknown)
        self.used = [0] * count
        self.clock = 0
        self.replayed = 0

    def run(self, question, history):
        self.clock += 1
        index = next((i for i, h in enumerate(self.held) if h == history), None)
        if index is None:
            index = min(range(len(self.engines)), key=lambda i: self.used[i])
            self.engines[index].clear()
            for (key, beta, budget), harvested in history:
                run_job(self.engines[index], self.capture, key, beta, budget, harvesting=harvested)
                self.replayed += 1
        self.used[index] = self.clock
        key, beta, budget = question
        answer = run_job(self.engines[index], self.capture, key, beta, budget)
        self.held[index] = history + ((question, True),)
        return answer


class Jobs:
    """Every job's answer and cost, from the cache or computed: a task is (question,
    history), the history the jobs its worker's table holds (see VirtualPool)."""

    def __init__(self, path, capture, endgame_seeds, hash_mb, engines=16):
        self.setting = json.dumps([capture, endgame_seeds, hash_mb, MODEL])
        self.db = sqlite3.connect(str(path), timeout=600)
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("create table if not exists jobs (setting text, question text, answer text, "
                        "primary key (setting, question))")
        self.memory = {}
        self.computed = 0
        self.engines = None
        self.start = (capture, endgame_seeds, hash_mb, engines)

    @staticmethod
    def name(task):
        def plain(question):
            (pits, side), beta, budget = question
            return [list(pits), side, beta, budget]
        question, history = task
        text = json.dumps([plain(question), [[plain(q), h] for q, h in history]])
        return text if len(text) < 200 else hashlib.sha1(text.encode()).hexdigest()

    def get_many(self, tasks):
        for task in tasks:
            if task in self.memory:
                continue
            row = self.db.execute("select answer from jobs where setting=? and question=?",
                                  (self.setting, self.name(task))).fetchone()
            if row:
                self.memory[task] = json.loads(row[0])
                continue
            if self.engines is None:
                self.engines = Engines(*self.start)
            self.memory[task] = answer = self.engines.run(*task)
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
    the cluster's placement picks (:func:`mancala.cluster.solve.place`). A worker's
    table holds its jobs since it last took an unrelated one (about no position of
    those jobs nor a move of one), at most HISTORY of them; else it starts cleared."""

    def __init__(self, workers, jobs, latency=0.0):
        self.size, self.jobs, self.latency = workers, jobs, latency
        self.clock = 0.0
        self.running = {}                   # job id: (job, start, task)
        self.idle = list(range(workers))
        self.history = {}                   # worker: its table's jobs ((question, harvested), ...)
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
        history = self.history.get(worker, ())
        if len(history) >= HISTORY or not any(q[0] in (job.key, job.parent) for q, _ in history):
            history = ()
        self.warm += bool(history)
        self.running[job.id] = (job, self.clock + self.latency, ((job.key, job.beta, job.budget), history))

    def _free(self, worker, history):
        self.idle.append(worker)
        self.history[worker] = history

    def cancel(self, job):
        if job.id not in self.running:
            return
        job, start, task = self.running.pop(job.id)
        answer = self.jobs.get_many([task])[0]
        spent = max(0.0, self.clock - start)
        share = min(1.0, spent / answer["cpu"]) if answer["cpu"] > 0 else 1.0
        nodes = int(answer["nodes"] * share)
        self.busy_seconds += spent
        self._free(job.worker, task[1] + (((job.key, job.beta, max(nodes, 1)), False),))
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
                self._free(job.worker, task[1] + ((task[0], True),))
                ready.append((job, {**answer, "seconds": answer["cpu"], "stopped": False}))
        return ready


def simulate(board, workers, jobs, job_nodes, every=60.0):
    """The manager on workers virtual workers; every `every` real seconds a line
    to stderr says how far it got (a long run stopped keeps its jobs in the cache)."""
    pool = VirtualPool(workers, jobs)
    last = [time.perf_counter()]

    def progress(p):
        if time.perf_counter() - last[0] >= every:
            last[0] = time.perf_counter()
            print(f"  {workers} workers: {p['done']:,} jobs done, {p['running']} running, "
                  f"virtual {p['seconds']:,.1f} s, {p['nodes']:,} nodes, {jobs.computed:,} computed here, "
                  f"bounds {p['lower']}..{p['upper']}", file=sys.stderr, flush=True)

    result = ProofManager(board, pool, job_nodes=job_nodes, progress=progress).run()
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
    jobs = Jobs(args.cache, args.capture, args.endgame, args.hash_mb, args.engines)
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
    s.add_argument("--engines", type=int, default=16,
                   help="engines kept here, each with a worker's table as its jobs left it")
    s.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    s.add_argument("--json", action="store_true")
    sub.add_parser("build", help="a cluster build on W virtual workers (bench/cluster_sim_build.py)")
    args = p.parse_args(argv)
    return run_simulate(args, p)


if __name__ == "__main__":
    sys.exit(main())
