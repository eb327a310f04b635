"""Threads that run the core's C code, started and awaited so that Ctrl-C can
never leave one running over memory its caller is about to free.

``Thread.join()`` cannot be trusted for that: on Python 3.11 a
KeyboardInterrupt that arrives inside ``join()`` can mark a thread that is
still running as stopped (threading's clean-up for bpo-45274 releases the lock
the running thread holds), so ``is_alive()`` says False while it still works;
an endgame build freed its level under such a thread and crashed (SIGSEGV).
Here each worker sets an Event of its own as its very last act, and the caller
waits on those.

Nor can ``Thread.start()``: a Ctrl-C can be raised inside it after the thread
was launched (while it waits for the thread to say it started), and blocking
SIGINT in the main thread does not prevent that, since the kernel hands the
signal to any other thread (a timer's, a worker's) and Python then raises it
in the main thread all the same. So a worker first *claims* its slot (an atomic
``dict.setdefault``) and runs its target only if the slot was not cancelled;
the caller, on any exception, stops the workers, cancels every slot not yet
claimed, and waits for exactly those that were. A worker launched too late
finds its slot cancelled and returns without touching anything.

Python raises a pending Ctrl-C at any call or loop, so every one of those
between the first start and the last wait is inside a ``try`` that stops the
workers and waits again (:meth:`Workers.run`); before, a Ctrl-C raised as
``wait`` was entered (or at its loop's ``is_set``) left the workers writing
into a level its caller then freed (valgrind: invalid writes of
egdb_pass_position into a freed bytearray).
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, Iterable, List, Optional, Sequence

RUN, CANCELLED = "run", "cancelled"     # what a worker's slot was claimed for


class Workers:
    """Threads running ``target(*args)``, one for each ``args`` given."""

    def __init__(self, target: Callable, arguments: Iterable[Sequence], name: str) -> None:
        self.target = target
        self.arguments = [tuple(args) for args in arguments]
        self.done: List[threading.Event] = [threading.Event() for _ in self.arguments]
        self.claims: Dict[int, str] = {}    # slot -> RUN (its worker took it) or CANCELLED
        self.threads = [threading.Thread(target=self._run, args=(slot,), name=name, daemon=True)
                        for slot in range(len(self.arguments))]
        self.late: Optional[BaseException] = None   # raised on the way; raised again by wait
        self.finished = False                       # wait has seen every running worker end

    def _run(self, slot: int) -> None:
        if self.claims.setdefault(slot, RUN) != RUN:
            return                                  # cancelled before it could begin
        try:
            self.target(*self.arguments[slot])
        finally:
            self.done[slot].set()

    def start(self) -> "Workers":
        """Start every worker. An exception on the way (a Ctrl-C, a thread the
        system will not give) is kept for :meth:`wait` (or :meth:`run`), which
        stops whatever did start and raises it once that has ended."""
        try:
            for thread in self.threads:
                thread.start()
        except BaseException as exc:
            if self.late is None:
                self.late = exc
        return self

    def wait(self, stop: Callable[[], None], tick: Optional[Callable[[], None]] = None,
             every: float = 0.2) -> None:
        """Return once every worker has finished, calling ``tick()`` about every
        ``every`` seconds. An exception on the way (Ctrl-C, or one ``tick``
        raises, or one kept by :meth:`start`) calls ``stop()`` to end the
        workers early and is raised once every worker that began has ended; a
        second Ctrl-C meanwhile changes nothing.

        Python checks for Ctrl-C on entering any function, so one can arrive
        as this one is entered, before it can catch anything: a caller with
        nothing to do meanwhile uses :meth:`run`, which waits again then."""
        while True:
            try:     # every call in here: Ctrl-C is raised at calls and loops
                if self.late is not None:
                    stop()
                    for slot in range(len(self.threads)):
                        self.claims.setdefault(slot, CANCELLED)
                for slot, done in enumerate(self.done):
                    if self.late is not None and self.claims.get(slot) != RUN:
                        continue                    # never began, and now never will
                    while not done.wait(every):
                        if tick is not None and self.late is None:
                            tick()
                break
            except BaseException as exc:
                if self.late is None:
                    self.late = exc
        self.finished = True
        raised, self.late = self.late, None
        if raised is not None:
            raise raised

    def run(self, stop: Callable[[], None], tick: Optional[Callable[[], None]] = None,
            every: float = 0.2) -> None:
        """:meth:`start`, then :meth:`wait`: whatever moment Ctrl-C comes, no
        worker is left running when this returns or raises."""
        try:
            self.start()
        except BaseException as exc:        # raised as start was entered or left
            if self.late is None:
                self.late = exc
        while not self.finished:
            try:
                self.wait(stop, tick, every)
            except BaseException as exc:
                if self.finished:
                    raise
                if self.late is None:       # wait was not entered: wait again
                    self.late = exc


__all__ = ["Workers"]
