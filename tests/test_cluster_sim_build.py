"""bench/cluster_sim_build.py replays the build driver's schedule on virtual
workers (the driver's own calls, mancala.cluster.build_calls): the wall time,
the driver's busy time and its calls worked by hand, with chains and batches
and without."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from cluster_sim_build import makespan  # noqa: E402


def test_independent_tasks_on_two_workers_worked_by_hand():
    # tasks of 3, 2 and 1 s, the driver 0.5 s a call, one task a call (3 ready,
    # 4 free slots): the 3 s task to worker 0 at 0.5 (ends 3.5), the 2 s one to
    # worker 1 at 1.0 (ends 3.0), the 1 s one queued on worker 0 (two calls in
    # flight a worker; the fewest in flight, the first such worker): 3.5 to 4.5
    driver = {}
    wall = makespan([3.0, 2.0, 1.0], [(), (), ()], [3.0, 2.0, 1.0], [1, 1, 1], 2, 0.5, 0.0, driver)
    assert wall == pytest.approx(4.5)
    assert driver == {"busy": pytest.approx(1.5), "calls": 3}


def test_a_task_waits_for_the_call_that_carried_its_need_worked_by_hand():
    # B needs A; one worker; the driver 0.5 s a call and 0.25 s a task in it.
    # Without chains: A sent at 0.75, runs to 1.75; B ready then, sent at 2.5,
    # runs to 3.5. With them, B is the worker's own: queued behind A at 1.5,
    # it runs 1.75 to 2.75
    for chains, wall in ((False, 3.5), (True, 2.75)):
        driver = {}
        assert makespan([1.0, 1.0], [(), (0,)], [2.0, 1.0], [1, 1], 1, 0.5, 0.25, driver,
                        chains=chains) == pytest.approx(wall)
        assert driver == {"busy": pytest.approx(1.5), "calls": 2}


def test_the_driver_alone_bounds_many_small_tasks():
    # 100 tasks of 1 ms on 64 workers, the driver 0.5 ms a call: whatever the
    # workers, the last call leaves the driver after 100 calls' time at least
    wall = makespan([0.001] * 100, [()] * 100, [0.001] * 100, [1] * 100, 64, 0.0005, 0.0)
    assert wall >= 100 * 0.0005
    assert wall == pytest.approx(100 * 0.0005 + 0.001)


def test_a_chain_follows_its_need_to_the_worker_worked_by_hand():
    # A (1 s), B needs A (1 s), C (1 s); two workers; the driver 0.5 s a call.
    # A to worker 0 at 0.5 (runs to 1.5), C to worker 1 at 1.0 (to 2.0); B waits
    # only on worker 0's work: queued there at 1.5, it runs 1.5 to 2.5.
    # Without chains B is asked when A's call has ended: at 1.5 + 0.5, to 3.0.
    args = ([1.0, 1.0, 1.0], [(), (0,), ()], [2.0, 1.0, 1.0], [1, 1, 1], 2, 0.5, 0.0)
    driver = {}
    assert makespan(*args, driver) == pytest.approx(2.5)
    assert driver == {"busy": pytest.approx(1.5), "calls": 3}
    assert makespan(*args, chains=False) == pytest.approx(3.0)


def test_a_call_waits_for_the_driver_and_meets_every_call_ended_by_then_worked_by_hand():
    # A and B (1 s each, one worker each), C needs both (1 s); the driver 2 s a
    # call: A sent at 2 (runs to 3), B at 4 (to 5). When A ends at 3, C still
    # waits on worker 1's B: it is queued there at 6 (the driver free at 4,
    # the call 2 s), after B, and runs 6 to 7
    args = ([1.0, 1.0, 1.0], [(), (), (0, 1)], [2.0, 2.0, 1.0], [1, 1, 1], 2, 2.0, 0.0)
    assert makespan(*args) == pytest.approx(7.0)
    # without chains C waits for B's end (5), is sent at 7 and runs to 8
    assert makespan(*args, chains=False) == pytest.approx(8.0)


def test_batches_deal_the_ready_work_in_calls_of_its_square_root_worked_by_hand():
    # 100 independent tasks of 1 ms, one position each, on 64 workers; the driver
    # 0.5 ms a call, a call worth 1 position: a call takes sqrt(open) tasks (at
    # least one): 10, 9, 9, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1 (19
    # calls); call k is made at 0.5 k ms and holds its tasks' ms: each ends by
    # 10.5 ms. One task a call takes 100 calls and 51 ms.
    driver = {}
    wall = makespan([0.001] * 100, [()] * 100, [1.0] * 100, [1] * 100, 64, 0.0005, 0.0, driver,
                    call_positions=1)
    assert driver["calls"] == 19
    assert wall == pytest.approx(0.0105)
    assert makespan([0.001] * 100, [()] * 100, [1.0] * 100, [1] * 100, 64, 0.0005,
                    0.0) == pytest.approx(0.051)


def test_a_chain_saves_the_round_trip_s_latency_worked_by_hand():
    # B needs A, one worker, the driver 0.5 s a call, 1 s from a call to its
    # answer beyond the work (half before the worker has it, half after).
    # Chained: A sent at 0.5, there at 1.0, runs to 2.0; B sent at 1.0, there
    # at 1.5, runs 2.0 to 3.0, seen at 3.5. Not: A seen at 2.5, B sent at
    # 3.0, there at 3.5, runs to 4.5, seen at 5.0
    args = ([1.0, 1.0], [(), (0,)], [2.0, 1.0], [1, 1], 1, 0.5, 0.0, None, 0.0)
    assert makespan(*args, chains=True, latency=1.0) == pytest.approx(3.5)
    assert makespan(*args, chains=False, latency=1.0) == pytest.approx(5.0)


def test_a_kept_measurement_that_lacks_what_the_rules_need_is_one_line(tmp_path):
    """--load with rules whose plans or finishing runs were never measured: one
    line naming what is missing and how to measure it (a KeyError before)."""
    script = Path(__file__).resolve().parent.parent / "bench" / "cluster_sim_build.py"
    kept = tmp_path / "build.pkl"
    env = {**os.environ, "MANCALA_CACHE": str(tmp_path / "cache"),
           "MANCALA_HOME": str(tmp_path / "home")}
    made = subprocess.run([sys.executable, str(script), "--seeds", "3", "--workers", "1,4",
                           "--save", str(kept)], capture_output=True, text=True, env=env, timeout=300)
    assert made.returncode == 0, made.stderr
    done = subprocess.run([sys.executable, str(script), "--seeds", "3", "--workers", "1,4",
                           "--load", str(kept), "--rules", "none"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(
        f"measure it with --save {kept} (only what is missing is measured)"), done.stderr
