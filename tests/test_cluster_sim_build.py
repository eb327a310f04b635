"""bench/cluster_sim_build.py replays the build driver's schedule on virtual
workers: the wall time and the driver's busy time worked by hand."""
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
    busy = [0.0]
    wall = makespan([3.0, 2.0, 1.0], [(), (), ()], [3.0, 2.0, 1.0], [1, 1, 1], 2, 0.5, 0.0, busy)
    assert wall == pytest.approx(4.5)
    assert busy[0] == pytest.approx(1.5)


def test_a_task_waits_for_the_call_that_carried_its_need_worked_by_hand():
    # B needs A; one worker; the driver 0.5 s a call and 0.25 s a task in it:
    # A sent at 0.75, runs to 1.75; B ready then, sent at 2.5, runs to 3.5
    busy = [0.0]
    wall = makespan([1.0, 1.0], [(), (0,)], [2.0, 1.0], [1, 1], 1, 0.5, 0.25, busy)
    assert wall == pytest.approx(3.5)
    assert busy[0] == pytest.approx(1.5)


def test_the_driver_alone_bounds_many_small_tasks():
    # 100 tasks of 1 ms on 64 workers, the driver 0.5 ms a call: whatever the
    # workers, the last call leaves the driver after 100 calls' time at least
    wall = makespan([0.001] * 100, [()] * 100, [0.001] * 100, [1] * 100, 64, 0.0005, 0.0)
    assert wall >= 100 * 0.0005
    assert wall == pytest.approx(100 * 0.0005 + 0.001)
