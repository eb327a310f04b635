"""One Engine shared between threads: never a crash, a wrong value or a cut-short search.

Every answer given under contention is checked against the same call made
alone, on a fresh engine of the same kind.
"""
import os
import json
import random
import subprocess
import sys
import signal
import threading
import time

import pytest

from mancala import Board, Engine, _core, parallel
from mancala import endgame
from mancala.errors import InvalidLimitError, SearchStoppedError
from mancala.search_values import SearchRequest

RULES = ("standard", "empty", "none")
MOST_SEEDS = {"standard": 16, "empty": 16, "none": 12}   # each call takes milliseconds


def random_boards(rng, count):
    boards = []
    while len(boards) < count:
        capture = RULES[len(boards) % len(RULES)]
        slots = [0] * 14
        for _ in range(rng.randint(6, MOST_SEEDS[capture])):
            slots[rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12])] += 1
        slots[6], slots[13] = rng.randint(0, 10), rng.randint(0, 10)
        board = Board(slots, rng.randint(0, 1), capture=capture)
        if not board.is_game_over():
            boards.append(board)
    return boards


def answer(engine, call, board):
    """What a call returns, as plain data to compare.

    Left out: what depends on the table's history even on one thread (node
    counts; whether a depth-limited search saw early that its value is exact,
    and so stopped before the depth asked).
    """
    if call == "solve":
        r = engine.solve(board)
        return r.score, r.exact
    if call == "search":
        r = engine.search(board, depth=7)
        return r.score, r.depth == 7 or r.exact
    if call == "analyse":
        return {pit: r.score for pit, r in engine.analyse(board, depth=4).items()}
    return engine.optimal_moves(board)


def hammer(engine, tasks, n_threads):
    """Run the tasks (call, board) on n_threads threads, all sharing engine;
    returns the answers in the order of the tasks."""
    got, errors = {}, []
    start = threading.Barrier(n_threads)

    def work(mine):
        start.wait()
        try:
            for i in mine:
                got[i] = answer(engine, *tasks[i])
        except BaseException as exc:   # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(range(i, len(tasks), n_threads),))
               for i in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return [got[i] for i in range(len(tasks))]


@pytest.fixture(scope="module")
def database():
    return endgame.build("standard", 10)


@pytest.mark.parametrize("kind", ["database", "no database", "two threads"])
def test_shared_engine_answers_as_if_alone(kind, database):
    # standard boards use the database, empty and none ones do not: every call
    # may switch the engine's rules and database while another thread waits
    options = {"database": dict(endgame=database), "no database": dict(endgame=None),
               "two threads": dict(endgame=database, threads=2)}[kind]
    rng = random.Random(kind)
    boards = random_boards(rng, 16)
    tasks = [(call, board) for board in boards
             for call in ("solve", "search", "analyse", "optimal_moves")]
    rng.shuffle(tasks)
    alone = [answer(Engine(hash_mb=1, **options), *task) for task in tasks]
    shared = Engine(hash_mb=1, **options)
    for _ in range(3):
        assert hammer(shared, tasks, 4) == alone
        shared.clear()


def test_depth_search_is_not_cut_short_by_another_threads_time_limit():
    engine = Engine(hash_mb=4, endgame=None)
    board = Board(seeds=6)
    done = threading.Event()

    def timed_searches():
        while not done.is_set():
            engine.search(Board(seeds=4, capture="none"), time=0.005, depth=16)

    other = threading.Thread(target=timed_searches)
    other.start()
    try:
        result = engine.search(board, depth=15)
    finally:
        done.set()
        other.join()
    assert result.depth == 15
    assert result.score == Engine(hash_mb=4, endgame=None).search(board, depth=15).score


def test_stop_ends_the_running_search_with_its_last_finished_depth():
    engine = Engine(hash_mb=4, endgame=None)
    board = Board(seeds=6)
    threading.Timer(0.2, engine.stop).start()
    stopped = engine.search(board, depth=30)    # depth 30 of Kalah(6,6): hours, unless stopped
    assert 1 <= stopped.depth < 30 and stopped.move in board.legal_moves
    # the next call is not affected
    again = engine.search(board, depth=9)
    alone = Engine(hash_mb=4, endgame=None).search(board, depth=9)
    assert (again.score, again.depth) == (alone.score, 9)
    assert engine.solve(Board(seeds=2)).score == 6


