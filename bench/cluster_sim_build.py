"""How an endgame build on a cluster would scale: the cluster's tasks measured
here, then scheduled on W virtual workers as the driver schedules them.

    python bench/cluster_sim_build.py --seeds 28 --workers 1,16,64,256 [--json]
        [--save FILE | --load FILE] [--rules cut,chains,batches,early]

(``python bench/cluster_sim.py build ...`` calls :func:`main`.)

1. **Planned** as the driver of ``endgame build --cluster`` plans: for each W
   and level 1..N, the plan :func:`mancala.cluster.build_plan.best_plan`
   chooses for W workers (the level cut no finer than pays); its planning
   time is measured.
2. **Measured.** Each task of those plans built here by the cluster workers'
   own function (mancala.cluster.build.build_task: its needs read from their
   part files, its rectangle built, its part written), one at a time on one
   thread, its CPU time measured, in memory of its own as a worker does (the
   pages a task touches are faulted in afresh each time); a task is known by
   its rectangle, so one that two plans share (or a --save'd run measured) is
   measured once. Then the level's finishing (finish_run: gathered from the
   parts, values, checks, chunk hashes, written), each run as the driver cuts
   them for W (mancala.cluster.build.finish_runs), from that plan's parts.
   The levels come from the cache (built there first where missing); the
   level's files live in a scratch folder (/dev/shm when it has room). The
   first plan measured of a level is built from nothing in plan
   order, finished, and compared with the cached level: the same bytes, and
   no position left to the search (every need was in the parts read). The
   other plans are measured against parts cut from the cached level (a task
   reads and writes the same bytes either way, so it does the same work).
3. **Scheduled** by the driver's own bookkeeping
   (mancala.cluster.build_calls.Calls: chains, batches, the worker with the
   fewest calls in flight): the driver makes one call at a time, each
   costing it ``--call-ms`` and ``--task-ms`` a task in it (measured on
   local:2 under load: 0.50 ms of CPU a call and 0.016 ms a task more, 1,500
   calls of 1, 4 and 16 tasks); a worker runs its calls in the order they
   came, a call's tasks in turn; the driver makes every call it can, then
   waits for a call to end and takes every call ended by then (ray.wait);
   then the level's finishing runs, in calls the same rules make. Then the
   driver seals the level (its values hashed: seal_written) and opens it
   (checked: building.open_levels), both on ``--head-threads`` threads, and
   each worker opens it (checked, on its one core: the measured CPU time)
   before its first task of the next level, or, with the rule ``early``,
   while the driver seals it. Planning a level overlaps the build of the one
   before (the driver plans a level ahead, on a thread): only what is longer
   than that build counts. A level's check and hash are measured here once
   (CPU seconds, the hash on one thread), as the tasks are.

``--rules`` turns the driver's rules on one at a time, to show each one's
effect: ``cut`` (the plan best_plan chooses; without it, parallelism 2W as
before), ``chains`` (a worker handed the tasks that wait only on its own
work), ``batches`` (a call carries the square root of the open work times a
call's worth, and the finishing runs are cut by finish_runs; without it, one
ready task a call unless their share is more, and 2W finishing runs, as
before), ``early`` (the workers open a level while the driver seals it);
``none`` is the driver as it was (but that its batches were
counted in tasks: up to 16 of the ready ones, their count shared among the
free slots).

The speed-up is over the same simulation on one worker (whose plan keeps each
class whole). Not modelled: the network and the shared storage (a task's
reads and writes are its own CPU time here, from memory), Ray's scheduling
beyond the driver's cost (its own bookkeeping, Calls, is taken to be in the
measured cost of a call), the driver's writes and renames (the header, its
fsync, the seal's file), workers slower than this one.
"""
from __future__ import annotations

import argparse
import heapq
import itertools
import json
import pickle
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from mancala import _core
from mancala.cluster.build import (FINISHED, build_task, chunk_runs, finish_run, finish_runs,
                                   part_path, pieces, touching)
from mancala.cluster.build_calls import FLIGHT, Calls
from mancala.cluster.build_plan import (FINISH_SECONDS, POSITION_SECONDS, Task, best_plan, plan,
                                        priorities)
from mancala.endgame import building, files
from mancala.endgame.sealing import values_digest

