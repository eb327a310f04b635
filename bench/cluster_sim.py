"""How a cluster solve (or build) scales: the real manager on virtual workers.

    python bench/cluster_sim.py simulate --seeds S [--capture R] --endgame N \\
        --workers 1,2,4,...,1024 [--job-nodes B] [--hash-mb MB] [--json]
    python bench/cluster_sim.py calibrate [--seeds S --endgame N]    (the node rate, the call's costs)
    python bench/cluster_sim.py build --seeds N --workers ...        (bench/cluster_sim_build.py)

``simulate`` runs :class:`mancala.cluster.manager.ProofManager`, the code a
cluster solve runs, with W virtual workers on a **node clock**. Every job the
manager asks is really computed here by :func:`mancala.cluster.solve.run_job`
(the workers' own function) on **the worker's own table**: one engine for
each virtual worker, one thread, a table of ``--hash-mb`` (what a worker of
that size has), never cleared, its jobs run on it in the worker's own order,
as a real worker's actor keeps its engine. No job is replayed.

A job lasts ``latency + nodes / rate``: ``--rate`` nodes a second of one core
and ``--latency`` seconds from the driver's call to the answer it sees,
beyond the search (both measured by ``calibrate``, and printed); handing a job
over costs the driver ``--call`` seconds, one call after another (Ray's
``.remote``), so a driver that asks too much is the bottleneck it is. Nothing
on the clock is a reading of a clock: two runs of one command give the same
jobs, in the same order, with the same seconds, whatever else the machine
does, so one run of each of two policies decides between them. The driver's
measured CPU time is printed beside (``driver_seconds``), not put on the
clock.

A job the manager stops counts the nodes it could search until the stop; if
it had not been computed yet it is computed with that budget (exact), else
its table keeps what the whole job left (its worker had gone further than the
stop: leans fast, and is counted: ``stopped_after``).

The jobs of one moment are computed by ``--processes`` processes, each
holding the engines of its share of the workers (worker w on process w mod P):
the same answers, whatever P.

Reported (``--json`` keeps every field): ``seconds`` on the clock; speed-ups
against the one-machine solve on one thread (its nodes at the same rate),
with one worker's table (``speedup``) and with ``--baseline-mb``
(``speedup_large``); ``idle`` (the workers' share of the time without a job),
``exhausted`` (nodes of jobs that ran out of budget), ``abandoned`` (nodes of
jobs no later job on the same worker went on from: stopped, or exhausted and
never followed there by the position or one of its moves), ``critical_path``
(the proof tree's longest chain of its positions' own jobs, in seconds: what
the proof would take on endless workers with these budgets).
"""
import argparse
import collections
import dataclasses
import json
import multiprocessing
import sys
import time
from pathlib import Path

from mancala.board import Board
from mancala.cluster.manager import ESTIMATE_DEPTH, ProofManager
from mancala.cluster.policy import Policy
from mancala.cluster.solve import place, run_job
from mancala.cluster.tree import board_of, child_t, expand

Ran = collections.namedtuple("Ran", "worker key beta nodes seconds how test speculative")

RATE = 3.0e6        # nodes a second of one core, one thread (calibrate: 2026-11-29, this machine)
LATENCY = 0.004     # seconds from the call to the answer the driver sees, beyond the search (local:2)
CALL = 0.0005       # the driver's seconds to hand a job over (ray .remote), one call after another


# -- the workers' engines, in processes -------------------------------------------------

def _serve(connection, capture, endgame_seeds, hash_mb):
    """A process holding the engines of its share of the workers: runs the jobs it
    is sent, in order, each on its worker's engine (made at its first job)."""
    from mancala import endgame
    from mancala.engine import Engine
    db = endgame.load(capture, endgame_seeds) if endgame_seeds else None
    engines = {}
    while True:
        batch = connection.recv()
        if batch is None:
            return
        answers = []
        for worker, key, beta, budget in batch:
            if worker not in engines:
                engines[worker] = Engine(hash_mb=hash_mb, endgame=db, threads=1)
            answer = run_job(engines[worker], capture, key, beta, budget)
            answers.append({k: answer[k] for k in ("bound", "move", "nodes", "facts")})
        connection.send(answers)


