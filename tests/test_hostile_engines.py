"""External engines that fight back, met as a user meets them: a real
``python -m mancala arena`` process against programs written here that fork
children holding the pipe, start detached children, flood their output,
send invalid UTF-8, ignore SIGTERM. Each game ends in a forfeit within the
move's time limit (or plays on), the arena's memory stays bounded, and every
process an engine started is gone at the end (by the pids the programs wrote)."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time

import pytest

PYTHON = sys.executable


def gone(pid: int) -> bool:
    """No process has this pid, or only a zombie whose parent has not reaped it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pids, seconds=60.0):      # returns as soon as they are gone
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(gone(pid) for pid in pids):
        time.sleep(0.05)
    left = [pid for pid in pids if not gone(pid)]
    for pid in left:                      # never leave them behind, even when failing
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


# A program speaking the protocol's handshake; MODE says how it misbehaves at `go`.
# Every process it starts writes its pid into PIDS (one a line).
ENGINE = textwrap.dedent('''
    import os, signal, subprocess, sys, time
    mode, pids = sys.argv[1], sys.argv[2]
    def note(pid):
        with open(pids, "a") as out:
            out.write(f"{pid}\\n")
    note(os.getpid())
    def say(text):
        sys.stdout.buffer.write(text if isinstance(text, bytes) else text.encode() + b"\\n")
        sys.stdout.flush()
    SLEEPER = [sys.executable, "-c", "import time; time.sleep(300)"]
    if mode == "detached-then-real":       # a detached child, then the real engine (same pid)
        child = subprocess.Popen(SLEEPER, start_new_session=True, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        note(child.pid)
        os.execv(sys.executable, [sys.executable, "-m", "mancala", "engine"])
    if mode == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        word = line.split()[0] if line.split() else ""
        if word == "ugi":
            say("id name hostile")
            say("ugiok")
        elif word == "isready":
            say("readyok")
        elif word == "go":
            if mode == "fork-holds-pipe":    # a child keeps the output open; the engine exits
                note(subprocess.Popen(SLEEPER).pid)
                sys.exit(0)
            if mode == "detached-exit":      # a child of its own session; the engine exits
                note(subprocess.Popen(SLEEPER, start_new_session=True).pid)
                sys.exit(0)
            if mode in ("hang", "deaf"):
                time.sleep(300)
            if mode == "flood":              # no newline, ever
                while True:
                    sys.stdout.buffer.write(b"x" * 65536)
            if mode == "flood-lines":        # short lines, as fast as it can
                while True:
                    sys.stdout.buffer.write(b"info string " + b"y" * 50 + b"\\n" * 1)
            if mode == "bad-utf8":
                say(b"bestmove \\xff\\xfe\\n")
            if mode.startswith("digit-"):       # a pit in another script's digits
                say("bestmove " + chr(int(mode[6:], 16)))
        elif word == "quit":
            break
''')


@pytest.fixture
def engine(tmp_path):
    script = tmp_path / "hostile.py"
    script.write_text(ENGINE)
    pids = tmp_path / "pids"

    def spec(mode, seconds=0.2):
        command = f"{shlex.quote(PYTHON)} {shlex.quote(str(script))} {mode} {shlex.quote(str(pids))}"
        return f'engine:"{command}"@{seconds:g}'

    def started():
        return [int(x) for x in pids.read_text().split()] if pids.exists() else []

    spec.started = started
    return spec


def arena(*players, games=1, extra=(), timeout=120, **kwargs):
    args = [PYTHON, "-m", "mancala", "arena", *players, "--games", str(games), "--seeds", "2",
            "--json", *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)


def forfeit_of(done):
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    return [game["forfeit"] for game in report["games"]]


def test_a_child_holding_the_pipe_cannot_hang_the_game(engine):
    started = time.monotonic()
    done = arena(engine("fork-holds-pipe"), "ai:easy")
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    [forfeit] = forfeit_of(done)
    assert forfeit["player"] == "A" and forfeit["reason"] == "crash", forfeit
    assert "exited (status 0)" in forfeit["message"]
    assert took < 150                               # the child sleeps 300 s: never waited out
    assert wait_gone(engine.started()) == []


