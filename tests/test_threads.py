"""One Engine shared between threads: never a crash, a wrong value or a cut-short search.

Every answer given under contention is checked against the same call made
alone, on a fresh engine of the same kind.
"""
import random
import threading
import time

import pytest

from mancala import Board, Engine, _core
from mancala import endgame
from mancala.errors import SearchStoppedError

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
                searcher.probe(board, 0, 60.0)      # far longer than the test: stopped below
                return
            except RuntimeError:                    # the meddler's first search had it: again
                continue

    def meddle():
        for call in (lambda: searcher.probe(board, 0),
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
            searcher.search(board, 0, 4)
        except RuntimeError as exc:
            raised.append(str(exc))
    meddle()
    searcher.abort()
    thread.join()
    assert len(raised) == 4 and "in use by another thread" in raised[0]
    searcher.abort(False)
    assert searcher.search(board, 0, 4)[2] == 4
