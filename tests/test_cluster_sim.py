"""bench/cluster_sim.py runs the cluster's manager on virtual workers: the virtual
clock worked by hand, a job's table as the worker's last job left it, jobs
computed once, and the true value whatever the number of workers."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SIM = BENCH / "cluster_sim.py"
sys.path.insert(0, str(BENCH))

from cluster_sim import VirtualPool  # noqa: E402

from mancala.cluster.manager import Job  # noqa: E402

A, B, C = ((1,) * 12, 0), ((2,) * 12, 0), ((3,) * 12, 1)


class HandJobs:
    """Answers set by hand: CPU seconds and nodes by position."""

    def __init__(self, costs):
        self.costs, self.asked = costs, []

    def get_many(self, tasks):
        self.asked += tasks
        return [{"bound": 0, "nodes": self.costs[question[0]][1], "cpu": self.costs[question[0]][0],
                 "facts": [], "move": None} for question, _ in tasks]


def job(number, key, parent=None):
    return Job(number, key, 0, 1000, 1, 0, False, parent)


def test_the_virtual_clock_worked_by_hand():
    # two workers: A (3 s) and B (1 s) start at 0; B ends at 1, then C (2 s) starts
    # on B's worker and ends at 3 with A: both come back at once, the clock at 3
    jobs = HandJobs({A: (3.0, 300), B: (1.0, 100), C: (2.0, 200)})
    pool = VirtualPool(2, jobs)
    pool.submit(job(0, A))
    pool.submit(job(1, B))
    first = pool.wait(0.25)
    assert [j.key for j, _ in first] == [B] and pool.now() == 1.0
    pool.submit(job(2, C, parent=B))                    # B's worker: its table is B's
    assert pool.running[2][2][1] == (((B, 0, 1000), True),) and pool.warm == 1
    both = pool.wait(0.25)
    assert sorted(j.id for j, _ in both) == [0, 2] and pool.now() == 3.0
    assert pool.busy_seconds == 6.0


def test_a_cancelled_job_costs_its_share_up_to_the_cancel():
    jobs = HandJobs({A: (3.0, 300), B: (1.0, 100), C: (2.0, 200)})
    pool = VirtualPool(2, jobs)
    a = job(0, A)
    pool.submit(a)
    pool.submit(job(1, B))
    pool.wait(0.25)                                     # B at 1 s
    pool.cancel(a)
    (stopped, answer), = pool.wait(0.25)
    assert stopped is a and answer["stopped"] and answer["nodes"] == 100 and pool.now() == 1.0
    assert pool.history[a.worker] == (((A, 0, 100), False),)   # its table: a third of A's search
    pool.submit(job(2, C))                              # neither A nor B nor their child: cleared
    assert pool.running[2][2][1] == ()


def sim(*args, timeout=600):
    return subprocess.run([sys.executable, str(SIM), *args], capture_output=True, text=True,
                          timeout=timeout)


def test_kalah_6_3_on_virtual_workers(tmp_path):
    """The true value (+2, Kalah(6,3)) on 1 and 8 workers; one worker is busy all
    the time; a second run computes nothing again and says the same."""
    cache = tmp_path / "jobs.sqlite"
    args = ["simulate", "--seeds", "3", "--endgame", "0", "--workers", "1,8", "--job-nodes", "100000",
            "--hash-mb", "8", "--baseline-mb", "16", "--cache", str(cache), "--json"]
    done = sim(*args)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["workers"], r["value"]) for r in rows] == [(1, 2), (8, 2)]
    one, eight = rows
    assert one["busy"] == 1.0 and one["seconds"] > 0 and eight["seconds"] < one["seconds"]
    for row in rows:
        assert row["useful_nodes"] + row["wasted_nodes"] == row["nodes"] > 0
        assert set(row) >= {"workers", "seconds", "speedup", "efficiency", "nodes", "wasted_nodes",
                            "jobs", "value"}
    again = sim(*args)
    rows_again = [json.loads(line) for line in again.stdout.splitlines()]
    assert [r["computed"] for r in rows_again] == [0, 0]
    keep = ("seconds", "nodes", "jobs", "wasted_nodes")
    assert [{k: r[k] for k in keep} for r in rows_again] == [{k: r[k] for k in keep} for r in rows]


@pytest.mark.parametrize("args, says", [
    (["simulate", "--seeds", "3", "--workers", "0,x"], "--workers is a list"),
    (["simulate", "--workers", "2"], "--seeds"),
    (["replay", "j.jsonl"], "invalid choice"),
])
def test_bad_input_is_one_line(args, says):
    done = sim(*args, timeout=60)
    assert done.returncode == 2 and says in done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr
