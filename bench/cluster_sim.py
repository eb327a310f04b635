"""How a cluster solve would scale: replay its journal on more workers.

    python bench/cluster_sim.py JOURNAL [--workers 1,2,4,...,1024] [--json]
    python bench/cluster_sim.py build --seeds N [--workers ...] [--json]   (bench/cluster_sim_build.py)

Every finished job of a real ``solve --cluster ... --journal JOURNAL`` run is
one line of the journal, with its measured time, the MTD(f) test it served and
the job it had to wait for (``after``: the one whose split made its position a
question, or the last try at the same position with half the budget). The replay runs
the manager's policy on W workers: a free worker takes the earliest job (in
the run's order) whose position has been split and whose test has begun; a
test begins when the last job of the one before it has finished (that job
settled it). It prints the predicted wall time, the speed-up over one worker
and the efficiency for each W.

Assumptions, said where the figures are used: the jobs are those of the real
run (more workers would ask more questions in flight at once, some of them
wasted, and finish some tests sooner by luck: neither is modelled), a job takes
the time it took (tables warm as they were), and the manager's own time and
the network are free (measured: the driver's share of a local run is small;
see docs/cluster.md, Measured here).
"""
import argparse
import heapq
import json
import sys
from pathlib import Path

from mancala.cluster.journal import FORMATS_READ, JournalError, read_records


def replay(jobs, workers):
    """Predicted wall time of jobs (dicts with seconds, test, after) on workers."""
    last_of_test = {}
    for number, job in enumerate(jobs):
        last_of_test[job["test"]] = number
    tests = sorted(last_of_test)
    previous = {t: last_of_test[tests[i - 1]] if i else None for i, t in enumerate(tests)}
    finish = [None] * len(jobs)
    waiting = list(range(len(jobs)))           # in the run's order
    running = []                               # heap of (finish time, job)
    clock, free = 0.0, workers

    def ready(number):
        job = jobs[number]
        for needed in (job["after"], previous[job["test"]]):
            if needed is not None and (finish[needed] is None or finish[needed] > clock):
                return False
        return True

    while waiting or running:
        started = True
        while free and started:
            started = False
            for i, number in enumerate(waiting):
                if ready(number):
                    finish[number] = clock + jobs[number]["seconds"]
                    heapq.heappush(running, (finish[number], number))
                    del waiting[i]
                    free -= 1
                    started = True
                    break
        if not running:
            raise ValueError("the journal's jobs wait on each other: nothing can start")
        clock, _ = heapq.heappop(running)
        free += 1
        while running and running[0][0] <= clock:
            heapq.heappop(running)
            free += 1
    return clock


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["build"]:           # python bench/cluster_sim.py build --seeds N ...
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from cluster_sim_build import main as build_main
        return build_main(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("journal", type=Path)
    p.add_argument("--workers", default="1,2,4,8,16,32,64,128,256,512,1024")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        counts = [int(w) for w in args.workers.split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--workers is a list of whole numbers from 1, such as 1,2,4, not {args.workers!r}")
    try:
        found = read_records(args.journal, None, FORMATS_READ)   # timings only: format 1 too
        jobs = found.jobs if found is not None else []
    except JournalError as exc:
        p.error(str(exc))
    if not jobs:
        p.error(f"{args.journal} holds no finished job")
    # a job's "after" names a job of the journal; one out of range is treated as already done
    for job in jobs:
        if job["after"] is not None and not 0 <= job["after"] < len(jobs):
            job["after"] = None
    serial = replay(jobs, 1)
    rows = []
    for count in counts:
        wall = replay(jobs, count)
        rows.append({"workers": count, "seconds": round(wall, 3), "speedup": round(serial / wall, 2),
                     "efficiency": round(serial / wall / count, 3)})
    if args.json:
        print(json.dumps({"jobs": len(jobs), "job_seconds": round(serial, 3), "rows": rows}, indent=2))
        return 0
    print(f"{len(jobs):,} jobs, {serial:,.1f} s of work, "
          f"{len({j['test'] for j in jobs})} tests")
    print(f"{'workers':>8} {'wall s':>10} {'speed-up':>9} {'efficiency':>10}")
    for row in rows:
        print(f"{row['workers']:>8} {row['seconds']:>10,.1f} {row['speedup']:>9.2f} "
              f"{row['efficiency']:>10.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
