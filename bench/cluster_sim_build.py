"""How an endgame build on a cluster would scale: the cluster's tasks measured
here, then scheduled on W virtual workers.

    python bench/cluster_sim_build.py --seeds 28 --workers 1,2,4,...,1024 [--json]

(``python bench/cluster_sim.py build ...`` calls :func:`main`.)

1. **Measured.** For each W, the plan the driver of ``endgame build
   --cluster`` makes for W workers (mancala.cluster.build_plan, parallelism
   2W) for every level 1..N, and each of its tasks built here by the cluster
   workers' own function (mancala.cluster.build.build_task: its needs read
   from their part files, its rectangle built, its part written), one at a
   time on one thread, its CPU time measured, in memory of its own as a worker
   does (the pages a task touches are faulted in afresh each time: no worker
   is assumed to have kept them); a task that two plans share is measured
   once. Then the level's finishing (finish_run: gathered from the parts,
   values, checks, chunk hashes, written) a checksum chunk at a time, for
   each plan. The levels come from the cache (built there first where
   missing); the level's files live in a scratch folder (/dev/shm when it has
   room). For the finest plan every level is built from nothing in plan
   order, finished, and compared with the cached level: the same bytes, and
   no position left to the search (every need was in the parts read). The
   other plans are measured against parts cut from the cached level (a task
   reads and writes the same bytes either way, so it does the same work).
2. **Scheduled** as the driver schedules (mancala.cluster.build.ClusterLevels):
   a level's ready tasks, longest chain of needs first, in calls of one or
   more (build.take) to a worker with fewer than two calls in flight; a task's
   needs done before its call is made; the driver one call at a time, each
   costing it ``--call-ms`` and ``--task-ms`` a task in it (measured on
   local:2 under load: 0.50 ms of CPU a call and 0.016 ms a task more, 1,500
   calls of 1, 4 and 16 tasks); a worker's calls in turn, a call's tasks in
   turn, their needers released when the call ends; then the level's
   finishing runs (2W, each the sum of its chunks); then the next level.
   Planning a level overlaps the build of the one before (the driver plans a
   level ahead, on a thread): only what is longer than that build counts.

The speed-up is over the same simulation on one worker (whose plan keeps each
class whole). Not modelled: the network and the shared storage (a task's
reads and writes are its own CPU time here, from memory), Ray's scheduling
beyond the driver's cost, workers slower than this one.
"""
from __future__ import annotations

import argparse
import heapq
import json
import pickle
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from mancala import _core
from mancala.cluster.build import (FINISHED, FLIGHT, build_task, chunk_runs, finish_run,
                                   part_path, pieces, take, touching)
from mancala.cluster.build_plan import Task, plan, priorities
from mancala.endgame import building, files

CALL_MS, TASK_MS = 0.50, 0.016     # the driver's CPU a call, and a task more in it


# -- measuring

class Measured:
    """Tasks' CPU seconds by (level, class, rows, cols); chunks' finishing seconds."""

    def __init__(self) -> None:
        self.tasks: Dict[Tuple, float] = {}
        self.chunks: Dict[Tuple[int, int], List[float]] = {}
        self.plans: Dict[Tuple[int, int], Tuple[List[Task], float]] = {}
        self.same: Dict[int, bool] = {}
        self.searched: Dict[int, int] = {}

    def plan(self, n: int, parallelism: int) -> List[Task]:
        if (n, parallelism) not in self.plans:
            started = time.process_time()
            tasks = plan(n, parallelism)
            self.plans[n, parallelism] = tasks, time.process_time() - started
        return self.plans[n, parallelism][0]


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


def measure_finish(measured: Measured, n: int, parallelism: int, tasks: List[Task], temp: str,
                   parts: str) -> None:
    """Each checksum chunk's finishing, gathered from this plan's parts."""
    chunks = _core.egdb_chunks(n)
    costs = []
    for (start, stop), meeting in zip(chunks, touching(n, tasks, chunks)):
        began = time.process_time()
        finish_run(n, temp, start, stop, meeting, parts, durable=False)
        costs.append(time.process_time() - began)
    measured.chunks[n, parallelism] = costs


