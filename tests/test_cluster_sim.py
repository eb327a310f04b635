"""bench/cluster_sim.py runs the cluster's manager on virtual workers with a
node clock: the clock worked by hand, a stopped job's share computed exactly,
and, end to end, the true value whatever the number of workers, the same
numbers on every run and whatever the processes computing the jobs."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SIM = BENCH / "cluster_sim.py"
sys.path.insert(0, str(BENCH))

from cluster_sim import Ran, VirtualPool, abandoned  # noqa: E402

from mancala.cluster.manager import Job  # noqa: E402
from mancala.cluster.tree import expand  # noqa: E402

A, B, C = ((1,) * 12, 0), ((2,) * 12, 0), ((3,) * 12, 1)


class HandEngines:
    """Answers set by hand: nodes by position (a budget smaller than that: the budget)."""

    def __init__(self, nodes):
        self.nodes, self.asked = nodes, []

    def run(self, tasks):
        self.asked += tasks
        return [{"bound": 0, "move": None, "facts": [], "nodes": min(self.nodes[key], budget)}
                for worker, key, beta, budget in tasks]


def job(number, key, parent=None, budget=1000):
    return Job(number, key, 0, budget, 1, 0, False, parent)


def test_the_node_clock_worked_by_hand():
    # 100 nodes a second, no latency, a call of 0.5 s: A (300 nodes) is handed over
    # at 0.5 and ends at 3.5; B (100) at 1.0 and ends at 2.0; then C (200) is handed
    # over at 2.5 on B's worker (its parent's: a warm table) and ends at 4.5
    engines = HandEngines({A: 300, B: 100, C: 200})
    pool = VirtualPool(2, engines, rate=100, latency=0.0, call=0.5)
    a, b = job(0, A), job(1, B)
    pool.submit(a)
    pool.submit(b)
    assert {a.worker, b.worker} == {0, 1}
    first = pool.wait(0.25)
    assert [j.key for j, _ in first] == [B] and pool.now() == 2.0
    pool.submit(job(2, C, parent=B))
    assert pool.running[2][0].worker == b.worker
    assert [j.key for j, _ in pool.wait(0.25)] == [A] and pool.now() == 3.5
    assert [j.key for j, _ in pool.wait(0.25)] == [C] and pool.now() == 4.5
    assert pool.busy_seconds == 6.0
    assert [(ran.worker, ran.key) for ran in pool.log] == [(b.worker, B), (a.worker, A),
                                                           (b.worker, C)]


def test_a_stopped_job_is_computed_with_the_nodes_it_had_time_for():
    engines = HandEngines({A: 300, B: 100, C: 200})
    pool = VirtualPool(2, engines, rate=100, latency=0.0, call=0.0)
    a = job(0, A)
    pool.submit(a)                      # computed only when an answer is needed
    pool.cancel(a)
    pool.submit(job(1, B))
    pool.submit(job(2, C))
    (stopped, answer), = pool.wait(0.25)
    assert stopped is a and answer["stopped"] and answer["nodes"] == 0
    assert engines.asked[0] == (a.worker, A, 0, 1)     # its search so far: the smallest budget
    assert pool.stopped_after == 0
    pool.wait(0.25)                                     # B at 1 s, C runs on
    c = pool.running[2][0]
    pool.cancel(c)                      # C was computed whole to know it ends after B
    (_, answer), = pool.wait(0.25)
    assert answer["nodes"] == 100 and pool.stopped_after == 1


def test_abandoned_nodes_are_those_no_later_job_on_the_worker_went_on_from():
    # worker 0: A exhausted (1,000 nodes), then A again: kept; worker 1: B exhausted
    # and never followed there (abandoned), then C stopped (abandoned); worker 2: C
    # stopped, then one of C's moves (kept: its table goes on)
    child = next(e.child for e in expand(C, "standard") if e.child is not None)
    log = [Ran(*ran, 1, False) for ran in [
        (0, A, 0, 1000, 1.0, "exhausted"), (1, B, 0, 500, 0.5, "exhausted"),
        (0, A, 0, 4000, 4.0, "answered"), (1, C, 0, 70, 0.1, "stopped"),
        (2, C, 0, 900, 0.3, "stopped"), (2, child, 0, 50, 0.1, "answered")]]
    assert abandoned(log, "standard") == 570


def sim(*args, timeout=600):
    return subprocess.run([sys.executable, str(SIM), *args], capture_output=True, text=True,
                          timeout=timeout)


def test_kalah_6_3_on_virtual_workers_the_same_every_run():
    """The true value (+2, Kalah(6,3)) on 1 and 8 workers; one worker is idle only
    while the driver hands it a job or estimates;
    the same jobs, nodes and seconds on a second run, and with one process
    computing the jobs instead of two."""
    args = ["simulate", "--seeds", "3", "--endgame", "0", "--workers", "1,8", "--job-nodes", "20000",
            "--hash-mb", "8", "--baseline-mb", "16", "--json"]
    runs = []
    for processes in ("2", "2", "1"):
        done = sim(*args, "--processes", processes)
        assert done.returncode == 0, done.stderr
        runs.append([json.loads(line) for line in done.stdout.splitlines()])
    rows = runs[0]
    assert [(r["workers"], r["value"]) for r in rows] == [(1, 2), (8, 2)]
    one, eight = rows
    assert one["idle"] < 0.05 and eight["seconds"] < one["seconds"]   # idle: the driver's calls, estimates
    for row in rows:
        assert row["useful_nodes"] + row["wasted_nodes"] == row["nodes"] > 0
        assert 0 < row["critical_path"] <= row["seconds"] + 1e-9
        assert set(row) >= {"workers", "seconds", "speedup", "speedup_large", "efficiency", "nodes",
                            "wasted_nodes", "jobs", "value", "idle", "exhausted", "abandoned",
                            "critical_path"}
    same = [{k: v for k, v in r.items() if k not in ("real_seconds", "driver_seconds")}
            for run in runs for r in run]
    assert same[0:2] == same[2:4] == same[4:6]


@pytest.mark.parametrize("args, says", [
    (["simulate", "--seeds", "3", "--workers", "0,x"], "--workers is a list"),
    (["simulate", "--workers", "2"], "--seeds"),
    (["replay", "j.jsonl"], "invalid choice"),
])
def test_bad_input_is_one_line(args, says):
    done = sim(*args, timeout=60)
    assert done.returncode == 2 and says in done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr
