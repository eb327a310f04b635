"""A level cut into tasks for a cluster (mancala.cluster.build_plan) and built
by them (mancala.cluster.build's task functions, here without Ray): the plan's
row arithmetic is the rows' own (enumerated by brute force, ordered as the
core ranks them), its tasks cover every position once and each comes after
what it needs, and tasks built in any order their needs allow make the local
build's files byte for byte, with nothing left to the search."""
import itertools
import os
import random

import pytest

from mancala import _core
from mancala.cluster import build, build_calls, build_plan
from mancala.endgame import building, files


def rows_of(total):
    """Every row of six pits holding `total` seeds, lowest first (pit 0 first)."""
    return sorted(r for r in itertools.product(range(total + 1), repeat=6) if sum(r) == total)


@pytest.mark.parametrize("total", [1, 4, 7])
def test_rows_rank_as_the_core_ranks_them_and_groups_are_their_prefixes(total):
    rows = rows_of(total)
    opponent = (1, 0, 0, 0, 0, 0)
    for rank, row in enumerate(rows):           # the core's rank: block, mover's row, opponent's
        level, position = _core.egdb_rank_of(list(row) + [0] + list(opponent) + [0], 0)
        first = _core.egdb_blocks(level)[total][0]
        assert (position - first) // build_plan.row_count(1) == rank
    for k in range(6):
        for prefix in {row[:k] for row in rows}:
            ranks = [i for i, row in enumerate(rows) if row[:k] == prefix]
            assert ranks == list(range(ranks[0], ranks[0] + len(ranks)))     # a range of ranks
            assert build_plan.group_start(prefix, total) == ranks[0]
            assert build_plan.group_size(prefix, total) == len(ranks)


@pytest.mark.parametrize("total", [3, 8])
def test_a_move_within_the_row_goes_to_a_lower_row_of_a_prefix_the_plan_names(total):
    """A move that banks nothing sows pit m's s < 6 - m seeds into pits m+1..m+s."""
    rows = rows_of(total)
    rank = {row: i for i, row in enumerate(rows)}
    for row in rows:
        for m in range(6):
            s = row[m]
            if not 0 < s < 6 - m:
                continue
            after = list(row)
            after[m] = 0
            for q in range(m + 1, m + s + 1):
                after[q] += 1
            after = tuple(after)
            assert rank[after] < rank[row]
            for k in range(6):
                if m < k:
                    assert after[:k] in build_plan.sowings(row[:k]), (row, m, k)
                else:
                    assert after[:k] == row[:k]


@pytest.fixture
def small_tasks(monkeypatch):
    monkeypatch.setattr(build_plan, "MIN_TASK", 64)


@pytest.mark.parametrize("n, parallelism", [(1, 4), (9, 4), (12, 64), (13, 300)])
def test_tasks_cover_every_position_once_and_come_after_what_they_need(n, parallelism, small_tasks):
    tasks = build_plan.plan(n, parallelism)
    size = _core.egdb_level_size(n)
    cover = bytearray(size)
    for task in tasks:
        assert all(k < task.number for k in task.needs)
        covered = 0
        for block, stride, row, col, rows, cols, _, _ in build.pieces(n, task):
            for r in range(row, row + rows):
                run = slice(block + r * stride + col, block + r * stride + col + cols)
                cover[run] = bytes(b + 1 for b in cover[run])
                covered += cols
        assert covered == task.positions
    assert set(cover) == {1}
    if n >= 12:
        assert build_plan.longest_chain(tasks) <= size // parallelism + size // 50


def test_a_level_of_a_billion_positions_is_cut_for_a_thousand_workers():
    """Issue 32: level 28 (1.68 billion positions) so that no chain of needs
    holds more than a thousandth of it: a thousand workers can all be busy."""
    tasks = build_plan.plan(28, 1024)
    size = _core.egdb_level_size(28)
    assert size > 10 ** 9
    assert sum(task.positions for task in tasks) == size
    assert build_plan.longest_chain(tasks) * 1000 <= size
    assert len(tasks) >= 1000


def test_one_worker_builds_each_class_whole():
    """Nothing to share: level 20's 11 classes (a = 0..10), one task each."""
    parallelism, tasks = build_plan.best_plan(20, 1)
    assert len(tasks) == 20 // 2 + 1
    assert sorted(task.a for task in tasks) == list(range(11))
    assert all(not task.needs for task in tasks)