class Engines:
    """Every virtual worker's engine, spread over ``processes`` processes."""

    def __init__(self, capture, endgame_seeds, hash_mb, processes=2):
        context = multiprocessing.get_context("spawn")
        self.links, self.processes = [], []
        for _ in range(processes):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, capture, endgame_seeds, hash_mb),
                                      daemon=True)
            process.start()
            self.links.append(mine)
            self.processes.append(process)
        self.computed = 0

    def run(self, tasks):
        """Answers to (worker, key, beta, budget) tasks, each on its worker's engine,
        the tasks of one worker in the order given."""
        count = len(self.links)
        shares = [[(i, t) for i, t in enumerate(tasks) if t[0] % count == p] for p in range(count)]
        for link, share in zip(self.links, shares):
            if share:
                link.send([t for _, t in share])
        answers = [None] * len(tasks)
        for link, share in zip(self.links, shares):
            if share:
                for (i, _), answer in zip(share, link.recv()):
                    answers[i] = answer
        self.computed += len(tasks)
        return answers

    def close(self):
        for link in self.links:
            try:
                link.send(None)
            except OSError:
                pass
        for process in self.processes:
            process.join(10)
            if process.is_alive():
                process.kill()


# -- virtual workers -------------------------------------------------------------------

class VirtualPool:
    """W workers on the node clock (see the module docstring): a job placed as the
    cluster places it (:func:`mancala.cluster.solve.place`), on its worker's table."""

    def __init__(self, workers, engines, rate=RATE, latency=LATENCY, call=CALL):
        self.size, self.engines = workers, engines
        self.rate, self.latency, self.call = rate, latency, call
        self.clock = 0.0
        self.running = {}                   # job id: [job, start, answer or None]
        self.busy = {}                      # worker: its job
        self.searched = {}                  # position: the worker that searched it last
        self.stopped = []                   # stopped jobs' answers, due now
        self.busy_seconds = 0.0
        self.stopped_after = 0              # stopped after their whole job was computed
        self.estimate_nodes = 0             # the driver's own searches (estimates), on the clock
        self.log = []                       # per job, in the order they ended: a Ran

    def now(self):
        return self.clock

    def submit(self, job):
        free = [w for w in range(self.size) if w not in self.busy]
        assert free, "a job was submitted with every worker busy"
        self.clock += self.call                         # the driver hands it over
        worker = job.worker = place(job, free, self.searched)
        self.busy[worker] = job
        self.searched[job.key] = worker
        self.running[job.id] = [job, self.clock, None]

    def _compute(self, entries, budgets=None):
        tasks = [(job.worker, job.key, job.beta, job.budget if budgets is None else budgets[i])
                 for i, (job, _, _) in enumerate(entries)]
        for entry, answer in zip(entries, self.engines.run(tasks)):
            entry[2] = answer

    def _seconds(self, nodes):
        return self.latency + nodes / self.rate

    def cancel(self, job):
        entry = self.running.pop(job.id, None)
        if entry is None:
            return
        spent = max(0.0, self.clock - entry[1])
        nodes = max(0, int((spent - self.latency) * self.rate))
        if entry[2] is None:                            # its search so far, exactly
            self._compute([entry], [max(1, nodes)])
        else:
            self.stopped_after += 1
        nodes = min(nodes, entry[2]["nodes"])
        del self.busy[job.worker]
        self.busy_seconds += spent
        self.log.append(Ran(job.worker, job.key, job.beta, nodes, spent, "stopped", job.test,
                            job.speculative))
        self.stopped.append((job, {"bound": None, "move": None, "nodes": nodes, "seconds": spent,
                                   "cpu": spent, "facts": [], "stopped": True}))

    def wait(self, timeout):
        if self.stopped:
            answers, self.stopped = self.stopped, []
            return answers
        if not self.running:
            return []
        todo = [entry for entry in self.running.values() if entry[2] is None]
        if todo:
            self._compute(todo)
        ends = {id: start + self._seconds(answer["nodes"]) for id, (_, start, answer) in self.running.items()}
        first = min(ends.values())
        self.clock = max(self.clock, first)
        ready = []
        for id in sorted(i for i, end in ends.items() if end <= first + 1e-12):
            job, start, answer = self.running.pop(id)
            del self.busy[job.worker]
            seconds = self._seconds(answer["nodes"])
            self.busy_seconds += seconds
            self.log.append(Ran(job.worker, job.key, job.beta, answer["nodes"], seconds,
                                "exhausted" if answer["bound"] is None else "answered", job.test,
                                job.speculative))
            ready.append((job, {**answer, "seconds": seconds, "cpu": seconds, "stopped": False}))
        return ready


