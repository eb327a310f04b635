"""Inputs that must meet the project's own errors, with a short quote: dicts as boards,
NumPy-style integers everywhere an int is taken, 500 KB names."""
import os
import socket
import subprocess
import sys

import pytest

import mancala
from mancala import _core
from mancala.arena import ArenaConfig
from mancala.errors import IllegalMoveError, InvalidBoardError, MancalaError
from mancala.players import PlayerSpecError, parse_player

START = [4] * 6 + [0] + [4] * 6 + [0]
HUGE = "x" * 500_000


class Integer:
    """An int-like that is not an int, as numpy.int64 is: it only has __index__."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


@pytest.mark.parametrize("slots", [{"a": 1}, {i: 4 for i in range(14)}, "abcdefghijklmn",
                                   set(range(14)), b"\x04" * 14])
def test_a_board_that_is_not_a_sequence_is_an_invalid_board(slots):
    with pytest.raises(InvalidBoardError, match="a board is a list of 14 seed counts"):
        mancala.Board(slots)


def test_a_sequence_that_cannot_be_indexed_is_an_invalid_board():
    class Broken:
        def __len__(self):
            return 14

        def __getitem__(self, i):
            raise KeyError(i)

    with pytest.raises(InvalidBoardError, match="a board is a list of 14 seed counts"):
        mancala.Board(Broken())


def test_index_integers_are_accepted_as_pits_side_and_moves():
    board = mancala.Board([Integer(v) for v in START], to_move=Integer(1))
    assert board.to_move == 1 and type(board.to_move) is int
    record = board.push(Integer(2))
    assert record.pit == 2 and type(record.pit) is int
    assert board.is_legal(Integer(0))
    assert _core.play(START, Integer(0), Integer(2), 0) == (
        [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0], 0, 0)


def test_bools_are_still_refused_as_side_and_pit():
    with pytest.raises(InvalidBoardError, match="not True"):
        mancala.Board(START, to_move=True)
    with pytest.raises(IllegalMoveError, match="not False"):
        mancala.Board().push(False)


def test_numpy_integers_if_numpy_is_installed():
    numpy = pytest.importorskip("numpy")
    board = mancala.Board(numpy.array(START), to_move=numpy.int64(1))
    assert board.push(numpy.int64(0)).pit == 0
    assert board.to_move == 0


def test_error_messages_quote_a_500_kb_input_briefly():
    checks = [
        (PlayerSpecError, lambda: parse_player(HUGE)),
        (PlayerSpecError, lambda: ArenaConfig(HUGE, "random")),
        (InvalidBoardError, lambda: mancala.Board([HUGE] * 14)),
        (InvalidBoardError, lambda: mancala.Board(START, to_move=HUGE)),
        (IllegalMoveError, lambda: mancala.Board().push(HUGE)),
        (MancalaError, lambda: mancala.Board(capture=HUGE)),
        (MancalaError, lambda: mancala.Board(seeds=HUGE)),
        (MancalaError, lambda: mancala.Engine(hash_mb=HUGE)),
    ]
    for error, call in checks:
        with pytest.raises(error) as info:
            call()
        assert len(str(info.value)) < 400, str(info.value)[:100]
        assert "500,002 characters" in str(info.value)


def test_cli_quotes_a_500_kb_player_name_in_one_short_line():
    run = subprocess.run([sys.executable, "-m", "mancala", "arena", "a" * 100_000, "random"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    last = run.stderr.strip().splitlines()[-1]
    assert "unknown player 'aaaa" in last and "100,002 characters" in last
    assert len(run.stderr) < 1000


# -- numbers are ASCII digits: int() and float() also read other scripts' digits

def mancala_command(args, tmp_path, stdin=None, timeout=120):
    env = dict(os.environ, MANCALA_HOME=str(tmp_path / "home"), MANCALA_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True, text=True,
                          input=stdin, timeout=timeout, env=env)


@pytest.mark.parametrize("args, says", [
    (["solve", "--seeds", "\u0663"], "seeds per pit is a whole number from 1 to 12, not '\u0663'"),
    (["solve", "--seeds", "\uff13"], "seeds per pit is a whole number from 1 to 12, not '\uff13'"),
    (["solve", "--seeds", "2", "--hash-mb", "\u0661\u0666"], "hash_mb is a table size in megabytes"),
    (["endgame", "build", "--seeds", "\u0663"], "whole number from 0 to 36, not '\u0663'"),
    (["arena", "ai:depth=2,temp=\u0661", "random", "--games", "2"], "unknown player 'ai:depth=2,temp="),
    (["arena", "random", "random", "--games", "2", "--sprt", "\u0661", "10"],
     "an Elo is a number from -2000 to 2000, not '\u0661'"),
    (["arena", "ai:depth=\u0663", "random", "--games", "2"], "unknown player 'ai:depth=\u0663'"),
], ids=["seeds-arabic-indic", "seeds-fullwidth", "hash-mb", "build-seeds", "temp", "sprt", "depth"])
def test_a_number_in_another_script_s_digits_is_refused_in_one_line(args, says, tmp_path):
    """Before: `--seeds \u0663` solved Kalah(6,3), `--seeds \uff13` too, `--hash-mb \u0661\u0666` made a
    16 MB table, `temp=\u0661` and `--sprt \u0661 10` played (int() and float() read them)."""
    done = mancala_command(args, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout[-500:])
    assert says in lines[-1] and "Traceback" not in done.stderr, done.stderr


def test_the_engine_protocol_takes_ascii_digits_only(tmp_path):
    done = mancala_command(["engine"], tmp_path, stdin="uci\ngo depth \u0663\nsetoption name Hash value "
                                                      "\u0661\u0666\ngo movetime \u0661\nquit\n")
    errors = [line for line in done.stdout.splitlines() if line.startswith("info string error")]
    assert errors == ["info string error: depth is a whole number from 1 to 254, not '\u0663'",
                      errors[1], "info string error: movetime (milliseconds) is a whole number from 1 "
                                 "to 3,600,000, not '\u0661'"], done.stdout
    assert errors[1].startswith("info string error: Hash (megabytes) is a whole number from 0 to ")
    assert "bestmove" not in done.stdout


def test_a_table_below_the_smallest_is_refused_saying_the_smallest(tmp_path):
    """Before: `--hash-mb 0.0001` solved with "table 6.10352e-05 MB" (one 64-byte bucket)."""
    done = mancala_command(["solve", "--seeds", "2", "--hash-mb", "0.0001"], tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines()[-1].endswith(
        "argument --hash-mb: hash_mb is 0 (no table) or a table of at least 1 MB (the smallest), "
        "not '0.0001'"), done.stderr
    with pytest.raises(MancalaError, match="at least 1 MB"):
        mancala.Engine(hash_mb=0.5)
    assert mancala.Engine(hash_mb=0).hash_mb == 0 and mancala.Engine(hash_mb=1).hash_mb == 1


def test_a_ray_address_where_nothing_listens_is_one_line_naming_it(tmp_path):
    """Before: `--cluster ray://127.0.0.1:1` waited some 30 s for Ray Client, then said
    "ray client connection timeout". A port bound and not listening refuses at once."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        address = f"ray://127.0.0.1:{bound.getsockname()[1]}"
        done = mancala_command(["arena", "random", "random", "--games", "2", "--cluster", address],
                               tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"mancala: cannot reach the Ray cluster at {address}: nothing answers there (connection refused)"]
