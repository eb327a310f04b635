"""The compiled core and the pure-Python twin answer every question alike.

Random play-outs over every capture rule and seed count check, after every
move: the same resulting slots, side to move and capture from both; the same
legal moves and evaluations; seeds conserved; and Board.pop restoring the
exact position.
"""
import random

import pytest

import mancala
from mancala import _core, _reference

from conftest import sample_positions

RULES = range(len(mancala.CAPTURE_RULES))


def playout(rng, seeds, capture, check):
    """Play one random game from the start, calling check(slots, to_move) before each move."""
    slots, to_move = ([seeds] * 6 + [0]) * 2, 0
    while not _reference.is_game_over(slots):
        check(slots, to_move)
        pit = rng.choice(_reference.legal_moves(slots, to_move))
        expected = _reference.play(slots, to_move, pit, capture)
        got = _core.play(slots, to_move, pit, capture)
        assert (list(got[0]), got[1], got[2]) == (list(expected[0]), expected[1], expected[2]), \
            f"play({slots}, {to_move}, {pit}, {capture})"
        assert sum(got[0]) == sum(slots), "seeds are conserved"
        slots, to_move = expected[0], expected[1]
    check(slots, to_move)
    return slots


@pytest.mark.parametrize("capture", RULES, ids=mancala.CAPTURE_RULES)
@pytest.mark.parametrize("seeds", range(1, 7))
def test_random_playouts_agree(seeds, capture):
    rng = random.Random(seeds * 10 + capture)

    def check(slots, to_move):
        assert _core.legal_moves(slots, to_move) == _reference.legal_moves(slots, to_move)
        assert _core.is_game_over(slots) == _reference.is_game_over(slots)
        for evaluation in range(len(mancala.EVALUATIONS)):
            assert (_core.evaluate(slots, to_move, capture, evaluation)
                    == _reference.evaluate(slots, to_move, capture, evaluation)), (slots, to_move)

    for _ in range(100):
        final = playout(rng, seeds, capture, check)
        assert sum(final) == 12 * seeds
        assert sum(final[0:6]) == sum(final[7:13]) == 0, "the end sweeps both rows"


@pytest.mark.slow
@pytest.mark.parametrize("capture", RULES, ids=mancala.CAPTURE_RULES)
def test_many_random_playouts_agree(capture):
    rng = random.Random(capture)
    for _ in range(3000):
        seeds = rng.randint(1, 12)
        final = playout(rng, seeds, capture, lambda slots, to_move: None)   # play() agrees: asserted inside
        assert sum(final) == 12 * seeds
        assert sum(final[0:6]) == sum(final[7:13]) == 0, "the end sweeps both rows"


@pytest.mark.parametrize("capture", RULES, ids=mancala.CAPTURE_RULES)
def test_board_pop_restores_every_position(capture):
    rng = random.Random(capture)
    for game in range(50):
        board = mancala.Board(seeds=rng.randint(1, 6), capture=mancala.CAPTURE_RULES[capture])
        seen = []
        while not board.is_game_over():
            seen.append((board.pits, board.to_move))
            board.push(rng.choice(board.legal_moves))
            assert board.seeds == sum(seen[0][0])
        for pits, to_move in reversed(seen):
            board.pop()
            assert (board.pits, board.to_move) == (pits, to_move)
        assert board.ply == 0


@pytest.mark.parametrize("evaluation", range(3), ids=mancala.EVALUATIONS)
def test_plain_alphabeta_visits_the_same_tree(evaluation):
    """Same score, same move, same node count: the compiled tree is the textbook one."""
    for slots, to_move, capture in sample_positions(25, seed=evaluation):
        for depth in (1, 3, 5):
            expected = _reference.alphabeta(slots, to_move, depth, capture, evaluation)
            assert _core.alphabeta(slots, to_move, depth, capture, evaluation) == expected, \
                (slots, to_move, depth, capture)


def test_plain_minimax_visits_the_same_tree():
    for slots, to_move, capture in sample_positions(10, seed=7):
        for depth in (1, 2, 4):
            assert (_core.minimax(slots, to_move, depth, capture)
                    == _reference.minimax(slots, to_move, depth, capture))


def test_plain_engine_matches_the_reference_node_for_node():
    engine = mancala.Engine(plain=True)
    for slots, to_move, capture in sample_positions(10, seed=11):
        board = mancala.Board(slots, to_move, capture=mancala.CAPTURE_RULES[capture])
        result = engine.search(board, depth=6)
        score, move, nodes = _reference.alphabeta(slots, to_move, 6, capture)
        assert (result.score, result.move, result.nodes) == (score, move, nodes)


def test_a_finished_board_not_yet_swept_is_worth_its_final_margin():
    # North's row is empty, South still holds 5 in its pits: South 20 + 5, North 19.
    #        12 11 10  9  8  7
    #   [19]  0  0  0  0  0  0  [20]
    #         0  3  0  0  0  2
    slots = [0, 3, 0, 0, 0, 2, 20, 0, 0, 0, 0, 0, 0, 19]
    for twin in (_core, _reference):
        assert twin.is_game_over(slots) and twin.legal_moves(slots, 0) == []
        assert twin.score(slots, 0) == 1
        for evaluation in (0, 1, 2):
            assert twin.evaluate(slots, 0, 0, evaluation) == 6
            assert twin.evaluate(slots, 1, 0, evaluation) == -6
        assert twin.alphabeta(slots, 1, 4, 0) == (-6, None, 1)
        assert twin.minimax(slots, 0, 4, 0) == (6, None, 1)