def abandoned(log, capture):
    """Nodes of jobs no later job on their worker went on from: stopped or exhausted
    ones whose worker never took their position or one of its moves again (the
    table's work on them is left to nobody)."""
    later = {}
    lost = 0
    for ran in reversed(log):
        went_on = later.setdefault(ran.worker, set())
        if ran.how != "answered" and ran.key not in went_on and \
                not any(e.child in went_on for e in expand(ran.key, capture) if e.child is not None):
            lost += ran.nodes
        went_on.add(ran.key)
    return lost


def critical_path(manager, log):
    """The proof tree's longest chain of its questions' own jobs (seconds): each
    question's jobs one after another (those that ran out, then the one that
    answered), the chain through the moves the proof uses."""
    own = {}
    for ran in log:
        own[ran.key, ran.beta] = own.get((ran.key, ran.beta), 0.0) + ran.seconds
    tree = manager.tree
    memo = {}

    def longest(key, t, holds, depth=0):
        if (key, t) in memo or depth > 200:
            return memo.get((key, t), 0.0)
        node = tree.nodes.get(key)
        here = own.get((key, t), 0.0)
        below = 0.0
        if node is not None and node.edges is not None and not (holds and node.lo >= t) \
                and not (not holds and node.hi < t):
            ways = []
            for edge in node.edges:
                found = tree.literal(edge, t)
                if edge.child is not None and found == holds:
                    ways.append(longest(edge.child, child_t(edge, t), holds == (edge.sign > 0), depth + 1))
                    if holds:
                        break
            below = max(ways, default=0.0)
        memo[(key, t)] = here + below
        return memo[(key, t)]

    if manager.at_least is not None:
        return longest(manager.root, manager.at_least, bool(tree.status(manager.root, manager.at_least)))
    value = manager.value
    return max(longest(manager.root, value, True), longest(manager.root, value + 1, False))


def estimator_on(pool, capture):
    """The manager's estimate (a short search of a position), its nodes on the
    pool's clock: the driver searches while it plans, one core."""
    from mancala.engine import Engine
    engine = Engine(hash_mb=16, endgame=None, threads=1)

    def estimate(key, depth=ESTIMATE_DEPTH, nodes=None):
        found = engine.search(board_of(key, capture), depth=depth, nodes=nodes)
        pool.clock += found.nodes / pool.rate
        pool.estimate_nodes += found.nodes
        return found.score
    return estimate


def simulate(board, workers, engines, job_nodes, rate=RATE, latency=LATENCY, call=CALL,
             policy=Policy(), every=60.0):
    """The manager on workers virtual workers; every `every` real seconds a line
    to stderr says how far it got."""
    pool = VirtualPool(workers, engines, rate, latency, call)
    last = [time.perf_counter()]

    def progress(p):
        if time.perf_counter() - last[0] >= every:
            last[0] = time.perf_counter()
            print(f"  {workers} workers: {p['done']:,} jobs done, {p['running']} running, "
                  f"virtual {p['seconds']:,.1f} s, {p['nodes']:,} nodes, bounds {p['lower']}..{p['upper']}",
                  file=sys.stderr, flush=True)

    manager = ProofManager(board, pool, job_nodes=job_nodes, progress=progress, policy=policy,
                           estimate=estimator_on(pool, board.capture))
    result = manager.run()
    return result, pool, manager


def baseline(board, endgame_seeds, hash_mb):
    """Nodes of the one-machine solve on one thread with a table of hash_mb (deterministic)."""
    from mancala import endgame
    from mancala.engine import Engine
    db = endgame.load(board.capture, endgame_seeds) if endgame_seeds else None
    engine = Engine(hash_mb=hash_mb, endgame=db, threads=1)
    cpu = time.process_time()
    found = engine.solve(board)
    return {"nodes": found.nodes, "value": found.score, "cpu": time.process_time() - cpu}


