"""``python -m mancala arena`` for engines on CPU clocks, on a shared machine.

    python bench/shared_arena.py ARENA_ARGUMENTS...

The arena as it is (one worker), except that a move is a forfeit only past its
time plus --margin seconds (default 60) instead of 1.5 times its time plus 1 s,
and an engine has as long (not 10 s) to answer the handshake (under a load of
11 on 2 cores, Python's start and imports took more than 10 s):
engines whose time counts the CPU time of their searching thread (``python -m
mancala engine --clock cpu``, ``bench/cmancala_engine.py ... --clock cpu``) take
more wall time than that when others keep the cores busy, and on a busy 2-core
machine the wall clock would measure the load, not the engines (two threads get
no more of a busy machine than one: the kernel shares it out by session).

    python bench/shared_arena.py \\
        'engine:"python -m mancala engine --clock cpu --threads 2"@0.1' \\
        'engine:"python -m mancala engine --clock cpu"@0.1' --openings 3 --json
"""
import sys

from mancala import external
from mancala.cli import main

MARGIN = 60.0


def run(argv):
    margin = MARGIN
    if "--margin" in argv:
        at = argv.index("--margin")
        margin = float(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if "--workers" in argv:
        sys.exit("shared_arena plays on one worker: the margin is set in this process")
    external.MARGIN_SECONDS = margin
    external.EngineProcess.__init__.__kwdefaults__["handshake"] = margin
    external.MARGIN_SHARE = 0.0
    return main(["arena", *argv])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