CALL_MS, TASK_MS = 0.50, 0.016     # the driver's CPU a call, and a task more in it
RULES = ("cut", "chains", "batches", "early")
HEAD_THREADS = 8                   # the driver's threads for a level's hash and check (sealing.THREADS)
LATENCY = 0.004     # from a call to the answer the driver sees, beyond the work (cluster_sim.py
                    # calibrate, local:2)


# -- measuring

class Measured:
    """Tasks' CPU seconds by (level, class, rows, cols); the finishing seconds
    of each run by (the plan's name, the run's first and last rank); each
    level's check when it is opened and its seal's hash on one thread; what
    each level's build from nothing found. Plans are made again each run
    (pure, fast)."""

    def __init__(self) -> None:
        self.tasks: Dict[Tuple, float] = {}
        self.runs: Dict[Tuple, float] = {}
        self.levels: Dict[int, Tuple[float, float]] = {}
        self.same: Dict[int, bool] = {}
        self.searched: Dict[int, int] = {}

    def kept(self) -> dict:
        return {"tasks": self.tasks, "runs": self.runs, "levels": self.levels,
                "same": self.same, "searched": self.searched}


class Plans:
    """The plans the driver makes for each (level, workers) under the rules,
    with the driver's time to make them."""

    def __init__(self, cut: bool) -> None:
        self.cut = cut
        self.made: Dict[Tuple[int, int], Tuple[List[Task], float]] = {}

    def __call__(self, n: int, workers: int) -> Tuple[List[Task], float]:
        if (n, workers) not in self.made:
            started = time.process_time()
            tasks = best_plan(n, workers)[1] if self.cut else plan(n, 2 * workers)
            self.made[n, workers] = tasks, time.process_time() - started
        return self.made[n, workers]


def digest(n: int, tasks: Sequence[Task]) -> Tuple[int, int]:
    """A plan's name among the measurements: its level and its tasks' rectangles."""
    return n, hash(tuple(key(n, task) for task in tasks))


def key(n: int, task: Task) -> Tuple:
    return n, task.a, task.rows, task.cols


def scratch_folder(size: int) -> str:
    """/dev/shm when it has room for a level and more, else the system's temporary folder."""
    try:
        if shutil.disk_usage("/dev/shm").free > 3 * size:
            return tempfile.mkdtemp(prefix="mancala-sim-", dir="/dev/shm")
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="mancala-sim-")


def same_bytes(path: str, offset: int, values, piece: int = 1 << 26) -> bool:
    """Whether the file holds values from offset on (compared a piece at a time)."""
    with open(path, "rb") as f, memoryview(values) as whole:
        f.seek(offset)
        for start in range(0, len(whole), piece):
            with whole[start:start + piece] as part:
                if f.read(len(part)) != part.tobytes():
                    return False
    return True


def part_from_level(n: int, task: Task, built, parts: str) -> None:
    """Write a task's part file from the level's built bytes (what building it writes)."""
    mine = bytearray(task.positions)
    for block, stride, row, col, rows, cols, at, apart in pieces(n, task):
        _core.egdb_copy_grid(mine, at, apart, built, block + row * stride + col, stride, rows, cols)
    with open(part_path(parts, task), "wb") as f:
        f.write(mine)


def measure_finish(measured: Measured, n: int, tasks: List[Task], runs, temp: str,
                   parts: str) -> None:
    """Each run's finishing (a range of whole checksum chunks), gathered from
    this plan's parts."""
    name = digest(n, tasks)
    for (start, stop), meeting in zip(runs, touching(n, tasks, runs)):
        if (name, start, stop) not in measured.runs:
            began = time.process_time()
            finish_run(n, temp, start, stop, meeting, parts, durable=False)
            measured.runs[name, start, stop] = time.process_time() - began


def measure_opening(measured: Measured, capture: str, n: int, root) -> None:
    """Level n's CPU seconds to be opened (checked: files.open_level, on its
    threads) and hashed for its seal on one thread (sealing.values_digest)."""
    started = time.process_time()
    level = files.open_level(capture, n, root, require_seal=False)
    try:
        check = time.process_time() - started
        started = time.process_time()
        values_digest(level.values, threads=1)
        measured.levels[n] = check, time.process_time() - started
    finally:
        level.close()


