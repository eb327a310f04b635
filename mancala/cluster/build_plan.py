"""A level of an endgame database cut into tasks that many workers can build at
once: rectangles of its classes, and which must be built before which.

A class of level n (blocks a and b = n - a, csrc/egdb.h) is a grid: cell
(i, j) is the position whose mover holds row i of the a seeds' rows against
the opponent's row j of the b seeds' (block a), together with the reverse
one (block b: mover row j against row i). A move that banks nothing sows the
mover's seeds within his row: the row it leaves has pit p emptied and later
pits one seed more, so it ranks lower (rows rank lexicographically, pit 0
first), and the position it leads to is the other block's. So cell (i, j)
needs cells (i', j) whose row i' is one such sowing of row i, and cells
(i, j') for row j's sowings: a row's sowings lie in rows with fewer seeds in
an earlier pit. The rows with the same first k pits (a prefix) are a range of
ranks, and the prefixes one sowing leads to from a prefix are known from the
prefix alone (the seeds it moves past pit k do not matter), so:

* a class is cut along each axis into ranges of rows made of whole prefix
  groups (:class:`Axis`), and a task is a range of rows by a range of rows
  (both blocks' positions of it);
* a task needs the tasks whose rows hold its rows' sowings (:meth:`Axis.needs`):
  those of its rows' range by the others' range, and the reverse; every one
  ranks lower, so the tasks make no cycle;
* the cut is refined where it matters (:func:`cut_class`): the largest task on
  the class's longest chain of needs (its critical path, in positions) has its
  longer side halved, prefix groups split into their next pit's, till that
  path is short enough for the parallelism asked or no task on it is worth
  splitting.

In a's own class (2a = n) the grid is symmetric: its cells (i, j) and (j, i)
are one task, a square on the diagonal or a rectangle below it. The passes
that build a task meet its needs inside it in rank order; the needs outside
come from tasks already built (csrc/egdb_build.h, egdb_build_rect).

Pure arithmetic: nothing here knows of Ray, files or threads.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from math import comb
from typing import Dict, List, Sequence, Tuple

from mancala.geometry import PITS

MIN_TASK = 1 << 18          # positions: a task of fewer is not split (~5 ms of a core)
# What a task costs a core (fit by least squares to 6,089 tasks of levels 1..22 measured by
# bench/cluster_sim_build.py): its own memory and files, each position built, each position
# read from the parts of the tasks it needs; a level's finishing, a position; and the
# driver's CPU for a call (Ray's, measured on local:2 under load).
TASK_SECONDS = 1.1e-3
POSITION_SECONDS = 2.0e-8
NEED_SECONDS = 4.5e-9
FINISH_SECONDS = 2.5e-9
CALL_SECONDS = 5.0e-4


def row_count(total: int, pits: int = PITS) -> int:
    """Rows of `pits` pits holding `total` seeds."""
    return comb(total + pits - 1, pits - 1)


def group_size(prefix: Tuple[int, ...], total: int) -> int:
    """Rows of `total` seeds that begin with prefix."""
    return row_count(total - sum(prefix), PITS - len(prefix))


def group_start(prefix: Tuple[int, ...], total: int) -> int:
    """The first rank of the rows that begin with prefix (egdb_row_rank's order)."""
    rank, left = 0, total
    for i, seeds in enumerate(prefix):
        rest = PITS - 1 - i
        rank += comb(left + rest, rest) - comb(left - seeds + rest, rest)
        left -= seeds
    return rank


def sowings(prefix: Tuple[int, ...]) -> List[Tuple[int, ...]]:
    """The prefixes a row beginning with prefix has after one move that stays
    in its level (sown within the row: pit m's s seeds land in pits m+1..m+s,
    s < 6 - m), for the pits m inside the prefix; pits after it keep it."""
    found = []
    for m, seeds in enumerate(prefix):
        if 0 < seeds < PITS - m:
            after = list(prefix)
            after[m] = 0
            for q in range(m + 1, min(m + seeds, len(prefix) - 1) + 1):
                after[q] += 1
            found.append(tuple(after))
    return found


class Part:
    """A range of rows made of whole prefix groups: its groups, rows, first rank,
    and the ranges of rows one sowing leads to from it (outside it)."""
    __slots__ = ("groups", "size", "start", "reach")

    def __init__(self, groups: List[Tuple[int, ...]], total: int) -> None:
        self.groups = groups
        self.size = sum(group_size(g, total) for g in groups)
        self.start = group_start(groups[0], total)
        lo, hi = self.start, self.start + self.size
        found = []
        for group in groups:
            for target in sowings(group):
                first = group_start(target, total)
                last = first + group_size(target, total)
                if last <= lo or first >= hi:
                    found.append((first, last))
                else:                        # partly inside: the rest outside
                    if first < lo:
                        found.append((first, lo))
                    if last > hi:
                        found.append((hi, last))
        merged: List[List[int]] = []
        for first, last in sorted(found):
            if merged and first <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        self.reach = [(first, last) for first, last in merged]


class Axis:
    """The rows of one block (``total`` seeds) cut into parts: ranges of whole
    prefix groups, in rank order."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.parts: List[Part] = [Part([()], total)]

    def size(self, k: int) -> int:
        return self.parts[k].size

    def span(self, k: int) -> Tuple[int, int]:
        """Part k's rows, as a range of ranks."""
        return self.parts[k].start, self.parts[k].start + self.parts[k].size

    def reach(self, k: int) -> List[Tuple[int, int]]:
        """The ranges of rows one sowing leads to from part k's rows, outside it
        (merged, in rank order)."""
        return self.parts[k].reach

    def needs(self) -> List[List[int]]:
        """For each part, the parts holding its rows' sowings (all ranked lower)."""
        starts = [part.start for part in self.parts]
        found = []
        for k, part in enumerate(self.parts):
            parts = set()
            for first, last in part.reach:
                p = bisect.bisect_right(starts, first) - 1
                while p < len(starts) and starts[p] < last:
                    parts.add(p)
                    p += 1
            parts.discard(k)
            found.append(sorted(parts))
        return found

    def split(self, k: int) -> bool:
        """Halve part k (by rows): its groups in two runs, a single group into its
        next pit's groups first. False if it is one row."""
        groups = self.parts[k].groups
        while len(groups) == 1:
            if len(groups[0]) >= PITS - 1:
                return False
            left = self.total - sum(groups[0])
            groups = [groups[0] + (seeds,) for seeds in range(left + 1)]
        sizes = [group_size(g, self.total) for g in groups]
        half, run, cut = sum(sizes) / 2, 0, 1
        for cut in range(1, len(groups)):
            run += sizes[cut - 1]
            if run + sizes[cut] / 2 >= half:
                break
        self.parts[k:k + 1] = [Part(groups[:cut], self.total), Part(groups[cut:], self.total)]
        return True


@dataclass(frozen=True)
class Task:
    """A rectangle of a class: rows `rows` of block a's rows by rows `cols` of
    block b's (b = n - a), both blocks' positions; `needs`: the tasks (numbers
    in the level's plan) that must be built first."""
    number: int
    a: int
    rows: Tuple[int, int]
    cols: Tuple[int, int]
    needs: Tuple[int, ...]
    positions: int
    reach_rows: Tuple[Tuple[int, int], ...] = ()    # rows the rows' sowings lie in, outside rows
    reach_cols: Tuple[Tuple[int, int], ...] = ()


def _cells(self_class: bool, x: int, y: int, rows: int, cols: int) -> int:
    return rows * cols * (1 if self_class and x == y else 2)


def _critical(xs: Axis, ys: Axis, self_class: bool):
    """The finish times (longest chain of needs ending at each task, in
    positions) and the chain of the longest, as (x, y) parts."""
    need_x, need_y = xs.needs(), ys.needs()
    size_x = [xs.size(k) for k in range(len(xs.parts))]
    size_y = [ys.size(k) for k in range(len(ys.parts))]
    finish: Dict[Tuple[int, int], int] = {}
    before: Dict[Tuple[int, int], object] = {}

    def key(x: int, y: int) -> Tuple[int, int]:
        return (min(x, y), max(x, y)) if self_class else (x, y)

    for x in range(len(size_x)):
        for y in range(len(size_y)):
            if self_class and x > y:
                continue
            best, by = 0, None
            for other in [key(p, y) for p in need_x[x]] + [key(x, q) for q in need_y[y]]:
                if finish[other] > best:
                    best, by = finish[other], other
            finish[(x, y)] = _cells(self_class, x, y, size_x[x], size_y[y]) + best
            before[(x, y)] = by
    end = max(finish, key=finish.get)
    chain = [end]
    while before[chain[-1]] is not None:
        chain.append(before[chain[-1]])
    return finish[end], chain


def cut_class(n: int, a: int, longest: int) -> Tuple[Axis, Axis]:
    """Class a's axes, refined till its longest chain of needs holds at most
    `longest` positions (or no task on it has MIN_TASK positions to split):
    each round halves the longer side of every task on that chain with at
    least a quarter of the largest one's positions."""
    b = n - a
    xs = Axis(a)
    ys = xs if a == b else Axis(b)
    if a == 0:
        return xs, ys
    self_class = a == b
    while True:
        length, chain = _critical(xs, ys, self_class)
        if length <= longest:
            return xs, ys
        cost = {t: _cells(self_class, t[0], t[1], xs.size(t[0]), ys.size(t[1])) for t in chain}
        largest = max(cost.values())
        if largest < MIN_TASK:
            return xs, ys
        halves = set()              # (axis, part): each part once a round
        for x, y in sorted(chain, key=cost.get, reverse=True):
            if cost[(x, y)] * 4 < largest:
                break
            sides = [(xs, x), (ys, y)] if xs.size(x) >= ys.size(y) else [(ys, y), (xs, x)]
            for axis, k in sides:
                if (id(axis), axis.parts[k].start) in halves:
                    break
                if len(axis.parts[k].groups) > 1 or len(axis.parts[k].groups[0]) < PITS - 1:
                    halves.add((id(axis), axis.parts[k].start))
                    break
        if not halves:
            return xs, ys
        for axis in ([xs] if self_class else [xs, ys]):
            for start in sorted((s for i, s in halves if i == id(axis)), reverse=True):
                k = next(k for k, part in enumerate(axis.parts) if part.start == start)
                axis.split(k)


def plan(n: int, parallelism: int) -> List[Task]:
    """Level n cut so that no chain of needs holds more than 1/parallelism of
    its positions (as far as MIN_TASK allows): its tasks, numbered, each
    after every task it needs (any order that keeps that is a build order)."""
    blocks = [row_count(a) * row_count(n - a) for a in range(n + 1)]
    longest = max(MIN_TASK, sum(blocks) // max(1, parallelism))
    tasks: List[Task] = []
    for a in range(n // 2 + 1):
        xs, ys = cut_class(n, a, longest)
        self_class = 2 * a == n
        need_x, need_y = xs.needs(), ys.needs()
        number: Dict[Tuple[int, int], int] = {}
        base = len(tasks)
        # rank order of (x, y): every need of a task (lower x or lower y) comes first
        for x in range(len(xs.parts)):
            for y in range(len(ys.parts)):
                if self_class and x > y:
                    continue
                number[(x, y)] = base + len(number)
        for (x, y), k in sorted(number.items(), key=lambda item: item[1]):
            needs = {number[(min(p, y), max(p, y)) if self_class else (p, y)] for p in need_x[x]}
            needs |= {number[(min(x, q), max(x, q)) if self_class else (x, q)] for q in need_y[y]}
            tasks.append(Task(k, a, xs.span(x), ys.span(y), tuple(sorted(needs)),
                              _cells(self_class, x, y, xs.size(x), ys.size(y)),
                              tuple(xs.reach(x)), tuple(ys.reach(y))))
    return tasks


def needed_positions(task: Task, n: int) -> int:
    """The positions a task of level n reads from the tasks it needs: block b's
    rows of its cols by the rows its rows' sowings lie in, and block a's rows
    of its rows by its cols'."""
    (i0, i1), (j0, j1) = task.rows, task.cols
    return ((j1 - j0) * sum(hi - lo for lo, hi in task.reach_rows)
            + (i1 - i0) * sum(hi - lo for lo, hi in task.reach_cols))


def task_seconds(task: Task, n: int) -> float:
    """What a task of level n costs a core, by the model above."""
    return (TASK_SECONDS + POSITION_SECONDS * task.positions
            + NEED_SECONDS * needed_positions(task, n))


def estimate(tasks: Sequence[Task], n: int, workers: int) -> float:
    """Seconds a plan of level n would take on ``workers``, by the model: the
    larger of its tasks' CPU shared by the workers and its longest chain of
    needs, plus the driver's calls as if each task took one. (Chosen by
    bench/cluster_sim_build.py: over levels 16..26 the plans it picks build
    in 1.00 times the simulated time of each level's best plan on 64
    workers, 1.01 on 256, 1.11 on 16, where the CPU plus the chain, Graham's
    bound, picks 1.45 times it: too fine a cut, bound by the driver.)"""
    cost = [task_seconds(task, n) for task in tasks]
    finish = [0.0] * len(tasks)
    for task in tasks:
        finish[task.number] = cost[task.number] + max((finish[k] for k in task.needs), default=0.0)
    return max(sum(cost) / workers, max(finish, default=0.0)) + CALL_SECONDS * len(tasks)


def best_plan(n: int, workers: int) -> Tuple[int, List[Task]]:
    """Level n cut no finer than pays on ``workers``: of the plans for
    parallelism 1, 2, 4, ... 4 x workers, the one :func:`estimate` says is
    done first (the coarser on a tie: a finer cut costs every task more, and
    the driver more calls; none finer once the driver's calls alone would
    take longer). Its parallelism and its tasks."""
    best: Tuple[float, int, List[Task]] = (float("inf"), 0, [])
    parallelism = 1
    while parallelism <= 4 * workers:
        tasks = plan(n, parallelism)
        if CALL_SECONDS * len(tasks) >= best[0]:    # a finer cut's calls alone take longer
            break
        seconds = estimate(tasks, n, workers)
        if seconds < best[0] * (1 - 1e-9):
            best = (seconds, parallelism, tasks)
        parallelism *= 2
    return best[1], best[2]


def priorities(tasks: Sequence[Task], cost=None) -> List[float]:
    """Each task's longest chain of tasks that need it, itself included (by
    ``cost(task)``, default its positions): the order a list scheduler takes
    ready tasks in, largest first (the critical path first)."""
    cost = cost or (lambda task: task.positions)
    needed_by: List[List[int]] = [[] for _ in tasks]
    for task in tasks:
        for k in task.needs:
            needed_by[k].append(task.number)
    rank = [0.0] * len(tasks)
    for task in reversed(tasks):                 # every task after those it needs
        rank[task.number] = cost(task) + max((rank[k] for k in needed_by[task.number]), default=0.0)
    return rank


def longest_chain(tasks: Sequence[Task]) -> int:
    """The positions on the plan's longest chain of needs."""
    finish = [0] * len(tasks)
    for task in tasks:
        finish[task.number] = task.positions + max((finish[k] for k in task.needs), default=0)
    return max(finish, default=0)


__all__ = ["Task", "Axis", "plan", "best_plan", "estimate", "task_seconds", "needed_positions",
           "priorities", "longest_chain", "cut_class", "row_count", "sowings", "MIN_TASK",
           "CALL_SECONDS", "POSITION_SECONDS", "FINISH_SECONDS"]
