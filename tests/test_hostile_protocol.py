"""The engine protocol against a hostile client, as a GUI meets it: a real
``python -m mancala engine`` process fed bytes. It never crashes, never gives
a traceback, answers every bad line with one error line, and its reader never
waits on a search."""
from __future__ import annotations

import os
import queue
import random
import resource
import subprocess
import sys
import threading
import time

import pytest

PYTHON = sys.executable


class EngineRun:
    """A running engine: send bytes, read its lines with a deadline."""

    def __init__(self, env=None, preexec=None):
        self.process = subprocess.Popen([PYTHON, "-m", "mancala", "engine"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env, preexec_fn=preexec)
        self.lines: "queue.Queue" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, data):
        self.process.stdin.write(data if isinstance(data, bytes) else data.encode() + b"\n")
        self.process.stdin.flush()

    def until(self, prefix, seconds=10.0):
        """The lines up to the first that starts with prefix (AssertionError after seconds)."""
        seen, deadline = [], time.monotonic() + seconds
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {seconds} s; saw {seen[-5:]}")
            if line is None:
                raise AssertionError(f"the engine ended before {prefix!r}; saw {seen[-5:]}")
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def close(self):
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        err = self.process.stderr.read().decode("utf-8", "replace")
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()
        return err


@pytest.fixture
def engine(empty_endgame_cache):
    """Engines that find no cached endgame database (whose loading says a line at isready)."""
    runs = []

    def start(**kwargs):
        runs.append(EngineRun(**kwargs))
        return runs[-1]

    yield start
    for run in runs:
        assert "Traceback" not in run.close()


@pytest.mark.parametrize("locale", [{"PYTHONIOENCODING": "utf-8:strict"}, {"LC_ALL": "C"},
                                    {"LC_ALL": "C.UTF-8"},
                                    {"LC_ALL": "C", "PYTHONIOENCODING": "ascii:strict"}])
def test_invalid_utf8_is_one_error_line_under_any_locale(engine, locale):
    run = engine(env={**os.environ, **locale})
    run.send(b"position \xff\xfe startpos\n")
    run.send("isready")
    seen = run.until("readyok")
    errors = [line for line in seen if line.startswith("info string error")]
    assert len(errors) == 1 and "UTF-8" in errors[0] and "\\xff\\xfe" in errors[0], seen
    run.send("position startpos capture \u00e9t\u00e9")      # quoted back in UTF-8, whatever the locale
    assert "'\u00e9t\u00e9'" in run.until("info string error")[-1]
    run.send("position startpos moves 3")                  # it goes on
    run.send("query position")
    assert run.until("response")[-1].startswith("response 4 4 0 5 5 5 1")


@pytest.mark.parametrize("go", ["go depth 254", "go movetime 3600000", "go infinite"])
def test_the_reader_never_waits_on_a_search(engine, go):
    """A second go, setoption and uginewgame during a long search are refused
    while it runs; isready and query are answered while it runs, stop ends it
    (before the fix: the answers waited for the search, seconds for depth 254,
    an hour for movetime 3600000). Told by the order of the lines, not by a
    clock: every answer comes before the search's bestmove, which only stop brings."""
    run = engine()
    run.send("position startpos seeds 6")
    run.send("isready")
    run.until("readyok")
    run.send(go)
    run.until("info depth 1 ", 60)                         # the search runs
    answers = []
    for line in ("go depth 1", "setoption name Hash value 1", "uginewgame"):
        run.send(line)
        answers += run.until("info string error", 60)
        assert "while a search runs" in answers[-1]
    run.send("isready")
    answers += run.until("readyok", 60)
    run.send("query gameover")
    answers += run.until("response false", 60)
    assert not [line for line in answers if line.startswith("bestmove")], answers
    run.send("stop")
    seen = run.until("bestmove", 60)
    assert [line for line in seen if line.startswith("bestmove")] == seen[-1:]
    run.send("go depth 2")                                   # after bestmove: welcome
    assert run.until("bestmove", 60)[-1].split()[1] in "123456"
    run.send("go depth 254")
    run.until("info depth 1 ", 60)
    run.send("quit")                                         # ends the depth-254 search
    run.process.wait(timeout=60)
    assert run.process.returncode == 0


