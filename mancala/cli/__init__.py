"""The command line: ``python -m mancala COMMAND``.

Each command lives in its own module here with ``add_parser(subparsers)``,
which registers its arguments and sets ``run(args) -> int``; :data:`COMMANDS`
lists them, in the order ``--help`` shows them. This module only dispatches
and turns user mistakes into one line on stderr and a non-zero exit. The
argument types the commands share are :mod:`mancala.cli.options`; how they
write times, :mod:`mancala.cli.format`.
A closed stdout (``python -m mancala analyze --json | head -1``) ends any
command quietly with status 1.
"""
from __future__ import annotations

import argparse
import os
import sys
from types import ModuleType
from typing import Dict, List, NoReturn, Optional

from mancala.cli import analyze, arena, bench, endgame, engine, play, serve, solve
from mancala.cli import explain, history, levels, puzzle, review
from mancala._system import error_line
from mancala._version import __version__
from mancala.cli.signals import STATUS as TERMINATED, Terminated, stop_signals
from mancala.errors import CommandError, MancalaError
from mancala.untrusted import printable

COMMANDS: Dict[str, ModuleType] = {
    "play": play,
    "analyze": analyze,
    "solve": solve,
    "endgame": endgame,
    "bench": bench,
    "arena": arena,
    "engine": engine,
    "serve": serve,
    "history": history,
    "levels": levels,
    "explain": explain,
    "review": review,
    "puzzle": puzzle,
}


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one line to stderr and exit non-zero."""
    print(f"mancala: {printable(message)}", file=sys.stderr)
    raise SystemExit(code)


def _silence_stdout() -> None:
    """The reader of stdout went away (``| head``): send what is left to /dev/null.

    The command then exits with status 1 and no message, as ``play`` does (not
    141, the shell's code for a process killed by SIGPIPE: Python ignores that
    signal and exits on its own); otherwise the interpreter's last flush would
    print ``Exception ignored ... BrokenPipeError`` at exit.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):   # not a real file (a test's capture)
        pass


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command in :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="python -m mancala",
        description="Kalah (Mancala): play in the terminal, analyse positions, benchmark the engine.")
    parser.add_argument("--version", action="version", version=f"mancala {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run one command; its exit status. A user mistake (a MancalaError or
    OSError) prints one line and raises SystemExit(2); Ctrl-C returns 130, and
    SIGTERM, which every command takes as Ctrl-C (:mod:`mancala.cli.signals`), 143."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["play"])
    try:
        with stop_signals() as stops:
            code = args.run(args) or 0
        if code == 130 and stops.terminated:    # a command that took SIGTERM as Ctrl-C itself
            code = TERMINATED
        sys.stdout.flush()      # a reader that went away shows here, not at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except KeyboardInterrupt as exc:
        # on a terminal, first end the line the echoed ^C is on
        how = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(("\n" if sys.stderr.isatty() else "") + f"mancala: {how}", file=sys.stderr)
        return TERMINATED if isinstance(exc, Terminated) else 130
    except (CommandError, MancalaError, OSError) as exc:
        # an OSError of the system's own says its file and reason, never "[Errno N]"
        fail(str(exc) if isinstance(exc, MancalaError) or not isinstance(exc, OSError)
             else error_line(exc))
