"""``python -m mancala engine``: speak the engine protocol on stdin/stdout (docs/protocol.md)."""
from __future__ import annotations

import argparse
import sys

from mancala import protocol
from mancala.cli import options
from mancala.protocol.lines import read_lines
from mancala._core import EVALUATIONS, use_cpu_clock
from mancala._version import __version__
from mancala.limits import PLAY_EVALUATION


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "engine", help="speak the engine protocol (UGI/UCI shaped) on stdin/stdout",
        description="Read protocol commands from stdin, one a line, and answer on stdout, "
                    "so a GUI, a tournament runner or another program can drive the engine: "
                    "ugi, isready, setoption, newgame, position, go, stop, query, quit. "
                    "Moves are pits 1..6 from the mover's left. See docs/protocol.md.")
    p.add_argument("--evaluation", choices=EVALUATIONS, default=PLAY_EVALUATION,
                   help=f"the Evaluation option's value at the start (default {PLAY_EVALUATION}; "
                        "setoption name Evaluation value ... changes it)")
    p.add_argument("--threads", type=options.threads, default=1, metavar="N",
                   help="the Threads option's value at the start: the threads every go searches on "
                        "(default 1; setoption name Threads value N changes it)")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="what a go's time counts: the wall clock (default), or the CPU time of "
                        "the thread that searches (its helpers keep to it), for matches on a "
                        "shared machine: each engine searches as if the cores were its own")
    p.set_defaults(run=run)


def _write(line: str) -> None:
    """One answer in UTF-8, whatever the locale's encoding (an error quotes what was sent)."""
    sys.stdout.buffer.write(line.encode("utf-8", "backslashreplace") + b"\n")
    sys.stdout.buffer.flush()


def run(args: argparse.Namespace) -> int:
    use_cpu_clock(args.clock == "cpu")
    sys.stdout.flush()      # nothing text-buffered may come after the bytes written below
    return protocol.serve(read_lines(sys.stdin.buffer), _write, __version__, args.evaluation, args.threads)
