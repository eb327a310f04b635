"""Threads that run the core's C code, started and awaited so that Ctrl-C can
never leave one running over memory its caller is about to free.

``Thread.join()`` cannot be trusted for that: on Python 3.11 a
KeyboardInterrupt that arrives inside ``join()`` can mark a thread that is
still running as stopped (threading's clean-up for bpo-45274 releases the lock
the running thread holds), so ``is_alive()`` says False while it still works;
an endgame build freed its level under such a thread and crashed (SIGSEGV).
Here each worker sets an Event of its own as its very last act, and the caller
waits on those; Ctrl-C and SIGTERM are held back while the threads start, so
no start is cut short after its thread was launched. Python raises a pending
Ctrl-C at any call or loop, so every one of those between the first start
and the last wait is inside a ``try`` that stops the workers and waits again
(:meth:`Workers.run`); before, a Ctrl-C raised as ``wait`` was entered (or at
its loop's ``is_set``) left the workers writing into a level its caller then
freed (valgrind: invalid writes of egdb_pass_position into a freed bytearray).
"""
from __future__ import annotations

import signal
import threading
from typing import Callable, Iterable, List, Optional, Sequence

HELD = {signal.SIGINT, signal.SIGTERM}


class Workers:
    """Threads running ``target(*args)``, one for each ``args`` given."""

    def __init__(self, target: Callable, arguments: Iterable[Sequence], name: str) -> None:
        arguments = list(arguments)
        self.done: List[threading.Event] = [threading.Event() for _ in arguments]
        self.threads = [threading.Thread(target=self._run, args=(target, args, event),
                                         name=name, daemon=True)
                        for args, event in zip(arguments, self.done)]
        self.late: Optional[BaseException] = None   # a Ctrl-C that came as they started

    @staticmethod
    def _run(target: Callable, args: Sequence, event: threading.Event) -> None:
        try:
            target(*args)
        finally:
            event.set()

    def start(self) -> "Workers":
        """Start every worker. Raises only when none has started: a Ctrl-C
        held back while they started, raised as the mask is put back, is kept
        for :meth:`wait` (or :meth:`run`) to raise once they have all finished."""
        held = _hold_signals()
        try:
            for thread in self.threads:
                thread.start()
        finally:
            if held is not None:
                try:
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)
                except BaseException as exc:    # the workers run: never leave them behind
                    self.late = exc
        return self

    def wait(self, stop: Callable[[], None], tick: Optional[Callable[[], None]] = None,
             every: float = 0.2) -> None:
        """Return once every worker has finished, calling ``tick()`` about every
        ``every`` seconds. An exception on the way (Ctrl-C, or one ``tick``
        raises) calls ``stop()`` to end the workers early and is raised once
        they all have; a second Ctrl-C meanwhile changes nothing.

        Python checks for Ctrl-C on entering any function, so one can arrive
        as this one is entered, before it can catch anything: a caller with
        nothing to do meanwhile uses :meth:`run`, which waits again then."""
        raised: Optional[BaseException] = self.late
        self.late = None
        finished = 0
        while True:
            try:     # every call in here: Ctrl-C is raised at calls and loops
                if raised is not None:
                    stop()
                while finished < len(self.done):
                    if self.done[finished].wait(every):
                        finished += 1
                    elif tick is not None and raised is None:
                        tick()
                break
            except BaseException as exc:
                if raised is None:
                    raised = exc
        if raised is not None:
            raise raised

    def run(self, stop: Callable[[], None], tick: Optional[Callable[[], None]] = None,
            every: float = 0.2) -> None:
        """:meth:`start`, then :meth:`wait`: whatever moment Ctrl-C comes, no
        worker is left running when this returns or raises."""
        self.start()
        raised: Optional[BaseException] = None
        while True:
            try:
                if raised is not None:
                    stop()
                self.wait(stop, tick if raised is None else None, every)
                break
            except BaseException as exc:    # wait raised: they had finished, or it was not entered
                if raised is None:
                    raised = exc
        if raised is not None:
            raise raised


def _hold_signals():
    """Block Ctrl-C and SIGTERM in this thread (the main one) till the mask is put
    back; the old mask, or None where there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, HELD)


__all__ = ["Workers"]
