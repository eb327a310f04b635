"""Hostile files, met as a user meets them: real ``python -m mancala`` processes
over real files (issue 31). Planted rows in the history and the puzzle log,
FIFOs, devices and folders where a file is read or written, control
characters in what is read back, a data folder that cannot be written, many
processes finishing one puzzle at once.

What must hold every time: no traceback, no "[Errno N]", no process waiting
for ever (each run has a timeout), no game lost, and nothing of the user's
replaced (a FIFO is still a FIFO afterwards).
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading

import pytest

from mancala import storage
from mancala.history import FILE_NAME, History
from mancala.puzzles import PuzzleLog, load as load_puzzles
from mancala.players import level_elo
from mancala.rating import Rating, update

ROOT = pathlib.Path(__file__).resolve().parents[1]
GAME = [5, 4, 4, 3, 3, 2, 5]        # a whole Kalah(6,1) game, worked by hand in test_history.py
MOVES = "1\n2\n3\n4\n5\n6\n" * 12   # the first legal of these, each turn: finishes any 1-seed game
# a whole Kalah(6,4) game (the rules games are rated under: mancala.game.RATED_RULES), each
# move the mover's first legal pit; North wins 36-12. South's last move is forced: its pits
# are 0 0 0 0 0 8 (pit 4 is empty)
RATED_GAME = [0, 0, 1, 2, 0, 3, 0, 4, 0, 5]
RATED_MOVES = "1\n2\n3\n4\n5\n6\n" * 60      # the first legal of these, each turn: a 4-seed game
TIMEOUT = 60                        # a run that takes longer is a hang


@pytest.fixture
def home(tmp_path, monkeypatch):
    """The data folder of this test, for its processes and for the History() it calls."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("MANCALA_HOME", str(path))
    return path


def mancala(home, *args, stdin="", cwd=None, env=None):
    """A real run; fails the test on a hang, a traceback or a raw errno line."""
    environment = dict(os.environ, MANCALA_HOME=str(home), **(env or {}))
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environment.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "mancala", *args], input=stdin, capture_output=True,
                          text=True, env=environment, cwd=cwd or home.parent, timeout=TIMEOUT)
    both = done.stdout + done.stderr
    assert "Traceback" not in both and "[Errno" not in both, both
    return done


def error_line(done):
    """The one line a refused run prints on stderr."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


# -- planted history rows (item 3) ------------------------------------------------------------

PLANTED = {
    "infinite rating": "rating = 1e999",
    "rating 1e308": "rating = 1e308",
    "no deviation nor volatility": "rd = 0, volatility = 0",
    "deviation -1e300": "rd = -1e300",
    "a row that does not add up": "moves = '[0, 0, 1, 2, 0, 3, 0, 4, 0, 4]', rating = 1600",
}


@pytest.mark.parametrize("planted", PLANTED.values(), ids=list(PLANTED))
def test_a_planted_rating_neither_crashes_nor_loses_the_next_game(home, planted):
    # before: ZeroDivisionError (inf, 1e308), math domain error (rd 0, volatility 0), exit 1
    # and the game not kept; rd -1e300 rated the next game to -976,266; the row history left
    # out set the next game's start (1600). Every game here is under rated rules (4 seeds)
    first = History().record("human", "ai:easy", 4, "standard", RATED_GAME)
    History().record("human", "ai:easy", 4, "standard", RATED_GAME)
    db = sqlite3.connect(home / FILE_NAME)
    db.execute(f"UPDATE games SET {planted} WHERE id = 2")
    db.commit()
    db.close()
    listed = mancala(home, "history")
    assert listed.returncode == 0 and "does not add up" in listed.stderr
    assert f"Your rating: {first.after.shown()} " in listed.stdout
    played = mancala(home, "play", "--seeds", "4", "--south", "human", "--north", "random",
                     "--seed", "3", stdin=RATED_MOVES)
    assert played.returncode == 0 and "Game over:" in played.stdout
    kept = History().games()
    assert [game.id for game in kept] == [1, 3]          # the new game is kept and listed
    random_level = level_elo("random")
    score = 1.0 if kept[1].result == "south" else 0.0 if kept[1].result == "north" else 0.5
    assert kept[1].before == first.after
    assert kept[1].after == update(first.after, [(random_level.elo, random_level.rd, score)])
    assert f"Your rating: {kept[1].after.shown()} " in played.stdout


def test_a_planted_puzzle_rating_sets_nothing_and_the_attempt_is_kept(home):
    shipped = load_puzzles()
    log = PuzzleLog(home / "puzzles.sqlite3")
    first = log.record(shipped[0], True, [shipped[0].solution[0]])
    log.record(shipped[1], True, [shipped[1].solution[0]])
    db = sqlite3.connect(home / "puzzles.sqlite3")
    db.execute("UPDATE attempts SET rating = 1e999 WHERE id = 2")
    db.commit()
    db.close()
    puzzle = shipped[2]
    done = mancala(home, "puzzle", "--id", puzzle.id, "--no-color", stdin="solution\n")
    assert done.returncode == 0 and "Your puzzle rating: " in done.stdout
    kept = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert [attempt.puzzle for attempt in kept] == [shipped[0].id, puzzle.id]
    assert kept[1].before == first.after
    assert kept[1].after == update(first.after, [(puzzle.rating, 0.0, 0.0)])


# -- special files as every path argument (item 5) ----------------------------------------------

def plant(path, kind):
    """A FIFO, a link to a device, or a folder where a file is expected."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to(f"/dev/{kind}")


