"""Hostile input: anything thrown at the public functions raises a clean error or works.

Nothing may crash the interpreter; every refusal is a ValueError (or a
TypeError for a wrong kind of object), never anything else.
"""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mancala
from mancala import _core, _reference
from mancala.errors import quote

CLEAN = (ValueError, TypeError)
anything = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=5),
    st.binary(max_size=5), st.lists(st.integers(), max_size=20),
    st.lists(st.one_of(st.integers(), st.text(max_size=2), st.none()), min_size=14, max_size=14),
)


@st.composite
def legal_slots(draw, max_total=mancala.MAX_SEEDS):
    """Any 14 non-negative counts with at most max_total seeds in all."""
    slots = [0] * 14
    for _ in range(draw(st.integers(0, 60))):
        slot = draw(st.integers(0, 13))
        slots[slot] += draw(st.integers(1, 40))
    total = sum(slots)
    if total > max_total:  # scale down, keeping the shape
        slots = [s * max_total // total for s in slots]
    return slots


def or_garbage(valid):
    """Half the time a value from ``valid``, half the time anything at all."""
    return st.booleans().flatmap(lambda pick: valid if pick else anything)


def whole(value):
    """An int that is not a bool: what every count, side, pit and rule index must be."""
    return isinstance(value, int) and not isinstance(value, bool)


def valid_slots(slots):
    """The oracle for a board: 14 whole non-negative counts, at most MAX_SEEDS in all."""
    return (isinstance(slots, list) and len(slots) == 14
            and all(whole(n) and n >= 0 for n in slots) and sum(slots) <= mancala.MAX_SEEDS)


def valid_side(to_move):
    return whole(to_move) and to_move in (0, 1)


def expect(valid, call, want):
    """call() returns want() when the input is valid, else raises a clean error."""
    if valid:
        assert call() == want()
    else:
        with pytest.raises(CLEAN):
            call()


@settings(max_examples=300, deadline=None)
@given(pits=or_garbage(legal_slots()), to_move=or_garbage(st.integers(0, 1)),
       capture=or_garbage(st.sampled_from(mancala.CAPTURE_RULES)))
def test_board_construction_accepts_exactly_the_valid_boards(pits, to_move, capture):
    valid = ((pits is None or valid_slots(pits)) and valid_side(to_move)
             and isinstance(capture, str) and capture in mancala.CAPTURE_RULES)
    if not valid:
        with pytest.raises(CLEAN):
            mancala.Board(pits, to_move, capture=capture)
        return
    board = mancala.Board(pits, to_move, capture=capture)
    want = [4] * 6 + [0] + [4] * 6 + [0] if pits is None else pits
    assert (board.pits, board.to_move, board.capture) == (want, to_move, capture)


@settings(max_examples=200, deadline=None)
@given(seeds=or_garbage(st.integers(0, 13)))
def test_seed_counts_1_to_12_make_a_start_and_nothing_else_does(seeds):
    if seeds is None or (whole(seeds) and 1 <= seeds <= 12):
        n = 4 if seeds is None else seeds
        assert mancala.Board(seeds=seeds).pits == [n] * 6 + [0] + [n] * 6 + [0]
    else:
        with pytest.raises(CLEAN):
            mancala.Board(seeds=seeds)


@settings(max_examples=300, deadline=None)
@given(pit=or_garbage(st.integers(-1, 6)))
def test_push_of_anything_is_legal_or_refused(pit):
    board = mancala.Board()
    if whole(pit) and 0 <= pit < 6:
        board.push(pit)
        assert board.pits == _reference.play(mancala.Board().pits, 0, pit, 0)[0]
    else:
        with pytest.raises(mancala.IllegalMoveError):
            board.push(pit)
        assert board == mancala.Board() and board.ply == 0


@settings(max_examples=300, deadline=None)
@given(slots=or_garbage(legal_slots()), to_move=or_garbage(st.integers(0, 1)),
       pit=or_garbage(st.integers(0, 6)), capture=or_garbage(st.integers(0, 2)))
def test_core_functions_answer_like_the_twin_or_refuse_cleanly(slots, to_move, pit, capture):
    """Valid arguments get the twin's answer; anything else a ValueError or TypeError."""
    board, side = valid_slots(slots), valid_side(to_move)
    rule = whole(capture) and 0 <= capture <= 2
    legal = board and side and whole(pit) and pit in _reference.legal_moves(slots, to_move)
    expect(board, lambda: _core.is_game_over(slots), lambda: _reference.is_game_over(slots))
    expect(board and side, lambda: _core.legal_moves(slots, to_move),
           lambda: _reference.legal_moves(slots, to_move))
    expect(board and side, lambda: _core.score(slots, to_move),
           lambda: _reference.score(slots, to_move))
    expect(legal and rule, lambda: _core.play(slots, to_move, pit, capture),
           lambda: _reference.play(slots, to_move, pit, capture))
    expect(board and side and rule and whole(pit) and 0 <= pit < len(_reference.EVALUATIONS),
           lambda: _core.evaluate(slots, to_move, capture, pit),
           lambda: _reference.evaluate(slots, to_move, capture, pit))
    expect(board and side and rule, lambda: _core.perft(slots, to_move, 2, capture),
           lambda: _reference.perft(slots, to_move, 2, capture))
    expect(board and side and rule, lambda: _core.alphabeta(slots, to_move, 2, capture),
           lambda: _reference.alphabeta(slots, to_move, 2, capture))
    # a depth of 3..254 is a legal but long perft of a 56-seed board: only the others here
    if not (whole(pit) and 3 <= pit <= mancala.MAX_DEPTH):
        expect(whole(pit) and 0 <= pit <= 2, lambda: _core.perft([4] * 14, 0, pit, 0),
               lambda: _reference.perft([4] * 14, 0, pit, 0))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slots=legal_slots(), to_move=st.integers(0, 1), capture=st.integers(0, 2))
