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
from mancala.cluster import build, build_plan
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


def test_a_call_takes_ready_tasks_longest_chain_first_within_its_bounds():
    import heapq

    def ready(ranks):
        heap = [(-rank, task) for task, rank in enumerate(ranks)]
        heapq.heapify(heap)
        return heap

    small = [1000] * 40
    assert build.take(ready([5, 9, 7]), small, 10) == [1]              # 3 ready, 10 free: one
    assert build.take(ready(range(40)), small, 4) == [39, 38, 37, 36, 35, 34, 33, 32, 31, 30]
    assert len(build.take(ready(range(40)), small, 1)) == build.BATCH
    large = [build.BATCH_POSITIONS] * 40
    assert build.take(ready(range(40)), large, 1) == [39]               # a large task alone
