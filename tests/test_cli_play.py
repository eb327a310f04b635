"""``python -m mancala play``: in-process through main(argv), real subprocesses, and a real
pseudo-terminal (pexpect) for the menus, colour, Ctrl-C and kill-then-resume.

Every test gets its own MANCALA_HOME so the real autosave is never touched.
"""
import io
import json
import re
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mancala import storage
from mancala.cli import main

ROOT = Path(__file__).resolve().parents[1]
PROMPT = r"your move \([0-9 ]+; or help\): "


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A private data directory (for in-process runs and the env of subprocesses)."""
    path = tmp_path / "home"
    monkeypatch.setenv("MANCALA_HOME", str(path))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.chdir(tmp_path)
    return path


def env_for(home, **extra):
    env = dict(os.environ, MANCALA_HOME=str(home), **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if "NO_COLOR" not in extra:
        env.pop("NO_COLOR", None)
    return env


def run_play(home, *args, stdin="", timeout=60):
    """``python -m mancala play ARGS`` in a subprocess with piped input."""
    return subprocess.run(
        [sys.executable, "-m", "mancala", "play", *args], input=stdin, capture_output=True,
        text=True, env=env_for(home), cwd=home.parent, timeout=timeout)


def play_here(monkeypatch, capsys, *args, stdin=""):
    """main(["play", ...]) in this process with stdin from a string: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        code = main(["play", *args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def resuming(count):
    return f"Resuming after {count} move{'' if count == 1 else 's'}."


def autosave_files(home):
    """The autosaves in the folder, one file per saved game."""
    folder = home / "autosaves"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def autosaved(home):
    """The one saved game."""
    files = autosave_files(home)
    assert len(files) == 1, files
    return storage.load(files[0])


# -- the demo and flags ------------------------------------------------------------------------

def test_demo_without_a_terminal_plays_ai_against_ai_to_the_end(home):
    result = run_play(home, stdin=None)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "South: ai:medium, North: ai:medium" in out
    assert "Game over: " in out and "Game record" in out
    assert re.search(r"^ +1(-[0-9]+)?  South: ", out, re.M)     # moves numbered from 1
    assert "\x1b[" not in out                 # no colour when piped
    assert "Play again" not in out
    assert result.stderr == ""
    assert autosave_files(home) == []                  # a finished game is not resumable


def test_flags_set_players_rules_and_seed_reproducibly(home, monkeypatch, capsys):
    args = ("--south", "ai:depth=2", "--north", "random", "--seeds", "3", "--capture", "none",
            "--seed", "5")
    code, first, _ = play_here(monkeypatch, capsys, *args)
    assert code == 0
    assert "Kalah: 3 seeds per pit, no captures. South: ai:depth=2, North: random." in first
    assert "Game over" in first
    code, second, _ = play_here(monkeypatch, capsys, *args)
    timing = re.compile(r"\d+ ms\]")  # the only thing allowed to differ
    assert timing.sub("ms]", second) == timing.sub("ms]", first)


def test_ai_moves_show_pit_score_depth_and_time(home, monkeypatch, capsys):
    _, out, _ = play_here(monkeypatch, capsys, "--south", "ai:depth=3", "--north", "ai:depth=3")
    line = next(l for l in out.splitlines() if l.startswith("South (ai:depth=3) plays"))
    # no person plays: the score names the side ahead ("South +2", "North +1" or "even")
    assert re.search(r"\[(South \+[0-9]+|North \+[0-9]+|even) \(depth 3\), [0-9]+ ms\]", line), line


def test_a_random_move_is_told_by_its_kind_and_a_search_by_its_score_whatever_their_notes(
        home, monkeypatch, capsys):
    """The terminal told a random move from a searched one by comparing the note with
    "random move" (issue 42): a search whose note read so lost its score. Now MoveInfo
    says it (at_random), and the note is only shown."""
    from mancala.cli.render import describe_info
    from mancala.players import MoveInfo
    _, out, _ = play_here(monkeypatch, capsys, "--south", "ai:depth=2", "--north", "random",
                          "--seeds", "3", "--seed", "5")
    moves = [line for line in out.splitlines() if line.startswith("North (random) plays")]
    assert moves and all(re.search(r"\[random move, [0-9]+ ms\]$", line) for line in moves), moves
    searched = MoveInfo(3, 8, 0.002, 120, False, "random move")
    assert describe_info(searched, 0) == "South +3 (depth 8), random move, 2 ms"
    drawn = MoveInfo(0, 0, 0.0, 0, False, "as random", at_random=True)
    assert describe_info(drawn, 0) == "random move, 0 ms"


@pytest.mark.parametrize("args, message", [
    (["--south", "robot"], "unknown player 'robot'"),
    (["--north", "ai:depth=0"], "unknown player 'ai:depth=0'"),
    (["--seeds", "13"], "seeds per pit is a whole number from 1 to 12"),
    (["--capture", "sometimes"], "invalid choice: 'sometimes'"),
    (["--load", "x.json", "--resume"], "not allowed with argument"),
    (["--seed", "-3"], "the seed is a whole number from 0"),
])
def test_bad_flags_are_reported_by_the_parser_in_one_line(home, args, message):
    result = run_play(home, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("python -m mancala play: error:")


def test_resume_with_nothing_saved_is_one_line(home, monkeypatch, capsys):
    code, out, err = play_here(monkeypatch, capsys, "--resume")
    assert code == 2
    assert err.startswith("mancala: no game to resume") and err.count("\n") == 1


def test_rules_flags_cannot_go_with_a_save_file(home, monkeypatch, capsys):
    code, _, err = play_here(monkeypatch, capsys, "--load", "g.json", "--seeds", "5")
    assert code == 2 and "come from the save file" in err


def test_loading_a_hostile_file_fails_in_one_line_and_leaves_it_alone(home):
    bad = home.parent / "bad.json"
    bad.write_text('{"format": "mancala-save", "version": 1, "rules": {"seeds": 4')
    before = bad.read_bytes()
    result = run_play(home, "--load", str(bad))
    assert result.returncode == 2
    assert "not JSON" in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert bad.read_bytes() == before


# -- a human through a pipe ---------------------------------------------------------------------

def test_piped_human_moves_with_illegal_ones_then_end_of_input(home):
    result = run_play(home, "--south", "human", "--north", "ai:depth=1",
                      stdin="9\nbanana\n\ng\n0\n1\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for reason in ("there is no pit 9", "'banana' is not a pit or a command",
                   "type a pit number", "G is North's pit; South plays A-F", "there is no pit 0"):
        assert reason + "" in out
    assert out.count("Legal pits: 1 2 3 4 5 6 (A B C D E F)") == 5
    assert "South (human) plays 1 (A)." in out
    assert out.rstrip().endswith("the game is saved: python -m mancala play --resume")
    assert autosaved(home).moves[0] == 0
    assert "Traceback" not in result.stderr


def test_undo_and_hint_through_a_pipe(home, monkeypatch, capsys):
    code, out, _ = play_here(monkeypatch, capsys, "--south", "human", "--north", "ai:depth=1",
                             stdin="hint\n1\nundo\nundo\nquit\n")
    assert code == 0
    # South's third pit ends in South's store at the start: +7 for South 14 moves deep
    assert "Hint: pit 3 (C), extra turn: +7 for you (depth 14)." in out
    # North's reply was an extra-turn chain (3 ends in North's store, then 6): all of it goes
    assert "Took back 3 moves: South 1 (A); North 3 (I), extra turn; North 6 (L)." in out
    assert "there is no move of a human player to take back" in out
    assert "Stopped before the first move; nothing to resume." in out
    assert autosave_files(home) == []                  # back at the start: nothing to resume


def test_help_lists_the_commands(home, monkeypatch, capsys):
    _, out, _ = play_here(monkeypatch, capsys, "--south", "human", stdin="help\nquit\n")
    for command in ("hint", "undo", "save [FILE]", "load FILE", "resign", "help", "quit", "A-F",
                    "G-L"):
        assert command in out


def test_save_then_load_in_a_new_process(home):
    first = run_play(home, "--south", "human", "--north", "ai:depth=2", "--seeds", "5",
                     stdin="2\nsave game.json\nquit\n")
    assert first.returncode == 0, first.stderr
    saved_file = home.parent / "game.json"
    assert "Saved to " + str(saved_file) in first.stdout
    saved = storage.load(saved_file)
    assert saved.seeds == 5 and saved.moves[0] == 1
    second = run_play(home, "--load", "game.json", stdin="quit\n")
    assert second.returncode == 0, second.stderr
    assert resuming(len(saved.moves)) in second.stdout
    assert "Kalah: 5 seeds per pit" in second.stdout


def test_load_command_in_game_with_a_bad_file_goes_on(home, monkeypatch, capsys):
    (home.parent / "junk.json").write_text("[]")
    _, out, _ = play_here(monkeypatch, capsys, "--south", "human", "--casual",
                          stdin="load junk.json\n1\nquit\n")
    assert "not a mancala save file" in out
    assert "South (human) plays 1 (A)." in out


def test_a_finished_human_game_asks_to_play_again(home):
    lines = "".join(f"{pit}\n" for pit in "123456" * 30)
    result = run_play(home, "--south", "human", "--north", "random", "--seeds", "1",
                      "--seed", "2", stdin=lines + "n\n")
    assert result.returncode == 0, result.stderr
    assert "Game over" in result.stdout
    assert "Play again? [y/N]: " in result.stdout
    assert "--resume" not in result.stdout.split("Game over")[1]
    assert autosave_files(home) == []


def test_a_new_game_leaves_the_unfinished_one_alone(home, monkeypatch, capsys):
    play_here(monkeypatch, capsys, "--south", "human", stdin="1\nquit\n")
    first = autosaved(home)
    play_here(monkeypatch, capsys, "--south", "human", "--seeds", "3", stdin="2\nquit\n")
    games = [storage.load(path) for path in autosave_files(home)]
    assert first in games and len(games) == 2


# -- a real terminal ----------------------------------------------------------------------------

pexpect = pytest.importorskip("pexpect")


def spawn(home, *args, **extra_env):
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "play", *args], cwd=str(home.parent),
                          env=env_for(home, **extra_env), encoding="utf-8", timeout=15,
                          dimensions=(50, 120))
    return child


def finish(child):
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.signalstatus


def test_menus_through_a_real_terminal(home):
    child = spawn(home, "--no-color")
    child.expect("1. new game")
    child.expect(r"Choice \[1\]: ")
    child.sendline("7")
    child.expect("'7' is not a choice; type a number from 1 to 4")
    child.sendline("1")
    child.expect(r"Who plays South \(moves first\)\?")
    child.sendline("")                                  # default: a person
    child.expect("Who plays North?")
    child.sendline("2")                                 # the computer
    child.expect("How strong is the computer playing North?")
    child.expect("easy")
    child.sendline("1")
    child.expect(r"Seeds per pit, 1-12 \[4\]: ")
    child.sendline("13")
    child.expect("'13' is not a number from 1 to 12.")
    child.sendline("3")
    child.expect("Capture rule:")
    child.sendline("3")                                 # no rated or casual asked: not these rules
    child.expect("Kalah: 3 seeds per pit, no captures. South: human, North: ai:easy.")
    child.expect(r"A casual game, not rated: the levels' Elos were measured on Kalah\(6,4\) "
                 r"with capture standard, not Kalah\(6,3\) with\s+capture none\.")     # wrapped
    child.expect("South's pits, 1-6")
    child.expect(PROMPT)
    child.sendline("2")
    child.expect(r"South \(human\) plays 2 \(B\)")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("the game is saved: python -m mancala play --resume")
    assert finish(child) == (0, None)
    moves = autosaved(home).moves

    child = spawn(home, "--no-color")                  # the menu offers the autosave
    child.expect(r"resume the autosaved game \(South human vs North ai:easy, 3 seeds")
    child.sendline("2")
    child.expect(resuming(len(moves)))
    child.expect(PROMPT)
    child.sendline("quit")
    assert finish(child) == (0, None)
    assert autosaved(home).moves == moves


def test_load_menu_reasks_on_a_bad_file(home):
    (home.parent / "bad.json").write_text('{"format": "mancala-save", "version": 7}')
    storage.save(storage.SavedGame(3, "empty", "human", "random", [0]), home.parent / "g.json")
    child = spawn(home, "--no-color")
    child.expect(r"2. resume a saved game \(none saved yet\)")   # the numbers stay put
    child.expect("3. load a saved game")
    child.sendline("2")
    child.expect("No game is saved to resume")
    child.sendline("3")
    child.expect(r"Save file to load \(empty to go back\): ")
    child.sendline("bad.json")
    child.expect("version 7 is not supported")
    child.sendline("nowhere.json")
    child.expect("no such file")
    child.sendline("g.json")
    child.expect("Kalah: 3 seeds per pit, empty-pit capture. South: human, North: random.")
    child.expect("Resuming after 1 move.")
    child.expect(PROMPT)
    child.sendline("quit")
    assert finish(child) == (0, None)
    assert (home.parent / "bad.json").read_text() == '{"format": "mancala-save", "version": 7}'


def test_colour_on_a_terminal_unless_no_color(home):
    for extra, args, coloured in (({}, (), True), ({"NO_COLOR": "1"}, (), False),
                                  ({}, ("--no-color",), False)):
        child = spawn(home, "--south", "human", "--north", "ai:depth=1", *args, **extra)
        child.expect(PROMPT)
        assert ("\x1b[" in child.before) == coloured, (extra, args)
        child.sendline("quit")
        finish(child)


def test_ctrl_c_stops_cleanly_with_how_to_resume(home):
    child = spawn(home, "--south", "human", "--north", "ai:depth=1", "--no-color")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    time.sleep(0.2)                # let the prompt settle into its read
    child.sendintr()
    child.expect(r"Stopped after \d+ moves?; the game is saved: python -m mancala play --resume")
    rest = child.read()
    assert "Traceback" not in rest
    assert finish(child)[0] == 130
    moves = autosaved(home).moves                     # the game let go of its autosave
    result = run_play(home, "--resume", stdin="quit\n")
    assert result.returncode == 0 and resuming(len(moves)) in result.stdout


def test_end_of_input_on_a_terminal_stops_cleanly(home):
    child = spawn(home, "--south", "human", "--north", "ai:depth=1", "--no-color")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("python -m mancala play --resume")
    assert finish(child) == (0, None)


def test_kill_mid_game_then_resume(home):
    child = spawn(home, "--south", "human", "--north", "ai:depth=2", "--no-color")
    child.expect(PROMPT)
    child.sendline("3")            # extra turn: South moves again
    child.expect(PROMPT)
    child.sendline("6")
    child.expect(PROMPT)           # after North's reply
    child.kill(signal.SIGKILL)
    child.close()
    moves = autosaved(home).moves
    assert moves[:2] == [2, 5] and len(moves) > 2
    board = json.loads(autosave_files(home)[0].read_text())["position"]

    result = run_play(home, "--resume", stdin="quit\n")
    assert result.returncode == 0, result.stderr
    assert resuming(len(moves)) in result.stdout
    assert "South: human, North: ai:depth=2" in result.stdout
    assert json.loads(autosave_files(home)[0].read_text())["position"] == board


def test_play_again_on_a_terminal(home):
    child = spawn(home, "--south", "ai:depth=1", "--north", "ai:depth=1", "--no-color")
    child.expect("Game over")
    child.expect(r"Play again\? \[y/N\]: ")
    child.sendline("maybe")
    child.expect("'maybe': type y or n.")
    child.sendline("y")
    child.expect("Kalah: 4 seeds per pit")
    child.expect("Game over")
    child.expect(r"Play again\? \[y/N\]: ")
    child.sendline("n")
    assert finish(child) == (0, None)


# -- rated games: unaided, and resigning as a player meets them ---------------------------------

def test_a_rated_game_on_a_terminal_refuses_hint_and_undo_and_shows_no_score(home):
    child = spawn(home, "--south", "human", "--north", "ai:easy", "--no-color", "--seed", "1")
    child.expect("A rated game: no hints, takebacks or scores until it ends")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect("no hints in a rated game: it is played unaided")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(r"North \(ai:easy\) plays [^\r\n]*")
    assert "[" not in child.after and "for you" not in child.after     # no score while rated
    child.expect(PROMPT)
    child.sendline("undo")
    child.expect("no takebacks in a rated game: it is played unaided")
    child.expect(PROMPT)
    child.sendline("quit")
    assert finish(child) == (0, None)
    assert autosaved(home).rated                     # it resumes rated
    result = run_play(home, "--resume", stdin="hint\nquit\n")
    assert "no hints in a rated game" in result.stdout


def test_the_same_game_casual_allows_hint_and_undo_with_scores_for_you(home):
    result = run_play(home, "--south", "human", "--north", "ai:easy", "--casual", "--seed", "1",
                      stdin="hint\n1\nundo\nquit\n")
    out = result.stdout
    assert "A casual game: hints and takebacks allowed; it is kept, not rated." in out
    assert "Hint: pit 3 (C), extra turn: +7 for you (depth 14)." in out
    assert re.search(r"North \(ai:easy\) plays .*\[([-+][0-9]+ for you|even) \(depth 2\)", out)
    assert "Took back" in out


def test_resign_asks_once_and_a_resigned_rated_game_is_a_loss_in_history(home):
    child = spawn(home, "--south", "human", "--north", "ai:easy", "--no-color", "--seed", "1")
    child.expect(PROMPT)
    child.sendline("resign")
    child.expect(r"Resign this game\? It is kept as a loss, and your rating counts it\. \[y/N\]: ")
    child.sendline("n")
    child.expect("Not resigned; play on.")
    child.expect(PROMPT)
    child.sendline("resign")
    child.expect(r"\[y/N\]: ")
    child.sendline("y")
    child.expect("No moves were played.")               # not an empty 'Game record' heading
    child.expect(r"Game over: you resigned, a loss for you \(stores South 0, North 0\)\. "
                 r"Your rating: [0-9]+\? ±[0-9]+ \(-[0-9]+\)")          # provisional: one game
    child.expect(r"Play again\? \[y/N\]: ")
    child.sendline("n")
    assert finish(child) == (0, None)
    assert autosave_files(home) == []                  # nothing left to resume
    result = subprocess.run([sys.executable, "-m", "mancala", "history"], capture_output=True,
                            text=True, env=env_for(home), timeout=60)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Your rating: ") and "from 1 rated game" in lines[0]
    assert re.search(r"  1\. [0-9-]{10} [0-9:]{5}  you \(South\) vs ai:easy, 4 seeds per pit, standard capture: "
                     r"you lost by resignation, 0-0 in the stores, 0 moves; rated: [0-9]+\? ±[0-9]+ "
                     r"\(-[0-9]+\)$", lines[-1]), lines[-1]


def test_a_computer_game_cannot_be_rated(home):
    result = run_play(home, "--south", "ai:depth=1", "--north", "random", "--rated")
    assert result.returncode == 2
    assert "cannot be rated: a rated game is a person (human) against a computer level" in \
        result.stderr


def test_a_game_of_rules_the_levels_were_not_measured_on_is_casual_and_says_so(home):
    """Issue 38, item 4: one Kalah(6,1) game as South against ai:perfect (South's forced
    win) took a new player from nothing to 1750.8. The levels' Elos were measured on
    Kalah(6,4) with standard capture: this game is casual, said where it starts, kept
    unrated, and the person's rating is a newcomer's still."""
    moves = "".join(f"{pit}\n" for pit in "123456" * 3)      # each legal one in turn, to the end
    result = run_play(home, "--south", "human", "--north", "ai:perfect", "--seeds", "1",
                      stdin=moves)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert ("A casual game, not rated: the levels' Elos were measured on Kalah(6,4) with capture "
            "standard, not Kalah(6,1) with capture standard.") in out
    assert ("Kept in your history; not rated: the levels' Elos were measured on Kalah(6,4)"
            in out) and "Your rating" not in out
    from mancala.history import History
    from mancala.rating import Rating
    history = History(home / "history.sqlite3")
    [kept] = history.games()
    assert kept.seeds == 1 and not kept.rated and kept.after is None
    assert history.rating() == Rating()                 # a newcomer's still
    refused = run_play(home, "--south", "human", "--north", "ai:perfect", "--seeds", "1", "--rated")
    assert refused.returncode == 2
    assert "cannot be rated: the levels' Elos were measured on Kalah(6,4)" in refused.stderr


def test_a_rated_save_of_rules_the_levels_were_not_measured_on_goes_on_casual(home):
    """A save file that says rated (written before the rules were asked, or by hand) of a
    Kalah(6,1) game is played casual: it says so, and hints are allowed."""
    storage.save(storage.SavedGame(1, "standard", "human", "ai:easy", [], rated=True),
                 home.parent / "old.json")
    result = run_play(home, "--load", "old.json", stdin="hint\nquit\n")
    assert "A casual game, not rated: the levels' Elos were measured on Kalah(6,4)" in result.stdout
    assert "Hint: pit" in result.stdout and "no hints in a rated game" not in result.stdout


# -- issue 40 item 6 and issue 41 section 1: one voice, and the demo keeps out of your things ------

def test_a_rated_game_refuses_save_in_one_line_and_writes_nothing(home):
    """The web forbids saving a rated game; the terminal saved it (a copy to load and play
    on differently). Now it says why, in one line, and the game goes on."""
    result = run_play(home, "--south", "human", "--north", "ai:easy", "--seed", "1",
                      stdin="save\nsave mine.json\n1\nquit\n")
    assert result.returncode == 0, result.stderr
    refusal = ("no saving in a rated game: a copy could be played again differently (it is "
               "autosaved as it goes, to resume)")
    assert result.stdout.splitlines().count(refusal) == 2
    assert "Saved to" not in result.stdout
    assert "South (human) plays 1 (A)." in result.stdout       # the game went on
    assert not (home.parent / "mine.json").exists()
    assert not (home.parent / storage.DEFAULT_SAVE_NAME).exists()
    assert not (home / storage.SAVES_FOLDER / storage.DEFAULT_SAVE_NAME).exists()


def test_save_without_a_name_goes_to_the_data_folder_and_says_a_path_to_type_back(home, tmp_path):
    """Issue 41: `save` wrote mancala-save.json into the current folder (in a clone, the
    repository root). It goes to the data folder, and the line says where as a path the
    user can type: ~ for the home folder, and the command that continues it works."""
    data = tmp_path / "data"
    env = dict(env_for(data), HOME=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "mancala", "play", "--south", "human", "--north", "ai:depth=1",
         "--seeds", "3"], input="2\nsave\nquit\n", capture_output=True, text=True, env=env,
        cwd=home.parent, timeout=60)
    assert result.returncode == 0, result.stderr
    assert ("Saved to ~/data/saves/mancala-save.json; continue it with python -m mancala play "
            "--load ~/data/saves/mancala-save.json") in result.stdout.splitlines()
    assert not (home.parent / storage.DEFAULT_SAVE_NAME).exists()      # not in the current folder
    saved = storage.load(data / "saves" / storage.DEFAULT_SAVE_NAME)
    assert saved.moves[0] == 1                 # pit 2, and the computer's reply
    # the command as shown, typed into a shell (which expands the ~)
    command = "python -m mancala play --load ~/data/saves/mancala-save.json"
    again = subprocess.run(["sh", "-c", command.replace("python", shlex.quote(sys.executable), 1)],
                           input="quit\n", capture_output=True, text=True, env=env,
                           cwd=home.parent, timeout=60)
    assert again.returncode == 0, again.stderr
    assert resuming(len(saved.moves)) in again.stdout


