"""Ctrl-C stops any search: the library raises KeyboardInterrupt and stays
usable; every command exits with status 130 and one line, no traceback.

The commands run as real subprocesses and get a real SIGINT in the middle of
a search that would take far longer. The bound on the time to exit is
generous (a loaded machine); the goal, 50 ms, is measured apart.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from mancala import Board, Engine

EXIT_BOUND = 3.0    # seconds from SIGINT to exit


def interrupt(args, tmp_path, wait_for=None, settle=0.5):
    """Start `python -m mancala args`, wait until it is searching, send SIGINT.

    wait_for: a text its stderr prints when the search starts (else wait
    settle seconds from the start). Returns (status, seconds to exit, stdout, stderr).
    """
    env = dict(os.environ, MANCALA_HOME=str(tmp_path / "home"),
               MANCALA_CACHE=str(tmp_path / "cache"), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "mancala", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    first = ""
    try:
        if wait_for is not None:
            first = proc.stderr.readline()
            assert wait_for in first, first
        time.sleep(settle)
        assert proc.poll() is None, "finished before the signal"
        proc.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        out, err = proc.communicate(timeout=30)
        took = time.perf_counter() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, took, out, first + err


def assert_clean_exit(status, took, err, line="mancala: interrupted"):
    assert status == 130, err
    assert took < EXIT_BOUND, f"{took:.2f} s from SIGINT to exit"
    assert "Exception ignored" not in err and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith(line), err


@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_stops_solve(threads, tmp_path):
    status, took, _, err = interrupt(
        ["solve", "--seeds", "4", "--endgame", "0", "--hash-mb", "64", "--threads", threads],
        tmp_path, wait_for="solving")
    assert_clean_exit(status, took, err)


def test_ctrl_c_stops_analyze(tmp_path):
    status, took, _, err = interrupt(["analyze", "--depth", "30"], tmp_path, settle=1.0)
    assert_clean_exit(status, took, err)
    assert err == "mancala: interrupted\n"     # one line, no blank line before it


def test_ctrl_c_stops_bench(tmp_path):
    status, took, out, err = interrupt(["bench", "--time", "5"], tmp_path, settle=1.0)
    assert_clean_exit(status, took, err)
    assert "mancala bench" in out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_stops_arena_and_prints_the_finished_games(workers, tmp_path):
    status, took, out, err = interrupt(
        ["arena", "ai:hard", "ai:medium", "--workers", workers], tmp_path, settle=1.5)
    assert_clean_exit(status, took, err, "mancala: interrupted: 0 of 20 games finished")
    assert "ai:hard    ai:medium      0" in out     # the table, of no finished game


def test_ctrl_c_while_the_ai_thinks_saves_the_game(tmp_path):
    status, took, out, err = interrupt(
        ["play", "--south", "ai:time=60", "--north", "ai:time=60"], tmp_path, settle=1.0)
    assert status == 130 and took < EXIT_BOUND, (status, took, err)
    assert "Exception ignored" not in err and "Traceback" not in err, err
    assert "python -m mancala play --resume" in out


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_raises_in_solve_and_the_engine_stays_usable(threads):
    engine = Engine(hash_mb=16, endgame=None, threads=threads)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    begun = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        engine.solve(Board(seeds=4))      # minutes
    assert time.perf_counter() - begun < EXIT_BOUND
    timer.join()
    solved = engine.solve(Board(seeds=2))
    assert (solved.score, solved.exact) == (6, True)
    searched = engine.search(Board(seeds=4), depth=9)
    assert searched.depth == 9
    assert searched.score == Engine(endgame=None).search(Board(seeds=4), depth=9).score


def test_a_signal_handlers_own_exception_is_raised():
    def handler(signum, frame):
        raise SystemExit("terminated")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        with pytest.raises(SystemExit, match="terminated"):
            Engine(hash_mb=16, endgame=None).search(Board(seeds=6), depth=40)
    finally:
        signal.signal(signal.SIGTERM, old)
