"""``python -m mancala arena`` for engines on CPU clocks, on a shared machine.

    python bench/shared_arena.py ARENA_ARGUMENTS...

The arena as it is (one worker), except that a move is a forfeit only past its
time plus --margin seconds (default 60) instead of 1.5 times its time plus 1 s,
and an engine has as long (not 10 s) to answer the handshake (``isready``
loads a cached endgame database: a 30-seed one took up to 29 s under a load
of 11-18 on 2 cores):
engines whose time counts the CPU time of their searching thread (``python -m
mancala engine --clock cpu``, ``bench/cmancala_engine.py ... --clock cpu``) take
more wall time than that when others keep the cores busy, and on a busy 2-core
machine the wall clock would measure the load, not the engines (two threads get
no more of a busy machine than one: the kernel shares it out by session).

    python bench/shared_arena.py \\
        'engine:"python -m mancala engine --clock cpu --threads 2"@0.1' \\
        'engine:"python -m mancala engine --clock cpu"@0.1' --openings 3 --json

``--replay I,J,...`` plays only those games of the run the other arguments
describe (the same openings, sides and seeds: game I is opening I // 2's,
A South when I is even) and prints each as one JSON line (the arena's
``--json`` game fields): for a pair that a forfeit decided (a player that
did not start under a load of 11), played again to take its place.
"""
import dataclasses
import json
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
    if "--replay" in argv:
        at = argv.index("--replay")
        indices = [int(word) for word in argv[at + 1].split(",")]
        return replay(argv[:at] + argv[at + 2:], indices)
    return main(["arena", *argv])


def replay(argv, indices):
    """Play games ``indices`` of the run ``argv`` describes; one JSON line each."""
    from mancala.arena import ArenaConfig, play_game
    from mancala.cli import build_parser
    args = build_parser().parse_args(["arena", *argv])
    config = ArenaConfig(args.player_a, args.player_b, games=max(indices) + 1, seeds=args.seeds,
                         capture=args.capture, seed=args.seed, swap=not args.no_swap,
                         openings=args.openings, time=args.time)
    for index in indices:
        print(json.dumps(dataclasses.asdict(play_game(config, index))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
