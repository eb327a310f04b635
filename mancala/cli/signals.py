"""Ctrl-C and SIGTERM, one way out. Every command takes SIGTERM as Ctrl-C
(:func:`mancala.cli.main` runs it in :func:`stop_signals`): stopped by
``kill PID`` or a batch scheduler, it cleans up as it does after Ctrl-C (jobs
stopped, journal and files left usable, a Ray runtime it started ended) and
exits 143 with one line, not killed half-way with its helpers left running. And a stop is
never lost: Python raises a signal's exception wherever the main thread is,
and one raised while it runs a finaliser (``__del__``: Ray's handles have
them) is printed and dropped, so the commands' loops ask :meth:`Stops.check`
as they report progress."""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator, List


class Terminated(KeyboardInterrupt):
    """SIGTERM came: unwinds as Ctrl-C does; the command exits 128 + 15."""


STATUS = 128 + signal.SIGTERM


def on_sigterm(signum, frame) -> None:
    """A SIGTERM handler: raise :class:`Terminated`."""
    raise Terminated


class Stops:
    """The stop signals (SIGINT, SIGTERM) that came during a :func:`stop_signals` block."""

    def __init__(self) -> None:
        self.came: List[int] = []

    @property
    def terminated(self) -> bool:
        """SIGTERM came."""
        return signal.SIGTERM in self.came

    def check(self) -> None:
        """Raise the stop again if one came: for a loop's progress report, where the
        stop cannot be caught and dropped (its exception is lost only in a finaliser)."""
        if self.came:
            raise Terminated if self.terminated else KeyboardInterrupt

    def watching(self, progress):
        """progress, called after :meth:`check`."""
        def watched(*args) -> None:
            self.check()
            progress(*args)
        return watched


@contextlib.contextmanager
def stop_signals() -> Iterator[Stops]:
    """For the block, Ctrl-C raises KeyboardInterrupt and SIGTERM :class:`Terminated`
    in the main thread, each noted in the :class:`Stops` it yields (elsewhere, where
    no handler can be set, nothing changes)."""
    stops = Stops()
    if threading.current_thread() is not threading.main_thread():
        yield stops
        return

    def on_signal(signum, frame) -> None:
        stops.came.append(signum)
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    # a SIGINT ignored (a job started with nohup ... &) stays ignored, as Python leaves it
    caught = [signal.SIGTERM] + [signal.SIGINT] * (signal.getsignal(signal.SIGINT) is not signal.SIG_IGN)
    before = {signum: signal.signal(signum, on_signal) for signum in caught}
    try:
        yield stops
    except KeyboardInterrupt as exc:
        # what the handler raised may come out as a plain KeyboardInterrupt (Ray's
        # wait turns an exception raised in a signal handler into a new one)
        if stops.terminated and not isinstance(exc, Terminated):
            raise Terminated from None
        raise
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
