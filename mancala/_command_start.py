"""The first and last moments of ``python -m mancala``, where a stop must not
kill the command by its signal.

Python imports the package (its compiled core: a good part of a second on a
loaded machine) before ``mancala.__main__`` runs a line: a Ctrl-C then ended
the command with a traceback and death by SIGINT, a SIGTERM killed it
outright. So the package's first lines call :func:`hold` when the process is
``python -m mancala`` (never when it is imported by a program), which notes
SIGINT and SIGTERM; ``__main__`` calls :func:`release` once the commands are
imported, which puts the handlers back and raises a stop that came.

And the last: a command that ran a Ray runtime has shut it down and swept it
(mancala.cluster.connect); the interpreter's own clean-up after that still
met Ray's threads (seen: killed by SIGINT after "mancala: interrupted", and
SIGSEGV). :func:`leave` flushes the output and ends such a process at once.
"""
import os
import signal
import sys
import threading

held: list = []
_before: dict = {}


def started_as_command() -> bool:
    """Whether this process is ``python [options] -m mancala ...``."""
    argv = list(getattr(sys, "orig_argv", ()))
    for i, arg in enumerate(argv[1:], 1):
        if arg == "-m":
            return argv[i + 1:i + 2] == ["mancala"]
        if arg.startswith("-m"):
            return arg == "-mmancala"
        if not arg.startswith("-"):
            return False
    return False


def _note(signum, frame) -> None:
    held.append(signum)


def hold() -> None:
    """Note SIGINT and SIGTERM from now on (not one ignored: nohup), if this
    process is the command and nothing has held them yet."""
    if _before or not started_as_command() or threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(signum)
        if handler is not None and handler is not signal.SIG_IGN:
            _before[signum] = handler
            signal.signal(signum, _note)


def release(on_sigterm, terminated) -> None:
    """Ctrl-C back to Python's, SIGTERM to ``on_sigterm``; a stop held meanwhile
    is raised now (SIGTERM as ``terminated``, the first that came first)."""
    if signal.SIGINT in _before:
        signal.signal(signal.SIGINT, _before[signal.SIGINT])
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, on_sigterm)
    _before.clear()
    if held:
        raise terminated if held[0] == signal.SIGTERM else KeyboardInterrupt


def leave(status) -> None:
    """End the command with status (as SystemExit takes it): a stop now changes
    nothing; after a Ray runtime, at once (see the module docstring), else as
    Python does."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    if not isinstance(status, int):
        if status is not None:
            print(status, file=sys.stderr)
        status = 0 if status is None else 1
    cluster = sys.modules.get("mancala.cluster")
    if cluster is not None and getattr(cluster, "ray_was_used", lambda: False)():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    sys.exit(status)