def policy_of(text):
    """--policy: NAME=VALUE,... over mancala.cluster.manager.Policy's fields."""
    fields = {f.name: f.type for f in dataclasses.fields(Policy)}
    changes = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in fields or not value.lstrip("-").isdigit():
            raise argparse.ArgumentTypeError(f"a policy is NAME=NUMBER,... over {', '.join(fields)}, "
                                             f"not {text!r}")
        changes[name] = bool(int(value)) if fields[name] in (bool, "bool") else int(value)
    return dataclasses.replace(Policy(), **changes)


def parse_counts(text, p):
    try:
        counts = [int(w) for w in text.split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--workers is a list of whole numbers from 1, such as 1,2,4, not {text!r}")
    return counts


def board_of_args(args):
    board = Board(seeds=args.seeds, capture=args.capture)
    for pit in args.moves:
        board.push(pit - 1)
    return board


def run_simulate(args, p):
    counts = parse_counts(args.workers, p)
    board = board_of_args(args)
    small = baseline(board, args.endgame, args.hash_mb)
    large = baseline(board, args.endgame, args.baseline_mb) if args.baseline_mb else None
    if not args.json:
        print(f"node clock: {args.rate:,.0f} nodes/s, latency {args.latency * 1000:g} ms, call "
              f"{args.call * 1000:g} ms; a worker: one thread, a table of {args.hash_mb:g} MB")
        for name, base, mb in (("worker's table", small, args.hash_mb), ("large table", large, args.baseline_mb)):
            if base:
                print(f"one machine, one thread, {mb:g} MB ({name}): {base['nodes']:,} nodes = "
                      f"{base['nodes'] / args.rate:,.1f} s, value {base['value']:+d}")
        print(f"{'workers':>7} {'seconds':>9} {'speed-up':>8} {'large':>6} {'nodes':>15} {'exhaust':>7} "
              f"{'abandon':>7} {'idle':>6} {'crit. s':>8} {'jobs':>7} {'value':>5}")
    rows, w1 = [], None
    for count in counts:
        engines = Engines(board.capture, args.endgame, args.hash_mb, args.processes)
        clock = time.perf_counter()
        try:
            result, pool, manager = simulate(board, count, engines, args.job_nodes, args.rate,
                                             args.latency, args.call, args.policy)
        finally:
            engines.close()
        wall = pool.clock
        w1 = wall if count == 1 else w1
        exhausted = sum(ran.nodes for ran in pool.log if ran.how == "exhausted")
        by_test = collections.Counter()
        for ran in pool.log:
            by_test[f"{ran.test}{'s' if ran.speculative else ''}"] += ran.nodes
        row = {"workers": count, "seconds": round(wall, 3),
               "speedup": round(small["nodes"] / args.rate / wall, 3),
               "speedup_large": round(large["nodes"] / args.rate / wall, 3) if large else None,
               "efficiency": round(small["nodes"] / args.rate / wall / count, 4),
               "w1_speedup": round(w1 / wall, 3) if w1 else None,
               "nodes": result.nodes, "wasted_nodes": sum(result.wasted.values()),
               "useful_nodes": result.useful_nodes, "wasted": result.wasted, "jobs": result.jobs,
               "value": result.value, "moves": list(result.optimal_moves),
               "busy": round(pool.busy_seconds / wall / count, 4),
               "idle": round(1 - pool.busy_seconds / wall / count, 4),
               "exhausted": exhausted, "abandoned": abandoned(pool.log, board.capture),
               "critical_path": round(critical_path(manager, pool.log), 3),
               "stopped_after": pool.stopped_after, "nodes_by_test": dict(by_test),
               "tests": {str(k): v for k, v in manager.tests.items()}, "estimate_nodes": pool.estimate_nodes,
               "policy": dataclasses.asdict(args.policy), "driver_seconds": round(result.manager_seconds, 2),
               "real_seconds": round(time.perf_counter() - clock, 1), "computed": engines.computed,
               "rate": args.rate, "latency": args.latency, "call": args.call, "hash_mb": args.hash_mb,
               "baseline_nodes": small["nodes"], "baseline_large_nodes": large["nodes"] if large else None}
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"{count:>7} {wall:>9,.2f} {row['speedup']:>8.2f} {row['speedup_large'] or 0:>6.2f} "
                  f"{result.nodes:>15,} {exhausted / max(result.nodes, 1):>7.1%} "
                  f"{row['abandoned'] / max(result.nodes, 1):>7.1%} {row['idle']:>6.1%} "
                  f"{row['critical_path']:>8.2f} {result.jobs:>7,} {result.value:>+5d}", flush=True)
    return 0