@pytest.mark.parametrize("n, workers", [(16, 256), (20, 64), (24, 16), (24, 256)])
def test_a_level_is_cut_no_finer_than_pays(n, workers):
    """The plan chosen is the one the model says ends first among every
    parallelism 1, 2, 4 .. 4W (brute force); the old rule's cut (2W) is
    never finer than needed: on these levels it made 1.3 to 35 times the
    tasks."""
    parallelism, tasks = build_plan.best_plan(n, workers)
    every = {p: build_plan.plan(n, p) for p in [1 << k for k in range(13) if 1 << k <= 4 * workers]}
    seconds = {p: build_plan.estimate(plan, n, workers) for p, plan in every.items()}
    assert seconds[parallelism] == min(seconds.values())
    assert tasks == every[parallelism]
    assert len(tasks) < len(every[2 * workers])


def test_the_model_s_estimate_worked_by_hand():
    """Level 4 whole on 2 workers: its classes a = 0, 1, 2 hold 1 x 126 x 2,
    6 x 56 x 2 and 21 x 21 positions and need nothing; the CPU shared (the
    larger here than the longest task) plus a call a task."""
    tasks = build_plan.plan(4, 1)
    assert [(task.a, task.positions, task.needs) for task in tasks] == [
        (0, 252, ()), (1, 672, ()), (2, 441, ())]
    cpu = 3 * build_plan.TASK_SECONDS + 1365 * build_plan.POSITION_SECONDS
    assert build_plan.estimate(tasks, 4, 2) == pytest.approx(cpu / 2 + 3 * build_plan.CALL_SECONDS)