def test_any_legal_board_plays_and_searches_like_the_reference(slots, to_move, capture):
    assert _core.legal_moves(slots, to_move) == _reference.legal_moves(slots, to_move)
    for pit in _reference.legal_moves(slots, to_move):
        got = _core.play(slots, to_move, pit, capture)
        want = _reference.play(slots, to_move, pit, capture)
        assert (list(got[0]), got[1], got[2]) == (list(want[0]), want[1], want[2])
    board = mancala.Board(slots, to_move, capture=mancala.CAPTURE_RULES[capture])
    result = mancala.Engine(hash_mb=1).search(board, depth=3)
    if board.is_game_over():
        assert result.move is None
    else:
        assert result.move in board.legal_moves
        assert result.score == _core.alphabeta(slots, to_move, 3, capture)[0]


def test_a_pit_of_143_seeds_laps_eleven_times():
    slots = [143, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    for capture in range(len(mancala.CAPTURE_RULES)):
        got, want = _core.play(slots, 0, 0, capture), _reference.play(slots, 0, 0, capture)
        assert (list(got[0]), got[1], got[2]) == (list(want[0]), want[1], want[2])
        assert got[0] == [11, 11, 11, 11, 11, 11, 11, 12, 11, 11, 11, 11, 11, 0]
    assert mancala.Engine(hash_mb=1).search(mancala.Board(slots), depth=8).move == 0


@pytest.mark.parametrize("limit", [
    {"depth": 0}, {"depth": -3}, {"depth": 10 ** 9}, {"depth": 2.5}, {"depth": "12"},
    {"time": 0}, {"time": -1}, {"time": float("nan")}, {"time": float("inf")}, {"time": "1"},
    {"nodes": 0}, {"nodes": -5}, {"nodes": 2 ** 70}, {"nodes": 1.5},
])
def test_bad_search_limits_are_refused(limit):
    with pytest.raises(mancala.InvalidLimitError) as info:
        mancala.Engine(hash_mb=1).search(mancala.Board(), **limit)
    assert repr(next(iter(limit.values())))[:10] in str(info.value)


@pytest.mark.parametrize("hash_mb", [-1, float("nan"), float("inf"), "64", None, True, 2 ** 40])
def test_bad_table_sizes_are_refused(hash_mb):
    """Refused before any allocation: one line stating the range and quoting the
    value, not a MemoryError from the core."""
    with pytest.raises(ValueError) as info:
        mancala.Engine(hash_mb=hash_mb)
    message = str(info.value)
    assert "\n" not in message and "from 0" in message and quote(hash_mb) in message


def test_searching_something_that_is_not_a_board():
    for thing in (None, [4] * 14, "board"):
        with pytest.raises(TypeError):
            mancala.Engine(hash_mb=1).search(thing, depth=2)


def test_unknown_evaluation_is_refused():
    with pytest.raises(mancala.InvalidRuleError, match="'clever'"):
        mancala.Engine(evaluation="clever")


def test_compiled_board_methods_refuse_none_instead_of_crashing():
    board = mancala.Board()
    for call in (lambda: board._copy_into(None), lambda: board._same_position(None),
                 lambda: board._record(5), lambda: board._record(-1), lambda: board._load(None, 0, 0),
                 lambda: board._load([4] * 14, 0, 7)):
        with pytest.raises((TypeError, ValueError, IndexError)):
            call()
    assert board == mancala.Board()
