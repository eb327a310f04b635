"""Endgame levels built on a Ray cluster: ``endgame build --seeds N --cluster ADDRESS``.

Level by level (level n reads only the levels below it and itself), each
level is cut into its classes (csrc/egdb.h: the positions whose mover holds a
or n - a of the n seeds, two blocks of ranks; no position leads to another
class of its level), and each class is a task for a :class:`LevelWorker`
actor (one a CPU). An actor keeps the levels below mapped between tasks (each
checked once); it builds its class in memory of its own (an anonymous
mapping: only the pages of the class are ever given), writes the blocks'
bytes straight into the level's temporary file in the shared folder, and
answers with their chunk hashes. The driver never reads the values: it
folds the hashes into the header, writes it, and renames the file into place.
The bytes are the local build's, so are the checksums, on any number of
workers. Tasks are idempotent (a block rewritten is the same bytes): an actor
that dies is restarted and its task retried. A level has n / 2 + 1 classes,
the largest about a tenth of it: that bounds the workers one level can keep
busy.

The folder (``--cache DIR``) must be the same path on every node: shared
storage such as NFS.
"""
from __future__ import annotations

import mmap
import os
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from mancala import _core
from mancala.board import capture_code
from mancala.cluster import error_line, ray_module
from mancala.endgame.files import (Level, header, level_path, open_level, sync_dir,
                                   values_offset)
from mancala.errors import ClusterError

def classes(n: int) -> List[List[Tuple[int, int]]]:
    """Level n's classes, largest first (so the last to finish are small): the
    rank ranges of blocks a and n - a, for a = 0..n // 2."""
    blocks = _core.egdb_blocks(n)
    found = [[blocks[a]] + ([blocks[n - a]] if n - a != a else []) for a in range(n // 2 + 1)]
    return sorted(found, key=lambda parts: -sum(stop - start for start, stop in parts))


class LevelWorker:
    """A cluster worker's side: the levels below kept mapped, ranges built and written."""

    def __init__(self) -> None:
        self.levels: Dict[Tuple[str, str, int], Level] = {}

    def _level(self, root: str, capture: str, n: int) -> Level:
        key = (root, capture, n)
        if key not in self.levels:
            self.levels[key] = open_level(capture, n, Path(root))
        return self.levels[key]

    def node(self) -> str:
        """The id of the Ray node this worker runs on."""
        return ray_module().get_runtime_context().get_node_id()

    def build(self, capture: str, n: int, root: str, parts: List[Tuple[int, int]],
              temp: str) -> List[List[int]]:
        """Build one class of level n (its blocks' rank ranges), write them into
        ``temp``; each block's chunk hashes."""
        below = [self._level(root, capture, k).values for k in range(n)]
        out = mmap.mmap(-1, _core.egdb_level_size(n))
        failed = None
        try:
            hashes = []
            _core.egdb_build_level(below, out, capture_code(capture), 1, None, parts)
            for start, stop in parts:
                hashes.append(_core.egdb_chunk_hashes(out, start, stop))
                try:
                    with memoryview(out) as whole, whole[start:stop] as block:
                        _write_all(temp, block, values_offset(n) + start)
                except OSError as exc:      # its traceback holds views of out: let it go first
                    failed = (exc.errno, exc.strerror)
                    break
        finally:
            out.close()
        if failed is not None:
            raise OSError(*failed, temp)
        return hashes


def _write_all(path: str, data: memoryview, offset: int) -> None:
    """Write data at offset into an existing file, then flush it to the disk (on
    shared storage, so the driver's rename publishes these bytes)."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        while data:
            written = os.pwrite(fd, data, offset)
            data, offset = data[written:], offset + written
        os.fsync(fd)
    finally:
        os.close(fd)


class ClusterLevels:
    """Makes a level on the cluster that :func:`mancala.cluster.connect` joined
    (see the module docstring); a maker for :func:`mancala.endgame.building.build_levels`."""

    needs_memory = False    # each worker holds only its ranges

    def __init__(self, workers: int) -> None:
        ray = ray_module()
        self.ray = ray
        self.workers = max(1, workers)
        remote = ray.remote(num_cpus=1, max_restarts=3, max_task_retries=3)(LevelWorker)
        self.actors = [remote.remote() for _ in range(self.workers)]

    def __call__(self, capture: str, n: int, below: List[Level], root: Optional[Path],
                 report: Callable[[int, int], None]) -> None:
        ray = self.ray
        target = level_path(capture, n, root)
        folder = str(target.parent.resolve())
        shared = str(target.parent.parent.resolve())       # the cache folder, as every node sees it
        size = _core.egdb_level_size(n)
        fd, temp = tempfile.mkstemp(prefix=f"{target.name}.{os.getpid()}.", suffix=".tmp",
                                    dir=folder)
        try:
            os.ftruncate(fd, values_offset(n) + size)
            tasks = classes(n)
            waiting = list(range(len(tasks)))      # largest first: handed to whichever actor is free
            pending: Dict = {}
            by_block: Dict[int, List[int]] = {}
            done = 0

            def hand_out(actor) -> None:
                if waiting:
                    i = waiting.pop(0)
                    pending[actor.build.remote(capture, n, shared, tasks[i], temp)] = (i, actor)

            for actor in self.actors:
                hand_out(actor)
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    i, actor = pending.pop(ref)
                    try:
                        answers = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        cause = getattr(exc, "cause", None)
                        if isinstance(cause, OSError):      # the shared folder: said as a local build says it
                            raise OSError(cause.errno, cause.strerror, cause.filename) from None
                        raise ClusterError(f"level {n}, class of ranks {tasks[i]}, failed on the "
                                           f"cluster: {error_line(exc)}") from None
                    hand_out(actor)
                    for (start, stop), hashes in zip(tasks[i], answers):
                        by_block[start] = hashes
                        done += stop - start
                    report(done, size)
            os.pwrite(fd, header(capture, n, [h for start in sorted(by_block)
                                              for h in by_block[start]]), 0)
            os.fsync(fd)
            os.close(fd)
            fd = -1
            os.replace(temp, target)
            sync_dir(target.parent)
        except BaseException:
            for actor in self.actors:       # stop every range still running (Ctrl-C too)
                ray.kill(actor)
            self.actors = []
            if fd >= 0:
                os.close(fd)
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise


__all__ = ["ClusterLevels", "LevelWorker", "classes"]
