"""The terminal's words at 80 columns (issue 34's papercuts): a line too long is broken
between words and goes on under its text, a pit's number keeps its letter, the history
says a game in the player's words with its counts in the singular where they are one,
and the review's table fits 80 columns. Expected texts are literals worked by hand;
the menus and the review are read from real processes on a pseudo-terminal 80 wide.
"""
import json
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


# -- issue 40, item 5: the terminal at 60 columns ---------------------------------------------------

CASUAL = ["play", "--south", "human", "--north", "ai:easy", "--casual", "--seed", "1", "--no-color"]
TYPED = ["3", "6", "hint", "quit"]      # an extra turn, a move, the computer's two, a hint
CELLS = r" +(\[ *[0-9]+\] ){5}\[ *[0-9]+\]"
UNITS = r"\s*(ms|s|min)\b"


def on_a_terminal(home, args, columns, typed=()):
    """Every line a real terminal ``columns`` wide shows while ``args`` run and ``typed``
    is typed at each prompt: as :func:`lines_of` reads them, and the raw text."""
    child = pexpect.spawn(sys.executable, ["-m", "mancala", *args], env=env_for(home),
                          encoding="utf-8", timeout=120, dimensions=(40, columns),
                          cwd=str(home.parent))
    seen = []
    for line in typed:
        child.expect(r": $")
        seen.append(child.before + child.after)
        child.sendline(line)
    lines = lines_of(child)
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", "".join(seen).replace("\r\n", "\n"))
    return [line.rstrip() for line in text.split("\n")] + lines, child


def words(lines):
    """The words of some lines, numbers left out (a move's time differs from run to run)."""
    return {word for line in lines for word in line.split() if not re.fullmatch(r"[0-9.,]+", word)}


def test_play_at_60_columns_draws_a_compact_board_and_cuts_no_word(home):
    """Before: 'North  ai:easy' and 'South's pits, 1-6' wrapped into the board, '2 ms]' was
    split from its number. The board is drawn compact, each side named on its own line."""
    lines, _ = on_a_terminal(home, CASUAL, 60, TYPED)
    assert all(len(line) <= 60 for line in lines), max(lines, key=len)
    rows = [line for line in lines if "[" in line and "]" in line and "<-" not in line
            and not line.startswith(("North (", "South ("))]
    assert rows and all(re.fullmatch(CELLS, line) for line in rows), rows
    stores = [line for line in lines if "<-" in line]
    assert stores and all(re.fullmatch(r" +\[ *[0-9]+\] <- North's +South's -> \[ *[0-9]+\]", line)
                          for line in stores), stores
    assert any(re.fullmatch(r" +North  ai:easy", line) for line in lines)
    assert any(re.fullmatch(r" +South  human  \(pits 1-6\)", line) for line in lines)
    assert not any(re.search(r"[0-9]$", above) and re.match(UNITS, below)
                   for above, below in zip(lines, lines[1:]))
    # no word cut: every word shown is a word of the same game written whole to a pipe
    piped = subprocess.run([sys.executable, "-m", "mancala", *CASUAL], input="\n".join(TYPED) + "\n",
                           capture_output=True, text=True, env=env_for(home), timeout=120)
    assert words(lines) - words(piped.stdout.splitlines()) <= {"(pits", "1-6)"}


def test_play_at_80_columns_keeps_the_wide_board(home):
    lines, _ = on_a_terminal(home, CASUAL, 80, TYPED)
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert any(re.fullmatch(CELLS + r"    North  ai:easy", line) for line in lines)
    assert any(line.endswith("South's pits, 1-6") for line in lines)
    assert "python -m mancala play --resume" in "\n".join(lines)      # a command kept whole


PROGRESS = (r"Reviewing [0-9]+ moves(, the last first)?: [0-9]+ done, [0-9]+ marked"
            r"( \((the )?latest: move [0-9]+, (South|North)'s (inaccuracy|mistake|blunder)\))?"
            r"|Reviewing: [0-9]+/[0-9]+(, [0-9]+ marked( \(move [0-9]+, (South|North)'s "
            r"(inaccuracy|mistake|blunder)\))?)?|[0-9]+/[0-9]+")


@pytest.mark.parametrize("columns", [60, 80])
def test_the_review_s_progress_line_is_never_cut_mid_word(home, columns):
    """Before: at 80 columns 'Reviewing 14 moves, the last first: 3 done, 1 marked (the
    latest: move 12, South's inacc' (cut to fit). Now a shorter form, whole."""
    moves = [4, 2, 4, 3, 3, 1, 5, 5, 2, 4, 4, 1, 1, 2]
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "standard", moves)
    _, child = on_a_terminal(home, ["review", "--last"], columns)
    progress = [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", part) for part in child.before.split("\r")
                if part.startswith("Reviewing")]
    assert len(progress) == len(moves)
    assert all(len(part) < columns and re.fullmatch(PROGRESS, part) for part in progress), progress
    assert any("marked (" in part for part in progress)     # a mark named where it fits


def test_the_review_at_60_columns_keeps_each_move_on_one_line(home):
    """Before: every row broke in two ('South +6        0' / 'exact'). Under 80 columns a
    row leaves out its side (its pit's letter says it) and its mark, said under it with the
    better move; the marks are the review's own (its JSON)."""
    moves = [4, 2, 4, 3, 3, 1, 5, 5, 2, 4, 4, 1, 1, 2]
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "standard", moves)
    lines, _ = on_a_terminal(home, ["review", "--last"], 60)
    assert all(len(line) <= 60 for line in lines), max(lines, key=len)
    rows = [i for i, line in enumerate(lines) if re.match(r" +[0-9]+  [1-6] \([A-L]\)", line)]
    assert len(rows) == len(moves)
    assert all(re.search(r"  [0-9]+  (exact|depth [0-9]+)$", lines[i]) for i in rows)
    marks = {int(lines[i].split()[0]): lines[i + 1].split(";")[0].strip() for i in rows
             if lines[i + 1].lstrip().split(";")[0] in ("inaccuracy", "mistake", "blunder")}
    kept = subprocess.run([sys.executable, "-m", "mancala", "review", "--last", "--json"],
                          capture_output=True, text=True, env=env_for(home), timeout=120)
    assert marks == {move["number"]: move["mark"] for move in json.loads(kept.stdout) if move["mark"]}
    assert len(marks) == 3