@pytest.mark.parametrize("line, says", [
    ("position board ² 4 4 4 4 4 0 4 4 4 4 4 4 0 south", "0 to 144"),
    ("position board ٤ 4 4 4 4 4 0 4 4 4 4 4 4 0 south", "South's pit 1"),
    ("position board 4 4 4 4 4 4 0 4 4 4 4 4 4 ٠ south", "North's store"),
    ("position startpos seeds ٤", "seeds per pit"),
    ("position startpos moves ٣", "move 1"),
    ("go depth ٥", "depth"),
    ("setoption name Hash value ١٠", "Hash"),
])
def test_numbers_are_ascii_digits(engine, line, says):
    run = engine()
    run.send(line)
    run.send("query position")
    seen = run.until("response")
    errors = [x for x in seen if x.startswith("info string error")]
    assert len(errors) == 1 and says in errors[0], seen
    assert "invalid literal" not in errors[0]                # not Python's own words
    assert seen[-1].startswith("response 4 4 4 4 4 4 0")     # the position did not change


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_a_table_that_cannot_be_had_still_gives_a_bestmove(engine):
    """A Hash the machine has room for (it passes the check of what is available)
    but the process may not map (1 GB of address space)."""
    from mancala.limits import machine_mb
    room = machine_mb()
    if room is not None and room < 1536:
        pytest.skip(f"the machine has {room} MB free now: no table fits the check yet not 1 GB")
    run = engine(preexec=_limit_memory)
    run.send(f"setoption name Hash value {1536 if room is None else min(room, 4096)}")
    run.send("position startpos")
    run.send("go depth 3")
    seen = run.until("bestmove", 30)
    assert any("cannot be made" in line for line in seen), seen
    assert seen[-1].split()[1] in "123456"


def test_a_bounded_fuzz_of_every_command(engine):
    """Random lines built from the protocol's words, numbers, junk and bytes; every
    line is answered or refused, the engine stays up, no traceback (fixed seed)."""
    words = ["ugi", "uci", "isready", "setoption", "name", "value", "Hash", "Threads",
             "Evaluation", "learned", "newgame", "uginewgame", "position", "startpos", "board",
             "seeds", "capture", "empty", "none", "standard", "moves", "go", "depth", "nodes",
             "movetime", "wtime", "btime", "winc", "binc", "infinite", "stop", "query",
             "gameover", "p1turn", "result", "south", "north", "-1", "0", "1", "3", "6", "7",
             "99999999999999999999", "²", "٤", "\x00", "\t", "é"]
    rng = random.Random(2026)
    run = engine()
    deadline = time.monotonic() + 60
    for count in range(300):
        if time.monotonic() > deadline:
            break
        if rng.random() < 0.05:
            run.send(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20))) + b"\n")
        else:
            line = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 8)))
            if line.split()[:1] == ["go"]:
                line = "go depth 2"                          # keep the run short
            run.send(line)
        if count % 25 == 0:
            run.send("stop")
            run.send("isready")
            run.until("readyok", 10)
    run.send("stop")
    run.send("isready")
    run.until("readyok", 10)
    assert run.process.poll() is None


def _busy_threads(pid, samples=20):
    """How many threads of pid were runnable ('R' in /proc: running, or waiting
    only for a CPU) in at least half of a few samples: a searching thread always
    is, however loaded the machine (a share of CPU time shrinks with the load),
    while the reader thread, runnable for an instant as it answers, is not."""
    seen = {}
    for _ in range(samples):
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:                     # the thread ended
                continue
            seen[tid] = seen.get(tid, 0) + (state == "R")
        time.sleep(0.01)
    return sum(count * 2 >= samples for count in seen.values())