def test_stop_ends_solve_and_optimal_moves():
    engine = Engine(hash_mb=4, endgame=None, threads=2)
    threading.Timer(0.2, engine.stop).start()
    unfinished = engine.solve(Board(seeds=4))
    assert not unfinished.exact
    threading.Timer(0.2, engine.stop).start()
    with pytest.raises(SearchStoppedError):
        engine.optimal_moves(Board(seeds=4))
    solved = engine.solve(Board(seeds=2))
    assert (solved.score, solved.exact) == (6, True)
    assert engine.optimal_moves(Board(seeds=2)) == Engine(endgame=None).optimal_moves(Board(seeds=2))


def test_a_stop_before_a_call_does_not_stop_it():
    engine = Engine(hash_mb=4, endgame=None)
    engine.stop()
    assert engine.search(Board(seeds=4), depth=8).depth == 8


def test_a_searcher_refuses_a_second_thread_instead_of_sharing_its_state():
    searcher = _core.Searcher(1)
    board = Board(seeds=4)
    raised = []

    def solve():
        while True:
            try:
                # far longer than the test: stopped below
                searcher.search(board, SearchRequest(beta=0, time=60.0))
                return
            except RuntimeError:                    # the meddler's first search had it: again
                continue

    def meddle():
        for call in (lambda: searcher.search(board, SearchRequest(beta=0)),
                     lambda: searcher.set_endgame(None),
                     searcher.clear):
            try:
                call()
            except RuntimeError as exc:
                raised.append(str(exc))

    thread = threading.Thread(target=solve)
    thread.start()
    # a quick search until one is refused: then the solve holds the searcher (on a loaded
    # machine it may start late: a fixed sleep before meddling was a race)
    deadline = time.monotonic() + 60
    while not raised and time.monotonic() < deadline:
        try:
            searcher.search(board, SearchRequest(depth=4))
        except RuntimeError as exc:
            raised.append(str(exc))
    meddle()
    searcher.abort()
    thread.join()
    assert len(raised) == 4 and "in use by another thread" in raised[0]
    searcher.abort(False)
    assert searcher.search(board, SearchRequest(depth=4)).depth == 4


# -- one search on several threads (mancala.parallel)

def helpers_alive():
    return [t for t in threading.enumerate() if t.name == "mancala search helper" and t.is_alive()]


@pytest.mark.parametrize("threads", [2, 3])
def test_a_depth_search_on_threads_has_the_one_thread_value_at_that_depth(threads):
    # the value of a depth-d search does not depend on what order its tree is
    # searched in, nor on which thread filled the table: the same as one thread's
    rng = random.Random(threads)
    for board in random_boards(rng, 24) + [Board(seeds=4), Board(seeds=5), Board(seeds=6)]:
        for depth in (10, 12):
            alone = Engine(hash_mb=1, endgame=None).search(board, depth=depth)
            shared = Engine(hash_mb=1, endgame=None, threads=threads).search(board, depth=depth)
            assert shared.score == alone.score, (board, depth)
            assert shared.depth == depth or shared.exact
            assert shared.move in board.legal_moves
    assert not helpers_alive()


def test_the_helpers_search_and_the_result_counts_their_nodes():
    engine = Engine(hash_mb=16, endgame=None, threads=2)
    result = engine.search(Board(seeds=5), depth=15)
    main, helper = engine._searcher.nodes, engine._helpers[0].nodes
    assert helper > 0 and result.nodes == main + helper
    assert result.depth == 15 and not helpers_alive()


