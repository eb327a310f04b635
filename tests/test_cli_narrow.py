"""The terminal's words at 80 columns (issue 34's papercuts): a line too long is broken
between words and goes on under its text, a pit's number keeps its letter, the history
says a game in the player's words with its counts in the singular where they are one,
and the review's table fits 80 columns. Expected texts are literals worked by hand;
the menus and the review are read from real processes on a pseudo-terminal 80 wide.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mancala.cli.history import describe
from mancala.cli.render import wrap
from mancala.history import History

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    monkeypatch.setenv("MANCALA_HOME", str(path))
    return path


def env_for(home):
    env = dict(os.environ, MANCALA_HOME=str(home), NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def test_a_turn_of_the_record_goes_on_under_its_side_and_keeps_each_pit_with_its_letter():
    line = ("    23-26  North: 6 (L), extra turn; 5 (K), extra turn; 6 (L), extra turn; "
            "3 (I), captures 3 seeds")
    # before: '... extra turn; 3' then '    (I), captures 3 seeds'
    assert wrap(line, 80).split("\n") == [
        "    23-26  North: 6 (L), extra turn; 5 (K), extra turn; 6 (L), extra turn;",
        "           3 (I), captures 3 seeds"]


def test_menus_help_and_history_lines_go_on_under_their_text():
    assert wrap("  4. perfect  Elo 1627  opening book, then solves exactly (up to 3 s), else "
                "searches 1 s", 80).split("\n") == [
        "  4. perfect  Elo 1627  opening book, then solves exactly (up to 3 s), else",
        "                        searches 1 s"]
    assert wrap("  1. rated: no hints, takebacks or scores while it lasts; it counts for your "
                "rating", 80).split("\n") == [
        "  1. rated: no hints, takebacks or scores while it lasts; it counts for your",
        "     rating"]
    assert wrap("  undo         take back your last move and the computer's reply (not in a "
                "rated game)", 80).split("\n") == [
        "  undo         take back your last move and the computer's reply (not in a rated",
        "               game)"]
    # a sentence has no column: it goes on at its own indent
    assert wrap("Game over: you lost 15-33 (by 18). Your rating: 1139 (-361), 95% between 584 "
                "and 1694.", 40).split("\n") == [
        "Game over: you lost 15-33 (by 18). Your",
        "rating: 1139 (-361), 95% between 584 and",
        "1694."]


def test_the_history_says_a_resigned_game_in_your_words_and_one_move_in_the_singular(home):
    history = History(home / "history.sqlite3")
    game = history.record("human", "ai:medium", 4, "standard", [2], rated=False, resigned=0)
    text = describe(game)
    # before: 'you lost: you resigned, 1-0 in the stores, 1 moves; casual'
    assert text.endswith("you (South) vs ai:medium, 4 seeds per pit, standard capture: you lost by resignation, "
                         "1-0 in the stores, 1 move; casual"), text
    two = history.record("ai:easy", "ai:medium", 4, "standard", [0, 1], resigned=1)
    assert describe(two).endswith("South ai:easy vs North ai:medium, 4 seeds per pit, standard capture: South "
                                  "won (North resigned), 0-0 in the stores, 2 moves"), describe(two)


pexpect = pytest.importorskip("pexpect")


def lines_of(child):
    """What the terminal shows: each line as it is left (a line rewritten in place after
    a carriage return is its last writing), colour and erase codes taken out."""
    child.expect(pexpect.EOF)
    child.close()
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", child.before.replace("\r\n", "\n"))
    return [line.split("\r")[-1].rstrip() for line in text.split("\n")]


def test_the_strength_menu_at_80_columns_goes_on_under_each_level_s_words(home):
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "play", "--no-color"],
                          env=env_for(home), encoding="utf-8", timeout=60, dimensions=(40, 80),
                          cwd=str(home.parent))
    for answer in ("1", "1", "2"):               # new game, South a person, North the computer
        child.expect(r"Choice \[[0-9]\]: ")
        child.sendline(answer)
    child.expect(r"Choice \[2\]: ")
    menu = child.before.replace("\r", "").split("\n")
    child.sendline("q")
    child.close(force=True)
    perfect = next(i for i, line in enumerate(menu) if "4. perfect" in line)
    words = menu[perfect].index("opening book")
    assert menu[perfect + 1].startswith(" " * words) and menu[perfect + 1][words] != " ", menu
    assert all(len(line) <= 80 for line in menu)


def test_the_review_fits_80_columns_on_a_terminal(home):
    # Kalah(6,2), the person South: its moves lose seeds, so rows carry marks
    moves = [4, 2, 4, 3, 3, 1, 5, 5, 2, 4, 4, 1, 1, 2]
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "standard", moves)
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "review", "--last"],
                          env=env_for(home), encoding="utf-8", timeout=120, dimensions=(40, 80))
    lines = lines_of(child)
    rows = [line for line in lines if re.match(r" +[0-9]+  (South|North)  ", line)]
    assert len(rows) == len(moves)
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    # the progress line, rewritten in place, never wider than the terminal (it would not
    # go back to its start): every writing of it
    progress = [part for part in child.before.split("\r") if part.startswith("Reviewing")]
    assert progress and all(len(re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", part)) < 80
                            for part in progress)
    assert any(line.endswith(("inaccuracy", "mistake", "blunder")) for line in rows)
    # the header's columns are the rows' columns
    header = next(line for line in lines if line.strip().startswith("move"))
    mark_column = header.index("mark")
    marked = [line for line in rows if line.endswith(("inaccuracy", "mistake", "blunder"))]
    assert all(line.rstrip().rsplit(" ", 1)[1] == line[mark_column:] for line in marked)


def test_explain_fits_80_columns_on_a_terminal(home):
    """Its window and cut lines ran to 152 columns, broken mid-word by the terminal."""
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "explain", "--depth", "3"],
                          env=env_for(home), encoding="utf-8", timeout=120, dimensions=(40, 80))
    lines = lines_of(child)
    assert any("x cut pits" in line for line in lines)
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    # a broken line goes on at its own indent: the tree's shape is kept
    cut = next(i for i, line in enumerate(lines) if "x cut pits" in line and not line.endswith("here"))
    indent = len(lines[cut]) - len(lines[cut].lstrip())
    assert lines[cut + 1].startswith(" " * indent) and lines[cut + 1][indent] != " "


def test_analyze_fits_80_columns_and_keeps_its_arrow_with_best(home):
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "analyze", "--depth", "6"],
                          env=env_for(home), encoding="utf-8", timeout=120, dimensions=(40, 80))
    lines = lines_of(child)
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert sum(line.startswith("  pit ") for line in lines) == 6
    assert any(line.rstrip().endswith("<- best") for line in lines)
    assert not any(line.rstrip().endswith("<-") for line in lines)