def test_a_level_is_finished_in_runs_that_end_together():
    """Level 26 (854,992,152 positions) on 64 workers: sqrt(2 x 855 M / 200,000)
    = 92 runs would pay, one a worker is 64; each a call's worth (200,000
    positions finished) smaller than the one before: the first about 855 M /
    64 + 31.5 x 200,000 = 19.66 M, the last 7.06 M, within a chunk (1 M at
    most). In order, whole chunks, the whole level. A small level is one run;
    one worker has runs of about 2^25 positions."""
    size = _core.egdb_level_size(26)
    chunks = _core.egdb_chunks(26)
    runs = build.finish_runs(26, 64)
    bounds = {start for start, _ in chunks} | {size}
    assert runs[0][0] == 0 and runs[-1][1] == size
    assert all(runs[k][1] == runs[k + 1][0] for k in range(len(runs) - 1))
    assert all(start in bounds and stop in bounds for start, stop in runs)
    assert len(runs) == 64
    largest = max(stop - start for start, stop in chunks)
    assert abs(runs[0][1] - runs[0][0] - 19_659_252) <= largest
    assert abs(runs[-1][1] - runs[-1][0] - 7_059_252) <= largest
    assert build.finish_runs(4, 16) == [(0, 1365)]
    assert len(build.finish_runs(26, 1)) == -(-size // 2 ** 25) == 26


def build_by_tasks(n, parallelism, root, capture, folder, seed):
    """Level n built by its tasks in a random order their needs allow, then
    finished in runs: (the level's values, its header, positions searched)."""
    levels = [files.open_level(capture, k, root) for k in range(n)]
    below = [level.values for level in levels]
    tasks = build_plan.plan(n, parallelism)
    parts = folder / "parts"
    parts.mkdir()
    temp = folder / "level.tmp"
    with open(temp, "wb") as f:
        f.truncate(files.values_offset(n) + _core.egdb_level_size(n))
    waiting = [len(task.needs) for task in tasks]
    needed_by = [[] for _ in tasks]
    for task in tasks:
        for d in task.needs:
            needed_by[d].append(task.number)
    ready = [task.number for task in tasks if not task.needs]
    rng, searched = random.Random(seed), 0
    while ready:
        k = ready.pop(rng.randrange(len(ready)))
        searched += build.build_task(below, capture, n, tasks[k], [tasks[d] for d in tasks[k].needs],
                                     str(parts))[1]
        for later in needed_by[k]:
            waiting[later] -= 1
            if not waiting[later]:
                ready.append(later)
    assert not any(waiting)
    runs = build.chunk_runs(n, 3)
    hashes = []
    for (start, stop), meeting in zip(runs, build.touching(n, tasks, runs)):
        hashes += build.finish_run(n, str(temp), start, stop, meeting, str(parts), durable=False)
    data = temp.read_bytes()
    for level in levels:
        level.close()
    return data[files.values_offset(n):], files.header(capture, n, hashes), searched


@pytest.mark.parametrize("capture", ["standard", "empty"])
@pytest.mark.parametrize("n, parallelism", [(8, 1), (10, 16), (11, 100),
                                            pytest.param(12, 2000, marks=pytest.mark.slow)])
def test_tasks_built_in_any_order_their_needs_allow_are_the_local_build(tmp_path, capture, n,
                                                                        parallelism, small_tasks):
    root = tmp_path / "local"
    building.build_levels(capture, n, root=root, threads=1)
    whole = files.level_path(capture, n, root).read_bytes()
    folder = tmp_path / "cluster"
    folder.mkdir()
    values, head, searched = build_by_tasks(n, parallelism, root, capture, folder, seed=n)
    assert head + values == whole                        # header, checksums and values
    assert searched == 0                                 # every need was in the parts read


def test_a_position_no_task_built_is_refused_when_the_level_is_finished(tmp_path, small_tasks):
    n = 9
    building.build_levels("standard", n - 1, root=tmp_path, threads=1)
    below = [files.open_level("standard", k, tmp_path).values for k in range(n)]
    tasks = build_plan.plan(n, 16)
    parts = tmp_path / "parts"
    parts.mkdir()
    temp = tmp_path / "level.tmp"
    with open(temp, "wb") as f:
        f.truncate(files.values_offset(n) + _core.egdb_level_size(n))
    for task in tasks:
        build.build_task(below, "standard", n, task, [tasks[d] for d in task.needs], str(parts))
    lost = max(tasks, key=lambda task: task.positions)
    with open(build.part_path(str(parts), lost), "r+b") as f:
        f.write(bytes(lost.positions))                  # as if it had never been built
    start, stop = 0, _core.egdb_level_size(n)
    with pytest.raises(ValueError, match="was never built"):
        build.finish_run(n, str(temp), start, stop, tasks, str(parts), durable=False)
    assert os.path.getsize(temp) == files.values_offset(n) + stop


def test_a_call_carries_the_tasks_that_wait_only_on_its_worker_worked_by_hand():
    """Rule 1 (chains), one task a call (no batches): A; B needs A; C needs B
    and D; D. A goes to worker 0, D to worker 1 (the fewest calls in flight),
    B, waiting only on worker 0's A, is queued there behind it. C waits on
    both workers till D is done, then on worker 0 alone: queued there as soon
    as a slot is free (A's call ended), before B is done."""
    calls = build_calls.Calls([(), (0,), (1, 3), ()], [1] * 4, [3, 2, 1, 2], workers=2)
    assert calls.next() == (0, [0])                 # A, the longest chain first
    assert calls.next() == (1, [3])                 # D
    assert calls.next() == (0, [1])                 # B, worker 0's own
    assert calls.next() is None                     # C needs B and D, on two workers
    calls.ended(1, [3])
    assert calls.next() is None                     # C is worker 0's now: no slot there
    calls.ended(0, [0])
    assert calls.next() == (0, [2])                 # queued behind B
    assert not calls.finished
    calls.ended(0, [1])
    calls.ended(0, [2])
    assert calls.finished


def test_without_chains_a_task_waits_till_its_needs_are_done():
    calls = build_calls.Calls([(), (0,)], [1, 1], [2, 1], workers=1, chains=False)
    assert calls.next() == (0, [0])
    assert calls.next() is None
    calls.ended(0, [0])
    assert calls.next() == (0, [1])


def test_a_call_takes_the_square_root_of_the_open_work_times_a_call_s_worth():
    """Rule 2 (batches): 100 ready tasks of 1 position on 64 workers, a call
    worth 1 position: sqrt(100) = 10 in the first call, sqrt(90) -> 9 in the
    next; one a call when a call is worth nothing (100 / 128 free slots); a
    chain's tasks join a call as the ones before them are taken: 4 tasks in a
    row, each needing the one before, a call worth 4 positions: the first
    call holds sqrt(1 x 4) = 2 (the second is open once the first is in),
    the next the other 2. A ready share larger than that is taken whole."""
    calls = build_calls.Calls([()] * 100, [1] * 100, [1.0] * 100, workers=64, call_positions=1)
    assert calls.next() == (0, list(range(10)))
    assert calls.next() == (1, list(range(10, 19)))
    alone = build_calls.Calls([()] * 100, [1] * 100, [1.0] * 100, workers=64)
    assert alone.next() == (0, [0])
    row = build_calls.Calls([(), (0,), (1,), (2,)], [1] * 4, [4, 3, 2, 1], workers=1,
                            call_positions=4)
    assert row.next() == (0, [0, 1])
    assert row.next() == (0, [2, 3])
    large = build_calls.Calls([()] * 10, [100] * 10, [1.0] * 10, workers=1, call_positions=1)
    assert large.next() == (0, list(range(5)))      # 10 x 100 ready, 2 free slots: half each
