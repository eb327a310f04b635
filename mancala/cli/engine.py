"""``python -m mancala engine``: speak the engine protocol on stdin/stdout (docs/protocol.md)."""
from __future__ import annotations

import argparse
import sys

from mancala import protocol
from mancala._core import EVALUATIONS
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
    p.set_defaults(run=run)


def _write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _lines():
    """stdin's lines as they come (not read ahead in blocks), until its end, as bytes:
    a line that is not UTF-8 is the session's to refuse, whatever the locale says."""
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return
        yield line


def run(args: argparse.Namespace) -> int:
    from mancala.cli import version
    return protocol.serve(_lines(), _write, version(), args.evaluation)
