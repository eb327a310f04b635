"""Autosaves the way a player meets them: real ``python -m mancala play`` processes sharing
one MANCALA_HOME. Every game that was said to be saved can be resumed; nothing another
running game owns is touched; what cannot be read is kept aside and named; a home that
cannot be written costs the autosave, not the game.
"""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mancala import storage

ROOT = Path(__file__).resolve().parents[1]
PROMPT = r"your move \([0-9 ]+; or help\): "
SAVED = "the game is saved: python -m mancala play --resume"
FAST_AIS = ("--south", "ai:depth=1", "--north", "ai:depth=1")


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def env_for(home):
    env = dict(os.environ, MANCALA_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def play(home, *args, stdin="quit\n", cwd=None):
    """``python -m mancala play ARGS`` with piped input: the finished process."""
    result = subprocess.run([sys.executable, "-m", "mancala", "play", *args], input=stdin,
                            capture_output=True, text=True, env=env_for(home),
                            cwd=cwd or home.parent, timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def quit_after_one_move(home, seeds):
    result = play(home, "--south", "human", "--north", "ai:depth=1", "--seeds", str(seeds),
                  stdin="1\nquit\n")
    assert result.returncode == 0 and SAVED in result.stdout, result.stdout
    return result


def listed(out):
    """The numbered list of saved games: [(number, line)]."""
    return [(int(m.group(1)), m.group(2)) for m in
            re.finditer(r"^  (\d+)\. (South .*)$", out, re.MULTILINE)]


def saved_good_game(moves=(0, 2, 5, 1)):
    return storage.dumps(storage.SavedGame(4, "standard", "human", "ai:depth=1", list(moves)))


# -- several games -------------------------------------------------------------------------------

def test_two_games_at_once_the_one_that_quits_is_still_resumable(home):
    pexpect = pytest.importorskip("pexpect")
    game_a = pexpect.spawn(sys.executable, ["-m", "mancala", "play", "--south", "human",
                                            "--north", "ai:depth=1", "--seeds", "5",
                                            "--no-color"],
                           cwd=str(home.parent), env=env_for(home), encoding="utf-8", timeout=30)
    game_a.expect(PROMPT)
    game_a.sendline("2")
    game_a.expect(PROMPT)

    # while A runs, it is listed as in use and not resumed a second time
    second = play(home, "--resume")
    assert second.returncode == 2
    assert f"(in use by another running game (pid {game_a.pid}))" in second.stdout
    assert "every saved game is in use" in second.stderr

    game_b = play(home, *FAST_AIS, "--seeds", "3", stdin=None)       # B plays to the end
    assert game_b.returncode == 0 and "Game over" in game_b.stdout

    game_a.sendline("quit")
    game_a.expect(r"Stopped after (\d+) moves?; " + re.escape(SAVED))
    moves = int(game_a.match.group(1))
    game_a.expect(pexpect.EOF)
    game_a.close()
    assert game_a.exitstatus == 0

    resumed = play(home, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "Kalah: 5 seeds per pit" in resumed.stdout
    assert f"Resuming after {moves} move" in resumed.stdout


def test_three_quits_in_a_row_are_all_listed_newest_first_and_n_picks_one(home):
    for seeds in (3, 4, 5):
        quit_after_one_move(home, seeds)
    # starting play twice without a terminal (no input at all) loses none of them
    for _ in range(2):
        assert play(home, "--south", "human", stdin="").returncode == 0

    listing = play(home, "--resume")
    assert listing.returncode == 2
    games = listed(listing.stdout)
    assert [number for number, _ in games] == [1, 2, 3]
    assert [re.search(r"(\d+) seeds", line).group(1) for _, line in games] == ["5", "4", "3"]
    assert all("South human vs North ai:depth=1" in line and " played, saved 20" in line
               for _, line in games)
    assert "3 saved games: pick one with `python -m mancala play --resume N`" in listing.stderr
    assert listing.stderr.count("\n") == 1

    picked = play(home, "--resume", "3")
    assert picked.returncode == 0, picked.stderr
    assert "Kalah: 3 seeds per pit" in picked.stdout and "Resuming after" in picked.stdout

    too_far = play(home, "--resume", "4")
    assert too_far.returncode == 2 and "there is no saved game 4" in too_far.stderr


def test_a_finished_game_removes_only_its_own_autosave(home):
    quit_after_one_move(home, 4)
    folder = home / "autosaves"
    before = {path.name: path.read_bytes() for path in folder.glob("*.json")}
    assert len(before) == 1
    demo = play(home, *FAST_AIS, stdin=None)
    assert demo.returncode == 0 and "Game over" in demo.stdout
    assert {path.name: path.read_bytes() for path in folder.glob("*.json")} == before
    assert sorted(path.name for path in folder.iterdir()) == sorted(before)   # no lock left


def test_the_old_single_autosave_and_previous_are_kept_on_upgrade(home):
    home.mkdir()
    (home / "autosave.json").write_text(saved_good_game((0, 2, 5, 1)))
    (home / "previous.json").write_text(saved_good_game((0,)))
    listing = play(home, "--resume")
    assert listing.returncode == 2
    moves = sorted(re.search(r"(\d+) moves? played", line).group(1)
                   for _, line in listed(listing.stdout))
    assert moves == ["1", "4"]
    assert not (home / "autosave.json").exists() and not (home / "previous.json").exists()


# -- files that cannot be read --------------------------------------------------------------------

UNREADABLE = {
    "newer version": json.dumps(dict(json.loads(saved_good_game()), version=2)),
    "bad JSON": '{"format": "mancala-save", "version": 1, "rules": {',
    "a 5000-digit number": saved_good_game().replace('"seed": null', '"seed": ' + "9" * 5000),
}


IN_FOLDER = "autosaves/20260101T000000Z-1-abcdef.json"


@pytest.mark.parametrize("kind, where", [
    ("newer version", "autosave.json"), ("newer version", IN_FOLDER),
    ("bad JSON", IN_FOLDER), ("a 5000-digit number", "autosave.json")])
def test_an_unreadable_autosave_is_kept_aside_named_once_and_never_overwritten(home, kind, where):
    path = home / where
    path.parent.mkdir(parents=True)
    path.write_text(UNREADABLE[kind])
    content = path.read_bytes()

    first = play(home, "--south", "human", "--north", "ai:depth=1", stdin="1\nquit\n")
    assert first.returncode == 0, first.stderr
    notice = [line for line in first.stdout.splitlines() if "cannot be resumed" in line]
    assert len(notice) == 1
    kept = re.search(r"kept aside as (.+?\.json); it cannot be resumed: '", notice[0]).group(1)
    assert Path(kept).read_bytes() == content
    assert ".unreadable-" in kept and Path(kept).parent == path.parent
    assert SAVED in first.stdout                      # and the new game played on

    second = play(home, "--south", "human", stdin="quit\n")
    assert "cannot be resumed" not in second.stdout     # told once
    assert Path(kept).read_bytes() == content


def test_in_game_load_and_save_of_a_hostile_file_give_one_line_and_the_game_goes_on(home):
    home.mkdir()
    hostile = home.parent / "huge.json"
    hostile.write_text(UNREADABLE["a 5000-digit number"])
    before = hostile.read_bytes(), os.stat(hostile).st_mtime_ns
    result = play(home, "--south", "human", "--north", "ai:depth=1",
                  stdin="load huge.json\nsave huge.json\n1\nquit\n")
    assert result.returncode == 0, result.stderr
    assert "number with 5000 digits" in result.stdout
    assert "will not overwrite" in result.stdout
    assert "South (human) plays 1 (A)." in result.stdout
    assert (hostile.read_bytes(), os.stat(hostile).st_mtime_ns) == before


# -- a home that cannot be written ----------------------------------------------------------------

def test_a_home_under_a_file_turns_autosave_off_in_one_line_and_the_game_plays(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    home = tmp_path / "file" / "sub"
    result = play(home, "--south", "human", "--north", "ai:depth=1", stdin="1\nquit\n",
                  cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "autosave is off:" in line]
    assert lines == [f"autosave is off: cannot write to {home / 'autosaves'} "
                     f"({tmp_path / 'file'} is a file, not a folder)"]
    assert "Errno" not in result.stdout + result.stderr
    assert "South (human) plays 1 (A)." in result.stdout
    assert "this game was not saved (autosave is off)" in result.stdout

    finished = play(home, *FAST_AIS, stdin=None, cwd=tmp_path)
    assert finished.returncode == 0 and "Game over" in finished.stdout
    assert "Errno" not in finished.stdout + finished.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod")
def test_a_read_only_home_turns_autosave_off_in_one_line_and_the_game_plays(home):
    home.mkdir()
    home.chmod(0o500)
    try:
        result = play(home, "--south", "human", "--north", "ai:depth=1", stdin="1\nquit\n")
        finished = play(home, *FAST_AIS, stdin=None)
    finally:
        home.chmod(0o700)
    assert result.returncode == 0, result.stderr
    assert f"autosave is off: cannot write to {home / 'autosaves'} (permission denied)" \
        in result.stdout
    assert "South (human) plays 1 (A)." in result.stdout
    assert finished.returncode == 0 and "Errno" not in finished.stdout + finished.stderr


# -- temporary files of killed writes -----------------------------------------------------------

def test_stale_temporary_files_are_removed_and_live_ones_kept(home):
    folder = home / "autosaves"
    folder.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    dead_writer = folder / f".20260101T000000Z-1-abcdef.json.{dead}.k3j2h1.tmp"
    old = folder / ".20260101T000000Z-2-abcdef.json.x8y7z6.tmp"
    legacy = home / ".autosave.json.q1w2e3.tmp"
    live_writer = folder / f".20260101T000000Z-3-abcdef.json.{os.getpid()}.a1b2c3.tmp"
    for path in (dead_writer, old, legacy, live_writer):
        path.write_text('{"format": "mancala-save", "ver')
    two_hours_ago = time.time() - 7200
    for path in (old, legacy):
        os.utime(path, (two_hours_ago, two_hours_ago))

    assert play(home, "--south", "human", stdin="quit\n").returncode == 0
    assert not dead_writer.exists() and not old.exists() and not legacy.exists()
    assert live_writer.exists()


# -- newcomer's notes ------------------------------------------------------------------------------

def test_save_into_a_missing_folder_is_refused_in_one_line_and_creates_nothing(home):
    result = play(home, "--south", "human", "--north", "ai:depth=1",
                  stdin="save sub/dir/x.json\nsave\n1\nquit\n")
    assert result.returncode == 0, result.stderr
    missing = home.parent / "sub"
    assert f"no folder {str(missing)!r} (does not exist): create it first" in result.stdout
    assert not missing.exists()
    # a plain save goes to the data folder (not the current one), and says so with its path
    assert f"Saved to {home / storage.SAVES_FOLDER / storage.DEFAULT_SAVE_NAME};" in result.stdout
    assert not (home.parent / storage.DEFAULT_SAVE_NAME).exists()
    assert "South (human) plays 1 (A)." in result.stdout


def test_the_winners_score_comes_first():
    from mancala.board import Outcome
    from mancala.cli.render import describe_outcome
    assert describe_outcome(Outcome(1, 6, 30)) == "Game over: North wins 30-6 (by 24)."
    assert describe_outcome(Outcome(0, 30, 18)) == "Game over: South wins 30-18 (by 12)."
    assert describe_outcome(Outcome(None, 24, 24)) == "Game over: a draw, 24-24."


def test_the_menu_lists_several_saved_games_and_resumes_the_one_picked(home):
    pexpect = pytest.importorskip("pexpect")
    for seeds in (3, 6):
        quit_after_one_move(home, seeds)
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "play", "--no-color"],
                          cwd=str(home.parent), env=env_for(home), encoding="utf-8", timeout=30)
    child.expect(r"2\. resume a saved game \(2 saved\)")
    child.expect(r"Choice \[1\]: ")
    child.sendline("2")
    child.expect("Saved games, newest first:")
    child.expect(r"1\. South human vs North ai:depth=1, 6 seeds")
    child.expect(r"2\. South human vs North ai:depth=1, 3 seeds")
    child.expect(r"3\. back")
    child.sendline("2")
    child.expect("Kalah: 3 seeds per pit")
    child.expect("Resuming after")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(SAVED)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_read_only_file_system_turns_autosave_off_in_one_line(tmp_path, monkeypatch, capsys):
    """Root writes through chmod, so the read-only file system is simulated where files are made."""
    import errno
    import io
    import pathlib
    import tempfile
    from mancala.cli import main

    home = tmp_path / "home"
    monkeypatch.setenv("MANCALA_HOME", str(home))
    monkeypatch.chdir(tmp_path)

    def read_only(path, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(pathlib.Path, "mkdir", read_only)
    monkeypatch.setattr(tempfile, "mkstemp", lambda *a, dir=None, **k: read_only(dir))
    for args, stdin in ((("--south", "human", "--north", "ai:depth=1"), "1\nquit\n"),
                        (("--south", "human", "--north", "random", "--seeds", "1"),
                         "1\n2\n3\n4\n5\n6\n" * 12)):       # a game to its end
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        assert main(["play", *args]) == 0
        out = capsys.readouterr().out
        assert f"autosave is off: cannot write to {home / 'autosaves'} (read-only file system)" \
            in out
        assert "Errno" not in out
    assert "Game over" in out


@pytest.mark.parametrize("given", ["abc", "0", "1e9"])
def test_resume_with_no_number_is_one_usage_line(home, given):
    """--resume N takes a saved game's number (it raised NameError on 'abc')."""
    done = play(home, "--resume", given)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(
        f"argument --resume: N is a saved game's number in the list, from 1, not '{given}'")
