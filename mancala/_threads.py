"""Threads that run the core's C code, started and awaited so that Ctrl-C can
never leave one running over memory its caller is about to free.

``Thread.join()`` cannot be trusted for that: on Python 3.11 a
KeyboardInterrupt that arrives inside ``join()`` can mark a thread that is
still running as stopped (threading's clean-up for bpo-45274 releases the lock
the running thread holds), so ``is_alive()`` says False while it still works;
an endgame build freed its level under such a thread and crashed (SIGSEGV).
Here each worker sets an Event of its own as its very last act, and the caller
waits on those; Ctrl-C and SIGTERM are held back while the threads start, so
no start is cut short after its thread was launched.
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

    @staticmethod
    def _run(target: Callable, args: Sequence, event: threading.Event) -> None:
        try:
            target(*args)
        finally:
            event.set()

    def start(self) -> "Workers":
        held = _hold_signals()
        try:
            for thread in self.threads:
                thread.start()
        finally:
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        return self

    def wait(self, stop: Callable[[], None], tick: Optional[Callable[[], None]] = None,
             every: float = 0.2) -> None:
        """Return once every worker has finished, calling ``tick()`` about every
        ``every`` seconds. An exception on the way (Ctrl-C, or one ``tick``
        raises) calls ``stop()`` to end the workers early and is raised once
        they all have; a second Ctrl-C meanwhile changes nothing."""
        raised: Optional[BaseException] = None
        for event in self.done:
            while not event.is_set():
                try:
                    event.wait(every)
                    if tick is not None and raised is None:
                        tick()
                except BaseException as exc:
                    if raised is None:
                        raised = exc
                    stop()
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
