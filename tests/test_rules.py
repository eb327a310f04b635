"""The rules (docs/rules.md), one named scenario per test, on both implementations.

Every board is drawn North on top, as the players sit:

         12 11 10  9  8  7       <- slot numbers of North's pits
          .  .  .  .  .  .       <- seeds in North's pits
    [13]                    [ 6] <- North's store left, South's store right
          .  .  .  .  .  .       <- seeds in South's pits
          0  1  2  3  4  5       <- slot numbers of South's pits

Expected results are worked out by hand from the rules, seed by seed.
"""
import random

import pytest

STANDARD, EMPTY, NONE = 0, 1, 2
ALL_RULES = (STANDARD, EMPTY, NONE)
START = [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]


def sow(impl, slots, to_move, pit, capture):
    """``impl.play`` with the board returned as a plain list, for comparing."""
    board, next_to_move, captured = impl.play(slots, to_move, pit, capture)
    return list(board), next_to_move, captured


def test_rule_and_evaluation_names(impl):
    assert tuple(impl.CAPTURE_RULES) == ("standard", "empty", "none")
    assert tuple(impl.EVALUATIONS) == ("store", "positional", "learned")


# -- sowing -------------------------------------------------------------------

def test_opening_move_sows_one_seed_per_slot(impl):
    #      12 11 10  9  8  7
    #       4  4  4  4  4  4
    # [ 0]                    [ 0]
    #       4  4  4  4  4  4
    #       0  1  2  3  4  5
    assert sow(impl, START, 0, 0, STANDARD) == (
        [0, 5, 5, 5, 5, 4, 0, 4, 4, 4, 4, 4, 4, 0], 1, 0)


@pytest.mark.parametrize("capture", ALL_RULES)
def test_sowing_skips_opponent_store(impl, capture):
    # South sows 9 from pit 5: store 6, pits 7..12, (13 skipped), 0, 1.
    #      12 11 10  9  8  7
    #       1  1  1  1  1  1
    # [10]                    [ 3]
    #       2  1  0  0  0  9
    #       0  1  2  3  4  5
    board = [2, 1, 0, 0, 0, 9, 3, 1, 1, 1, 1, 1, 1, 10]
    assert sow(impl, board, 0, 5, capture) == (
        [3, 2, 0, 0, 0, 0, 4, 2, 2, 2, 2, 2, 2, 10], 1, 0)


@pytest.mark.parametrize("capture", ALL_RULES)
def test_north_sowing_skips_south_store(impl, capture):
    # North sows 9 from pit 5 (slot 12): store 13, pits 0..5, (6 skipped), 7, 8.
    #      12 11 10  9  8  7
    #       9  0  0  0  1  2
    # [ 3]                    [10]
    #       1  1  1  1  1  1
    #       0  1  2  3  4  5
    board = [1, 1, 1, 1, 1, 1, 10, 2, 1, 0, 0, 0, 9, 3]
    assert sow(impl, board, 1, 5, capture) == (
        [2, 2, 2, 2, 2, 2, 10, 3, 2, 0, 0, 0, 0, 4], 0, 0)


def test_play_does_not_mutate_its_input(impl):
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    frozen = tuple(board)
    impl.play(board, 0, 1, STANDARD)
    impl.play(frozen, 0, 1, STANDARD)
    assert board == list(frozen) == [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]


# -- extra turns --------------------------------------------------------------

def test_extra_turn_when_last_seed_in_own_store(impl):
    # South's pit 2 holds 4: slots 3, 4, 5 and the store.
    #      12 11 10  9  8  7
    #       4  4  4  4  4  4
    # [ 0]                    [ 0]
    #       4  4  4  4  4  4
    #       0  1  2  3  4  5
    assert sow(impl, START, 0, 2, STANDARD) == (
        [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0], 0, 0)