def measure_level(measured: Measured, capture: str, n: int, parallelisms: Sequence[int],
                  levels: List, say) -> None:
    """Measure level n's tasks and finishing for every parallelism (see the
    module docstring); levels: the levels 0..n, opened (files.Level)."""
    below = [level.values for level in levels[:n]]
    size = _core.egdb_level_size(n)
    folder = scratch_folder(size)
    temp = os.path.join(folder, f"level-{n:02d}.tmp")
    try:
        with open(temp, "wb") as f:
            f.truncate(files.values_offset(n) + size)
        finest, searched = max(parallelisms), 0
        tasks = measured.plan(n, finest)
        parts = os.path.join(folder, "finest")
        os.mkdir(parts)
        for task in tasks:                          # from nothing, in plan order
            seconds, found = build_task(below, capture, n, task,
                                        [tasks[k] for k in task.needs], parts)
            measured.tasks[key(n, task)] = seconds
            searched += found
        measure_finish(measured, n, finest, tasks, temp, parts)
        shutil.rmtree(parts)
        same = same_bytes(temp, files.values_offset(n), levels[n].values)
        measured.same[n] = same
        measured.searched[n] = searched
        built = bytes(levels[n].values).translate(FINISHED)
        for parallelism in parallelisms[:-1]:       # against the level's own parts
            tasks = measured.plan(n, parallelism)
            parts = os.path.join(folder, f"plan-{parallelism}")
            os.mkdir(parts)
            for task in tasks:
                part_from_level(n, task, built, parts)
            for task in tasks:
                if key(n, task) not in measured.tasks:
                    measured.tasks[key(n, task)] = build_task(
                        below, capture, n, task, [tasks[k] for k in task.needs], parts)[0]
            measure_finish(measured, n, parallelism, tasks, temp, parts)
            shutil.rmtree(parts)
        del built
        say(f"level {n}: {size:,} positions, "
            + ", ".join(f"{len(measured.plan(n, p)):,}" for p in parallelisms)
            + f" tasks; same bytes {same}, searched {searched}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- scheduling

def makespan(costs: Sequence[float], needs: Sequence[Sequence[int]], rank: Sequence[float],
             positions: Sequence[int], workers: int, call: float, per_task: float,
             driver_busy: List[float] = None) -> float:
    """Wall time of tasks on workers as ClusterLevels runs them (see the module
    docstring): the driver makes one call at a time, ``call + per_task * k``
    seconds for a batch of k (batch_size), to a worker with fewer than FLIGHT
    calls in flight, the ready tasks with the longest chain first; a worker
    runs its calls in the order they came, a call's tasks in turn, and their
    needers learn of them when the call ends. driver_busy, a list of one
    number, has the driver's time on the calls added to it."""
    count = len(costs)
    waiting = [len(k) for k in needs]
    needed_by: List[List[int]] = [[] for _ in range(count)]
    for task, before in enumerate(needs):
        for k in before:
            needed_by[k].append(task)
    ready = [(-rank[t], t) for t in range(count) if not waiting[t]]
    heapq.heapify(ready)
    load = [0] * workers                    # calls in flight (running or queued) a worker
    free_at = [0.0] * workers               # when a worker's last queued call ends
    events: List[Tuple[float, int, List[int]]] = []     # (time, worker, tasks): a call ends
    clock = driver = 0.0
    done = 0
    while done < count:
        while ready and min(load) < FLIGHT:
            worker = load.index(min(load))
            batch = take(ready, positions, FLIGHT * workers - sum(load))
            driver = max(driver, clock) + call + per_task * len(batch)
            if driver_busy is not None:
                driver_busy[0] += call + per_task * len(batch)
            start = max(driver, free_at[worker])
            free_at[worker] = start + sum(costs[t] for t in batch)
            load[worker] += 1
            heapq.heappush(events, (free_at[worker], worker, batch))
        clock, worker, batch = heapq.heappop(events)
        load[worker] -= 1
        for task in batch:
            done += 1
            for later in needed_by[task]:
                waiting[later] -= 1
                if not waiting[later]:
                    heapq.heappush(ready, (-rank[later], later))
    return clock


def simulate(measured: Measured, top: int, workers: int, call: float, per_task: float) -> dict:
    seconds, tasks, before, cpu = 0.0, 0, 0.0, 0.0
    driver = [0.0]
    for n in range(1, top + 1):
        level_plan, planning = measured.plans[n, 2 * workers]
        costs = [measured.tasks[key(n, task)] for task in level_plan]
        build = makespan(costs, [task.needs for task in level_plan],
                         priorities(level_plan, lambda task: measured.tasks[key(n, task)]),
                         [task.positions for task in level_plan], workers, call, per_task, driver)
        chunks = _core.egdb_chunks(n)
        first = {start: k for k, (start, _) in enumerate(chunks)}
        run_costs = []
        for start, stop in chunk_runs(n, FLIGHT * workers):
            k, total = first[start], 0.0
            while k < len(chunks) and chunks[k][0] < stop:
                total += measured.chunks[n, 2 * workers][k]
                k += 1
            run_costs.append(total)
        runs = run_costs
        finish = makespan(runs, [()] * len(runs), runs, [0] * len(runs), workers, call, per_task,
                          driver)
        hidden = before if n > 1 else 0.0    # planned while the level before was built
        level = max(0.0, planning - hidden) + build + finish
        seconds += level
        before = level
        tasks += len(level_plan)
        cpu += sum(costs) + sum(runs)
    return {"workers": workers, "seconds": round(seconds, 3), "tasks": tasks,
            "cpu_seconds": round(cpu, 3), "driver_seconds": round(driver[0], 3)}


# -- the command

def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="cluster_sim_build",
                                description="Predict an endgame build's wall time on W cluster "
                                            "workers from its tasks measured here.")
    p.add_argument("--seeds", type=int, required=True, metavar="N")
    p.add_argument("--capture", default="standard", choices=["standard", "empty", "none"])
    p.add_argument("--workers", default="1,2,4,8,16,32,64,128,256,512,1024")
    p.add_argument("--call-ms", type=float, default=CALL_MS,
                   help=f"the driver's time a call (default {CALL_MS})")
    p.add_argument("--task-ms", type=float, default=TASK_MS,
                   help=f"the driver's time a task more in a call (default {TASK_MS})")
    p.add_argument("--cache", type=Path, default=None, metavar="DIR",
                   help="where the levels are (default: the cache); levels 0..N are built "
                        "there first where missing")
    p.add_argument("--json", action="store_true", help="one JSON object a line, per W")
    p.add_argument("--save", type=Path, default=None, metavar="FILE",
                   help="keep the measurements in FILE (pickle), level by level: a run "
                        "stopped and started again with it measures only the levels missing")
    p.add_argument("--load", type=Path, default=None, metavar="FILE",
                   help="schedule the measurements a --save kept instead of measuring")
    args = p.parse_args(argv)
    workers = sorted({int(w) for w in args.workers.split(",")})
    if args.seeds < 1 or min(workers) < 1:
        p.error("--seeds and --workers are positive")
    say = (lambda text: print(text, file=sys.stderr, flush=True))
    if args.load is not None:
        measured = Measured()
        with open(args.load, "rb") as f:
            vars(measured).update(pickle.load(f))
    else:
        built, levels = building.open_levels(args.capture, args.seeds, os.cpu_count() or 1,
                                             args.cache, None, None)
        if built:
            say(f"built levels {built[0]}..{built[-1]} in the cache first")
        measured = Measured()
        if args.save is not None and args.save.exists():        # a run stopped: go on
            with open(args.save, "rb") as f:
                vars(measured).update(pickle.load(f))
        parallelisms = sorted({2 * w for w in workers})
        started = time.perf_counter()
        for n in range(1, args.seeds + 1):
            if all((n, p) in measured.chunks for p in parallelisms):
                continue
            measure_level(measured, args.capture, n, parallelisms, levels, say)
            if args.save is not None:
                with open(f"{args.save}.tmp", "wb") as f:
                    pickle.dump(vars(measured), f)
                os.replace(f"{args.save}.tmp", args.save)
        say(f"measured in {time.perf_counter() - started:.0f} s; "
            f"{len(measured.tasks):,} tasks, {sum(measured.tasks.values()):.1f} CPU s")
    rows = [simulate(measured, args.seeds, w, args.call_ms / 1000, args.task_ms / 1000)
            for w in workers]
    one = next((r["seconds"] for r in rows if r["workers"] == 1), None)
    for row in rows:
        row["speedup"] = round(one / row["seconds"], 2) if one else None
        row["efficiency"] = round(row["speedup"] / row["workers"], 3) if one else None
        row["same_bytes"] = all(measured.same.values())
        row["searched"] = sum(measured.searched.values())
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"{args.capture} database of {args.seeds} seeds, driver {args.call_ms} ms a call and "
          f"{args.task_ms} ms a task; "
          f"same bytes as the cache: {rows[0]['same_bytes']}")
    print(f"{'workers':>8} {'wall':>10} {'speed-up':>9} {'efficiency':>10} {'tasks':>8} {'CPU':>9} "
          f"{'driver':>8}")
    for row in rows:
        print(f"{row['workers']:>8} {row['seconds']:>9.2f}s {row['speedup'] or 0:>9.2f} "
              f"{100 * (row['efficiency'] or 0):>9.0f}% {row['tasks']:>8,} {row['cpu_seconds']:>8.1f}s "
              f"{row['driver_seconds']:>7.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