def run_calibrate(args):
    """The node rate of one thread here (a one-machine solve), and what a job's call
    costs on a real local:2 runtime (the driver's time to hand it over, and the time
    from the call to the answer beyond the search)."""
    board = board_of_args(args)
    found = baseline(board, args.endgame, args.hash_mb)
    rate = found["nodes"] / found["cpu"]
    print(f"one thread: {found['nodes']:,} nodes in {found['cpu']:.2f} CPU s: {rate:,.0f} nodes/s")
    try:
        import ray
    except ImportError:
        print("calibrate: the call's costs need the cluster extra (ray)", file=sys.stderr)
        return 0
    from mancala.cluster.manager import Job
    from mancala.cluster.solve import RayPool
    from mancala.cluster.tree import key_of
    ray.init(num_cpus=2, log_to_driver=False, include_dashboard=False)
    try:
        pool = RayPool(2, 1, (board.capture, 16, None, None, 1))
        pool.wait(0.1)
        calls, extra = [], []
        for i in range(200):
            job = Job(i, key_of(board), 100, 100, 1, 0, False, None)     # a job of 100 nodes
            start = time.perf_counter()
            cpu = time.thread_time()
            pool.submit(job)
            calls.append(time.thread_time() - cpu)
            answers = []
            while not answers:
                answers = pool.wait(1.0)
            extra.append(time.perf_counter() - start - answers[0][1]["seconds"])
        pool.close()
    finally:
        ray.shutdown()
    calls.sort()
    extra.sort()
    print(f"a call: {calls[len(calls) // 2] * 1000:.2f} ms of the driver's CPU (median of 200); "
          f"from the call to the answer beyond the search: {extra[len(extra) // 2] * 1000:.2f} ms")
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
    c = sub.add_parser("calibrate", help="measure the node rate and a call's costs")
    for q in (s, c):
        q.add_argument("--seeds", type=int, required=q is s, default=4)
        q.add_argument("--capture", default="standard", choices=["standard", "empty", "none"])
        q.add_argument("--moves", type=lambda t: [int(m) for m in t.split()], default=[],
                       help="pits 1..6 played first from the start, e.g. '1 3'")
        q.add_argument("--endgame", type=int, default=0 if q is s else 14,
                       help="the endgame database's seeds (0: none)")
        q.add_argument("--hash-mb", type=float, default=16, help="a worker's table")
    s.add_argument("--workers", default="1,2,4,8,16,32,64,128,256")
    s.add_argument("--job-nodes", type=int, default=2_000_000, help="a job's node budget")
    s.add_argument("--baseline-mb", type=float, default=1024,
                   help="the large-table one-machine solve's table, for speedup_large (0: none)")
    s.add_argument("--rate", type=float, default=RATE, help="nodes a second of one core")
    s.add_argument("--latency", type=float, default=LATENCY, help="seconds a job's answer takes to come")
    s.add_argument("--call", type=float, default=CALL, help="the driver's seconds to hand a job over")
    s.add_argument("--processes", type=int, default=2, help="processes computing the jobs")
    s.add_argument("--policy", type=policy_of, default=Policy(),
                   help="the manager's rules changed, e.g. growth=1,split_stops=1,plan=4 (Policy's fields)")
    s.add_argument("--json", action="store_true")
    sub.add_parser("build", help="a cluster build on W virtual workers (bench/cluster_sim_build.py)")
    args = p.parse_args(argv)
    if args.command == "calibrate":
        return run_calibrate(args)
    return run_simulate(args, p)


if __name__ == "__main__":
    sys.exit(main())
