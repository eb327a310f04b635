"""The pure-Python searches: minimax and alpha-beta agree, and both are exact.

Only ``mancala._reference`` here: the compiled core is held to the same node
counts elsewhere; this file checks that the reference is right to begin with.
"""
import random

from hypothesis import given, settings, strategies as st

from mancala import _reference as ref

START = [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]
PIT_SLOTS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]
SEARCHES = (ref.minimax, ref.alphabeta)


def test_depth_0_is_the_evaluation_and_no_move():
    board = [1, 1, 1, 0, 15, 1, 4, 3, 0, 0, 3, 1, 0, 10]
    for search in SEARCHES:
        assert search(START, 0, 0, 0) == (0, None, 1)
        assert search(board, 0, 0, 0, 1) == (ref.evaluate(board, 0, 0, 1), None, 1)


def test_finished_root_is_its_score_and_no_move():
    board = [0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 27]
    for search in SEARCHES:
        assert search(board, 0, 5, 0) == (-6, None, 1)
        assert search(board, 1, 5, 0, 1) == (6, None, 1)


def test_start_at_depth_1_by_hand():
    # Pits 0 and 1 leave the stores 0-0. Pit 2 ends in the store: South moves
    # again with 1-0, worth +1 unflipped. Pits 3-5 pass the store once: 1-0
    # with North to move, -1 for North, +1 for South. Ties keep pit 2.
    # Nodes: the root and its six children.
    for search in SEARCHES:
        assert search(START, 0, 1, 0) == (1, 2, 7)
        assert search(START, 1, 1, 0) == (1, 2, 7)


def test_start_at_depth_2_by_hand():
    # Pits 0, 1: North answers with its pit 2 (extra turn) or 3-5 and is 1 up: -1.
    # Pit 2: South moves again from 1-0 and pits 3-5 pass the store again: +2.
    # Pits 3-5: South is 1 up, North levels with its own store move: 0.
    # Nodes: 1 + 6 + 35 (perft 2), every position of the full tree.
    assert ref.minimax(START, 0, 2, 0) == (2, 2, 42)
    score, move, nodes = ref.alphabeta(START, 0, 2, 0)
    assert (score, move) == (2, 2) and nodes <= 42


def test_minimax_visits_every_position_of_the_tree():
    # No game can end within 4 moves of the start, so the tree is the perft tree.
    for depth in range(5):
        expected = sum(ref.perft(START, 0, d, 0) for d in range(depth + 1))
        assert ref.minimax(START, 0, depth, 0)[2] == expected


def test_game_ending_child_is_negated_only_on_a_change_of_mover():
    # South's one seed lands in its store and ends the game: 23 - 25, the turn
    # stays with South, so the child's score is South's and is not negated.
    ends_in_store = [0, 0, 0, 0, 0, 1, 22, 1, 2, 0, 0, 3, 0, 19]
    # South's two seeds go to its store and slot 7: the child is North's 27 - 21.
    ends_past_store = [0, 0, 0, 0, 0, 2, 20, 3, 0, 1, 0, 2, 1, 19]
    for search in SEARCHES:
        assert search(ends_in_store, 0, 3, 0) == (-2, 5, 2)
        assert search(ends_past_store, 0, 3, 0) == (-6, 5, 2)


positions = st.builds(
    lambda pits, stores: pits[:6] + [stores[0]] + pits[6:] + [stores[1]],
    st.lists(st.integers(0, 6), min_size=12, max_size=12),
    st.lists(st.integers(0, 30), min_size=2, max_size=2),
)


def assert_alphabeta_matches_minimax(slots, to_move, depth, capture, evaluation):
    full = ref.minimax(slots, to_move, depth, capture, evaluation)
    pruned = ref.alphabeta(slots, to_move, depth, capture, evaluation)
    assert pruned[:2] == full[:2]
    assert pruned[2] <= full[2]


@settings(max_examples=80, deadline=None)
@given(positions, st.integers(0, 1), st.integers(1, 4), st.integers(0, 2), st.integers(0, 1))
def test_alphabeta_matches_minimax_on_random_boards(slots, to_move, depth, capture, evaluation):
    assert_alphabeta_matches_minimax(slots, to_move, depth, capture, evaluation)


def test_alphabeta_matches_minimax_on_positions_from_play():
    rng = random.Random(2024)
    for game in range(24):
        seeds, capture = rng.choice([3, 4, 5, 6]), game % 3
        slots, to_move = [seeds] * 6 + [0] + [seeds] * 6 + [0], 0
        for _ in range(rng.randrange(30)):
            if ref.is_game_over(slots):
                break
            pit = rng.choice(ref.legal_moves(slots, to_move))
            slots, to_move, _ = ref.play(slots, to_move, pit, capture)
        assert_alphabeta_matches_minimax(slots, to_move, 4, capture, game % 2)


def perfect_margin(slots, to_move, capture):
    """South's final margin with both sides perfect, playing every game out.

    Written as max for South and min for North, apart from the negamax it checks.
    """
    if ref.is_game_over(slots):  # each row is swept into its owner's store
        return slots[6] + sum(slots[0:6]) - slots[13] - sum(slots[7:13])
    margins = []
    for pit in ref.legal_moves(slots, to_move):
        child, next_to_move, _ = ref.play(slots, to_move, pit, capture)
        margins.append(perfect_margin(child, next_to_move, capture))
    return max(margins) if to_move == 0 else min(margins)


tiny_endgames = st.builds(
    lambda seeds, south, north: [
        seeds.count(slot) for slot in range(6)] + [south] + [
        seeds.count(slot) for slot in range(7, 13)] + [north],
    st.lists(st.sampled_from(PIT_SLOTS), min_size=1, max_size=4),
    st.integers(0, 24),
    st.integers(0, 24),
)


@settings(max_examples=150, deadline=None)
@given(tiny_endgames, st.integers(0, 1), st.integers(0, 2))
def test_deep_search_of_tiny_endgames_is_exact(slots, to_move, capture):
    exact = perfect_margin(slots, to_move, capture)
    if to_move == 1:
        exact = -exact
    for search in SEARCHES:
        for evaluation in (0, 1):       # deep enough that no leaf is ever evaluated
            score, move, _ = search(slots, to_move, 60, capture, evaluation)
            assert score == exact
            if move is not None:
                child, next_to_move, _ = ref.play(slots, to_move, move, capture)
                value = perfect_margin(child, next_to_move, capture)
                assert (value if to_move == 0 else -value) == exact