def untouched(path, kind):
    info = os.lstat(path)
    if kind == "fifo":
        return stat.S_ISFIFO(info.st_mode)
    if kind == "folder":
        return stat.S_ISDIR(info.st_mode) and not any(path.iterdir())
    return stat.S_ISLNK(info.st_mode) and os.readlink(path) == f"/dev/{kind}"


KINDS = ["fifo", "zero", "full", "folder"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", [FILE_NAME, f"{FILE_NAME}-wal", f"{FILE_NAME}.lock"])
def test_a_special_file_in_the_historys_place_is_one_line_and_the_game_goes_on(home, name, kind):
    # before: a FIFO history.sqlite3 hung history and play for ever
    if name != FILE_NAME:
        History().record("human", "ai:easy", 1, "standard", GAME)
        (home / name).unlink(missing_ok=True)
    plant(home / name, kind)
    listed = mancala(home, "history")
    assert listed.returncode == 2
    assert error_line(listed) == (f"mancala: cannot use the game history {home / FILE_NAME} ("
                                  + ("" if name == FILE_NAME else f"{home / name}: ")
                                  + "not a regular file)")
    played = mancala(home, "play", "--seeds", "1", "--south", "human", "--north", "random",
                     stdin=MOVES)
    assert played.returncode == 0 and "Game over:" in played.stdout
    assert "history is off: cannot use the game history" in played.stdout
    assert "not a regular file" in played.stdout
    assert untouched(home / name, kind)


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_a_special_puzzle_log_is_one_line_and_the_puzzle_goes_on(home, kind):
    plant(home / "puzzles.sqlite3", kind)
    puzzle = load_puzzles()[0]
    done = mancala(home, "puzzle", "--id", puzzle.id, "--no-color", stdin="solution\n")
    assert done.returncode == 0 and "The line: " in done.stdout
    assert (f"puzzle log is off: cannot use the puzzle log {home / 'puzzles.sqlite3'} "
            "(not a regular file)") in done.stdout
    assert untouched(home / "puzzles.sqlite3", kind)


def command_reading(path):
    """Each command line that reads a file the user names."""
    return {
        "play --load": ["play", "--load", str(path)],
        "review": ["review", str(path)],
        "bench --positions": ["bench", "--positions", str(path), "--depth", "1"],
    }


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", list(command_reading("x")))
def test_a_special_file_named_to_be_read_is_refused_in_one_line(home, tmp_path, command, kind):
    # before: bench --positions FIFO hung, and read /dev/zero without end
    path = tmp_path / "named.json"
    plant(path, kind)
    done = mancala(home, *command_reading(path)[command])
    assert done.returncode == 2, done.stderr
    line = error_line(done)
    assert "not a regular file" in line or (kind == "folder" and "is a directory" in line), line
    assert str(path) in line
    assert untouched(path, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_named_to_be_written_is_refused_and_left_as_it_is(home, tmp_path, kind):
    # before: puzzle --export FIFO hung
    path = tmp_path / "named.jsonl"
    plant(path, kind)
    done = mancala(home, "puzzle", "--export", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert error_line(done) in (f"mancala: will not write to {str(path)!r}: not a regular file",
                                f"mancala: {str(path)!r} is a folder")
    assert untouched(path, kind)
    saved = mancala(home, "play", "--seeds", "1", "--south", "human", "--north", "random", "--casual",
                    stdin=f"save {path}\nload {path}\nquit\n")
    assert saved.returncode == 0
    assert (f"will not write to {str(path)!r}: not a regular file" in saved.stdout
            or f"{str(path)!r} is a directory" in saved.stdout), saved.stdout
    assert (f"{str(path)!r}: not a regular file" in saved.stdout
            or f"{str(path)!r}: is a directory" in saved.stdout), saved.stdout
    assert untouched(path, kind)


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_special_files_in_the_autosave_folder_neither_hang_nor_stop_a_game(home, kind):
    # before: a FIFO lock file beside an autosave hung every new play's scan
    folder = home / "autosaves"
    folder.mkdir()
    plant(folder / "20260101T000000Z-1-abcdef.lock", kind)
    plant(folder / "20260101T000000Z-1-abcdef.json", kind)
    done = mancala(home, "play", "--seeds", "1", stdin="")
    assert done.returncode == 0 and "Game over:" in done.stdout
    # the autosave in the way is kept aside (renamed, as a damaged one is), with one line
    assert "it cannot be resumed: '" in done.stdout and "': not a regular file" in done.stdout
    (aside,) = [path for path in folder.iterdir() if ".unreadable-" in path.name]
    assert untouched(aside, kind)


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_an_autosave_folder_that_is_a_special_file_is_one_line(home, kind):
    plant(home / "autosaves", kind)
    done = mancala(home, "play", "--seeds", "1", "--south", "human", "--north", "random",
                   stdin=MOVES)
    assert done.returncode == 0 and "Game over:" in done.stdout
    assert f"autosave is off: cannot write to {home / 'autosaves'}" in done.stdout
    assert untouched(home / "autosaves", kind)


# -- control characters read back (item 8) -------------------------------------------------------

ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31m\u202e\r\n"


def test_control_characters_read_back_never_reach_the_terminal(home):
    History().record("human", "random", 1, "standard", GAME)
    db = sqlite3.connect(home / FILE_NAME)
    db.execute("UPDATE games SET north = ?, finished = ?",
               (f"random{ESCAPES}", f"2026-01-01{ESCAPES}T00:00:00Z"))
    db.commit()
    db.close()
    listed = mancala(home, "history")
    assert listed.returncode == 0
    for text in (listed.stdout, listed.stderr):
        assert not any(char in text for char in "\x1b\x07\r\u202e"), text
    # the same bytes, written as their escapes, on the game's one line
    (line,) = [line for line in listed.stdout.splitlines() if line.startswith("    1. ")]
    assert r"random\x1b]0;owned\x07\x1b[2J\x1b[31m\u202e\x0d\x0a" in line
    assert json.loads(mancala(home, "history", "--json").stdout)[0]["players"]["north"] == \
        f"random{ESCAPES}"      # the JSON holds them as they are, escaped by JSON itself


def test_control_characters_in_a_save_file_never_reach_the_terminal(home, tmp_path):
    folder = home / "autosaves"
    folder.mkdir()
    storage.save(storage.SavedGame(1, "standard", "human", f'engine:"never{ESCAPES}"', [0]),
                 folder / "20260101T000000Z-0-abcdef.json")
    listed = mancala(home, "play", "--resume", "9")      # lists the saved games, runs nothing
    assert listed.returncode == 2
    assert "\x1b" not in listed.stdout + listed.stderr
    assert r'North engine:"never\x1b]0;owned' in listed.stdout
    named = tmp_path / f"game{ESCAPES.strip()}.json"
    named.write_text("not json")
    done = mancala(home, "review", str(named))
    assert done.returncode == 2 and "\x1b" not in done.stderr and r"game\x1b]0;" in done.stderr


# -- a data folder that cannot be written (item 8) ----------------------------------------------

def read_only(home, *args, stdin=""):
    """A run with the data folder on a read-only mount (its own mount namespace:
    nothing outside it sees the mount)."""
    script = (f"mount --bind -o ro {home} {home} && exec {sys.executable} -m mancala "
              + " ".join(f"'{arg}'" for arg in args))
    environment = dict(os.environ, MANCALA_HOME=str(home))
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environment.get("PYTHONPATH")]))
    done = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c", script], input=stdin,
                          capture_output=True, text=True, env=environment, timeout=TIMEOUT)
    assert "Traceback" not in done.stdout + done.stderr
    return done


