"""The worked examples of docs/rules.md hold, on the pure-Python twin and on the
compiled board.

Each example on the page is a picture of the board and three lines (``board``,
``move``, ``after``); the expected boards were worked by hand from the rules.
The picture must show the ``board`` line's slots, so the page cannot drift.
"""
import re
from pathlib import Path

import pytest

import mancala
from mancala import _reference

RULES_PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
SIDES = {"South": 0, "North": 1}
SLOTS = r"\[([\d,\s]+)\]"
BOARD = re.compile(rf"^board\s+{SLOTS}\s+(South|North) to move, capture ([a-z]+(?: or [a-z]+)*)$")
MOVE = re.compile(r"^move\s+pit (\d) \(slot (\d+)\)$")
AFTER = re.compile(rf"^after\s+{SLOTS}\s+(.*)$")
NEXT = re.compile(r"^(South|North) to move(?:: (extra turn|captures (\d+)))?$")
OVER = re.compile(r"^(?:captures (\d+), )?game over: South (\d+), North (\d+)$")


def numbers(text):
    return [int(n) for n in re.findall(r"\d+", text)]


def picture_slots(lines):
    """The 14 slots drawn by a picture: labels, North's row, stores, South's row, labels."""
    top, north, stores, south, bottom = lines
    assert numbers(top) == [12, 11, 10, 9, 8, 7] and numbers(bottom) == [0, 1, 2, 3, 4, 5]
    north_store, south_store = (int(n) for n in re.findall(r"\[\s*(\d+)\]", stores))
    north_pits = numbers(north)[::-1]            # drawn 12..7
    return numbers(south) + [south_store] + north_pits + [north_store]


def examples():
    """Every worked example of the page, one per capture rule it names."""
    found = []
    for block in re.findall(r"```text\n(.*?)```", RULES_PAGE.read_text(encoding="utf-8"), re.S):
        lines = [line for line in block.splitlines() if line.strip()]
        if not any(line.startswith("board ") for line in lines):
            continue        # the numbering diagram
        assert len(lines) == 8, block
        board, move, after = BOARD.match(lines[5]), MOVE.match(lines[6]), AFTER.match(lines[7])
        assert board and move and after, block
        slots = numbers(board[1])
        assert picture_slots(lines[:5]) == slots, block
        to_move, pit, slot = SIDES[board[2]], int(move[1]), int(move[2])
        assert slot == pit + 7 * to_move, block      # the page's slot beside the pit
        for rule in board[3].split(" or "):
            found.append(pytest.param(slots, to_move, rule, pit, numbers(after[1]), after[2],
                                      id=f"{lines[5].split(']')[0][8:].replace(' ', '')}-{rule}-pit{pit}"))
    return found


EXAMPLES = examples()


def test_the_page_has_its_examples():
    """A parser that found nothing would pass every test below."""
    assert len(EXAMPLES) >= 20
    rules = {param.values[2] for param in EXAMPLES}
    assert rules == set(mancala.CAPTURE_RULES)          # a worked example for every rule


def test_the_page_says_every_capture_rule():
    text = RULES_PAGE.read_text(encoding="utf-8")
    captures = text[text.index("## Captures"):]
    captures = captures[:captures.index("\n## ", 1)]
    assert re.findall(r"^- \*\*`([a-z-]+)`\*\*", captures, re.M) == list(mancala.CAPTURE_RULES)


def expected(after_slots, tail):
    """(slots, next to move or None when the game is over, seeds captured, game over)."""
    over = OVER.match(tail)
    if over:
        south, north = int(over[2]), int(over[3])
        assert (after_slots[6], after_slots[13]) == (south, north)
        return after_slots, None, int(over[1] or 0), True
    nxt = NEXT.match(tail)
    assert nxt, tail
    return after_slots, SIDES[nxt[1]], int(nxt[3] or 0), False


@pytest.mark.parametrize("slots, to_move, rule, pit, after, tail", EXAMPLES)
def test_the_twin_plays_the_page(slots, to_move, rule, pit, after, tail):
    want, next_to_move, captured, over = expected(after, tail)
    board, mover, took = _reference.play(slots, to_move, pit, _reference.CAPTURE_RULES.index(rule))
    assert list(board) == want
    assert took == captured
    assert _reference.is_game_over(board) == over
    if not over:
        assert mover == next_to_move
        assert (mover == to_move) == ("extra turn" in tail)


@pytest.mark.parametrize("slots, to_move, rule, pit, after, tail", EXAMPLES)
def test_the_compiled_board_plays_the_page(slots, to_move, rule, pit, after, tail):
    want, next_to_move, captured, over = expected(after, tail)
    board = mancala.Board(slots, to_move, capture=rule)
    record = board.push(pit)
    assert list(board.pits) == want
    assert (record.player, record.pit, record.captured, record.game_over) == \
        (to_move, pit, captured, over)
    assert record.extra_turn == ("extra turn" in tail)
    if over:
        south, north = want[6], want[13]
        winner = None if south == north else (0 if south > north else 1)
        assert board.is_game_over() and board.outcome() == (winner, south, north)
    else:
        assert board.to_move == next_to_move
    board.pop()
    assert (list(board.pits), board.to_move) == (slots, to_move)
