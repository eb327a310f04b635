"""Inputs that must meet the project's own errors, with a short quote: dicts as boards,
NumPy-style integers everywhere an int is taken, 500 KB names."""
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