def test_north_extra_turn_when_last_seed_in_own_store(impl):
    # North's pit 2 (slot 9) holds 4: slots 10, 11, 12 and store 13.
    assert sow(impl, START, 1, 2, STANDARD) == (
        [4, 4, 4, 4, 4, 4, 0, 4, 4, 0, 5, 5, 5, 1], 1, 0)


def test_extra_turn_after_a_full_lap(impl):
    # 14 seeds from pit 5: store, 7..12, (13 skipped), 0..5 (refilling pit 5), store.
    #      12 11 10  9  8  7
    #       1  1  1  1  1  1
    # [ 0]                    [ 0]
    #       0  0  0  0  1 14
    #       0  1  2  3  4  5
    board = [0, 0, 0, 0, 1, 14, 0, 1, 1, 1, 1, 1, 1, 0]
    assert sow(impl, board, 0, 5, STANDARD) == (
        [1, 1, 1, 1, 2, 1, 2, 2, 2, 2, 2, 2, 2, 0], 0, 0)


def test_north_extra_turn_after_a_full_lap(impl):
    # 19 seeds from North's pit 0: 8..13, 0..5, (6 skipped), 7..13.
    #      12 11 10  9  8  7
    #       0  0  0  0  0 19
    # [ 0]                    [ 0]
    #       1  1  1  1  1  1
    #       0  1  2  3  4  5
    board = [1, 1, 1, 1, 1, 1, 0, 19, 0, 0, 0, 0, 0, 0]
    assert sow(impl, board, 1, 0, STANDARD) == (
        [2, 2, 2, 2, 2, 2, 0, 1, 2, 2, 2, 2, 2, 2], 1, 0)


# -- captures -----------------------------------------------------------------

@pytest.mark.parametrize("capture", [STANDARD, EMPTY])
def test_capture_takes_last_seed_and_opposite_pit(impl, capture):
    # Pit 1 sows 2 into slots 2 and 3; slot 3 was empty and faces slot 9 (5 seeds).
    #      12 11 10  9  8  7
    #       4  0  1  5  0  2
    # [ 7]                    [ 5]
    #       1  2  3  0  3  1
    #       0  1  2  3  4  5
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    assert sow(impl, board, 0, 1, capture) == (
        [1, 0, 4, 0, 3, 1, 11, 2, 0, 0, 1, 0, 4, 7], 1, 6)


def test_no_capture_under_none_rule(impl):
    # The board of the capture above; with stealing off the seed just stays.
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    assert sow(impl, board, 0, 1, NONE) == (
        [1, 0, 4, 1, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7], 1, 0)


@pytest.mark.parametrize("capture", [STANDARD, NONE])
def test_no_capture_when_opposite_pit_is_empty(impl, capture):
    #      12 11 10  9  8  7
    #       4  0  1  0  0  2
    # [ 7]                    [ 5]
    #       1  2  3  0  3  1
    #       0  1  2  3  4  5
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 0, 1, 0, 4, 7]
    assert sow(impl, board, 0, 1, capture) == (
        [1, 0, 4, 1, 3, 1, 5, 2, 0, 0, 1, 0, 4, 7], 1, 0)


def test_empty_capture_takes_single_seed_when_opposite_is_empty(impl):
    # Same board; the 1950s rule banks the lone seed.
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 0, 1, 0, 4, 7]
    assert sow(impl, board, 0, 1, EMPTY) == (
        [1, 0, 4, 0, 3, 1, 6, 2, 0, 0, 1, 0, 4, 7], 1, 1)


