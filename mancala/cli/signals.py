"""SIGTERM the way Ctrl-C goes: a long command stopped by ``kill PID`` or a
batch scheduler cleans up as it does after Ctrl-C (jobs stopped, journal and
files left usable, a Ray runtime it started ended) and exits 143, not killed
half-way with its helpers left running."""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator, List


class Terminated(KeyboardInterrupt):
    """SIGTERM came: unwinds as Ctrl-C does; the command exits 128 + 15."""


STATUS = 128 + signal.SIGTERM


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[List[int]]:
    """For the block, SIGTERM raises :class:`Terminated` in the main thread
    (elsewhere, where no handler can be set, nothing changes). Yields a list
    that holds the signal's number once it came: for a command that catches
    Ctrl-C itself (an arena's partial report) to tell which it was."""
    came: List[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return

    def on_term(signum, frame) -> None:
        came.append(signum)
        raise Terminated

    before = signal.signal(signal.SIGTERM, on_term)
    try:
        yield came
    except KeyboardInterrupt as exc:
        # what the handler raised may come out as a plain KeyboardInterrupt (Ray's
        # wait turns an exception raised in a signal handler into a new one)
        if came and not isinstance(exc, Terminated):
            raise Terminated from None
        raise
    finally:
        signal.signal(signal.SIGTERM, before)
