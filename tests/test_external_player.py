"""engine:"COMMAND" players: a program that speaks the protocol, driven as a subprocess.

The real engine (``python -m mancala engine``) plays legal games; fake engines
written here crash, hang, or answer illegal or garbled moves, and each must end
in PlayerFailedError with its reason and no process left behind.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import textwrap
import time

import pytest

from mancala.board import Board
from mancala.errors import PlayerFailedError, PlayerSpecError
from mancala.external import EngineProcess, position_command
from mancala.players import ExternalPlayer, canonical_spec, parse_player

PYTHON = shlex.quote(sys.executable)
REAL = f"{PYTHON} -m mancala engine"


def gone(pid: int) -> bool:
    """True once no process has this pid (it was killed and reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


FAKE = '''
import os, sys, time
mode = sys.argv[1]
if len(sys.argv) > 2:                   # where to write its pid
    with open(sys.argv[2], "w") as out:
        out.write(str(os.getpid()))
def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()
if mode == "silent":
    time.sleep(600)
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "ugi":
        say("id name fake")
        say("ugiok")
    elif word == "isready":
        say("readyok")
    elif word == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "mute":
            os.close(1)         # its output ends, but it goes on running
            time.sleep(600)
        if mode == "hang":
            time.sleep(600)
        if mode == "illegal":
            say("bestmove 3")
        if mode == "garbled":
            say("bestmove seven")
        if mode == "chatty":
            say("info depth 2 score exact 5 nodes 17")
            say("bestmove 1")
    elif word == "quit":
        break
'''


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "fake_engine.py"
    path.write_text(textwrap.dedent(FAKE))

    def command(mode: str) -> str:
        return f"{PYTHON} {shlex.quote(str(path))} {mode}"
    return command


def after_pit_3() -> Board:
    """South played pit 3 (an extra turn): South moves again and its pit 3 is empty."""
    board = Board()
    board.push(2)
    assert board.to_move == 0 and 2 not in board.legal_moves
    return board


# -- spelling ------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, canonical", [
    ('engine:"python -m mancala engine"', 'engine:"python -m mancala engine"'),
    ('  Engine:"Prog --Level 3"@0.5 ', 'engine:"Prog --Level 3"@0.5'),
    ('engine:/opt/bin/kalah', 'engine:"/opt/bin/kalah"'),
    ('engine:/opt/bin/kalah@2', 'engine:"/opt/bin/kalah"@2'),
    ('engine:"x"@0.1', 'engine:"x"'),          # the default time is not written
])
def test_engine_spellings_round_trip_without_starting_anything(spec, canonical, monkeypatch):
    def no_start(*args, **kwargs):
        raise AssertionError("a spelling started a program")
    monkeypatch.setattr(subprocess, "Popen", no_start)
    player = parse_player(spec)
    assert isinstance(player, ExternalPlayer)
    assert player.spec == canonical
    assert canonical_spec(player.spec) == canonical


@pytest.mark.parametrize("spec", [
    "engine:", 'engine:""', 'engine:"abc', 'engine:"a"@0', 'engine:"a"@-1', 'engine:"a"@nan',
    'engine:"a"@99999', 'engine:"a" extra', "engine:'unbalanced",
])
def test_bad_engine_spellings(spec):
    with pytest.raises(PlayerSpecError) as info:
        parse_player(spec)
    assert repr(spec) in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("command, time_", [
    (["python", "-m", "mancala"], 0.1), ("   ", 0.1), ("prog", 0), ("prog", float("inf")),
    ("prog", True), ('say "hi"', 0.1),
])
def test_bad_external_player_arguments(command, time_):
    with pytest.raises(PlayerSpecError):
        ExternalPlayer(command, time=time_)


def test_position_command_replays_the_game_from_its_start():
    board = Board(seeds=5, capture="empty")
    for pit in (0, 5, 3):
        board.push(pit)
    assert position_command(board) == "position startpos seeds 5 capture empty moves 1 6 4"
    slots = [0, 1, 0, 0, 0, 0, 20, 1, 0, 0, 0, 0, 0, 26]
    odd = Board(slots, to_move=1)
    assert position_command(odd) == f"position board {' '.join(map(str, slots))} north capture standard"


# -- the real engine ------------------------------------------------------------------------

