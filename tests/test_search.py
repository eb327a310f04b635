"""The compiled search against plain alpha-beta, brute force and published values."""
import random

import pytest

import mancala
from mancala import _core, _reference, endgame

from conftest import board_of, brute_force, sample_positions, small_endgames


@pytest.mark.parametrize("evaluation", mancala.EVALUATIONS)
def test_table_search_scores_equal_plain_alphabeta(evaluation):
    """Ordering, table and futility change the tree, never the depth-d value."""
    code = mancala.EVALUATIONS.index(evaluation)
    for slots, to_move, capture in sample_positions(12, seed=3):
        engine = mancala.Engine(hash_mb=4, evaluation=evaluation)
        board = board_of(slots, to_move, capture)
        for depth in range(1, 9):
            plain_score, _, _ = _core.alphabeta(slots, to_move, depth, capture, code)
            result = engine.search(board, depth=depth)
            assert result.score == plain_score, (slots, to_move, capture, depth)
            assert result.move in board.legal_moves


def test_table_search_nodes_fewer_than_plain():
    board = mancala.Board()
    plain = mancala.Engine(plain=True).search(board, depth=10)
    full = mancala.Engine(hash_mb=16).search(board, depth=10)
    assert full.score == plain.score
    assert full.nodes * 5 < plain.nodes


def test_solve_equals_brute_force_on_small_endgames():
    engine = mancala.Engine(hash_mb=4)
    for slots, to_move, capture in small_endgames(60, seed=5):
        result = engine.solve(board_of(list(slots), to_move, capture))
        assert result.exact
        assert result.score == brute_force(slots, to_move, capture), (slots, to_move, capture)


def test_solve_without_a_table_agrees():
    engine = mancala.Engine(hash_mb=0)
    for slots, to_move, capture in small_endgames(15, seed=6, max_pit_seeds=6):
        assert engine.solve(board_of(list(slots), to_move, capture)).score == \
            brute_force(slots, to_move, capture)


def test_solved_move_keeps_the_value():
    """The move solve returns reaches the perfect-play value."""
    engine = mancala.Engine(hash_mb=4)
    for slots, to_move, capture in small_endgames(30, seed=8):
        board = board_of(list(slots), to_move, capture)
        result = engine.solve(board)
        child, nxt, _ = _reference.play(list(slots), to_move, result.move, capture)
        value = brute_force(tuple(child), nxt, capture)
        assert (value if nxt == to_move else -value) == result.score


def test_deep_search_of_an_endgame_is_exact_and_equals_solve():
    engine = mancala.Engine(hash_mb=4)
    for slots, to_move, capture in small_endgames(20, seed=9, max_pit_seeds=5):
        board = board_of(list(slots), to_move, capture)
        result = engine.search(board, depth=60)
        assert result.exact
        assert result.score == brute_force(slots, to_move, capture)


def test_kalah_6_3_standard_solves_to_plus_2():
    result = mancala.Engine(hash_mb=64).solve(mancala.Board(seeds=3))
    assert result.exact
    assert result.score == 2
    assert result.pv[0] == result.move
    board = mancala.Board(seeds=3)
    board.push(result.move)
    child = mancala.Engine(hash_mb=64).solve(board)
    assert child.score == (2 if board.to_move == 0 else -2)     # the move keeps the value


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("capture,value", [("standard", 8), ("empty", 10)])
def test_kalah_6_4_opening_value(capture, value):
    """Searched for real with no endgame database (minutes)."""
    result = mancala.Engine(hash_mb=1536, endgame=None, threads=2).solve(
        mancala.Board(seeds=4, capture=capture))
    assert result.exact
    assert result.score == value


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("capture,value", [("standard", 8), ("empty", 10)])
def test_kalah_6_4_opening_value_with_an_endgame_database(capture, value):
    """The 18-seed database (built on two threads into the test cache) and the
    search together, as `solve --endgame 18` runs them; the move must keep the value."""
    db = endgame.ensure(capture, 18, threads=2)
    engine = mancala.Engine(hash_mb=512, endgame=db, threads=2)
    board = mancala.Board(seeds=4, capture=capture)
    result = engine.solve(board)
    assert (result.score, result.exact, result.endgame) == (value, True, 18)
    board.push(result.move)
    child = engine.solve(board)
    assert child.score == (value if board.to_move == 0 else -value)


def test_analyse_scores_every_move_and_agrees_with_search():
    engine = mancala.Engine(hash_mb=16)
    for slots, to_move, capture in sample_positions(6, seed=12):
        board = board_of(slots, to_move, capture)
        scores = engine.analyse(board, depth=6)
        assert sorted(scores) == board.legal_moves
        best = engine.search(board, depth=6)
        assert max(r.score for r in scores.values()) == best.score
        assert scores[best.move].score == best.score
        for pit, result in scores.items():
            assert result.pv[0] == pit


def test_analyse_exact_matches_brute_force():
    engine = mancala.Engine(hash_mb=4)
    for slots, to_move, capture in small_endgames(10, seed=13):
        board = board_of(list(slots), to_move, capture)
        for pit, result in engine.analyse(board, exact=True).items():
            child, nxt, _ = _reference.play(list(slots), to_move, pit, capture)
            value = brute_force(tuple(child), nxt, capture)
            assert result.exact
            assert result.score == (value if nxt == to_move else -value)


