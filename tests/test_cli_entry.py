"""The terminal's words (mancala.cli.entry): pits and commands typed at the game's prompt,
read by a Keyboard that plays the pits and carries out the commands on the game."""
import pytest

import mancala
from mancala.cli.entry import HELP, Command, Keyboard, parse_entry
from mancala.game import Game


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def scripted(*lines):
    """A Keyboard reading the given lines (then end of input), and the list its messages go to."""
    feed = iter(lines)
    said = []

    def read(prompt):
        said.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return Keyboard(read, said.append), said


def test_pit_numbers_count_from_the_movers_left():
    board = mancala.Board()
    keyboard, _ = scripted("1")
    assert keyboard.ask(board) == 0
    board.push(0)                          # North to move: 1 is North's pit 0 (slot 7)
    keyboard, _ = scripted("6")
    assert keyboard.ask(board) == 5


def test_letters_a_to_f_are_south_and_g_to_l_north():
    board = mancala.Board()
    keyboard, _ = scripted("c")
    assert keyboard.ask(board) == 2
    board.push(0)
    keyboard, _ = scripted("L")
    assert keyboard.ask(board) == 5


@pytest.mark.parametrize("line, reason", [
    ("", "type a pit number"),
    ("   ", "type a pit number"),
    ("7", "there is no pit 7"),
    ("0", "there is no pit 0"),
    ("-1", "there is no pit -1"),
    ("99999999999999999999", "there is no pit"),
    ("banana", "'banana' is not a pit or a command"),
    ("1 2", "'1 2' is not a pit or a command"),
    ("g", "G is North's pit; South plays A-F"),
    ("3", "pit 3 (C) is empty"),
    ("c", "pit 3 (C) is empty"),
    ("hint now", "hint takes no argument"),
    ("load", "load needs a file name"),
])
def test_bad_input_gets_a_reason_and_the_legal_pits_then_asks_again(line, reason):
    board = mancala.Board([4, 4, 0, 4, 4, 4, 1, 4, 4, 4, 4, 4, 4, 3])
    keyboard, said = scripted(line, "1")
    assert keyboard.ask(board) == 0
    messages = [m for m in said if not m.startswith("South, your move")]
    assert len(messages) == 1
    assert reason in messages[0]
    assert messages[0].endswith("Legal pits: 1 2 4 5 6 (A B D E F)")


@pytest.mark.parametrize("line, command, argument", [
    ("hint", "hint", ""), ("UNDO", "undo", ""), ("save", "save", ""),
    ("save my game.json", "save", "my game.json"), ("load x.json", "load", "x.json"),
    ("help", "help", ""), ("?", "help", ""), ("quit", "quit", ""), ("q", "quit", ""),
    ("exit", "quit", ""),
])
def test_commands_are_read_as_commands(line, command, argument):
    assert parse_entry(line, mancala.Board()) == Command(command, argument)


def test_help_is_answered_and_the_person_asked_again():
    keyboard, said = scripted("help", "2")
    assert keyboard.ask(mancala.Board()) == 1
    assert HELP in said


def test_undo_and_quit_change_the_game_so_no_pit_comes_back():
    keyboard, _ = scripted("undo", "quit")
    game = keyboard.game = Game("human", "ai:depth=1", moves=[0, 1], ask=keyboard.ask)
    assert keyboard.ask(game.board) is None and game.moves == []    # South's 1, North's reply
    assert keyboard.ask(game.board) is None and game.quit_requested


def test_end_of_input_passes_through():
    keyboard, _ = scripted("x")
    with pytest.raises(EOFError):
        keyboard.ask(mancala.Board())


def test_the_prompt_names_the_side_and_the_legal_pits():
    keyboard, said = scripted("2")
    keyboard.ask(mancala.Board([0, 4, 4, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0]))
    assert said[0] == "South, your move (2 3 5 6; or help): "