def can_mount_read_only(tmp_path):
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c",
                            f"mount --bind -o ro {tmp_path} {tmp_path} && ! touch {tmp_path}/x"],
                           capture_output=True)
    return probe.returncode == 0


def test_a_read_only_data_folder_lists_the_games_and_says_it_cannot_record(home, tmp_path):
    if not can_mount_read_only(tmp_path):
        pytest.skip("no user namespaces here to mount a folder read-only")
    game = History().record("human", "ai:easy", 1, "standard", GAME, rated=True)
    before = {path.name: path.read_bytes() for path in home.iterdir()}
    # before: "mancala: cannot use the game history ... (unable to open database file)", exit 2
    listed = read_only(home, "history")
    assert listed.returncode == 0, listed.stderr
    assert "you (South) vs ai:easy, 1 seed per pit, standard capture: you won 9-3" in listed.stdout
    assert f"Your rating: {game.after.shown()} " in listed.stdout
    assert error_line(listed) == (f"mancala: The game history {home / FILE_NAME} can be read but "
                                  "not written (read-only file system): nothing new is kept in it.")
    as_json = read_only(home, "history", "--json")
    assert [g["id"] for g in json.loads(as_json.stdout)] == [1]
    played = read_only(home, "play", "--seeds", "1", "--south", "human", "--north", "random",
                       stdin=MOVES)
    assert played.returncode == 0 and "Game over:" in played.stdout
    assert (f"history is off: cannot use the game history {home / FILE_NAME} "
            "(read-only file system)") in played.stdout
    assert {path.name: path.read_bytes() for path in home.iterdir()} == before