@pytest.mark.parametrize("capture", ALL_RULES)
def test_no_capture_when_last_seed_lands_in_occupied_own_pit(impl, capture):
    #      12 11 10  9  8  7
    #       4  0  1  5  0  2
    # [ 7]                    [ 5]
    #       1  2  3  2  3  1
    #       0  1  2  3  4  5
    board = [1, 2, 3, 2, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    assert sow(impl, board, 0, 1, capture) == (
        [1, 0, 4, 3, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7], 1, 0)


@pytest.mark.parametrize("capture", ALL_RULES)
def test_no_capture_when_last_seed_lands_in_empty_opponent_pit(impl, capture):
    # Pit 5 sows 3: store, 7, and slot 8, which was empty but is North's.
    #      12 11 10  9  8  7
    #       4  0  1  5  0  2
    # [ 7]                    [ 5]
    #       1  2  3  0  3  3
    #       0  1  2  3  4  5
    board = [1, 2, 3, 0, 3, 3, 5, 2, 0, 5, 1, 0, 4, 7]
    assert sow(impl, board, 0, 5, capture) == (
        [1, 2, 3, 0, 3, 0, 6, 3, 1, 5, 1, 0, 4, 7], 1, 0)


@pytest.mark.parametrize("capture", [STANDARD, EMPTY])
def test_thirteen_seeds_lap_and_capture_in_start_pit(impl, capture):
    # 13 seeds from pit 2 visit every slot but 13 once and end in pit 2 itself,
    # which now holds one seed; slot 10 opposite holds 3 + 1 sown this move.
    #      12 11 10  9  8  7
    #       2  1  3  0  3  0
    # [ 7]                    [ 5]
    #       1  0 13  2  0  0
    #       0  1  2  3  4  5
    board = [1, 0, 13, 2, 0, 0, 5, 0, 3, 0, 3, 1, 2, 7]
    assert sow(impl, board, 0, 2, capture) == (
        [2, 1, 0, 3, 1, 1, 11, 1, 4, 1, 0, 2, 3, 7], 1, 5)


def test_thirteen_seeds_lap_without_capture_under_none_rule(impl):
    board = [1, 0, 13, 2, 0, 0, 5, 0, 3, 0, 3, 1, 2, 7]
    assert sow(impl, board, 0, 2, NONE) == (
        [2, 1, 1, 3, 1, 1, 6, 1, 4, 1, 4, 2, 3, 7], 1, 0)


@pytest.mark.parametrize("capture", [STANDARD, EMPTY])
def test_capture_counts_seeds_sown_into_opposite_pit_this_move(impl, capture):
    # Slot 10, facing pit 2, is empty before the 13-seed lap and gets one seed.
    #      12 11 10  9  8  7
    #       2  1  0  0  3  0
    # [ 7]                    [ 5]
    #       1  0 13  2  0  0
    #       0  1  2  3  4  5
    board = [1, 0, 13, 2, 0, 0, 5, 0, 3, 0, 0, 1, 2, 7]
    assert sow(impl, board, 0, 2, capture) == (
        [2, 1, 0, 3, 1, 1, 8, 1, 4, 1, 0, 2, 3, 7], 1, 2)


@pytest.mark.parametrize("capture", [STANDARD, EMPTY])
def test_north_capture_counts_seeds_sown_into_opposite_pit_on_the_way(impl, capture):
    # North's pit 5 (slot 12) sows 8: 13, 0..5, (6 skipped), 7. Slot 7 was
    # empty; slot 5 facing it was empty too until this move sowed one seed.
    #      12 11 10  9  8  7
    #       8  1  0  2  1  0
    # [ 9]                    [10]
    #       0  2  1  0  3  0
    #       0  1  2  3  4  5
    board = [0, 2, 1, 0, 3, 0, 10, 0, 1, 2, 0, 1, 8, 9]
    assert sow(impl, board, 1, 5, capture) == (
        [1, 3, 2, 1, 4, 0, 10, 0, 1, 2, 0, 1, 0, 12], 0, 2)


@pytest.mark.parametrize("capture", [STANDARD, EMPTY])
def test_north_capture(impl, capture):
    # North's pit 0 (slot 7) sows 2 into 8 and 9; slot 9 was empty, faces slot 3.
    #      12 11 10  9  8  7
    #       1  3  0  0  1  2
    # [ 4]                    [ 6]
    #       2  1  0  4  1  0
    #       0  1  2  3  4  5
    board = [2, 1, 0, 4, 1, 0, 6, 2, 1, 0, 0, 3, 1, 4]
    assert sow(impl, board, 1, 0, capture) == (
        [2, 1, 0, 0, 1, 0, 6, 0, 2, 0, 0, 3, 1, 9], 0, 5)


@pytest.mark.parametrize("capture", [STANDARD, NONE])
def test_north_no_capture_when_opposite_pit_is_empty(impl, capture):
    #      12 11 10  9  8  7
    #       1  3  0  0  1  2
    # [ 4]                    [ 6]
    #       2  1  0  0  1  0
    #       0  1  2  3  4  5
    board = [2, 1, 0, 0, 1, 0, 6, 2, 1, 0, 0, 3, 1, 4]
    assert sow(impl, board, 1, 0, capture) == (
        [2, 1, 0, 0, 1, 0, 6, 0, 2, 1, 0, 3, 1, 4], 0, 0)


def test_north_empty_capture_takes_single_seed(impl):
    board = [2, 1, 0, 0, 1, 0, 6, 2, 1, 0, 0, 3, 1, 4]
    assert sow(impl, board, 1, 0, EMPTY) == (
        [2, 1, 0, 0, 1, 0, 6, 0, 2, 0, 0, 3, 1, 5], 0, 1)


# -- end of the game ----------------------------------------------------------

@pytest.mark.parametrize("capture", ALL_RULES)
def test_game_ends_and_sweeps_when_movers_row_empties(impl, capture):
    # South's last 2 seeds go to store and slot 7; North banks its 7 + 1 seeds.
    #      12 11 10  9  8  7
    #       1  2  0  1  0  3
    # [19]                    [20]
    #       0  0  0  0  0  2
    #       0  1  2  3  4  5
    board = [0, 0, 0, 0, 0, 2, 20, 3, 0, 1, 0, 2, 1, 19]
    assert sow(impl, board, 0, 5, capture) == (
        [0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 27], 1, 0)


@pytest.mark.parametrize("capture", [STANDARD, EMPTY])
def test_game_ends_and_sweeps_when_a_capture_empties_opponents_row(impl, capture):
    # South captures North's last seed (slot 9) with 1 of its own, then banks
    # the 2 + 1 left in its row: 18 + 2 + 4 = 24 against 24, a draw.
    #      12 11 10  9  8  7
    #       0  0  0  1  0  0
    # [24]                    [18]
    #       2  2  0  0  1  0
    #       0  1  2  3  4  5
    board = [2, 2, 0, 0, 1, 0, 18, 0, 0, 1, 0, 0, 0, 24]
    assert sow(impl, board, 0, 1, capture) == (
        [0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 24], 1, 2)


def test_game_goes_on_when_no_capture_empties_a_row(impl):
    board = [2, 2, 0, 0, 1, 0, 18, 0, 0, 1, 0, 0, 0, 24]
    assert sow(impl, board, 0, 1, NONE) == (
        [2, 0, 1, 1, 1, 0, 18, 0, 0, 1, 0, 0, 0, 24], 1, 0)


def test_north_capture_empties_souths_row(impl):
    # North's pit 1 (slot 8) sows into empty slot 9, facing slot 3 (3 seeds):
    # 4 captured; South's row is empty, North banks the seed left in slot 7.
    #      12 11 10  9  8  7
    #       0  0  0  0  1  1
    # [23]                    [20]
    #       0  0  0  3  0  0
    #       0  1  2  3  4  5
    board = [0, 0, 0, 3, 0, 0, 20, 1, 1, 0, 0, 0, 0, 23]
    assert sow(impl, board, 1, 1, STANDARD) == (
        [0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 28], 0, 4)


def test_move_that_ends_game_with_last_seed_in_store(impl):
    # South's last seed goes to its store: the turn would stay with South, the
    # game is over anyway and North banks 1 + 2 + 3.
    #      12 11 10  9  8  7
    #       0  3  0  0  2  1
    # [19]                    [22]
    #       0  0  0  0  0  1
    #       0  1  2  3  4  5
    board = [0, 0, 0, 0, 0, 1, 22, 1, 2, 0, 0, 3, 0, 19]
    assert sow(impl, board, 0, 5, STANDARD) == (
        [0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0, 0, 0, 25], 0, 0)


def test_north_move_that_ends_game_with_last_seed_in_store(impl):
    #      12 11 10  9  8  7
    #       1  0  0  0  0  0
    # [24]                    [17]
    #       3  0  2  0  0  1
    #       0  1  2  3  4  5
    board = [3, 0, 2, 0, 0, 1, 17, 0, 0, 0, 0, 0, 1, 24]
    assert sow(impl, board, 1, 5, STANDARD) == (
        [0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0, 0, 0, 25], 1, 0)


def test_is_game_over(impl):
    assert not impl.is_game_over(START)
    assert not impl.is_game_over([0, 0, 0, 0, 0, 1, 22, 1, 2, 0, 0, 3, 0, 19])
    assert impl.is_game_over([0, 0, 0, 0, 0, 0, 24, 1, 2, 0, 0, 3, 0, 18])
    assert impl.is_game_over([1, 2, 0, 0, 3, 0, 18, 0, 0, 0, 0, 0, 0, 24])
    assert impl.is_game_over([0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 24])


# -- legal and illegal moves --------------------------------------------------

def test_legal_moves_are_the_non_empty_own_pits(impl):
    #      12 11 10  9  8  7
    #       4  0  1  5  0  2
    # [ 7]                    [ 5]
    #       1  2  3  0  3  1
    #       0  1  2  3  4  5
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    assert list(impl.legal_moves(board, 0)) == [0, 1, 2, 4, 5]
    assert list(impl.legal_moves(board, 1)) == [0, 2, 3, 5]
    assert list(impl.legal_moves(START, 0)) == [0, 1, 2, 3, 4, 5]
    assert list(impl.legal_moves(START, 1)) == [0, 1, 2, 3, 4, 5]


def test_no_legal_moves_once_the_game_is_over(impl):
    # North still has seeds, but South's row is empty: the game is over.
    board = [0, 0, 0, 0, 0, 0, 24, 1, 2, 0, 0, 3, 0, 18]
    assert list(impl.legal_moves(board, 0)) == []
    assert list(impl.legal_moves(board, 1)) == []


@pytest.mark.parametrize("pit", [6, -1, 7, 100])
def test_pit_out_of_range_is_illegal(impl, pit):
    for to_move in (0, 1):
        with pytest.raises(ValueError):
            impl.play(START, to_move, pit, STANDARD)


def test_empty_pit_is_illegal(impl):
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    with pytest.raises(ValueError):
        impl.play(board, 0, 3, STANDARD)
    with pytest.raises(ValueError):
        impl.play(board, 1, 1, STANDARD)


def test_no_move_once_the_game_is_over(impl):
    #      12 11 10  9  8  7
    #       0  3  0  0  2  1
    # [18]                    [24]
    #       0  0  0  0  0  0
    #       0  1  2  3  4  5
    board = [0, 0, 0, 0, 0, 0, 24, 1, 2, 0, 0, 3, 0, 18]
    for to_move, pit in [(0, 0), (1, 0), (1, 1), (1, 4)]:
        with pytest.raises(ValueError):
            impl.play(board, to_move, pit, STANDARD)


# -- score and evaluation -----------------------------------------------------

def test_score_is_store_difference_from_movers_view(impl):
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    assert impl.score(board, 0) == -2
    assert impl.score(board, 1) == 2
    assert impl.score(START, 0) == 0


@pytest.mark.parametrize("capture", ALL_RULES)
def test_store_evaluation_is_the_score(impl, capture):
    board = [1, 1, 1, 0, 15, 1, 4, 3, 0, 0, 3, 1, 0, 10]
    assert impl.evaluate(board, 0, capture, 0) == -6
    assert impl.evaluate(board, 1, capture, 0) == 6


@pytest.mark.parametrize("capture", ALL_RULES)
def test_positional_evaluation_of_the_start_is_even(impl, capture):
    # Each side: one extra-turn move (pit 2), no capture, 24 seeds: 1 + 24 // 4.
    assert impl.evaluate(START, 0, capture, 1) == 0
    assert impl.evaluate(START, 1, capture, 1) == 0


@pytest.mark.parametrize("capture, south, north", [
    (STANDARD, -3, 3), (EMPTY, -2, 2), (NONE, -2, 2),
])
def test_positional_evaluation(impl, capture, south, north):
    #      12 11 10  9  8  7
    #       0  1  3  0  0  3
    # [10]                    [ 4]
    #       1  1  1  0 15  1
    #       0  1  2  3  4  5
    # score: 4 - 10 = -6 for South.
    # South: extra turns from pit 5 (1 seed) and pit 4 (15 = 19 - 4, a lap): 2.
    #   own 19. Capture: pit 2 ends in empty pit 3 facing empty slot 9, worth
    #   0 (standard), 1 (empty); none. term = 2 + (19 + 2*cap) // 4 = 6, 7, 6.
    # North: extra turn from pit 3 (slot 10, 3 seeds): 1. own 7. Capture: pit 4
    #   (slot 11, 1 seed) ends in empty slot 12 facing slot 0 (1 seed): 2,
    #   except under none. term = 1 + (7 + 2*cap) // 4 = 3, 3, 2.
    # South: -6 + 6 - 3 = -3, -6 + 7 - 3 = -2, -6 + 6 - 2 = -2; North the negation.
    board = [1, 1, 1, 0, 15, 1, 4, 3, 0, 0, 3, 1, 0, 10]
    assert impl.evaluate(board, 0, capture, 1) == south
    assert impl.evaluate(board, 1, capture, 1) == north


@pytest.mark.parametrize("capture, south", [(STANDARD, 0), (NONE, -2)])
def test_positional_evaluation_counts_the_best_capture(impl, capture, south):
    #      12 11 10  9  8  7
    #       4  0  1  5  0  2
    # [ 7]                    [ 5]
    #       1  2  3  0  3  1
    #       0  1  2  3  4  5
    # South: score -2; extra turn pit 5; own 10; pit 1 captures 5 + 1 = 6.
    #   term = 1 + (10 + 12) // 4 = 6, or 1 + 10 // 4 = 3 under none.
    # North: no extra turn; own 12; pit 3 (slot 10) ends in empty slot 11
    #   facing slot 1 (2 seeds): 3. term = (12 + 6) // 4 = 4, or 12 // 4 = 3.
    board = [1, 2, 3, 0, 3, 1, 5, 2, 0, 5, 1, 0, 4, 7]
    assert impl.evaluate(board, 0, capture, 1) == south
    assert impl.evaluate(board, 1, capture, 1) == -south


def test_positional_evaluation_ignores_captures_of_thirteen_or_more(impl):
    #      12 11 10  9  8  7
    #       0  0  4  0  0  0
    # [ 0]                    [ 0]
    #       0  0 13  0  0  0
    #       0  1  2  3  4  5
    # The 13-seed lap would capture 6, but the term only looks at n < 13:
    # South 0 + 13 // 4 = 3, North 0 + 4 // 4 = 1.
    board = [0, 0, 13, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0]
    assert impl.evaluate(board, 0, STANDARD, 1) == 2


def learned_by_hand(terms, cells, in_pits, stores):
    """The learned term from terms and table cells listed by hand:
    mancala._learned's weights, plus the cells of its tables (cells: table
    name, row, column), blended by the seeds in pits and in stores, rounded
    half away from zero."""
    from mancala import _learned
    assert len(terms) == len(_learned.MIDGAME) == len(_learned.ENDGAME) == 19

    def weighted(phase):
        return (sum(w * t for w, t in zip(getattr(_learned, phase), terms))
                + sum(getattr(_learned, f"{phase}_{table}")[row][column] for table, row, column in cells))
    blended = in_pits * weighted("MIDGAME") + stores * weighted("ENDGAME")
    whole = _learned.SCALE * (in_pits + stores)
    value = int((abs(blended) + whole // 2) // whole)
    return max(-in_pits, min(in_pits, value if blended >= 0 else -value))


@pytest.mark.parametrize("capture", ALL_RULES)
def test_learned_evaluation(impl, capture):
    # The board of test_positional_evaluation, its terms read off by hand:
    # South: pits 1 1 1 0 15 1; North's 3 0 0 3 1 0 (from its left, slot 7 on);
    #   South: extra turns 2 (pits 5 and 4), best capture 0 (standard: facing
    #   empty), 1 (empty), 0 (none), empty pits 1;
    #   North: extra turn 1 (slot 10), best capture 2 (slot 11 into 12 facing
    #   slot 0), 0 under none, empty pits 3.
    # 26 seeds in pits, 14 in stores; South's store difference -6.
    # The tables' cells, rows counted from the mover's pits (0..5) to the
    # opponent's (6..11), each from its owner's left:
    #   PITS: each pit's count, 15 in the last column (12 or more);
    #   TOTALS: South's row 19, North's 7;
    #   FACING, for each empty pit the seeds facing it (8 or more: column 8):
    #   South's pit 3 faces slot 9 (0); North's slot 8 faces slot 4 (15),
    #   slot 9 faces slot 3 (0), slot 12 faces slot 0 (1).
    board = [1, 1, 1, 0, 15, 1, 4, 3, 0, 0, 3, 1, 0, 10]
    cap_south = {STANDARD: 0, EMPTY: 1, NONE: 0}[capture]
    cap_north = 0 if capture == NONE else 2
    south = [1, 1, 1, 1, 0, 15, 1, 3, 0, 0, 3, 1, 0, 2, cap_south, 1, 1, cap_north, 3]
    north = [1, 3, 0, 0, 3, 1, 0, 1, 1, 1, 0, 15, 1, 1, cap_north, 3, 2, cap_south, 1]
    south_cells = [("PITS", pit, n) for pit, n in enumerate([1, 1, 1, 0, 12, 1, 3, 0, 0, 3, 1, 0])]
    south_cells += [("TOTALS", 0, 19), ("TOTALS", 1, 7),
                    ("FACING", 3, 0), ("FACING", 7, 8), ("FACING", 8, 0), ("FACING", 11, 1)]
    north_cells = [("PITS", pit, n) for pit, n in enumerate([3, 0, 0, 3, 1, 0, 1, 1, 1, 0, 12, 1])]
    north_cells += [("TOTALS", 0, 7), ("TOTALS", 1, 19),
                    ("FACING", 1, 8), ("FACING", 2, 0), ("FACING", 5, 1), ("FACING", 9, 0)]
    assert impl.evaluate(board, 0, capture, 2) == -6 + learned_by_hand(south, south_cells, 26, 14)
    assert impl.evaluate(board, 1, capture, 2) == 6 + learned_by_hand(north, north_cells, 26, 14)


def test_learned_evaluation_stays_within_what_the_pits_can_change(impl):
    # the final margin is the store difference give or take the seeds in the
    # pits: the learned guess never goes beyond
    import random
    rng = random.Random(7)
    for _ in range(2000):
        board = [0] * 14
        for _ in range(rng.randint(1, 6) * 12):
            board[rng.choice((0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 6, 13))] += 1
        if sum(board[0:6]) == 0 or sum(board[7:13]) == 0:
            continue
        in_pits = sum(board) - board[6] - board[13]
        guess = impl.evaluate(board, 0, STANDARD, 2) - (board[6] - board[13])
        assert -in_pits <= guess <= in_pits


@pytest.mark.parametrize("evaluation", [0, 1, 2])
def test_evaluation_of_a_finished_game_is_the_score(impl, evaluation):
    swept = [0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 27]
    assert impl.evaluate(swept, 0, STANDARD, evaluation) == -6
    assert impl.evaluate(swept, 1, STANDARD, evaluation) == 6


# -- random play-outs ---------------------------------------------------------

PLAYOUTS = [(4, STANDARD), (3, EMPTY), (6, NONE), (12, STANDARD)]


def random_game(impl, rng, seeds, capture):
    """One random game from the start: [(slots, to_move, pit, result of play)]."""
    board, to_move, steps = [seeds] * 6 + [0] + [seeds] * 6 + [0], 0, []
    while not impl.is_game_over(board):
        pit = rng.choice(list(impl.legal_moves(board, to_move)))
        result = sow(impl, board, to_move, pit, capture)
        steps.append((board, to_move, pit, result))
        board, to_move, _ = result
    return steps


@pytest.mark.parametrize("seeds, capture", PLAYOUTS)
def test_random_games_keep_the_invariants(impl, seeds, capture):
    """Seeds are conserved, the side to move changes unless the last seed hit its
    store, and a finished board is swept into the stores."""
    total = 12 * seeds
    rng = random.Random(seeds * 10 + capture)
    for _ in range(30):
        steps = random_game(impl, rng, seeds, capture)
        for board, to_move, pit, (child, next_to_move, captured) in steps:
            assert sum(child) == total and min(child) >= 0
            own_store = 6 if to_move == 0 else 13
            assert (next_to_move == to_move) <= (child[own_store] > board[own_store])
            assert child[own_store] - board[own_store] >= captured >= 0
        final = steps[-1][3][0]
        assert final[0:6] == [0] * 6 and final[7:13] == [0] * 6
        assert impl.score(final, 0) == final[6] - final[13]


@pytest.mark.parametrize("seeds, capture", PLAYOUTS)
def test_random_games_of_the_core_agree_with_the_twin(seeds, capture):
    """The compiled core against the pure-Python twin (never the twin against itself):
    the same legal moves, evaluations and sowing after every move."""
    from mancala import _core as core
    from mancala import _reference as twin
    rng = random.Random(seeds * 10 + capture)
    for _ in range(30):
        for board, to_move, pit, result in random_game(core, rng, seeds, capture):
            assert list(core.legal_moves(board, to_move)) == twin.legal_moves(board, to_move)
            for evaluation in (0, 1, 2):
                assert (core.evaluate(board, to_move, capture, evaluation)
                        == twin.evaluate(board, to_move, capture, evaluation))
            assert result == sow(twin, board, to_move, pit, capture)


# -- the rule facts' one table -------------------------------------------------------------

def test_every_home_of_a_rule_fact_names_the_same_rules():
    """csrc/kalah.h's names (the core's), the twin's and mancala.board.CAPTURE_WORDS,
    in one order; each rule's words one line; the command line's --capture help says
    them all (the web app's /api/info: tests/test_web_api.py)."""
    from mancala import _core, _reference
    from mancala.board import CAPTURE_WORDS
    from mancala.cli.options import rules_help
    assert _core.CAPTURE_RULES == tuple(_reference.CAPTURE_RULES) == tuple(CAPTURE_WORDS)
    for name, words in CAPTURE_WORDS.items():
        assert words and "\n" not in words and len(words) <= 60, name
        assert f"{name}: {words}" in " ".join(rules_help().split())


def test_the_compiled_core_takes_every_rule_and_refuses_the_next():
    """The core's range checks read the rule count (kalah.h's CAPTURE_RULE_COUNT), so
    they take a rule added there: the vectorized env's search takes every rule's code
    and refuses the one past the last."""
    from mancala import CAPTURE_RULES, _vector
    slots = [1, 0, 2, 0, 0, 3, 10, 2, 5, 4, 0, 6, 2, 12]        # docs/rules.md's capture
    for code in range(len(CAPTURE_RULES)):
        assert _vector.best_pit(slots, 1, code)[0] in range(6)
    with pytest.raises(ValueError, match=f"capture 0..{len(CAPTURE_RULES) - 1}"):
        _vector.best_pit(slots, 1, len(CAPTURE_RULES))
