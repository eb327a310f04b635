"""Engine.analyse deepening (MultiPV): every move's score at every depth, streamed as it
comes, held against a full-width search of the twin's rules and boards worked by hand."""
import threading

import pytest

import mancala
from mancala.analysis import AnalysisProgress

from conftest import depth_limited_values

# a middle-game position: South to move, four legal pits, one of them an extra turn
SLOTS = [3, 0, 4, 1, 0, 2, 10, 5, 1, 0, 6, 2, 3, 11]


def test_each_depth_scores_every_move_as_the_twins_full_width_search():
    board = mancala.Board(SLOTS)
    steps = []
    results = mancala.Engine(hash_mb=4).analyse(board, depth=6, deepen=True, progress=steps.append)
    complete = [step for step in steps if step.complete]
    assert [step.depth for step in complete] == [1, 2, 3, 4, 5, 6]
    for step in complete:
        expected = depth_limited_values(SLOTS, 0, step.depth, 0)
        assert {pit: r.score for pit, r in step.results.items()} == expected, step.depth
        assert step.best.score == max(expected.values())
    assert {pit: r.score for pit, r in results.items()} == depth_limited_values(SLOTS, 0, 6, 0)
    assert all(r.pv[0] == pit and r.depth == 6 for pit, r in results.items())


def test_each_move_is_reported_as_it_comes_then_its_depth():
    board = mancala.Board(SLOTS)
    steps = []
    mancala.Engine(hash_mb=4).analyse(board, depth=3, deepen=True, progress=steps.append)
    legal = board.legal_moves
    assert [(s.depth, s.move) for s in steps] == [
        (depth, move) for depth in (1, 2, 3) for move in legal + [None]]
    for step in steps:
        assert sorted(step.results) == (legal if step.complete else
                                        [pit for pit in legal if pit <= step.move])
    nodes = [step.nodes for step in steps]
    assert nodes == sorted(nodes) and nodes[-1] > 0


def test_one_pass_gives_the_same_scores_as_the_last_depth_of_deepening():
    board = mancala.Board(SLOTS)
    one = mancala.Engine(hash_mb=4).analyse(board, depth=7)
    deep = mancala.Engine(hash_mb=4).analyse(board, depth=7, deepen=True)
    assert {p: r.score for p, r in one.items()} == {p: r.score for p, r in deep.items()}


def test_a_score_after_an_extra_turn_stays_the_movers():
    #         12  11  10   9   8   7
    #   [0]    0   0   0   0   0   2   [0]
    #          0   0   0   0   0   1
    # South's pit 6 ends in its store (extra turn), then its row is empty: the game ends
    # 1 - 2 = -1 for South; that is the move's score from South's view, not +1
    board = mancala.Board([0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0])
    step = mancala.Engine(hash_mb=1).analyse(board, depth=2, deepen=True)
    assert step[5].score == -1 and step[5].exact
    # North to move in the mirror: the same -1 for North
    mirror = mancala.Board([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0], to_move=1)
    assert mancala.Engine(hash_mb=1).analyse(mirror, depth=2, deepen=True)[5].score == -1


def test_an_endgame_is_solved_and_the_deepening_ends():
    # worked by hand (the web's test too): South's pit 6 then pit 5 take every seed, +4
    board = mancala.Board([0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0])
    steps = []
    results = mancala.Engine(hash_mb=1).analyse(board, depth=40, deepen=True, progress=steps.append)
    last = [step for step in steps if step.complete][-1]
    assert last.exact and last.depth < 40
    assert results[5].score == 4 and results[5].exact and last.best.move == 5


def test_time_is_the_whole_analysiss_and_an_interrupted_depth_is_dropped():
    board = mancala.Board(seeds=6)
    steps = []
    results = mancala.Engine(hash_mb=8).analyse(board, time=0.4, deepen=True, progress=steps.append)
    # that it ended at all is the time's doing: without a limit Kalah(6,6) deepens for hours
    # (no clock reading here: how long it took moves with the machine's load)
    complete = [step for step in steps if step.complete]
    last = complete[-1]
    assert {p: r.score for p, r in results.items()} == {p: r.score for p, r in last.results.items()}
    # the depth it answers with is a finished one: a fresh exact-depth analysis agrees
    fresh = mancala.Engine(hash_mb=8).analyse(board, depth=last.depth)
    assert {p: r.score for p, r in fresh.items()} == {p: r.score for p, r in results.items()}


def test_a_node_limit_is_the_whole_analysiss():
    board = mancala.Board(seeds=6)
    steps = []
    results = mancala.Engine(hash_mb=8).analyse(board, nodes=20_000, deepen=True,
                                                progress=steps.append)
    last = [step for step in steps if step.complete][-1]
    assert results == last.results and 3 <= last.depth < 20


def test_stop_from_another_thread_ends_it_with_the_last_finished_depth():
    engine = mancala.Engine(hash_mb=8)
    board = mancala.Board(seeds=6)
    steps = []
    first_depth = threading.Event()
    stopper = threading.Thread(target=lambda: (first_depth.wait(60), engine.stop()))
    stopper.start()

    def seen(step):
        steps.append(step)
        if step.complete:
            first_depth.set()       # stopped once a depth is finished, whenever that is
    results = engine.analyse(board, deepen=True, progress=seen)     # no limit: till stop
    stopper.join()
    last = [step for step in steps if step.complete][-1]
    assert results == last.results and sorted(results) == board.legal_moves
    assert engine.search(board, depth=2).depth == 2       # the next call is not stopped


def test_a_progress_that_raises_stops_the_analysis_and_reraises():
    class Enough(Exception):
        pass

    def progress(step: AnalysisProgress) -> None:
        if step.depth == 2:
            raise Enough

    with pytest.raises(Enough):
        mancala.Engine(hash_mb=1).analyse(mancala.Board(), depth=5, deepen=True, progress=progress)


def test_an_exact_analysis_reports_every_move_then_depth_0():
    board = mancala.Board([0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0])
    steps = []
    results = mancala.Engine(hash_mb=1).analyse(board, exact=True, progress=steps.append)
    assert [(s.depth, s.move) for s in steps] == [(0, 4), (0, 5), (0, None)]
    assert steps[-1].exact and steps[-1].results == results
