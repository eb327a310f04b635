"""The engine protocol through a real subprocess: ``python -m mancala engine``.

Expected values come from mancala.Board (the rules) and the pure-Python twin,
never from the protocol code itself.
"""
from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

import pytest

from mancala import _reference
from mancala.board import Board, capture_code
from mancala.protocol.lines import allocate_ms

ANSWER = 30.0       # seconds: generous, for a loaded machine; only a hang reaches it

# the engines see an empty endgame cache: a database another test built would add
# a line to their isready answer and turn searches into lookups
pytestmark = pytest.mark.usefixtures("empty_endgame_cache")


class EngineProcess:
    """The engine command with a reader thread: send lines, wait for answers."""

    def __init__(self, *options: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "mancala", "engine", *options],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = ANSWER) -> str:
        got = self.lines.get(timeout=timeout)
        assert got is not None, "the engine closed its output"
        return got

    def until(self, prefix: str, timeout: float = ANSWER) -> list:
        """Every line up to and including the first that starts with prefix."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            seen.append(self.line(max(0.01, deadline - time.monotonic())))
            if seen[-1].startswith(prefix):
                return seen

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=ANSWER)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


@pytest.fixture
def engine():
    process = EngineProcess()
    process.send("ugi")
    process.until("ugiok")
    yield process
    process.close()


def bestmove(lines: list) -> str:
    assert lines[-1].startswith("bestmove "), lines
    return lines[-1].split()[1]


# -- the clock -------------------------------------------------------------------------------

@pytest.mark.parametrize("remaining, increment, expected", [
    (60000, 100, 3080),     # 60000/20 + 0.8 * 100, worked by hand
    (60000, 0, 3000),
    (1000, 1000, 500),      # 50 + 800 would be more than half of what is left
    (100, 0, 10),           # 5 ms is under the 10 ms floor
    (0, 0, 10),
])
def test_clock_allocation(remaining, increment, expected):
    assert allocate_ms(remaining, increment) == expected


# -- handshake ----------------------------------------------------------------------------

def test_handshake_names_the_engine_and_its_options():
    process = EngineProcess()
    try:
        process.send("ugi")
        lines = process.until("ugiok")
        assert lines[0].startswith("id name mancala ")
        assert lines[1] == "id author the mancala developers"
        assert any(line.startswith("option name Hash type spin default 64 min 0 max ")
                   for line in lines)
        assert "option name Threads type spin default 1 min 1 max 64" in lines
        process.send("isready")
        assert process.line() == "readyok"
        process.send("uci")
        assert process.until("uciok")[-1] == "uciok"
        process.send("setoption name Hash value 1", "setoption name Threads value 2",
                     "uginewgame", "isready")
        assert process.line() == "readyok"      # accepted: no error line before it
    finally:
        process.close()


# -- positions and queries --------------------------------------------------------------

def test_position_with_moves_matches_the_rules(engine):
    # pits 1..6 from the mover's left; pit 3 of Kalah(6,4) ends in South's store
    expected = Board()
    for pit in (2, 5, 0):
        expected.push(pit)
    engine.send("position startpos moves 3 6 1", "query position")
    counts = " ".join(str(n) for n in expected.pits)
    side = ("south", "north")[expected.to_move]
    assert engine.line() == f"response {counts} {side} capture standard"


def test_position_board_seeds_and_capture(engine):
    engine.send("position startpos seeds 3 capture empty moves 1", "query position")
    board = Board(seeds=3, capture="empty")
    board.push(0)
    assert engine.line() == ("response " + " ".join(map(str, board.pits)) +
                             " north capture empty")
    slots = [0, 0, 0, 0, 0, 1, 20, 1, 0, 0, 0, 0, 0, 26]
    engine.send("position board " + " ".join(map(str, slots)) + " south moves 6",
                "query gameover", "query result")
    # South sows its last seed into its store; its row is empty: the game ends,
    # North sweeps its one seed: 21 - 27, North (the second player, p2) wins
    assert engine.line() == "response true"
    assert engine.line() == "response p2win"


@pytest.mark.parametrize("slots, result", [
    ([0] * 6 + [24] + [0] * 6 + [24], "draw"),
    ([0] * 6 + [30] + [0] * 6 + [18], "p1win"),
])
def test_query_result_of_finished_boards(engine, slots, result):
    engine.send("position board " + " ".join(map(str, slots)) + " north",
                "query gameover", "query result", "query p1turn")
    assert engine.line() == "response true"
    assert engine.line() == f"response {result}"
    assert engine.line() == "response false"


def test_query_on_a_game_in_progress(engine):
    engine.send("position startpos moves 1", "query gameover", "query result", "query p1turn")
    assert [engine.line() for _ in range(3)] == ["response false", "response none", "response false"]


# -- searching ----------------------------------------------------------------------------

def test_go_depth_plays_the_twins_best_value(engine):
    # the score of a depth-N search is the same full-width value the textbook
    # minimax of mancala._reference finds, with the learned evaluation (the default)
    board = Board()
    board.push(2)           # extra turn: South moves again
    value, _, _ = _reference.minimax(board.pits, board.to_move, 4, capture_code("standard"),
                                     _reference.LEARNED)
    engine.send("position startpos moves 3", "go depth 4")
    lines = engine.until("bestmove")
    infos = [line for line in lines if line.startswith("info depth 4 ")]
    assert infos, lines
    words = infos[-1].split()
    assert int(words[words.index("score") + 1]) == value
    pit = int(bestmove(lines)) - 1
    assert pit in board.legal_moves
    child = board.copy()
    child.push(pit)
    child_value, _, _ = _reference.minimax(child.pits, child.to_move, 3, capture_code("standard"),
                                           _reference.LEARNED)
    sign = 1 if child.to_move == board.to_move else -1
    assert sign * child_value == value       # the move keeps the value


def test_go_nodes_and_movetime_answer(engine):
    engine.send("position startpos", "go nodes 5000")
    assert int(bestmove(engine.until("bestmove"))) in range(1, 7)
    engine.send("go movetime 200")
    # ignored, it would be a bare go: a solve of Kalah(6,4) with no database, far past a minute
    assert int(bestmove(engine.until("bestmove", timeout=60))) in range(1, 7)
    engine.send("go wtime 2000 btime 2000 winc 100 binc 100")
    assert int(bestmove(engine.until("bestmove"))) in range(1, 7)


def test_a_whole_game_through_the_protocol(engine):
    board = Board()
    moves = []
    engine.send("uginewgame")
    while not board.is_game_over():
        engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos",
                    "go depth 3")
        word = bestmove(engine.until("bestmove"))
        pit = int(word) - 1
        assert pit in board.legal_moves, (board, word)
        board.push(pit)
        moves.append(word)
    engine.send("position startpos moves " + " ".join(moves), "query gameover", "query result")
    assert engine.line() == "response true"
    outcome = board.outcome()
    expected = {0: "p1win", 1: "p2win", None: "draw"}[outcome.winner]
    assert engine.line() == f"response {expected}"
    engine.send("go depth 1")
    lines = engine.until("bestmove")
    assert lines[-1] == "bestmove none"
    assert lines[0].startswith("info string error: ")


def test_stop_ends_an_infinite_search_at_once(engine, capsys):
    # an infinite search ends by stop alone: its bestmove is the proof, not a clock reading
    # (the latency is printed, a measurement, never asserted: it moves with the load)
    engine.send("position startpos", "go infinite")
    engine.until("info depth 1 ", timeout=60)
    engine.send("isready")
    answered = engine.until("readyok", timeout=60)
    assert not [line for line in answered if line.startswith("bestmove")]   # during the search
    start = time.monotonic()
    engine.send("stop")
    lines = engine.until("bestmove", timeout=60)
    latency = time.monotonic() - start
    assert 1 <= int(bestmove(lines)) <= 6
    with capsys.disabled():
        print(f"\n[protocol] stop -> bestmove latency {latency * 1000:.1f} ms")


def test_quit_during_a_search_exits_zero():
    process = EngineProcess()
    try:
        process.send("ugi", "isready", "position startpos", "go infinite")
        process.until("readyok")
        process.until("info depth 1 ", timeout=60)       # searching, for ever unless told
        process.send("quit")
        assert process.proc.wait(timeout=60) == 0
    finally:
        process.close()


def test_end_of_input_exits_zero():
    process = subprocess.run([sys.executable, "-m", "mancala", "engine"],
                             input="isready\ngo infinite\n", capture_output=True, text=True,
                             timeout=60)
    assert process.returncode == 0
    assert process.stdout.splitlines()[0] == "readyok"
    assert process.stderr == ""


# -- malformed lines ---------------------------------------------------------------------

MALFORMED = [
    "bogus", "ugi now", "isready please", "position", "position fen x", "position startpos seeds 0",
    "position startpos seeds 13", "position startpos seeds x", "position startpos capture big",
    "position startpos moves 7", "position startpos moves 0", "position startpos moves x",
    "position startpos seeds 4 seeds 5", "position startpos colour red",
    "position board 1 2 3", "position board 4 4 4 4 4 4 0 4 4 4 4 4 4 0",
    "position board 4 4 4 4 4 4 0 4 4 4 4 4 4 0 east",
    "position board 99 99 4 4 4 4 0 4 4 4 4 4 4 0 south",
    "position board -4 4 4 4 4 4 0 4 4 4 4 4 4 0 south",
    "go depth", "go depth 0", "go depth 255", "go nodes 0", "go movetime -5", "go movetime x",
    "go sideways 3", "go wtime", "setoption name Hash value -1", "setoption name Hash value 1e99",
    "setoption name Threads value 0", "setoption name Colour value 3", "setoption Hash 3",
    "query", "query colour", "query result now", "newgame 3", "stop now",
    "position startpos moves 3 3",    # pit 3 is empty after it was played (extra turn)
]


def test_every_malformed_line_gets_one_error_and_keeps_the_position(engine):
    engine.send("position startpos moves 2", "query position")
    before = engine.line()
    expected = Board()
    expected.push(1)
    assert before == "response " + " ".join(map(str, expected.pits)) + " north capture standard"
    for line in MALFORMED:
        engine.send(line, "query position")
        answers = engine.until("response ")
        errors = [a for a in answers if a.startswith("info string error: ")]
        assert len(errors) == 1 and len(answers) == 2, (line, answers)
        assert "Traceback" not in errors[0]
        assert answers[-1] == before, line
    engine.send("go depth 1")
    assert int(bestmove(engine.until("bestmove"))) - 1 in expected.legal_moves
    assert engine.proc.poll() is None


def test_malformed_lines_leave_stderr_empty():
    lines = "\n".join(MALFORMED + ["quit"]) + "\n"
    process = subprocess.run([sys.executable, "-m", "mancala", "engine"], input=lines,
                             capture_output=True, text=True, timeout=60)
    assert process.returncode == 0
    assert process.stderr == ""
    out = process.stdout.splitlines()
    assert len(out) == len(MALFORMED)
    assert all(line.startswith("info string error: ") for line in out)


def test_a_closed_output_ends_the_engine_quietly():
    process = subprocess.Popen([sys.executable, "-m", "mancala", "engine"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        process.stdin.write("isready\n")
        process.stdin.flush()
        assert process.stdout.readline() == "readyok\n"
        process.stdout.close()                  # the reader goes away, as `| head -1` does
        process.stdin.write("go infinite\nstop\nisready\nisready\n")
        process.stdin.flush()
        assert process.wait(timeout=30) == 1
        assert process.stderr.read() == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# -- in process: the per-depth progress of a search that reports it --------------------------

def test_a_search_with_a_progress_callback_gets_one_info_line_per_depth():
    from mancala.engine import SearchProgress, SearchResult
    from mancala.protocol import Session

    class ReportingEngine:
        """Stands in for an Engine.search that reports two depths to its progress."""

        def search(self, board, *, depth=None, time=None, nodes=None, progress=None):
            progress(SearchProgress(1, 3, 2, 10, 0.001, (2,), False))
            progress(SearchProgress(2, -5, 4, 30, 0.002, (4, 0), False))
            return SearchResult(4, -5, 2, 30, (4, 0), 0.002, False)

        def stop(self):
            pass

    lines = []
    session = Session(lines.append, "test")
    session._engine = ReportingEngine()
    session.handle("go depth 2")
    session._thread.join(timeout=ANSWER)
    assert lines == [
        "info depth 1 score 3 nodes 10 nps 10000 time 1 pv 3",
        "info depth 2 score -5 nodes 30 nps 15000 time 2 pv 5 1",
        "bestmove 5",
    ]


def test_isready_makes_the_engine_with_the_options_set():
    from mancala.protocol import Session

    lines = []
    session = Session(lines.append, "test")
    for line in ("ugi", "setoption name Hash value 2", "setoption name Threads value 2"):
        session.handle(line)
    assert session._engine is None          # nothing large before the first isready
    session.handle("isready")
    assert lines[-1] == "readyok"
    assert session._engine.hash_mb == 2
    assert len(session._engine._helpers) == 1      # two threads: one helper
    session.handle("setoption name Hash value 1")
    session.handle("isready")
    assert session._engine.hash_mb == 1
    assert not [line for line in lines if "error" in line]


# -- the evaluation option ------------------------------------------------------------------

def score_at(lines: list, depth: int) -> int:
    words = [line.split() for line in lines if line.startswith(f"info depth {depth} ")][0]
    return int(words[words.index("score") + 1])


@pytest.mark.parametrize("how", ["setoption", "--evaluation"])
def test_the_evaluation_option_changes_the_values_as_the_twin_says(how):
    # from the start to depth 3 the twin's alpha-beta says +1 with the store
    # difference and 0 with the positional terms: the engine must follow the option
    slots = Board().pits
    store = _reference.alphabeta(slots, 0, 3, 0, 0)[0]
    positional = _reference.alphabeta(slots, 0, 3, 0, 1)[0]
    assert store != positional
    process = EngineProcess(*(["--evaluation", "positional"] if how == "--evaluation"
                              else ["--evaluation", "store"]))
    try:
        process.send("ugi")
        handshake = process.until("ugiok")
        assert any(line.startswith("option name Evaluation type combo default ")
                   and line.endswith("var store var positional var learned") for line in handshake)
        if how == "setoption":
            process.send("position startpos", "go depth 3")
            assert score_at(process.until("bestmove"), 3) == store
            process.send("setoption name Evaluation value Positional")
        process.send("position startpos", "go depth 3")
        assert score_at(process.until("bestmove"), 3) == positional
    finally:
        process.close()


def test_an_unknown_evaluation_is_one_error_line_and_the_old_one_stays(engine):
    engine.send("setoption name Evaluation value material", "go depth 3")
    lines = engine.until("bestmove")
    assert lines[0] == "info string error: Evaluation is one of store, positional, learned, not 'material'"
    assert score_at(lines, 3) == _reference.alphabeta(Board().pits, 0, 3, 0, 2)[0]


def test_the_engine_plays_with_the_learned_evaluation_unless_told(engine):
    # from the start at depth 4 the learned evaluation's value differs from the
    # store difference's (the twin's alpha-beta): the default must be learned
    slots = Board().pits
    learned = _reference.alphabeta(slots, 0, 4, 0, 2)[0]
    assert learned != _reference.alphabeta(slots, 0, 4, 0, 0)[0]
    engine.send("ugi")
    assert "option name Evaluation type combo default learned var store var positional var learned" \
        in engine.until("ugiok")
    engine.send("position startpos", "go depth 4")
    assert score_at(engine.until("bestmove"), 4) == learned


# -- threads --------------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["setoption", "--threads"])
def test_threads_search_every_go_and_keep_a_depths_value(how):
    from mancala import Engine
    process = EngineProcess(*(["--threads", "2"] if how == "--threads" else []))
    try:
        process.send("ugi")
        lines = process.until("ugiok")
        if how == "setoption":
            process.send("setoption name Threads value 2")
        else:
            assert "option name Threads type spin default 2 min 1 max 64" in lines
        process.send("position startpos seeds 5", "go depth 14")
        lines = process.until("bestmove")
        depths = [int(line.split()[2]) for line in lines if line.startswith("info depth ")]
        assert depths == sorted(set(depths)) and depths[-1] == 14, lines
        alone = Engine(endgame=None, evaluation="learned").search(Board(seeds=5), depth=14)
        assert score_at(lines, 14) == alone.score
        process.send("go movetime 200")
        assert int(bestmove(process.until("bestmove"))) in range(1, 7)
    finally:
        process.close()


def test_a_go_on_threads_counts_the_helpers_nodes():
    from mancala.protocol import Session

    lines = []
    session = Session(lines.append, "test", threads=2)
    session.handle("position startpos seeds 6")
    session.handle("go nodes 300000")
    session._thread.join(timeout=ANSWER)
    assert lines[-1].startswith("bestmove ")
    engine = session._engine
    main, helper = engine._searcher.nodes, engine._helpers[0].nodes
    assert helper > 0 and 300000 <= main + helper <= 300000 * 33 // 32 + 1000
    session.handle("go movetime 150")
    session._thread.join(timeout=ANSWER)
    assert lines[-1].startswith("bestmove ") and engine._helpers[0].nodes > 0
    assert not [line for line in lines if "error" in line]


def test_the_engine_command_takes_a_cpu_clock():
    process = EngineProcess("--clock", "cpu", "--threads", "2")
    try:
        process.send("position startpos", "go movetime 100")
        assert int(bestmove(process.until("bestmove"))) in range(1, 7)
    finally:
        process.close()
    bad = subprocess.run([sys.executable, "-m", "mancala", "engine", "--clock", "sundial"],
                         capture_output=True, text=True, timeout=ANSWER)
    assert bad.returncode == 2 and "--clock" in bad.stderr and "Traceback" not in bad.stderr