# -- one puzzle finished by many at once (item 8) -----------------------------------------------

GIVE_UP = """
import os, sys, time
from mancala.puzzles import PuzzleLog, load
path, puzzle_id, go = sys.argv[1], sys.argv[2], sys.argv[3]
puzzle = [p for p in load() if p.id == puzzle_id][0]
while not os.path.exists(go):
    time.sleep(0.001)
kept = PuzzleLog(path).record(puzzle, False, [])
print(kept.id, kept.counted)
"""


def test_twenty_processes_giving_up_one_puzzle_at_once_count_it_once(home, tmp_path):
    puzzle = load_puzzles()[5]
    path, go = home / "puzzles.sqlite3", tmp_path / "go"
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    writers = [subprocess.Popen([sys.executable, "-c", GIVE_UP, str(path), puzzle.id, str(go)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=environment) for _ in range(20)]
    go.touch()
    answers = [writer.communicate(timeout=TIMEOUT) for writer in writers]
    assert all(writer.returncode == 0 for writer in writers), answers
    said = sorted(out.split() for out, _ in answers)
    # every process names the one attempt kept; one of them kept it
    assert said == [["1", "False"]] * 19 + [["1", "True"]]
    (kept,) = PuzzleLog(path).attempts()
    assert kept.puzzle == puzzle.id and not kept.solved
    assert kept.after == update(Rating(), [(puzzle.rating, 0.0, 0.0)])


def test_threads_finishing_one_puzzle_at_once_count_it_once(home):
    puzzle = load_puzzles()[7]
    log = PuzzleLog(home / "puzzles.sqlite3")
    barrier = threading.Barrier(12)
    answers = []

    def give_up():
        barrier.wait()
        answers.append(log.record(puzzle, False, []))
    threads = [threading.Thread(target=give_up) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer.counted for answer in answers) == [False] * 11 + [True]
    assert len({answer.id for answer in answers}) == 1
    assert len(PuzzleLog(home / "puzzles.sqlite3").attempts()) == 1


def test_the_same_puzzle_played_again_from_the_terminal_moves_nothing(home):
    puzzle = load_puzzles()[3]
    first = mancala(home, "puzzle", "--id", puzzle.id, "--no-color", stdin="solution\n")
    assert first.returncode == 0 and "Your puzzle rating: " in first.stdout
    again = mancala(home, "puzzle", "--id", puzzle.id, "--no-color", stdin="solution\n")
    assert again.returncode == 0
    assert "Already counted: a puzzle moves your rating once" in again.stdout
    (kept,) = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert f"your puzzle rating stays {kept.after.shown()}." in again.stdout


# -- no raw errno line (item 8) -------------------------------------------------------------------

def test_errors_of_the_system_name_their_file_and_reason_in_one_line(home, tmp_path):
    missing = tmp_path / "no" / "such.txt"
    done = mancala(home, "bench", "--positions", str(missing), "--depth", "1")
    assert error_line(done) == f"mancala: {missing}: no such file or directory"
    (tmp_path / "file").write_text("a file")
    done = mancala(tmp_path / "file" / "home", "play", "--seeds", "1", "--south", "human",
                   "--north", "random", stdin=MOVES, cwd=tmp_path)
    assert done.returncode == 0
    assert f"autosave is off: cannot write to {tmp_path / 'file' / 'home' / 'autosaves'}" in done.stdout


def test_a_full_disk_is_one_line_naming_the_file(home, tmp_path):
    # before: the save's "[Errno 28] No space left on device" named no file
    if not can_mount_read_only(tmp_path):
        pytest.skip("no user namespaces here to mount a small file system")
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {disk} && mkdir {disk}/home && "
              f"(head -c 1000000 /dev/zero > {disk}/filler 2>/dev/null; true) && "
              f"exec {sys.executable} -m mancala play --seeds 1 --south human --north random")
    environment = dict(os.environ, MANCALA_HOME=str(disk / "home"), PYTHONPATH=str(ROOT))
    done = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c", script],
                          input=f"save {disk}/game.json\nquit\n", capture_output=True, text=True,
                          env=environment, timeout=TIMEOUT)
    assert "Traceback" not in done.stdout + done.stderr and "[Errno" not in done.stdout
    assert f"{disk}/game.json: no space left on device" in done.stdout
    assert f"autosave is off: cannot write to {disk}/home/autosaves (no space left on device)" \
        in done.stdout