def test_the_readme_demo_is_no_game_of_the_person_s(home):
    """`python -m mancala play < /dev/null` was kept in the person's history as a game of
    theirs. A game between two computers is neither kept nor autosaved: the history and the
    saved games stay as they were (here: none, and no data folder made at all)."""
    result = subprocess.run([sys.executable, "-m", "mancala", "play", "--seeds", "2"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            env=env_for(home), cwd=home.parent, timeout=60)
    assert result.returncode == 0, result.stderr
    (over,) = [line for line in result.stdout.splitlines() if line.startswith("Game over:")]
    assert over.endswith(" A game between computers: not kept in your history.")
    assert not home.exists()
    listed = subprocess.run([sys.executable, "-m", "mancala", "history", "--json"],
                            capture_output=True, text=True, env=env_for(home), timeout=60)
    assert json.loads(listed.stdout) == []
    # a person's game still is kept
    person = run_play(home, "--south", "human", "--north", "random", "--seeds", "1",
                      stdin="1\n2\n3\n4\n5\n6\n" * 12)
    assert person.returncode == 0, person.stderr
    listed = subprocess.run([sys.executable, "-m", "mancala", "history", "--json"],
                            capture_output=True, text=True, env=env_for(home), timeout=60)
    assert [(game["players"]["south"], game["players"]["north"])
            for game in json.loads(listed.stdout)] == [("human", "random")]


def test_a_person_s_prompt_is_not_said_twice_and_the_rules_are_named_in_words(home):
    """'South (human) to move.' then 'South, your move (...)': one of them is enough. The
    computer's turn is still said while it thinks; the rules as every face says them."""
    result = run_play(home, "--south", "human", "--north", "ai:depth=1", "--seeds", "3",
                      "--capture", "none", stdin="3\n1\nquit\n")
    out = result.stdout
    assert "Kalah: 3 seeds per pit, no captures. South: human, North: ai:depth=1." in out
    assert "South (human) to move" not in out
    assert out.count("South, your move (") == 3
    assert "North (ai:depth=1) to move." in out


def test_the_terminal_says_a_move_in_the_library_s_words():
    """One home for a move's words (MoveRecord.words), the terminal's and the web's:
    pits and effects worked by hand from the start of Kalah(6,4)."""
    from mancala import Board
    from mancala.cli.render import describe_move, move_text
    board = Board()
    extra = board.push(2)                  # 4 seeds from C: D E F and the store
    assert extra.words() == "3 (C), extra turn" == move_text(extra)
    assert extra.words("South (you)") == "South (you) plays 3 (C), extra turn."
    assert describe_move(extra, ("human", "ai:easy"), None) == \
        "South (human) plays 3 (C), extra turn."
    board = Board([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0])
    capture = board.push(0)               # A's seed lands in empty B, facing K's 5
    assert capture.words() == "1 (A), captures 6 seeds, the game is over"


# -- issue 41 section 3: game records people can read and paste --------------------------------

def test_save_to_a_kalah_name_writes_a_record_that_play_load_continues(home):
    """`save NAME.kalah` wrote JSON under that name. It writes the game record (tags, turns,
    result); `play --load` reads it back to the same moves, and the default save stays JSON."""
    from mancala import records
    first = run_play(home, "--south", "human", "--north", "ai:depth=2", "--seeds", "3",
                     "--casual", stdin="3\n6\nsave game.kalah\nsave\nquit\n")
    assert first.returncode == 0, first.stderr
    text = (home.parent / "game.kalah").read_text()
    assert text.startswith('[Variant "Kalah"]\n') and '[Result "*"]' in text, text
    record = records.loads(text)
    json_save = storage.load(home / storage.SAVES_FOLDER / storage.DEFAULT_SAVE_NAME)
    assert (home / storage.SAVES_FOLDER / storage.DEFAULT_SAVE_NAME).read_text().startswith("{")
    assert record.moves == json_save.moves
    turns = record.turns()          # South's 3 (C), the computer's reply, South's 6 (F)
    assert turns[0] == "C" and turns[2][0] == "F" and set(turns[1]) <= set("GHIJKL+0123456789")
    assert (record.seeds, record.capture, record.south, record.north) == \
        (3, "standard", "human", "ai:depth=2")
    second = run_play(home, "--load", "game.kalah", stdin="quit\n")
    assert second.returncode == 0, second.stderr
    assert resuming(len(record.moves)) in second.stdout
    assert "Kalah: 3 seeds per pit, standard capture. South: human, North: ai:depth=2." in second.stdout
    assert sorted(f.read_text() for f in autosave_files(home))      # resumed games autosave JSON
    assert max((storage.load(f) for f in autosave_files(home)), key=lambda g: len(g.moves)).moves \
        == record.moves


RECORD = """[Variant "Kalah"]
[Event "?"]
[Site "?"]
[Date "2026.05.01"]
[South "human"]
[North "random"]
[Seeds "2"]
[Capture "standard"]
[Result "*"]
[FEN "0-0-0-0-1-1-10-0-0-0-2-0-1-9-S"]

1. FE *
"""


def test_a_record_with_a_set_up_is_played_from_it_and_not_kept_in_the_history(home):
    """Kalah(6,2) set up with South's F and E to play (a chain: 1. FE), North's J (its only
    seeds but L's 1). Loaded, the game goes on from there; its end is said as the end of a
    game that did not start at the start: not kept as a game of the person's."""
    (home.parent / "setup.kalah").write_text(RECORD)
    result = run_play(home, "--load", "setup.kalah", stdin="6\n" * 3)
    assert result.returncode == 0, result.stderr
    assert resuming(2) in result.stdout
    assert "North (random) plays" in result.stdout
    (over,) = [line for line in result.stdout.splitlines() if line.startswith("Game over:")]
    assert over.endswith("A game from a set-up position: not kept in your history."), over
    listed = subprocess.run([sys.executable, "-m", "mancala", "history", "--json"],
                            capture_output=True, text=True, env=env_for(home), timeout=60)
    assert json.loads(listed.stdout) == []


@pytest.mark.parametrize("edit, reason", [
    (lambda t: t.replace("1. FE *", "1. FD *"), "line 12: turn 1 (FD): D (South's pit 4) is empty"),
    (lambda t: t.replace('[Seeds "2"]\n', ""), "lines 1-9: the tags have no Seeds tag"),
    (lambda t: t.replace('"*"', '"12-12"'), "line 12: the moves end with * but the Result tag "
                                            "(line 9) says 12-12"),
    (lambda t: t.replace("1. FE *", "1. F 2. E *"), "line 12: turn 1 (F): F earns South an extra "
                                                    "turn, so the turn goes on"),
])
def test_play_load_refuses_a_bad_record_in_one_line_naming_its_line(home, edit, reason):
    path = home.parent / "bad.kalah"
    path.write_text(edit(RECORD))
    before = path.read_bytes()
    result = run_play(home, "--load", "bad.kalah")
    assert result.returncode == 2
    assert result.stderr.startswith(f"mancala: 'bad.kalah': {reason}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    assert path.read_bytes() == before


def test_a_record_stopped_inside_a_chain_goes_on_with_the_same_side(home):
    (home.parent / "chain.kalah").write_text(RECORD.replace("1. FE *", "1. F *"))
    result = run_play(home, "--load", "chain.kalah", stdin="quit\n")
    assert result.returncode == 0, result.stderr
    assert resuming(1) in result.stdout and "South, your move (5; or help): " in result.stdout


def test_a_txt_record_loads_and_a_json_save_still_loads_whatever_its_name(home):
    (home.parent / "pasted.txt").write_text(RECORD.replace("1. FE *", "1. FE 2. J *"))
    loaded = run_play(home, "--load", "pasted.txt", stdin="quit\n")
    assert loaded.returncode == 0, loaded.stderr
    assert resuming(3) in loaded.stdout
    storage.save(storage.SavedGame(3, "empty", "human", "random", [0]), home.parent / "old.txt")
    old = run_play(home, "--load", "old.txt", stdin="quit\n")
    assert old.returncode == 0, old.stderr
    assert "Kalah: 3 seeds per pit, empty-pit capture." in old.stdout and resuming(1) in old.stdout


def test_a_record_set_up_for_north_says_north_moves_first(home):
    (home.parent / "north.kalah").write_text(RECORD.replace("-9-S", "-9-N").replace("1. FE *", "*"))
    result = run_play(home, "--load", "north.kalah", "--south", "random", "--north", "human",
                      stdin="quit\n")
    assert result.returncode == 0, result.stderr
    assert "North moves first. Type a pit" in result.stdout      # said 'South moves first'
    assert "North, your move (4 6; or help): " in result.stdout     # J (2 seeds) and L (1)