@pytest.mark.parametrize("mode", ["detached-exit", "detached-then-real"])
def test_every_process_an_engine_started_ends_with_its_player(engine, mode):
    done = arena(engine(mode, 0.05), "ai:easy", games=2)
    assert done.returncode == 0, done.stderr
    forfeits = forfeit_of(done)
    if mode == "detached-then-real":
        assert forfeits == [None, None]             # it played: the real engine behind it
    else:
        assert all(f and f["reason"] == "crash" for f in forfeits), forfeits
    pids = engine.started()
    assert len(pids) == 4                           # two games, an engine and a child each
    assert wait_gone(pids) == []


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_arena_ends_a_hung_engine(engine, how):
    process = subprocess.Popen(
        [PYTHON, "-m", "mancala", "arena", engine("deaf", 60), "ai:easy", "--games", "2",
         "--seeds", "2", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not engine.started():
            time.sleep(0.05)
        time.sleep(0.5)                             # it is thinking (forever) on its first move
        process.send_signal(how)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + how, err
    assert "Traceback" not in err
    assert ("terminated" if how == signal.SIGTERM else "interrupted") in err
    assert wait_gone(engine.started()) == []


def peak_rss_kb(args, timeout=120):
    """Run args; (the CompletedProcess, the largest peak resident size of it and
    its descendants in kB, from the kernel's own accounting)."""
    wrapper = ("import json, resource, subprocess, sys\n"
               "done = subprocess.run(json.loads(sys.argv[1]), capture_output=True, text=True)\n"
               "print(json.dumps([done.returncode, done.stdout, done.stderr,"
               " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))")
    raw = subprocess.run([PYTHON, "-c", wrapper, json.dumps(args)], capture_output=True, text=True,
                         timeout=timeout)
    code, out, err, peak = json.loads(raw.stdout)
    return subprocess.CompletedProcess(args, code, out, err), peak


@pytest.mark.parametrize("mode", ["flood", "flood-lines"])
def test_a_flooding_engine_forfeits_and_memory_stays_bounded(engine, mode):
    args = [PYTHON, "-m", "mancala", "arena", engine(mode, 0.5), "ai:easy", "--games", "1",
            "--seeds", "2", "--json"]
    done, peak = peak_rss_kb(args)
    assert done.returncode == 0, done.stderr
    [forfeit] = forfeit_of(done)
    assert forfeit["reason"] == "protocol", forfeit
    assert "bytes" in forfeit["message"] and "\n" not in forfeit["message"]
    assert peak < 200 * 1024, f"peak {peak} kB"     # 1.3 GB before the caps
    assert wait_gone(engine.started()) == []


def test_invalid_utf8_is_a_protocol_forfeit_quoting_the_bytes(engine):
    done = arena(engine("bad-utf8"), "ai:easy")
    [forfeit] = forfeit_of(done)
    assert forfeit["reason"] == "protocol", forfeit
    assert "not UTF-8" in forfeit["message"] and "\\xff\\xfe" in forfeit["message"]


def test_a_timeout_says_its_limit_once(engine):
    done = arena(engine("hang", 0.1), "ai:easy")
    [forfeit] = forfeit_of(done)
    assert forfeit["reason"] == "timeout"
    assert forfeit["message"].count("1.15 s") == 1, forfeit["message"]
    assert "go movetime 100 within 1.15 s" in forfeit["message"]
    assert wait_gone(engine.started()) == []


@pytest.mark.parametrize("digit", ["b2", "664"])     # superscript two; Arabic-Indic four
def test_a_pit_in_other_digits_is_a_protocol_forfeit(engine, digit):
    done = arena(engine(f"digit-{digit}"), "ai:easy")
    [forfeit] = forfeit_of(done)
    assert forfeit["reason"] == "protocol", forfeit
    assert "not a pit 1..6" in forfeit["message"], forfeit