# -- the one home: mancala._system and mancala.untrusted.printable ---------------------------------

def test_a_fifo_swapped_in_after_the_check_is_refused_not_waited_on(tmp_path, monkeypatch):
    from mancala import _system
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(_system, "refuse_special", lambda path: None)     # the check passed, then...
    for call in (lambda: _system.read_regular_file(fifo, 100), lambda: _system.read_head(fifo, 100),
                 lambda: _system.open_regular(fifo, os.O_RDWR)):
        with pytest.raises(_system.NotARegularFile) as refused:
            call()
        assert str(refused.value) == f"{fifo}: not a regular file"
        assert refused.value.strerror == "not a regular file" and refused.value.filename == str(fifo)


@pytest.mark.parametrize("kind", KINDS)
def test_write_atomically_leaves_a_special_target_as_it_is(tmp_path, kind):
    from mancala._system import NotARegularFile, write_atomically
    target = tmp_path / "target"
    plant(target, kind)
    with pytest.raises(NotARegularFile):
        write_atomically(target, lambda handle: handle.write("text"))
    assert untouched(target, kind) and sorted(tmp_path.iterdir()) == [target]


def test_error_line_names_the_files_and_the_reason():
    from mancala._system import error_line
    assert error_line(FileNotFoundError(2, "No such file or directory", "/a/b")) == \
        "/a/b: no such file or directory"
    assert error_line(OSError(18, "Invalid cross-device link", "/a", None, "/b")) == \
        "/a -> /b: invalid cross-device link"
    assert error_line(OSError(28, "No space left on device")) == "no space left on device"
    assert error_line(OSError("something\nodd")) == "something odd"