def test_search_is_deterministic_across_fresh_engines():
    board = mancala.Board(seeds=5)
    runs = [mancala.Engine(hash_mb=16).search(board, depth=14) for _ in range(3)]
    assert len({(r.move, r.score, r.nodes, r.pv) for r in runs}) == 1


def test_node_limit_stops_the_search_with_a_finished_depth():
    board = mancala.Board()
    result = mancala.Engine(hash_mb=16).search(board, nodes=5000)
    assert result.move in board.legal_moves
    assert 1 <= result.depth < mancala.MAX_DEPTH
    assert result.nodes <= 5000 + 7  # the depth-1 fallback may add at most one small search
    full = mancala.Engine(hash_mb=16).search(board, depth=result.depth)
    assert (full.move, full.score) == (result.move, result.score)


def test_tiny_node_limit_still_gives_a_move():
    board = mancala.Board()
    result = mancala.Engine(hash_mb=1).search(board, nodes=1)
    assert result.move in board.legal_moves
    assert result.depth == 1


def test_time_limit_returns_a_finished_depth():
    board = mancala.Board(seeds=6)
    result = mancala.Engine(hash_mb=16).search(board, time=0.05)
    assert result.move in board.legal_moves
    assert result.depth >= 1 and not result.exact


def test_search_of_a_finished_game_reports_the_final_margin():
    # North's row is empty: South sweeps 5 more seeds into its 20
    board = mancala.Board([0, 3, 0, 0, 0, 2, 20, 0, 0, 0, 0, 0, 0, 23], to_move=1)
    result = mancala.Engine().search(board, depth=5)
    assert result.move is None and result.exact
    assert result.score == 23 - 25
    assert mancala.Engine().solve(board).score == -2


def test_extra_turn_keeps_the_sign():
    #        12 11 10  9  8  7
    #   [ 0]  0  0  0  0  0  2  [ 0]
    #         0  0  0  0  1  1
    # Pit 5 ends in the store (extra turn); then pit 4 ends in the emptied pit 5
    # and captures North's 2: South 4, North 0, +4. Pit 4 first lets North move
    # and ends 1-3, -2. A search that negated across the extra turn would miss it.
    board = mancala.Board([0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0])
    assert brute_force(tuple(board.pits), 0, 0) == 4
    for result in (mancala.Engine().solve(board),
                   mancala.Engine(plain=True).search(board, depth=4),
                   mancala.Engine().search(board, depth=4)):
        assert (result.move, result.score) == (5, 4)
    assert _reference.alphabeta(board.pits, 0, 4, 0)[:2] == (4, 5)


@pytest.mark.parametrize("max_pit_seeds", [8, pytest.param(10, marks=pytest.mark.slow)])
def test_two_threads_solve_to_the_same_values(max_pit_seeds):
    """Threads sharing one small table (many torn-write chances) never change a value.

    The default run keeps the brute force cheap (at most 8 seeds in the pits);
    the slow run (-m slow) checks bigger endgames the same way."""
    engine = mancala.Engine(hash_mb=1, threads=2, endgame=None)
    for slots, to_move, capture in small_endgames(40, seed=21, max_pit_seeds=max_pit_seeds):
        result = engine.solve(board_of(list(slots), to_move, capture))
        assert result.exact
        assert result.score == brute_force(slots, to_move, capture), (slots, to_move, capture)


def test_two_threads_solve_kalah_6_3_and_the_move_keeps_the_value():
    result = mancala.Engine(hash_mb=16, threads=2).solve(mancala.Board(seeds=3))
    assert (result.score, result.exact) == (2, True)        # docs/rules.md, Known values
    board = mancala.Board(seeds=3)
    board.push(result.move)
    child = mancala.Engine(hash_mb=16).solve(board)
    assert child.score == (2 if board.to_move == 0 else -2)


@pytest.mark.parametrize("per_rule", [1, pytest.param(4, marks=pytest.mark.slow)])
def test_two_threads_agree_with_one_beyond_brute_force(per_rule):
    """Middle games too big for brute force: two threads splitting each probe
    (ABDADA) give one thread's value, and a move that keeps it. The default run
    takes the first position of each rule, the slow run (-m slow) four."""
    rng = random.Random(5)
    one = mancala.Engine(hash_mb=8, endgame=None)
    two = mancala.Engine(hash_mb=8, endgame=None, threads=2)
    # without captures games run long: those positions need fewer seeds left to solve quickly
    for capture, in_pits in (("standard", 30), ("empty", 30), ("none", 14)):
        for _ in range(per_rule):
            board = mancala.Board(seeds=3, capture=capture)
            while not board.is_game_over() and sum(board.pits) - board.pits[6] - board.pits[13] > in_pits:
                board.push(rng.choice(board.legal_moves))
            if board.is_game_over():
                continue
            expected = one.solve(board)
            result = two.solve(board)
            assert (result.score, result.exact) == (expected.score, True), board
            assert result.move in one.optimal_moves(board, expected.score), board


def test_threads_must_be_a_small_whole_number():
    for threads in (0, -1, 65, 1.5, "2", True):
        with pytest.raises(ValueError):
            mancala.Engine(threads=threads)
