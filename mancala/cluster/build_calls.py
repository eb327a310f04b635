"""Which of a level's tasks a build's driver hands to which worker, a call at a
time: chains and batches. Pure bookkeeping (no Ray, no clock): the driver
(:class:`mancala.cluster.build.ClusterLevels`) and its simulator
(bench/cluster_sim_build.py) run this same code, so the simulator schedules
what the driver does.

A call is a list of tasks that one worker builds in turn. The driver pays
for each call far more than for a task in it (measured on local:2: 0.50 ms
of its CPU a call, 0.016 ms more a task) and makes one call at a time, so
on many workers it is the bottleneck unless its calls carry more than a task
each. The rules:

1. **Chains.** A task may go into a call to worker w once every task it
   needs is done (its call has ended) or has gone to w before it: earlier in
   the same call, or in a call of w's still in flight. A worker runs its
   calls in the order they came, one at a time (Ray's order for an actor's
   calls from one caller), and a call's tasks in turn, so it meets those
   needs itself: the tasks that wait only on w's work follow it to w with no
   round trip through the driver. (Were a need's part missing all the same,
   the task reading it fails, and the build with it: never a wrong level.)
2. **Batches.** A call takes the tasks open to it (the ready ones and w's
   chain), longest chain of needs first (:func:`build_plan.priorities`),
   while it holds less than its limit in positions (the first always): the
   larger of the ready positions shared among the free slots (each slot its
   share, so one worker does not take what others could run at once) and
   the square root of the open positions times ``call_positions`` (the
   positions a core builds in the driver's time for a call). Dealing R
   positions to calls of k each costs the driver R / k calls and the last
   worker k positions of its own; their sum is least at k = sqrt(R x
   call_positions). At most ``batch`` tasks a call.
3. **Workers.** The next call goes to the worker with the fewest calls in
   flight (fewer than ``flight``), the first such, among those with a task
   open to them.
"""
from __future__ import annotations

import heapq
from math import sqrt
from typing import List, Optional, Sequence, Tuple

FLIGHT = 2              # calls in flight a worker: the next one waits on it, queued
BATCH = 64              # the most tasks one call carries (its arguments stay small)


class Calls:
    """The driver's calls for one level's tasks (see the module docstring):
    :meth:`next` says the next call to make, :meth:`ended` what a call's end
    releases."""

    def __init__(self, needs: Sequence[Sequence[int]], positions: Sequence[int],
                 rank: Sequence[float], workers: int, call_positions: float = 0.0,
                 chains: bool = True, flight: int = FLIGHT, batch: int = BATCH) -> None:
        """needs: each task's needs (task numbers); positions: each task's size;
        rank: its priority (longest chain of needers, itself included);
        call_positions: what the driver's time for a call is worth (0: one
        ready task a call unless their share is more); chains: rule 1 on."""
        count = len(needs)
        self.needs, self.positions, self.rank = needs, positions, rank
        self.call_positions, self.chains = call_positions, chains
        self.flight, self.batch = flight, batch
        self.needed_by: List[List[int]] = [[] for _ in range(count)]
        for task, before in enumerate(needs):
            for k in before:
                self.needed_by[k].append(task)
        self.waiting = [len(before) for before in needs]     # needs not done
        self.where = [-1] * count                            # the worker it went to
        self.done = [False] * count
        self.ready = [(-rank[t], t) for t in range(count) if not needs[t]]
        heapq.heapify(self.ready)
        self.ready_positions = sum(positions[t] for _, t in self.ready)
        self.own: List[List[Tuple[float, int]]] = [[] for _ in range(workers)]  # rule 1's tasks
        self.offered = [-1] * count                          # the worker whose own it is in
        self.holders = set()                                 # the workers with own tasks, maybe
        self.load = [0] * workers
        self.left = count

    @property
    def finished(self) -> bool:
        return not self.left

    def next(self) -> Optional[Tuple[int, List[int]]]:
        """The next call: (worker, its tasks in the order they run), or None if
        no worker with a free slot has a task open to it."""
        worker = self._worker()
        if worker < 0:
            return None
        own = self.own[worker]
        open_positions = self.ready_positions + sum(self.positions[t] for _, t in own
                                                    if self.where[t] < 0)
        limit = self._limit(open_positions)
        call: List[int] = []
        total = 0
        while len(call) < self.batch:
            for heap in (self.ready, own):
                while heap and self.where[heap[0][1]] >= 0:
                    heapq.heappop(heap)
            if not self.ready and not own:
                break
            heap = self.ready if not own or (self.ready and self.ready[0] < own[0]) else own
            task = heap[0][1]
            if call and total + self.positions[task] > limit:
                break
            heapq.heappop(heap)
            self._send(task, worker)
            call.append(task)
            total += self.positions[task]
        self.load[worker] += 1
        return worker, call

    def ended(self, worker: int, call: Sequence[int]) -> None:
        """A call has ended: its tasks are done; what needed them may be ready,
        or open to the one worker its other needs went to."""
        self.load[worker] -= 1
        for task in call:
            self.done[task] = True
            self.left -= 1
        for task in call:
            for later in self.needed_by[task]:
                self.waiting[later] -= 1
                if self.where[later] >= 0:
                    continue
                if not self.waiting[later]:
                    heapq.heappush(self.ready, (-self.rank[later], later))
                    self.ready_positions += self.positions[later]
                elif self.chains:
                    on = {self.where[k] for k in self.needs[later] if not self.done[k]}
                    if len(on) == 1 and -1 not in on:
                        self._offer(later, on.pop())

    def _limit(self, open_positions: int) -> float:
        """Rule 2: the positions a call may hold past its first task."""
        free = self.flight * len(self.load) - sum(self.load)
        return max(self.ready_positions / free, sqrt(open_positions * self.call_positions))

    def _worker(self) -> int:
        """The worker the next call goes to (rule 3), or -1."""
        while self.ready and self.where[self.ready[0][1]] >= 0:
            heapq.heappop(self.ready)
        least = min(self.load)
        if self.ready and least < self.flight:
            return self.load.index(least)
        best = -1
        for w in sorted(self.holders):              # the workers with a chain waiting
            own = self.own[w]
            while own and self.where[own[0][1]] >= 0:
                heapq.heappop(own)
            if not own:
                self.holders.discard(w)
            elif self.load[w] < self.flight and (best < 0 or self.load[w] < self.load[best]):
                best = w
        return best

    def _send(self, task: int, worker: int) -> None:
        if not self.waiting[task]:
            self.ready_positions -= self.positions[task]
        self.where[task] = worker
        if not self.chains:
            return
        for later in self.needed_by[task]:
            if self.where[later] < 0 and all(self.done[k] or self.where[k] == worker
                                             for k in self.needs[later]):
                self._offer(later, worker)

    def _offer(self, task: int, worker: int) -> None:
        if self.offered[task] != worker:
            self.offered[task] = worker
            heapq.heappush(self.own[worker], (-self.rank[task], task))
            self.holders.add(worker)


__all__ = ["Calls", "FLIGHT", "BATCH"]
