"""Endgame levels built on a Ray cluster: ``endgame build --seeds N --cluster ADDRESS``.

Level by level (level n reads only the levels below it and itself), each
level is cut into tasks (:mod:`mancala.cluster.build_plan`): rectangles of
its classes, each with the tasks it needs built first, so that no chain of
needs holds more than a share of the level, cut no finer than pays on the
workers there are (:func:`~mancala.cluster.build_plan.best_plan`: a finer
cut costs every task more; a level of a billion positions can be cut for a
thousand workers). The driver hands the tasks out in calls to
:class:`LevelWorker` actors (one a CPU, two calls in flight each), which
keep the levels below mapped (each checked once): a call carries a chain of
tasks the worker's own work releases, and as many ready ones as pay for the
call (:mod:`mancala.cluster.build_calls`), so the driver is not the
bottleneck on many workers.

A task copies the positions it needs from the files of the tasks it needs
into memory of its own (an anonymous mapping of the level's size: only the
pages it touches are given), builds its rectangle by passes
(csrc/egdb_build.h), and writes its positions, as built bytes, to a file of
its own in the level's parts folder (written whole, then renamed: one
writer a file, read by others only once it is there). Then the level is
finished by runs of its checksum chunks: each run gathers its positions from
the parts, turns them into values, checks that every one is a value of the
level (a position no task built would fail), hashes its chunks, and writes
its range of the level's temporary file, flushed to the disk. The driver
folds the hashes into the header, writes it, seals the file as this
installation's (its values hashed once: :mod:`mancala.endgame.sealing`), and
only then renames it into place, so no process ever meets the level at its
name unsealed; then it removes the parts. While the driver seals it, each
worker opens the file written (and checks it, as every level opened is
checked), so that the next level's first tasks do not wait for that. The bytes are the local
build's, so are the checksums, on any number of workers. Tasks are
idempotent: an actor that dies is restarted and its task retried. A stopped
build resumes at its first missing level, as a local one does (a killed
driver's parts folder is removed by the next build). The parts take as much
room as the level, till it is finished.

The folder (``--cache DIR``) must be the same path on every node: shared
storage such as NFS (a file written and closed on one node is read whole by
a node that opens it after; no two nodes write the same bytes).
"""
from __future__ import annotations

import bisect
import mmap
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import accumulate
from math import sqrt
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from mancala import _core
from mancala.board import capture_code
from mancala.cluster import ray_error_line, ray_module
from mancala._system import process_alive
from mancala.cluster.build_calls import Calls
from mancala.cluster.build_plan import (CALL_SECONDS, FINISH_SECONDS, POSITION_SECONDS, Task,
                                        best_plan, plan, priorities, row_count)
from mancala.endgame.files import (MAX_LEVEL, Level, header, level_path, open_level, sync_dir,
                                   values_offset)
from mancala.endgame.sealing import seal_written
from mancala.errors import ClusterError

RUN_MOST = 1 << 25      # positions a finishing run holds at most, about: past it a run costs
                        # more a position (its memory), and a worker needs more
PARTS_NAME = re.compile(r"level-\d\d\.bin\.(\d+)\.[^.]+\.parts")
FINISHED = bytes(b ^ 0x80 for b in range(256))      # a built byte's value, and back


