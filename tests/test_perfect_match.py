"""bench/perfect_match.py, run as a user runs it: every move of its player is perfect.

The script is started as a real process over Kalah(6,1) (12 seeds: a brute
force over the pure-Python twin's rules, remembering each position, settles
any of them at once), and each game it prints is replayed: at every move of the perfect player the twin's
exact value of the position must equal the value after the move, from the
same player's view (no move gives anything away), and the game must end
with at least the value of its opening.
"""
import functools
import json
import pathlib
import subprocess
import sys

import pytest

from mancala import Board, _reference
from mancala.board import capture_code

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "bench" / "perfect_match.py"


@functools.lru_cache(maxsize=None)
def brute_force(slots, to_move, capture):
    """The perfect-play final margin for ``to_move``: every line to the end, by the twin's rules."""
    if _reference.is_game_over(slots):
        return _reference.score(slots, to_move)         # the twin sweeps the rows at the end
    best = None
    for pit in _reference.legal_moves(slots, to_move):
        child, mover, _ = _reference.play(slots, to_move, pit, capture)
        value = brute_force(tuple(child), mover, capture)
        value = value if mover == to_move else -value
        best = value if best is None else max(best, value)
    return best


def twin_value(board, player):
    """The perfect-play final margin for ``player`` from ``board``."""
    value = brute_force(tuple(board.pits), board.to_move, capture_code(board.capture))
    return value if board.to_move == player else -value


@pytest.mark.parametrize("capture", ["standard", "empty"])
def test_every_move_of_the_perfect_player_keeps_the_perfect_value(capture, empty_endgame_cache):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "random", "--seeds", "1", "--capture", capture, "--plies", "2"],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    games = report["games"]
    assert report["config"]["player_a"] == "ai:perfect" and len(games) >= 2
    for game in games:
        perfect = 0 if game["a_side"] == "South" else 1
        board = Board(seeds=1, capture=capture)
        moves = [int(pit) for pit in game["pit_indices"]]
        opening = len(game["opening_indices"])
        for pit in moves[:opening]:
            board.push(pit)
        start_value = twin_value(board, perfect)
        for pit in moves[opening:]:
            if board.to_move == perfect:
                before = twin_value(board, perfect)
                board.push(pit)
                assert twin_value(board, perfect) == before, (game, board.ply)
            else:
                board.push(pit)
        assert board.is_game_over()
        assert game["margin"] >= start_value, game