def test_plays_legal_games_against_ai_easy():
    external = parse_player(f'engine:"{REAL}"@0.02')
    opponent = parse_player("ai:easy", seed=3)
    try:
        for external_side in (0, 1):
            board = Board()
            while not board.is_game_over():
                player = external if board.to_move == external_side else opponent
                pit = player.choose(board)
                assert pit in board.legal_moves, (board, pit)
                board.push(pit)
            assert board.outcome() is not None
        assert external.last is not None
        pid = external._process.pid
    finally:
        external.close()
    assert gone(pid)


def test_play_command_with_an_engine_player(tmp_path):
    env = dict(os.environ, MANCALA_HOME=str(tmp_path))
    run = subprocess.run([sys.executable, "-m", "mancala", "play", "--south",
                          f'engine:"{REAL}"@0.02', "--north", "ai:easy"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    assert "South" in run.stdout


# -- programs that fail ------------------------------------------------------------------------

@pytest.mark.parametrize("mode, reason", [
    ("crash", "crash"), ("mute", "crash"), ("hang", "timeout"), ("illegal", "illegal-move"), ("garbled", "protocol"),
])
def test_a_failing_program_raises_with_its_reason_and_is_killed(fake, mode, reason):
    player = ExternalPlayer(fake(mode), time=0.05)
    start = time.monotonic()
    with pytest.raises(PlayerFailedError) as info:
        player.choose(after_pit_3())
    assert info.value.reason == reason
    assert "\n" not in str(info.value)
    assert time.monotonic() - start < 120   # the hung ones sleep 600 s: never waited out
    pid = player._process.pid
    assert gone(pid)
    player.close()


def test_silence_at_the_handshake_is_a_timeout(fake):
    start = time.monotonic()
    with pytest.raises(PlayerFailedError) as info:
        EngineProcess(fake("silent"), handshake=0.5)
    assert info.value.reason == "timeout"
    assert time.monotonic() - start < 120   # the silent one sleeps 600 s: never waited out


def test_a_program_that_cannot_start_is_a_crash(tmp_path):
    with pytest.raises(PlayerFailedError) as info:
        EngineProcess(str(tmp_path / "no-such-engine"))
    assert info.value.reason == "crash"


def test_info_lines_become_the_move_info(fake):
    player = ExternalPlayer(fake("chatty"), time=0.05)
    try:
        assert player.choose(Board()) == 0
        assert (player.last.score, player.last.depth, player.last.nodes, player.last.exact) == \
            (5, 2, 17, True)
        pid = player._process.pid
    finally:
        player.close()
    assert gone(pid)


def test_ctrl_c_while_waiting_kills_the_program(fake, monkeypatch):
    process = EngineProcess(fake("hang"))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(process._lines, "get", interrupted)
    with pytest.raises(KeyboardInterrupt):
        process.bestmove(Board(), 0.05)
    assert gone(process.pid)


def test_a_dropped_player_ends_its_program(fake):
    process = EngineProcess(fake("hang"))
    pid = process.pid
    del process
    import gc
    gc.collect()
    assert gone(pid)


def test_ctrl_c_in_play_ends_the_engine_it_runs(fake, tmp_path):
    import signal
    pidfile = tmp_path / "engine.pid"
    env = dict(os.environ, MANCALA_HOME=str(tmp_path))
    spec = f'engine:"{fake("hang")} {shlex.quote(str(pidfile))}"@5'
    play = subprocess.Popen([sys.executable, "-m", "mancala", "play", "--south", spec,
                             "--north", "ai:easy"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        engine_pid = int(pidfile.read_text())
        time.sleep(0.3)                      # play is now waiting for its move (or, on a loaded
        play.send_signal(signal.SIGINT)      # machine, still starting it: the same must hold)
        assert play.wait(timeout=30) == 130
    finally:
        if play.poll() is None:
            play.kill()
        play.communicate()
    deadline = time.monotonic() + 60         # returns as soon as it is gone
    while not gone(engine_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(engine_pid)


def test_a_player_failure_keeps_its_reason_across_processes():
    import pickle
    from mancala.errors import PlayerFailedError
    copy = pickle.loads(pickle.dumps(PlayerFailedError("engine exited with status 3", "crash")))
    assert (type(copy), str(copy), copy.reason) == (PlayerFailedError, "engine exited with status 3", "crash")