def classes(n: int) -> List[List[Tuple[int, int]]]:
    """Level n's classes, largest first: the rank ranges of blocks a and n - a,
    for a = 0..n // 2 (no position of one leads to another of its level)."""
    blocks = _core.egdb_blocks(n)
    found = [[blocks[a]] + ([blocks[n - a]] if n - a != a else []) for a in range(n // 2 + 1)]
    return sorted(found, key=lambda parts: -sum(stop - start for start, stop in parts))


def block_start(n: int, a: int) -> int:
    """Block a's first rank in level n."""
    return _core.egdb_blocks(n)[a][0]


def pieces(n: int, task: Task) -> List[Tuple[int, int, int, int, int, int, int, int]]:
    """Where a task's positions lie in level n and in its part file, as grids:
    (block start, stride, first row, first col, rows, cols, part start, part
    stride): its block-a rectangle (rows i, cols j) and, but on a diagonal
    square, its block-b one (rows j, cols i); position (r, c) of a grid is
    rank block + r * stride + c."""
    a, b = task.a, n - task.a
    (i0, i1), (j0, j1) = task.rows, task.cols
    rows_a, rows_b = row_count(a), row_count(b)
    found = [(block_start(n, a), rows_b, i0, j0, i1 - i0, j1 - j0, 0, j1 - j0)]
    if not (2 * a == n and task.rows == task.cols):
        found.append((block_start(n, b), rows_a, j0, i0, j1 - j0, i1 - i0, (i1 - i0) * (j1 - j0),
                      i1 - i0))
    return found


def part_path(parts: str, task: Task) -> str:
    return os.path.join(parts, f"task-{task.number}.bin")


def spans(n: int, task: Task) -> List[Tuple[int, int]]:
    """The ranks of level n each piece of the task lies within (first to last)."""
    return [(block + row * stride + col, block + (row + rows - 1) * stride + col + cols)
            for block, stride, row, col, rows, cols, _, _ in pieces(n, task) if rows and cols]


def needed(n: int, task: Task) -> List[Tuple[int, int, int, int, int, int]]:
    """What a task needs of level n, as grids (block start, stride, rows from,
    rows to, cols from, cols to): block b's rows j of its cols by the rows its
    rows' sowings lie in, and block a's rows i of its rows by its cols'
    sowings (see build_plan)."""
    a, b = task.a, n - task.a
    (i0, i1), (j0, j1) = task.rows, task.cols
    found = [(block_start(n, b), row_count(a), j0, j1, lo, hi) for lo, hi in task.reach_rows]
    found += [(block_start(n, a), row_count(b), i0, i1, lo, hi) for lo, hi in task.reach_cols]
    return found


def gather(out, n: int, tasks: Sequence[Task], parts: str, wanted=None, first: int = 0,
           last: Optional[int] = None) -> None:
    """Copy the tasks' positions from their part files into out (level n's
    layout): given ``wanted`` (grids as :func:`needed` makes them), only what
    lies in those; else their rows that meet ranks [first, last)."""
    last = len(out) if last is None else last
    for task in tasks:
        if not task.positions:
            continue
        with open(part_path(parts, task), "rb") as f, \
                mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as part:
            for block, stride, row, col, rows, cols, at, apart in pieces(n, task):
                if wanted is None:          # rows r whose run [start + r * stride, + cols) meets the ranks
                    start = block + row * stride + col
                    grids = [(block, stride, max(0, -(-(first - cols + 1 - start) // stride)) + row,
                              min(rows, (last - 1 - start) // stride + 1) + row if last > start
                              else row, col, col + cols)]
                else:
                    grids = wanted
                for grid_block, grid_stride, r0, r1, c0, c1 in grids:
                    if (grid_block, grid_stride) != (block, stride):
                        continue
                    lo_r, hi_r = max(r0, row), min(r1, row + rows)
                    lo_c, hi_c = max(c0, col), min(c1, col + cols)
                    if lo_r < hi_r and lo_c < hi_c:
                        _core.egdb_copy_grid(out, block + lo_r * stride + lo_c, stride, part,
                                             at + (lo_r - row) * apart + (lo_c - col), apart,
                                             hi_r - lo_r, hi_c - lo_c)


def build_task(below: List, capture: str, n: int, task: Task, needs: Sequence[Task],
               parts: str) -> Tuple[float, int]:
    """Build one task of level n (see the module docstring): the tasks it needs
    read from their part files in ``parts``, its own written there. The CPU
    seconds it took, and the positions the search had to take (0 when every
    need was in the parts: see build_plan)."""
    started = time.process_time()
    out = mmap.mmap(-1, _core.egdb_level_size(n))
    try:
        gather(out, n, needs, parts, needed(n, task))
        searched = _core.egdb_build_rectangle(below, out, capture_code(capture), task.a,
                                              task.rows, task.cols)
        mine = bytearray(task.positions)
        for block, stride, row, col, rows, cols, at, apart in pieces(n, task):
            _core.egdb_copy_grid(mine, at, apart, out, block + row * stride + col, stride, rows, cols)
    finally:
        out.close()
    path = part_path(parts, task)
    with open(f"{path}.{os.getpid()}", "wb") as f:     # whole, then in place: a retry rewrites it
        f.write(mine)
    os.replace(f"{path}.{os.getpid()}", path)
    return time.process_time() - started, searched


def finish_run(n: int, temp: str, start: int, stop: int, tasks: Sequence[Task], parts: str,
               durable: bool = True) -> List[int]:
    """Finish ranks [start, stop) of level n (whole checksum chunks): gathered
    from the parts of ``tasks`` (those that meet them), turned into values,
    checked, written into the temporary file at their place and flushed to the
    disk (unless not ``durable``: a measurement's scratch copy); their chunks'
    hashes. ValueError for a position no task built."""
    values = mmap.mmap(-1, _core.egdb_level_size(n))
    try:
        gather(values, n, tasks, parts, first=start, last=stop)
        with memoryview(values) as whole, whole[start:stop] as part:
            part[:] = part.tobytes().translate(FINISHED)
            bad = _core.egdb_verify(values, n, start, stop)
            if bad >= 0:
                raise ValueError(f"level {n}: position {bad} was never built")
            hashes = _core.egdb_chunk_hashes(values, start, stop)
            fd = os.open(temp, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
            try:
                at = 0
                while at < stop - start:
                    with part[at:] as rest:
                        at += os.pwrite(fd, rest, values_offset(n) + start + at)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
    finally:
        values.close()
    return hashes


def touching(n: int, tasks: Sequence[Task], runs: Sequence[Tuple[int, int]]) -> List[List[Task]]:
    """For each run of ranks, the tasks with a piece within it."""
    hulls = sorted((lo, hi, task.number) for task in tasks for lo, hi in spans(n, task))
    found: List[Dict[int, Task]] = [{} for _ in runs]
    starts = [start for start, _ in runs]
    for lo, hi, number in hulls:
        k = max(0, bisect.bisect_right(starts, lo) - 1)
        while k < len(runs) and runs[k][0] < hi:
            if runs[k][1] > lo:
                found[k][number] = tasks[number]
            k += 1
    return [list(each.values()) for each in found]


def remove_stale_parts(folder: Path) -> None:
    """Remove the parts folders a killed driver left (its process id is in the name)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        m = PARTS_NAME.fullmatch(name)
        if m and not process_alive(int(m.group(1))):
            shutil.rmtree(folder / name, ignore_errors=True)


def chunk_runs(n: int, count: int) -> List[Tuple[int, int]]:
    """Level n's checksum chunks in about ``count`` runs of whole chunks, in order."""
    chunks = _core.egdb_chunks(n)
    per = max(1, -(-len(chunks) // max(1, count)))
    return [(chunks[k][0], chunks[min(k + per, len(chunks)) - 1][1])
            for k in range(0, len(chunks), per)]


def finish_runs(n: int, workers: int) -> List[Tuple[int, int]]:
    """Level n's checksum chunks in runs of whole chunks, in order, for
    ``workers``, each run a call, largest first. As many runs as pay: k runs
    of a level's R positions end at best after R / k positions each plus k / 2
    of the driver's calls (they come a call apart), least at k = sqrt(2 R / c),
    c the positions a call's time finishes; at most one a worker, and enough
    that none holds much over RUN_MOST positions (a worker's memory). Each
    run is c positions smaller than the one before, so that runs handed out
    one after another end together."""
    size = _core.egdb_level_size(n)
    per_call = CALL_SECONDS / FINISH_SECONDS
    count = max(1, min(workers, int(sqrt(2 * size / per_call))), -(-size // RUN_MOST))
    ends = list(accumulate(size / count + per_call * ((count - 1) / 2 - k) for k in range(count)))
    runs: List[Tuple[int, int]] = []
    last = -1
    for start, stop in _core.egdb_chunks(n):
        k = bisect.bisect_left(ends, (start + stop) / 2)
        if k == last:
            runs[-1] = (runs[-1][0], stop)
        else:
            runs.append((start, stop))
        last = k
    return runs


class LevelWorker:
    """A cluster worker's side: the levels below kept mapped, tasks built and finished."""

    def __init__(self) -> None:
        self.levels: Dict[Tuple[str, str, int], Level] = {}

    def _below(self, root: str, capture: str, n: int) -> List:
        for k in range(n):
            if (root, capture, k) not in self.levels:
                # the driver opened them under its seal; this node may hold another key
                self.levels[root, capture, k] = open_level(capture, k, Path(root), require_seal=False)
        return [self.levels[root, capture, k].values for k in range(n)]

    def adopt(self, root: str, capture: str, n: int, path: str) -> None:
        """Open level n, checked as any level, from ``path``: its file written
        whole, before the driver renames it into place (the same file after),
        so that the check runs while the driver seals it, not when the next
        level's first task comes. One that cannot be opened now is opened (or
        refused) as usual when a task needs it."""
        if (root, capture, n) not in self.levels:
            try:
                self.levels[root, capture, n] = open_level(capture, n, Path(root), Path(path),
                                                           require_seal=False)
            except Exception:           # noqa: BLE001 (said when a task opens it)
                pass

    def node(self) -> str:
        """The id of the Ray node this worker runs on."""
        return ray_module().get_runtime_context().get_node_id()

    def build(self, capture: str, n: int, root: str, batch: List[Tuple[Task, List[Task]]],
              parts: str) -> List[Tuple[float, int]]:
        """Build tasks of level n (each with the tasks it needs) into ``parts``,
        in turn (see :func:`build_task`)."""
        below = self._below(root, capture, n)
        return [build_task(below, capture, n, task, needs, parts) for task, needs in batch]

    def finish(self, n: int, temp: str, batch: List[Tuple[int, int, List[Task]]],
               parts: str) -> List[List[int]]:
        """Finish runs of level n, each (start, stop, tasks that meet it) (see :func:`finish_run`)."""
        return [finish_run(n, temp, start, stop, tasks, parts) for start, stop, tasks in batch]


class ClusterLevels:
    """Makes a level on the cluster that :func:`mancala.cluster.connect` joined
    (see the module docstring); a maker for :func:`mancala.endgame.building.build_levels`."""

    needs_memory = False    # each worker holds only its ranges

    def __init__(self, workers: int, parallelism: Optional[int] = None,
                 top: int = MAX_LEVEL) -> None:
        """workers: actors, one a CPU; parallelism: the tasks a level's chains of
        needs allow at once (default: what best_plan chooses for the workers);
        top: the highest level it will make (plans are made a level ahead)."""
        ray = ray_module()
        self.ray = ray
        self.workers = max(1, workers)
        self.parallelism = parallelism
        self.top = top
        remote = ray.remote(num_cpus=1, max_restarts=3, max_task_retries=3)(LevelWorker)
        self.actors = [remote.remote() for _ in range(self.workers)]
        self.plans = ThreadPoolExecutor(1, thread_name_prefix="mancala build plan")
        self.planned: Dict[int, Future] = {}

    def plan(self, n: int) -> List[Task]:
        """Level n's plan, and level n + 1's begun meanwhile (while n is built)."""
        for k in (n, n + 1):
            if k not in self.planned and k <= self.top:
                self.planned[k] = self.plans.submit(self._plan, k)
        return self.planned.pop(n).result()

    def _plan(self, n: int) -> List[Task]:
        if self.parallelism:
            return plan(n, self.parallelism)
        return best_plan(n, self.workers)[1]

    def __call__(self, capture: str, n: int, below: List[Level], root: Optional[Path],
                 report: Callable[[int, int], None]) -> None:
        target = level_path(capture, n, root)
        folder = str(target.parent.resolve())
        shared = str(target.parent.parent.resolve())       # the cache folder, as every node sees it
        size = _core.egdb_level_size(n)
        remove_stale_parts(target.parent)
        fd, temp = tempfile.mkstemp(prefix=f"{target.name}.{os.getpid()}.", suffix=".tmp",
                                    dir=folder)
        parts = ""
        try:
            parts = tempfile.mkdtemp(prefix=f"{target.name}.{os.getpid()}.", suffix=".parts",
                                     dir=folder)
            os.ftruncate(fd, values_offset(n) + size)
            tasks = self.plan(n)
            done = 0
            calls = Calls([task.needs for task in tasks], [task.positions for task in tasks],
                          priorities(tasks), self.workers, CALL_SECONDS / POSITION_SECONDS)
            for task, _ in self._run(n, tasks, calls, lambda actor, batch: actor.build.remote(
                    capture, n, shared, [(task, [tasks[k] for k in task.needs]) for task in batch],
                    parts)):
                done += task.positions
                report(done, size)
            runs = finish_runs(n, self.workers)
            meeting = touching(n, tasks, runs)
            hashes: Dict[int, List[int]] = {}
            steps = [Task(k, 0, run, run, (), run[1] - run[0]) for k, run in enumerate(runs)]
            sizes = [step.positions for step in steps]
            calls = Calls([()] * len(steps), sizes, sizes, self.workers,
                          CALL_SECONDS / FINISH_SECONDS)
            for step, answer in self._run(n, steps, calls, lambda actor, batch: actor.finish.remote(
                    n, temp, [(*step.rows, meeting[step.number]) for step in batch], parts)):
                hashes[step.number] = answer
            head = header(capture, n, [h for k in range(len(runs)) for h in hashes[k]])
            os.pwrite(fd, head, 0)
            os.fsync(fd)
            os.close(fd)                            # written whole: a node may open it now
            fd = -1
            if n < self.top:                        # each worker checks it while it is sealed
                for actor in self.actors:
                    actor.adopt.remote(shared, capture, n, temp)
            fd = os.open(temp, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            seal_written(fd, target, n, head)       # before the rename: nobody meets it unsealed
            os.close(fd)
            fd = -1
            os.replace(temp, target)
            sync_dir(target.parent)
        except BaseException:
            self.plans.shutdown(wait=False, cancel_futures=True)
            for actor in self.actors:       # stop every task still running (Ctrl-C too)
                self.ray.kill(actor)
            self.actors = []
            if fd >= 0:
                os.close(fd)
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
        finally:
            if parts:
                shutil.rmtree(parts, ignore_errors=True)

    def _run(self, n: int, tasks: List[Task], calls: Calls, submit):
        """Run the tasks on the actors in the calls ``calls`` makes, FLIGHT an
        actor; yield (task, its answer) as each call ends."""
        ray = self.ray
        pending: Dict = {}
        while not calls.finished:
            made = calls.next()
            while made is not None:
                k, numbers = made
                batch = [tasks[t] for t in numbers]
                pending[submit(self.actors[k], batch)] = (batch, k, numbers)
                made = calls.next()
            finished, _ = ray.wait(list(pending), num_returns=1)
            finished += ray.wait([r for r in pending if r not in finished],
                                 num_returns=len(pending) - 1, timeout=0)[0] if len(pending) > 1 else []
            for ref in finished:
                batch, k, numbers = pending.pop(ref)
                try:
                    answers = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, OSError):      # the shared folder: said as a local build says it
                        raise OSError(cause.errno, cause.strerror, cause.filename) from None
                    raise ClusterError(f"level {n}, tasks {numbers} failed on "
                                       f"the cluster: {ray_error_line(exc)}") from None
                calls.ended(k, numbers)
                yield from zip(batch, answers)


__all__ = ["ClusterLevels", "LevelWorker", "build_task", "finish_run", "chunk_runs", "finish_runs",
           "block_start", "classes", "pieces", "gather", "touching", "part_path"]
