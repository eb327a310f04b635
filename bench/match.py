"""A quick match between two settings of this install's timed search.

    python bench/match.py A B [--time S] [--pairs N] [--plies P]
    python bench/match.py engine SETTING [ENGINE_OPTIONS...]

A and B name settings (below). The opening suite is the Kalah(6,4) start
and every 2-move opening (with --plies P: every P-move opening); each opening is played twice, sides swapped (a
game pair), each player a fresh Engine(hash_mb=16) searching S seconds a
move (default 0.05). Prints A's wins, draws and losses, its score, the pair
results, and the Elo difference the score implies. For measuring which parts
of the play mode gain (each is kept only if it does); the engine protocol and
the arena compare installs.

Settings: play (the default, PLAY_MODE), timed (the hard/soft time limits and
the kept partial iteration, exact-depth search), old (the search as it was
at issue 12's start: no iteration started unless 3x its time fits), and
play-minus-tt, play-minus-asp, play-minus-pvs, play-minus-clock (the soft
limit fixed, as before issue 33's time manager), tt, asp, pvs, clock;
SETTING@SHARE for a soft time limit of SHARE of the move's time (default
SOFT_TIME_SHARE); SETTING+positional or SETTING+learned for another
evaluation, SETTING+db for the largest endgame database cached, SETTING+tt
(any flag above) to add a part, SETTING+tN to search on N threads. Elo and its 95% interval come from the pairs (pentanomial, mancala.stats).

``engine SETTING`` runs ``python -m mancala engine ENGINE_OPTIONS...`` with
the play mode's flags of SETTING (play, timed, play-minus-X, X; no @, no
additions: the options say threads and evaluation), so the arena can play
two settings through the engine protocol:
``'engine:"python bench/match.py engine play-minus-clock --clock cpu"@0.1'``
is the engine with the soft limit fixed (before issue 33's time manager).
"""
import argparse
import sys
import time

from mancala import Board, Engine
from mancala import _core
from mancala import engine as _engine
from mancala.engine import PLAY_MODE
from mancala.openings import opening_suite
from mancala.search_values import SearchRequest
from mancala.stats import elo_estimate

FLAGS = {"tt": _core.PLAY_DEEPER_TT, "asp": _core.PLAY_ASPIRATION, "pvs": _core.PLAY_PVS,
         "clock": _core.PLAY_CLOCK}


def make_player(setting, seconds):
    setting, _, share = setting.partition("@")
    if share:       # SETTING@SHARE: another soft time limit, as a share of the move's time
        move = make_player(setting, seconds)

        def with_share(board):
            kept, _engine.SOFT_TIME_SHARE = _engine.SOFT_TIME_SHARE, float(share)
            try:
                return move(board)
            finally:
                _engine.SOFT_TIME_SHARE = kept
        return with_share
    setting, *extras = setting.split("+")
    evaluation = "store"
    added = 0
    threads = 1
    for extra in extras:
        if extra in _core.EVALUATIONS:
            evaluation = extra
        elif extra in FLAGS:
            added |= FLAGS[extra]
        elif extra[:1] == "t" and extra[1:].isdigit():
            threads = int(extra[1:])
        elif extra != "db":
            sys.exit(f"unknown addition {extra!r}")
    engine = Engine(hash_mb=16, endgame="auto" if "db" in extras else None, evaluation=evaluation,
                    threads=threads)
    if setting == "old":
        def move(board):
            pit = engine._searcher.search(board, SearchRequest(time=seconds)).move
            return pit if pit is not None else engine.search(board, depth=1).move
        return move
    if setting == "play":
        engine._play = PLAY_MODE
    elif setting == "timed":
        engine._play = 0
    elif setting.startswith("play-minus-"):
        engine._play = PLAY_MODE & ~FLAGS[setting[len("play-minus-"):]]
    elif setting in FLAGS:
        engine._play = FLAGS[setting]
    else:
        sys.exit(f"unknown setting {setting!r}")
    engine._play |= added
    return lambda board: engine.search(board, time=seconds).move


def play_game(opening, south, north, seconds):
    """South's final margin."""
    board = Board()
    for pit in opening:
        board.push(pit)
    players = (make_player(south, seconds), make_player(north, seconds))
    while not board.is_game_over():
        board.push(players[board.to_move](board))
    return board.outcome().margin


def play_flags(setting):
    """The PLAY_* flags of a setting without additions (play, timed, play-minus-X, X)."""
    if setting == "play":
        return PLAY_MODE
    if setting == "timed":
        return 0
    if setting.startswith("play-minus-") and setting[len("play-minus-"):] in FLAGS:
        return PLAY_MODE & ~FLAGS[setting[len("play-minus-"):]]
    if setting in FLAGS:
        return FLAGS[setting]
    sys.exit(f"unknown setting {setting!r} for engine")


def run_engine(setting, options):
    """The engine protocol with setting's play flags (every Engine made reads PLAY_MODE)."""
    from mancala.cli import main as cli_main
    _engine.PLAY_MODE = play_flags(setting)
    return cli_main(["engine", *options])


def main():
    if sys.argv[1:2] == ["engine"] and len(sys.argv) >= 3:
        sys.exit(run_engine(sys.argv[2], sys.argv[3:]))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--time", type=float, default=0.05)
    p.add_argument("--pairs", type=int, default=0, help="first N openings only (0: all)")
    p.add_argument("--plies", type=int, default=2, help="opening length in moves (default 2)")
    args = p.parse_args()
    suite = opening_suite(args.plies)[:args.pairs or None]
    wins = draws = losses = 0
    pentanomial = [0] * 5           # pairs scoring 0, 1/2, 1, 3/2, 2 for A
    began = time.perf_counter()
    for opening in suite:
        pair = 0
        for a_south in (True, False):
            margin = play_game(opening, *((args.a, args.b) if a_south else (args.b, args.a)), args.time)
            margin = margin if a_south else -margin
            wins, draws, losses = wins + (margin > 0), draws + (margin == 0), losses + (margin < 0)
            pair += 2 if margin > 0 else 1 if margin == 0 else 0
        pentanomial[pair] += 1
    games = wins + draws + losses
    elo = elo_estimate(pentanomial)
    print(f"{args.a} vs {args.b} at {args.time:g} s/move, {games} games ({len(suite)} openings x 2): "
          f"+{wins} ={draws} -{losses}, score {(wins + draws / 2) / games:.1%}, "
          f"Elo {elo.elo:+.1f} [{elo.elo_low:+.1f}, {elo.elo_high:+.1f}]; pairs scoring 0, 1/2, 1, 3/2, 2: "
          f"{' '.join(map(str, pentanomial))} ({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
