"""mancala.Board: the python-chess style face of a position."""
import copy
import pickle

import pytest

import mancala
from mancala import Board, IllegalMoveError, InvalidBoardError, InvalidRuleError


def test_new_board_is_kalah_6_4_standard():
    board = Board()
    assert board.pits == [4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]
    assert board.to_move == 0 and board.capture == "standard"
    assert board.legal_moves == [0, 1, 2, 3, 4, 5]
    assert not board.is_game_over() and board.outcome() is None


@pytest.mark.parametrize("seeds", range(1, 13))
def test_every_seed_count_starts(seeds):
    assert Board(seeds=seeds).pits == ([seeds] * 6 + [0]) * 2


def test_push_reports_extra_turn_and_keeps_the_mover():
    board = Board()
    record = board.push(2)  # 4 seeds from pit 2: pits 3, 4, 5 and the store
    assert record == mancala.MoveRecord(player=0, pit=2, extra_turn=True, captured=0, game_over=False)
    assert board.to_move == 0
    assert board.pits == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]


def test_north_moves_are_counted_from_norths_left():
    board = Board()
    board.push(0)           # South pit 0: 4 seeds to pits 1..4, North to move
    record = board.push(2)  # North pit 2 is slot 9: seeds to 10, 11, 12 and store 13
    assert record.player == 1 and record.extra_turn
    assert board.pits == [0, 5, 5, 5, 5, 4, 0, 4, 4, 0, 5, 5, 5, 1]


def test_push_reports_a_capture():
    #        12 11 10  9  8  7
    #   [ 0]  0  0  0  0  5  1  [ 0]
    #         1  0  0  0  0  0
    board = Board([1, 0, 0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0])
    # pit 0 -> empty pit 1, facing slot 11 is empty: no capture under standard
    assert board.push(0).captured == 0
    board = Board([0, 0, 0, 1, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0])
    # pit 3 -> empty pit 4, facing slot 8 holds 5: 6 seeds to the store
    record = board.push(3)
    assert record.captured == 6
    assert board.pits[6] == 6


def test_pop_takes_back_an_extra_turn_chain_move_by_move():
    board = Board()
    start = board.copy()
    board.push(2)
    middle = board.copy()
    board.push(5)
    assert board.ply == 2 and [r.pit for r in board.move_stack] == [2, 5]
    assert board.peek().pit == 5
    assert board.pop().pit == 5
    assert board == middle and board.to_move == 0
    board.pop()
    assert board == start and board.ply == 0
    with pytest.raises(IndexError):
        board.pop()
    with pytest.raises(IndexError):
        board.peek()


def test_outcome_after_the_last_move_sweeps_the_rows():
    #        12 11 10  9  8  7
    #   [10]  0  0  0  3  0  0  [20]
    #         0  0  0  0  0  1
    board = Board([0, 0, 0, 0, 0, 1, 20, 0, 0, 3, 0, 0, 0, 10])
    record = board.push(5)
    assert record.game_over and not record.extra_turn
    assert board.is_game_over() and board.legal_moves == []
    assert board.outcome() == mancala.Outcome(winner=0, south=21, north=13)
    assert board.outcome().margin == 8


def test_draw_outcome():
    board = Board([0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 24])
    assert board.outcome() == mancala.Outcome(None, 24, 24)


def test_repr_round_trips():
    for board in (Board(), Board([0, 3, 0, 0, 1, 2, 20, 1, 0, 0, 4, 0, 0, 17], to_move=1),
                  Board(seeds=5, capture="empty"), Board(capture="none")):
        again = eval(repr(board), {"Board": Board})
        assert again == board and repr(again) == repr(board)


def test_str_shows_both_rows_and_stores():
    text = str(Board([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], to_move=1))
    lines = text.splitlines()
    assert lines[0].split()[:6] == ["13", "12", "11", "10", "9", "8"]
    assert "14" in lines[1] and "7" in lines[1]
    assert lines[2].split()[:6] == ["1", "2", "3", "4", "5", "6"]
    assert "North to move" in text


def test_equality_ignores_history_but_not_rules():
    a, b = Board(), Board()
    a.push(0)
    a.pop()
    assert a == b
    assert Board() != Board(capture="empty")
    assert Board() != Board(to_move=1)
    assert Board() != "Board()"


def test_copy_is_independent():
    board = Board()
    board.push(0)
    clone = board.copy()
    clone.push(0)
    assert board.ply == 1 and clone.ply == 2
    assert board.copy(stack=False).ply == 0
    assert copy.deepcopy(board) == board and copy.copy(board).move_stack == board.move_stack


def test_pickle_keeps_position_and_rules():
    board = Board([0, 3, 0, 0, 1, 2, 20, 1, 0, 0, 4, 0, 0, 17], to_move=1, capture="empty")
    assert pickle.loads(pickle.dumps(board)) == board


def test_boards_are_not_hashable():
    with pytest.raises(TypeError):
        hash(Board())