def measure_level(measured: Measured, capture: str, n: int,
                  wanted: Sequence[Tuple[List[Task], List[Tuple[int, int]]]], levels: List,
                  say) -> None:
    """Measure what level n's plans and their finishing runs hold that is not
    measured yet (see the module docstring); wanted: (plan, runs) pairs;
    levels: the levels 0..n, opened (files.Level)."""
    below = [level.values for level in levels[:n]]
    size = _core.egdb_level_size(n)
    unique: Dict[Tuple[int, int], Tuple[List[Task], List]] = {}
    for tasks, runs in wanted:                      # each plan's tasks, and its runs for each W
        unique.setdefault(digest(n, tasks), (tasks, []))[1].append(runs)
    todo = [(tasks, cuts) for name, (tasks, cuts) in unique.items()
            if any((name, *run) not in measured.runs for runs in cuts for run in runs)
            or any(key(n, task) not in measured.tasks for task in tasks)]
    if not todo and n in measured.same:
        return
    folder = scratch_folder(size)
    temp = os.path.join(folder, f"level-{n:02d}.tmp")
    try:
        with open(temp, "wb") as f:
            f.truncate(files.values_offset(n) + size)
        if n not in measured.same:
            tasks, cuts = max(todo, key=lambda plan: len(plan[0]))
            todo.remove((tasks, cuts))
            parts, searched = os.path.join(folder, "first"), 0
            os.mkdir(parts)
            for task in tasks:                          # from nothing, in plan order
                seconds, found = build_task(below, capture, n, task,
                                            [tasks[k] for k in task.needs], parts)
                measured.tasks.setdefault(key(n, task), seconds)
                searched += found
            for runs in cuts:
                measure_finish(measured, n, tasks, runs, temp, parts)
            shutil.rmtree(parts)
            measured.same[n] = same_bytes(temp, files.values_offset(n), levels[n].values)
            measured.searched[n] = searched
        built = bytes(levels[n].values).translate(FINISHED) if todo else b""
        for k, (tasks, cuts) in enumerate(todo):        # against the level's own parts
            parts = os.path.join(folder, f"plan-{k}")
            os.mkdir(parts)
            for task in tasks:
                part_from_level(n, task, built, parts)
            for task in tasks:
                if key(n, task) not in measured.tasks:
                    measured.tasks[key(n, task)] = build_task(
                        below, capture, n, task, [tasks[k] for k in task.needs], parts)[0]
            for runs in cuts:
                measure_finish(measured, n, tasks, runs, temp, parts)
            shutil.rmtree(parts)
        del built
        say(f"level {n}: {size:,} positions, plans of "
            + ", ".join(f"{len(tasks):,}" for tasks, _ in unique.values())
            + f" tasks; same bytes {measured.same[n]}, searched {measured.searched[n]}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- scheduling

def makespan(costs: Sequence[float], needs: Sequence[Sequence[int]], rank: Sequence[float],
             positions: Sequence[int], workers: int, call: float, per_task: float,
             driver: Dict[str, float] = None, call_positions: float = 0.0,
             chains: bool = True, latency: float = 0.0) -> float:
    """Wall time of tasks on workers as ClusterLevels runs them (see the module
    docstring): the driver's own Calls (mancala.cluster.build_calls) say each
    call, made one at a time, ``call + per_task * k`` seconds of the driver for
    a call of k tasks; a worker runs its calls in the order they came, a call's
    tasks in turn. The driver makes every call it can, then waits for a call
    to end and takes every call ended by then (ray.wait), as ClusterLevels
    does: a call ended while the driver was busy waits for it. ``latency``:
    the time from a call to the answer the driver sees, beyond the work, half
    before the worker has the call, half after it ends. driver, a dict, has
    the driver's time on the calls added to its "busy" and the calls to its
    "calls"."""
    calls = Calls(needs, positions, rank, workers, call_positions, chains)
    free_at = [0.0] * workers               # when a worker's last queued call ends
    events: List[Tuple[float, int, int, List[int]]] = []     # (time, order, worker, tasks)
    order = itertools.count()
    clock = busy_until = 0.0
    while not calls.finished:
        made = calls.next()
        while made is not None:
            worker, batch = made
            busy_until = max(busy_until, clock) + call + per_task * len(batch)
            if driver is not None:
                driver["busy"] = driver.get("busy", 0.0) + call + per_task * len(batch)
                driver["calls"] = driver.get("calls", 0) + 1
            free_at[worker] = max(busy_until + latency / 2, free_at[worker]) + sum(
                costs[t] for t in batch)
            heapq.heappush(events, (free_at[worker] + latency / 2, next(order), worker, batch))
            made = calls.next()
        clock = max(busy_until, events[0][0])      # the driver waits for a call to end
        while events and events[0][0] <= clock:   # and takes every one ended by then
            _, _, worker, batch = heapq.heappop(events)
            calls.ended(worker, batch)
    return clock


def finishing(n: int, workers: int, rules: Sequence[str]) -> List[Tuple[int, int]]:
    """Level n's finishing runs as the driver cuts them (before the rules: 2W runs)."""
    return finish_runs(n, workers) if "batches" in rules else chunk_runs(n, FLIGHT * workers)


def unmeasured(measured: Measured, plans: Plans, top: int, workers: Sequence[int],
               rules: Sequence[str]) -> Optional[str]:
    """What the build of levels 1..top on each of ``workers`` under ``rules``
    needs that ``measured`` lacks, in words (None: nothing)."""
    for w in workers:
        for n in range(1, top + 1):
            level_plan = plans(n, w)[0]
            if any(key(n, task) not in measured.tasks for task in level_plan):
                return f"level {n}'s tasks as cut for {w} workers"
            name = digest(n, level_plan)
            if any((name, *run) not in measured.runs for run in finishing(n, w, rules)):
                return f"level {n}'s finishing runs for {w} workers under these rules"
    return None


def simulate(measured: Measured, plans: Plans, top: int, workers: int, call: float,
             per_task: float, rules: Sequence[str], head_threads: int = HEAD_THREADS,
             latency: float = LATENCY) -> dict:
    """The build of levels 1..top on ``workers`` (see the module docstring)."""
    chains, batches = "chains" in rules, "batches" in rules
    build_call = call / POSITION_SECONDS if batches else 0.0      # a call's worth, in positions
    finish_call = call / FINISH_SECONDS if batches else 0.0
    seconds, tasks, before, cpu, opening = 0.0, 0, 0.0, 0.0, 0.0
    driver: Dict[str, float] = {}
    for n in range(1, top + 1):
        level_plan, planning = plans(n, workers)
        costs = [measured.tasks[key(n, task)] for task in level_plan]
        build = makespan(costs, [task.needs for task in level_plan], priorities(level_plan),
                         [task.positions for task in level_plan], workers, call, per_task, driver,
                         build_call, chains, latency)
        runs = finishing(n, workers, rules)
        name = digest(n, level_plan)
        run_costs = [measured.runs[(name, *run)] for run in runs]
        sizes = [stop - start for start, stop in runs]
        finish = makespan(run_costs, [()] * len(runs), sizes, sizes, workers, call, per_task,
                          driver, finish_call, chains, latency)
        hidden = before if n > 1 else 0.0    # planned while the level before was built
        level = max(0.0, planning - hidden) + opening + build + finish
        check, hashing = measured.levels[n] if head_threads else (0.0, 0.0)
        sealed = (hashing + check) / max(1, head_threads)   # the driver: seal_written, open_level
        opening = 0.0 if n == top else max(0.0, check - sealed) if "early" in rules else check
        level += sealed
        seconds += level
        before = level
        tasks += len(level_plan)
        cpu += sum(costs) + sum(run_costs)
    return {"workers": workers, "seconds": round(seconds, 3), "tasks": tasks,
            "calls": int(driver.get("calls", 0)), "cpu_seconds": round(cpu, 3),
            "driver_seconds": round(driver.get("busy", 0.0), 3), "rules": ",".join(rules) or "none"}


# -- the command

def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="cluster_sim_build",
                                description="Predict an endgame build's wall time on W cluster "
                                            "workers from its tasks measured here.")
    p.add_argument("--seeds", type=int, required=True, metavar="N")
    p.add_argument("--capture", default="standard", choices=["standard", "empty", "none"])
    p.add_argument("--workers", default="1,2,4,8,16,32,64,128,256,512,1024")
    p.add_argument("--rules", default=",".join(RULES),
                   help="the driver's rules on: some of cut, chains, batches, early, or "
                        "none (default all four)")
    p.add_argument("--call-ms", type=float, default=CALL_MS,
                   help=f"the driver's time a call (default {CALL_MS})")
    p.add_argument("--task-ms", type=float, default=TASK_MS,
                   help=f"the driver's time a task more in a call (default {TASK_MS})")
    p.add_argument("--latency-ms", type=float, default=LATENCY * 1000,
                   help=f"from a call to the answer the driver sees, beyond the work "
                        f"(default {LATENCY * 1000:g}, measured on local:2)")
    p.add_argument("--head-threads", type=int, default=HEAD_THREADS,
                   help=f"the driver's threads hashing and checking a level (default "
                        f"{HEAD_THREADS}: a head node of 8 cores or more); 0: a level's hash "
                        f"and checks not counted (as before they were)")
    p.add_argument("--cache", type=Path, default=None, metavar="DIR",
                   help="where the levels are (default: the cache); levels 0..N are built "
                        "there first where missing")
    p.add_argument("--json", action="store_true", help="one JSON object a line, per W")
    p.add_argument("--save", type=Path, default=None, metavar="FILE",
                   help="keep the measurements in FILE (pickle), level by level: a run "
                        "stopped and started again with it measures only what is missing, "
                        "and a run of other rules or workers only their new tasks")
    p.add_argument("--load", type=Path, default=None, metavar="FILE",
                   help="schedule the measurements a --save kept instead of measuring")
    args = p.parse_args(argv)
    workers = sorted({int(w) for w in args.workers.split(",")})
    rules = [] if args.rules == "none" else args.rules.split(",")
    if args.seeds < 1 or min(workers) < 1:
        p.error("--seeds and --workers are positive")
    if any(rule not in RULES for rule in rules):
        p.error(f"--rules is none or some of {', '.join(RULES)}, not {args.rules!r}")
    say = (lambda text: print(text, file=sys.stderr, flush=True))
    plans = Plans("cut" in rules)
    measured = Measured()
    kept = args.load if args.load is not None else args.save
    if kept is not None and kept.exists():
        with open(kept, "rb") as f:
            vars(measured).update(pickle.load(f))
    if args.load is None:
        built, levels = building.open_levels(args.capture, args.seeds, os.cpu_count() or 1,
                                             args.cache, None, None)
        if built:
            say(f"built levels {built[0]}..{built[-1]} in the cache first")
        started = time.perf_counter()
        for n in range(1, args.seeds + 1):
            measure_level(measured, args.capture, n,
                          [(plans(n, w)[0], finishing(n, w, rules)) for w in workers], levels, say)
            if args.save is not None:
                with open(f"{args.save}.tmp", "wb") as f:
                    pickle.dump(measured.kept(), f)
                os.replace(f"{args.save}.tmp", args.save)
        say(f"measured in {time.perf_counter() - started:.0f} s; "
            f"{len(measured.tasks):,} tasks known, {sum(measured.tasks.values()):.1f} CPU s")
    for n in range(1, args.seeds + 1):          # a level's check and hash: a few seconds in all
        if n not in measured.levels:
            measure_opening(measured, args.capture, n, args.cache)
    if args.save is not None:
        with open(f"{args.save}.tmp", "wb") as f:
            pickle.dump(measured.kept(), f)
        os.replace(f"{args.save}.tmp", args.save)
    if args.load is not None:
        gap = unmeasured(measured, plans, args.seeds, workers, rules)
        if gap:
            p.error(f"{args.load} holds no measurement of {gap}: measure it with --save "
                    f"{args.load} (only what is missing is measured)")
    rows = [simulate(measured, plans, args.seeds, w, args.call_ms / 1000, args.task_ms / 1000,
                     rules, args.head_threads, args.latency_ms / 1000) for w in workers]
    one = next((r["seconds"] for r in rows if r["workers"] == 1), None)
    for row in rows:
        row["speedup"] = round(one / row["seconds"], 2) if one else None
        row["efficiency"] = round(row["speedup"] / row["workers"], 3) if one else None
        row["same_bytes"] = all(measured.same.get(n, False) for n in range(1, args.seeds + 1))
        row["searched"] = sum(measured.searched.get(n, 0) for n in range(1, args.seeds + 1))
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"{args.capture} database of {args.seeds} seeds, rules {rows[0]['rules']}, driver "
          f"{args.call_ms} ms a call and {args.task_ms} ms a task; "
          f"same bytes as the cache: {rows[0]['same_bytes']}")
    print(f"{'workers':>8} {'wall':>10} {'speed-up':>9} {'efficiency':>10} {'tasks':>8} "
          f"{'calls':>8} {'CPU':>9} {'driver':>8}")
    for row in rows:
        print(f"{row['workers']:>8} {row['seconds']:>9.2f}s {row['speedup'] or 0:>9.2f} "
              f"{100 * (row['efficiency'] or 0):>9.0f}% {row['tasks']:>8,} {row['calls']:>8,} "
              f"{row['cpu_seconds']:>8.1f}s {row['driver_seconds']:>7.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