@pytest.mark.parametrize("threads", [1, 2])
def test_a_bare_go_solves_on_the_threads_set(engine, threads):
    """A bare go solves: bounds as it goes, an exact score at the end (South's
    pit 6 ends in the store, then pit 5 captures: +4, worked by hand); with
    Threads 2 a second thread searches beside the first (seen in /proc)."""
    run = engine()
    run.send(f"setoption name Threads value {threads}")
    run.send("position board 0 0 0 0 1 1 0 2 0 0 0 0 0 0 south")
    run.send("go")
    seen = run.until("bestmove", 30)
    assert any(" lowerbound " in line or " upperbound " in line for line in seen), seen
    assert any(" score exact 4" in line for line in seen), seen
    run.send("position startpos seeds 6")
    run.send("isready")
    run.until("readyok")
    run.send("go")
    # the search thread, and with Threads 2 its helper beside it, busy (the helper
    # starts after the first guess: late on a loaded machine); never more
    busy, deadline = [], time.monotonic() + 60
    while time.monotonic() < deadline and (not busy or busy[-1] < threads):
        busy.append(_busy_threads(run.process.pid))
    busy += [_busy_threads(run.process.pid) for _ in range(5)]
    run.send("stop")
    assert run.until("bestmove", 60)[-1].split()[1] in "123456"
    assert max(busy) == threads, busy


def test_a_line_too_long_is_one_error_line_and_the_engine_goes_on(engine):
    run = engine()
    run.send(b"position startpos moves " + b"1 " * 200_000 + b"\n")
    run.send("isready")
    seen = run.until("readyok")
    assert len(seen) == 2 and seen[0].startswith("info string error") and "bytes" in seen[0], seen[0][:200]
    assert len(seen[0]) < 1000
    run.send("query position")
    assert run.until("response")[-1].startswith("response 4 4 4 4 4 4 0 4 4 4 4 4 4 0 south")


def test_go_right_after_bestmove_or_stop_is_accepted(engine):
    """The refusal ends when bestmove is written (and stop returns once it is)."""
    run = engine()
    run.send("position startpos moves 3")
    for _ in range(30):
        run.send("go depth 2")
        assert not [x for x in run.until("bestmove") if x.startswith("info string error")]
    for line in ("go depth 254", "stop", "go depth 1", "stop", "isready"):
        run.send(line)
    seen = run.until("readyok")
    assert not [x for x in seen if x.startswith("info string error")], seen
    assert len([x for x in seen if x.startswith("bestmove ")]) == 2, seen


@pytest.mark.parametrize("command", ["go depth 1", "setoption name Hash value 1", "uginewgame"])
def test_a_line_sent_after_bestmove_is_seen_is_never_refused(command):
    """In process, holding the search thread just after it wrote bestmove (where a
    loaded machine may deschedule it): a client that saw bestmove and answered at
    once finds the search over."""
    from mancala.protocol import Session

    lines, seen = [], threading.Event()

    def write(line):
        lines.append(line)
        if line.startswith("bestmove") and not seen.is_set():
            seen.set()
            time.sleep(0.3)

    session = Session(write, "test")
    session.handle("position startpos")
    session.handle("go depth 1")
    assert seen.wait(30)
    session.handle(command)
    session.quit()
    assert not [x for x in lines if x.startswith("info string error")], lines


def test_a_search_that_reaches_the_end_says_score_exact(engine):
    """go depth 40 on South's pit 6 into the store then pit 5's capture (+4, worked
    by hand, as above): the search reaches the end, so its info lines say exact."""
    run = engine()
    run.send("position board 0 0 0 0 1 1 0 2 0 0 0 0 0 0 south")
    run.send("go depth 40")
    seen = run.until("bestmove")
    assert any(" score exact 4 " in line for line in seen), seen
    assert seen[-1] == "bestmove 6"