def test_reproducible_and_plain_keep_one_threads_tree():
    board = Board(seeds=4)
    one = Engine(hash_mb=16, endgame=None).search(board, depth=14)
    for options in (dict(reproducible=True), dict(plain=True)):
        alone = Engine(hash_mb=16, endgame=None, **options).search(board, depth=10 if "plain" in options else 14)
        shared = Engine(hash_mb=16, endgame=None, threads=2, **options)
        again = shared.search(board, depth=alone.depth)
        assert (again.nodes, again.score, again.move) == (alone.nodes, alone.score, alone.move)
        assert shared._helpers[0].nodes == 0
    assert Engine(hash_mb=16, endgame=None, reproducible=True, threads=2).search(board, depth=14).nodes \
        == one.nodes


@pytest.mark.parametrize("limit", [1, 700, 50_000, 400_000])
def test_a_node_limit_counts_every_threads_nodes(limit):
    engine = Engine(hash_mb=16, endgame=None, threads=2)
    result = engine.search(Board(seeds=6), nodes=limit)
    # each thread adds its nodes to the total at its polls, at least 64 a limit
    assert result.nodes <= limit + 2 * max(1, limit // 64) + 2 * _core.MAX_DEPTH
    assert result.move in Board(seeds=6).legal_moves
    if limit >= 50_000:
        assert result.nodes >= limit and engine._helpers[0].nodes > 0
        one = Engine(hash_mb=16, endgame=None).search(Board(seeds=6), nodes=limit)
        assert result.depth <= one.depth + 2


def test_a_time_limit_holds_for_every_thread():
    engine = Engine(hash_mb=16, endgame=None, threads=2)
    result = engine.search(Board(seeds=6), time=0.2)    # depth 30 of Kalah(6,6) takes hours
    assert result.move in Board(seeds=6).legal_moves and 1 <= result.depth < 30
    assert not helpers_alive() and engine._helpers[0].nodes > 0


def test_stop_ends_every_thread_of_a_search():
    engine = Engine(hash_mb=4, endgame=None, threads=2)
    board = Board(seeds=6)
    threading.Timer(0.2, engine.stop).start()
    stopped = engine.search(board, depth=40)        # hours, unless stopped
    assert 1 <= stopped.depth < 40 and stopped.move in board.legal_moves
    assert not helpers_alive()
    again = engine.search(board, depth=9)      # the next call is not affected
    assert (again.score, again.depth) == (Engine(hash_mb=4, endgame=None).search(board, depth=9).score, 9)


def test_progress_on_threads_reports_rising_depths_with_their_values():
    for seeds in (3, 4, 5):
        board = Board(seeds=seeds)
        infos = []
        result = Engine(hash_mb=4, endgame=None, threads=2).search(board, depth=13, progress=infos.append)
        depths = [i.depth for i in infos]
        assert depths == sorted(set(depths)) and depths[-1] == result.depth == 13
        last = infos[-1]
        assert (last.score, last.move) == (result.score, result.move)
        for info in infos:
            assert info.score == Engine(hash_mb=4, endgame=None).search(board, depth=info.depth).score
            assert info.move in board.legal_moves


class Enough(Exception):
    pass


def test_a_progress_that_raises_on_threads_stops_them_all_and_reraises():
    def progress(info):
        if info.depth >= 6:
            raise Enough("stop here")
    engine = Engine(hash_mb=4, endgame=None, threads=2)
    with pytest.raises(Enough, match="stop here"):
        engine.search(Board(seeds=5), depth=40, progress=progress)
    assert not helpers_alive()
    assert engine.search(Board(seeds=5), depth=8).depth == 8


def test_an_analysis_on_threads_scores_every_move_as_one_thread_does():
    board = Board(seeds=5)
    alone = Engine(hash_mb=4, endgame=None).analyse(board, depth=13)
    shared = Engine(hash_mb=4, endgame=None, threads=2).analyse(board, depth=13)
    assert {pit: r.score for pit, r in shared.items()} == {pit: r.score for pit, r in alone.items()}
    deepened = Engine(hash_mb=4, endgame=None, threads=2).analyse(board, depth=12, deepen=True)
    assert {pit: r.score for pit, r in deepened.items()} == \
        {pit: r.score for pit, r in Engine(hash_mb=4, endgame=None).analyse(board, depth=12).items()}


def test_an_analysis_timer_stops_the_searches_on_threads():
    engine = Engine(hash_mb=4, endgame=None, threads=2)
    results = engine.analyse(Board(seeds=6), time=0.3, deepen=True)    # till stopped: no depth
    assert results and all(r.depth < 30 for r in results.values()) and not helpers_alive()


def test_ctrl_c_stops_a_search_on_threads_and_the_engine_stays_usable():
    engine = Engine(hash_mb=16, endgame=None, threads=2)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        engine.search(Board(seeds=6), depth=60)     # hours, unless stopped
    timer.join()
    assert not helpers_alive()
    searched = engine.search(Board(seeds=4), depth=9)
    assert (searched.depth, searched.score) == (9, Engine(endgame=None).search(Board(seeds=4), depth=9).score)


def test_a_search_shallower_than_min_depth_runs_on_one_thread():
    engine = Engine(hash_mb=4, endgame=None, threads=2)
    board = Board(seeds=5)
    shallow = engine.search(board, depth=parallel.MIN_DEPTH - 1)
    alone = Engine(hash_mb=4, endgame=None).search(board, depth=parallel.MIN_DEPTH - 1)
    assert engine._helpers[0].nodes == 0 and (shallow.nodes, shallow.move) == (alone.nodes, alone.move)
    engine.search(board, depth=parallel.MIN_DEPTH + 4)
    assert engine._helpers[0].nodes > 0


def run_mancala(tmp_path, *args):
    env = dict(os.environ, MANCALA_HOME=str(tmp_path), MANCALA_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=env, timeout=120)


def test_analyze_threads_scores_every_move_as_one_thread(tmp_path):
    runs = [run_mancala(tmp_path, "analyze", "--seeds", "5", "--depth", "13", "--json", "--threads", n)
            for n in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr
    one, two = ({m["pit_index"]: m["score"] for m in json.loads(r.stdout)["moves"]} for r in runs)
    assert one == two and len(one) == 6
    bad = run_mancala(tmp_path, "analyze", "--threads", "0")
    assert bad.returncode == 2 and "threads" in bad.stderr and "Traceback" not in bad.stderr


def test_play_threads_gives_them_to_the_timed_player(tmp_path):
    done = run_mancala(tmp_path, "play", "--south", "ai:time=0.02", "--north", "ai:depth=10",
                       "--threads", "2", "--seeds", "3")
    assert done.returncode == 0, done.stderr
    assert "wins" in done.stdout or "draw" in done.stdout.lower()
    from mancala.players import make_player
    from mancala.specs import PlayerSpec
    threads = {spec: make_player(PlayerSpec.parse(spec), threads=2).threads
               for spec in ("ai:time=0.5", "ai:depth=12", "ai:hard", "ai:perfect", "ai:easy", "ai:depth=3,temp=1")}
    assert threads == {"ai:time=0.5": 2, "ai:depth=12": 2, "ai:hard": 1, "ai:perfect": 1,
                       "ai:easy": 1, "ai:depth=3,temp=1": 1}


def test_ctrl_c_stops_analyze_on_threads_as_a_user_meets_it(tmp_path):
    from test_interrupt import assert_clean_exit, interrupt
    status, took, out, err = interrupt(["analyze", "--seeds", "6", "--depth", "40", "--threads", "2"],
                                       tmp_path, ("cpu", 1.0))
    assert_clean_exit(status, took, err)


def test_a_search_may_use_fewer_threads_than_its_engine_never_more():
    engine = Engine(hash_mb=4, endgame=None, threads=2)
    one = engine.search(Board(seeds=5), depth=13, threads=1)
    assert engine._helpers[0].nodes == 0
    assert one.nodes == Engine(hash_mb=4, endgame=None).search(Board(seeds=5), depth=13).nodes
    for bad in (0, 3, "2", 1.5):
        with pytest.raises(InvalidLimitError, match="threads"):
            engine.search(Board(seeds=5), depth=4, threads=bad)