@pytest.mark.parametrize("pits,fragment", [
    ([4] * 13, "14 slots, not 13"),
    ([4] * 15, "14 slots, not 15"),
    ([4, 4, 4, 4, 4, -1, 0, 4, 4, 4, 4, 4, 4, 0], "fewer than 0"),
    ([4, 4, 4, 4, 4, "4", 0, 4, 4, 4, 4, 4, 4, 0], "'4'"),
    ([4, 4, 4, 4, 4, 4.0, 0, 4, 4, 4, 4, 4, 4, 0], "4.0"),
    ([4, 4, 4, 4, 4, True, 0, 4, 4, 4, 4, 4, 4, 0], "True"),
    ([145] + [0] * 13, "at most 144"),
    ([12] * 14, "168 seeds"),
    ([10 ** 30] + [0] * 13, "at most 144"),
    ("abcdefghijklmn", "not 'abcdefghijklmn'"),
    (0, "not 0"),
    (42, "not 42"),
])
def test_malformed_boards_are_refused_with_the_input_quoted(pits, fragment):
    with pytest.raises(InvalidBoardError) as info:
        Board(pits)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("to_move", [2, -1, "0", None, True, 0.0])
def test_bad_side_to_move(to_move):
    with pytest.raises(InvalidBoardError, match="side to move"):
        Board([4] * 6 + [0] + [4] * 6 + [0], to_move=to_move)


@pytest.mark.parametrize("kwargs,fragment", [
    ({"capture": "steal"}, "'steal'"),
    ({"capture": None}, "None"),
    ({"seeds": 0}, "not 0"),
    ({"seeds": 13}, "not 13"),
    ({"seeds": "4"}, "'4'"),
])
def test_bad_rules_are_refused(kwargs, fragment):
    with pytest.raises(InvalidRuleError) as info:
        Board(**kwargs)
    assert fragment in str(info.value)


def test_pits_and_seeds_together_are_refused():
    with pytest.raises(InvalidBoardError):
        Board([4] * 6 + [0] + [4] * 6 + [0], seeds=4)


@pytest.mark.parametrize("pit,fragment", [
    (6, "not 6"), (-1, "not -1"), ("2", "'2'"), (2.0, "2.0"), (None, "None"), (True, "True"),
])
def test_illegal_pits_are_refused_with_the_legal_ones(pit, fragment):
    board = Board()
    with pytest.raises(IllegalMoveError) as info:
        board.push(pit)
    assert fragment in str(info.value) and "[0, 1, 2, 3, 4, 5]" in str(info.value)
    assert board == Board() and board.ply == 0


def test_empty_pit_and_finished_game_are_refused():
    board = Board([0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
    with pytest.raises(IllegalMoveError, match="pit 0 is empty; legal: \\[1\\]"):
        board.push(0)
    board = Board([0, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0], to_move=1)
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push(0)


def test_is_legal():
    board = Board([0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
    assert board.is_legal(1)
    assert not any(board.is_legal(p) for p in (0, 2, 6, -1, "1", None, True))


# -- the end's sweep, said where a move's words live (issue 40, item 6) --------------------------

def test_the_sweep_is_said_when_the_mover_empties_its_own_row():
    #        North: 6 0 0 0 2 3   (pits 6..1 from the left as drawn)
    #   [16]                        [20]
    #        South: 0 0 0 0 0 1
    # South's sixth pit: its one seed into the store, South's row is empty: North keeps 11
    board = Board([0, 0, 0, 0, 0, 1, 20, 3, 2, 0, 0, 0, 6, 16], to_move=0)
    record = board.push(5)
    assert record.game_over and not record.extra_turn and record.swept == (0, 11)
    assert record.effects() == ["the game is over", "North keeps the 11 seeds left in its row"]
    assert board.pits[6] == 21 and board.pits[13] == 27
    assert board.peek() == board.move_stack[-1] == record and board.pop() == record


def test_the_sweep_is_said_when_a_capture_empties_the_other_row():
    # South's first pit (1 seed) lands in its empty second pit, facing North's 5th (3 seeds):
    # 4 captured, North's row is empty, South keeps the 5 in its sixth pit
    board = Board([1, 0, 0, 0, 0, 5, 10, 0, 0, 0, 0, 3, 0, 9], to_move=0)
    record = board.push(0)
    assert record.swept == (5, 0) and record.captured == 4
    assert record.effects() == ["captures 4 seeds", "the game is over",
                                "South keeps the 5 seeds left in its row"]
    assert board.pits[6] == 10 + 4 + 5


def test_what_the_sweep_keeps_agrees_with_a_sowing_without_it():
    # random games of every rule; at each end, the rows as a sowing with no sweep leaves them
    rng = __import__("random").Random(5)
    for _ in range(300):
        capture = rng.choice(mancala.CAPTURE_RULES)
        board = Board(seeds=rng.randint(1, 8), capture=capture)
        while not board.is_game_over():
            before, pit = board.pits, rng.choice(board.legal_moves)
            record = board.push(pit)
        mover = record.player
        own, other = (6, 13) if mover == 0 else (13, 6)
        slot = mover * 7 + pit
        seeds, before[slot] = before[slot], 0
        while seeds:
            slot = (slot + 1) % 14
            if slot != other:
                before[slot] += 1
                seeds -= 1
        if slot in range(mover * 7, mover * 7 + 6) and before[slot] == 1 and capture != "none" \
                and (before[12 - slot] or capture == "empty"):
            before[own] += before[slot] + before[12 - slot]
            before[slot] = before[12 - slot] = 0
        assert record.swept == (sum(before[0:6]), sum(before[7:13]))
        assert board.copy().pop() == record == board.peek()