@pytest.mark.parametrize("text, shown", [
    ("human", "human"),
    ("ai:elo=1200", "ai:elo=1200"),
    ("naïve 名人 👩‍💻", "naïve 名人 👩‍💻"),                    # letters and an emoji with its joiner
    ("a\x1b[31mred", r"a\x1b[31mred"),                       # ESC: a colour
    ("\x1b]0;title\x07", r"\x1b]0;title\x07"),               # OSC: the window's title, BEL
    ("\x9b2J", r"\x9b2J"),                                   # the one-byte CSI of C1
    ("one\ntwo\rthree\tfour", r"one\x0atwo\x0dthree\x09four"),
    ("abc\u202edef", r"abc\u202edef"),                       # right-to-left override
    ("a\u2028b", r"a\u2028b"),                               # line separator
    ("a\x7fb", r"a\x7fb"),                                   # DEL
])
def test_printable_writes_every_control_as_its_escape(text, shown):
    from mancala.untrusted import printable
    assert printable(text) == shown


# -- a save file never starts a program -----------------------------------------------------------

def test_a_save_file_naming_a_program_does_not_run_it(home, tmp_path):
    # before: play --load of a file someone sent ran its engine:"..." command at once
    witness = tmp_path / "ran"
    spec = f'engine:"touch {witness}"'
    path = tmp_path / "sent.json"
    storage.save(storage.SavedGame(1, "standard", spec, "random", []), path)
    done = mancala(home, "play", "--load", str(path))
    assert done.returncode == 2
    assert error_line(done) == (f"mancala: {str(path)!r}: its south player {spec} would run a "
                                "program, which a save file never starts: give --south or --north "
                                "to name it")
    inside = mancala(home, "play", "--seeds", "1", "--south", "human", "--north", "random", "--casual",
                     stdin=f"load {path}\nquit\n")
    assert (f"{str(path)!r}: its south player {spec} would run a program, which a save file "
            "never starts") in inside.stdout
    assert not witness.exists()
    named = mancala(home, "play", "--load", str(path), "--south", "random")   # the person chooses
    assert named.returncode == 0 and "Game over:" in named.stdout
    assert not witness.exists()


def test_the_web_page_counts_a_puzzle_once_too(home):
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")
    from starlette.testclient import TestClient
    from mancala.web import app as web
    puzzle = load_puzzles()[9]
    with TestClient(web.create_app()) as client:
        answers = []
        for _ in range(2):                  # the same puzzle, two attempts (two tabs, a reload)
            attempt = client.get(f"/api/puzzle?id={puzzle.id}").json()["attempt"]
            answers.append(client.post("/api/puzzle/answer",
                                       json={"attempt": attempt, "give_up": True}).json())
    (kept,) = PuzzleLog(home / "puzzles.sqlite3").attempts()
    assert answers[0]["change"] == round(kept.after.rating - 940, 1) and answers[0]["notices"] == []
    assert answers[1]["change"] == 0.0 and answers[1]["rating"]["rating"] == round(kept.after.rating, 1)
    assert answers[1]["notices"] == ["Already counted: a puzzle moves your rating once, the first time."]
