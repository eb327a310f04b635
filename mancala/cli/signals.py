"""Ctrl-C and SIGTERM, one way out. Every command takes SIGTERM as Ctrl-C
(:func:`mancala.cli.main` runs it in :func:`stop_signals`): stopped by
``kill PID`` or a batch scheduler, it cleans up as it does after Ctrl-C (jobs
stopped, journal and files left usable, a Ray runtime it started ended) and
exits 143 with one line, not killed half-way with its helpers left running. And a stop is
never lost: Python raises a signal's exception wherever the main thread is,
and one raised while it runs a finaliser (``__del__``: Ray's handles have
them) is printed and dropped, so the commands' loops ask :meth:`Stops.check`
as they report progress.

And a stop never costs a result already made. Once a command has its result
in hand it says so (:meth:`Stops.settle`): from then on a stop is noted, not
raised, so neither a Ray runtime's shutdown nor the printing can lose it. When
the work was whole (every game played, every level built), the command prints
its result and exits 0, and the one line says the stop came when the work was
done instead of "interrupted"; when a stop had cut it short, it exits 130 or
143 with what it has. ``arena`` settles as its last game comes in and
``endgame build`` as its last level is written, before the Ray runtime's
shutdown; a command that settles nowhere keeps the plain rule (130 or 143)."""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
from typing import Iterator, List, Optional


class Terminated(KeyboardInterrupt):
    """SIGTERM came: unwinds as Ctrl-C does; the command exits 128 + 15."""


STATUS = 128 + signal.SIGTERM


def on_sigterm(signum, frame) -> None:
    """A SIGTERM handler: raise :class:`Terminated`."""
    raise Terminated


class Stops:
    """The stop signals (SIGINT, SIGTERM) that came during a :func:`stop_signals` block,
    and whether the command has its result (:meth:`settle`)."""

    def __init__(self) -> None:
        self.came: List[int] = []
        self.settled = False
        self.whole: Optional[str] = None

    @property
    def terminated(self) -> bool:
        """SIGTERM came."""
        return signal.SIGTERM in self.came

    def settle(self, whole: Optional[str] = None) -> None:
        """The command has its result: from now on a stop is noted, not raised (it
        cannot lose the result in a shutdown or half-way through printing it).
        ``whole``: what was done, when all the work was ("all 20 games were
        played"); then the command exits 0, and :func:`stop_signals` says in one
        line that a stop came when the work was done. None: a stop cut it short."""
        self.settled = True
        if whole is not None:
            self.whole = whole

    def status(self, cut_short: bool) -> int:
        """The exit status of a command that ends with its result: 0 when the work
        was whole, else 143 after SIGTERM and 130 after Ctrl-C."""
        if self.whole is not None or not cut_short:
            return 0
        return STATUS if self.terminated else 130

    def late_line(self) -> Optional[str]:
        """The line for stops that came when the work was whole, or None."""
        if self.whole is None or not self.came:
            return None
        return f"{'SIGTERM' if self.terminated else 'Ctrl-C'} came when the work was done: {self.whole}"

    def check(self) -> None:
        """Raise the stop again if one came: for a loop's progress report, where the
        stop cannot be caught and dropped (its exception is lost only in a finaliser).
        Once settled, nothing."""
        if self.came and not self.settled:
            raise Terminated if self.terminated else KeyboardInterrupt

    def watching(self, progress):
        """progress, called after :meth:`check`."""
        def watched(*args) -> None:
            self.check()
            progress(*args)
        return watched


_active: List[Stops] = []        # the outermost block's, which nested ones share


@contextlib.contextmanager
def stop_signals() -> Iterator[Stops]:
    """For the block, Ctrl-C raises KeyboardInterrupt and SIGTERM :class:`Terminated`
    in the main thread, each noted in the :class:`Stops` it yields, till the
    command settles (:meth:`Stops.settle`); elsewhere, where no handler can be
    set, nothing changes. A block inside another (a command's own, inside
    :func:`mancala.cli.main`'s) yields the same Stops. The outermost says the
    line of stops that came when the work was whole (:meth:`Stops.late_line`)."""
    if _active:
        yield _active[0]
        return
    stops = Stops()
    if threading.current_thread() is not threading.main_thread():
        yield stops
        return

    def on_signal(signum, frame) -> None:
        stops.came.append(signum)
        if not stops.settled:
            raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    # a SIGINT ignored (a job started with nohup ... &) stays ignored, as Python leaves it
    caught = [signal.SIGTERM] + [signal.SIGINT] * (signal.getsignal(signal.SIGINT) is not signal.SIG_IGN)
    before = {signum: signal.signal(signum, on_signal) for signum in caught}
    _active.append(stops)
    try:
        yield stops
        late = stops.late_line()
        if late is not None:
            print(f"mancala: {late}", file=sys.stderr, flush=True)
    except KeyboardInterrupt as exc:
        # what the handler raised may come out as a plain KeyboardInterrupt (Ray's
        # wait turns an exception raised in a signal handler into a new one)
        if stops.terminated and not isinstance(exc, Terminated):
            raise Terminated from None
        raise
    finally:
        _active.remove(stops)
        for signum, handler in before.items():
            signal.signal(signum, handler)
