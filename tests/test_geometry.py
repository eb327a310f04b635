"""mancala.geometry: the slots of each side and whose view a score is, held against the
rules as the compiled core and the pure-Python twin play them, and boards worked by hand."""
import itertools

import pytest

import mancala
from mancala import _reference, geometry
from mancala.geometry import NORTH, SOUTH, PovScore


@pytest.mark.parametrize("side,pit", list(itertools.product((SOUTH, NORTH), range(6))))
def test_a_pits_slot_is_the_one_its_move_empties(side, pit):
    # every pit of both sides holds one seed (North's two, to tell the rows apart): the move
    # empties the pit's own slot, as both implementations of the rules play it
    slots = [1] * 6 + [0] + [2] * 6 + [0]
    board = mancala.Board(slots, to_move=side)
    board.push(pit)
    emptied = [s for s in range(14) if slots[s] and not board.pits[s]]
    assert emptied == [geometry.pit_slot(side, pit)]
    twin, _, _ = _reference.play(slots, side, pit, _reference.STANDARD)
    assert [s for s in range(14) if slots[s] and not twin[s]] == emptied


@pytest.mark.parametrize("side", (SOUTH, NORTH))
def test_a_sides_store_is_where_its_extra_turn_seed_lands(side):
    # pit 2 holds 4 seeds: 3, 4, 5, then the store; the mover moves again
    slots = [0] * 14
    slots[[2, 9][side]] = 4
    slots[[0, 7][1 - side]] = 1              # the other row is not empty: the game goes on
    board = mancala.Board(slots, to_move=side)
    assert board.push(2).extra_turn
    assert board.pits[geometry.store_slot(side)] == 1
    assert geometry.store_slot(side) == _reference.STORES[side] == [6, 13][side]
    assert geometry.STORES == (6, 13)


def test_the_pit_a_capture_takes_is_the_facing_one():
    #         12  11  10   9   8   7
    #    [0]   0   0   5   0   0   1    [0]
    #          0   1   0   0   0   0
    # South sows pit 1 (slot 1): its seed lands in the empty slot 2, facing slot 10 (5 seeds)
    slots = [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 5, 0, 0, 0]
    board = mancala.Board(slots, to_move=SOUTH)
    assert board.push(1).captured == 6
    assert geometry.facing_slot(2) == 10 and board.pits[10] == 0


@pytest.mark.parametrize("side,landing", list(itertools.product((SOUTH, NORTH), range(1, 6))))
def test_facing_slot_is_the_pit_every_capture_empties(side, landing):
    # one seed in the pit before ``landing`` (and one more pit of the mover's, so the
    # capture does not end the game); every opposite pit holds a different count
    slots = [0] * 14
    first = 7 * side
    slots[first + landing - 1] = 1
    slots[first + (landing + 1) % 6] = 1
    other = 7 * (1 - side)
    for pit in range(6):
        slots[other + pit] = 10 + pit
    board = mancala.Board(slots, to_move=side)
    record = board.push(landing - 1)
    emptied = [s for s in range(other, other + 6) if not board.pits[s]]
    assert emptied == [geometry.facing_slot(first + landing)]
    assert record.captured == 1 + slots[emptied[0]]
    assert geometry.facing_slot(geometry.facing_slot(first + landing)) == first + landing


def test_slots_owner_and_pit_number():
    assert [geometry.side_of(s) for s in range(14)] == [0] * 7 + [1] * 7
    assert [geometry.pit_of(s) for s in range(14)] == [0, 1, 2, 3, 4, 5, None] * 2
    assert [s for s in range(14) if geometry.is_store(s)] == [6, 13]
    assert list(geometry.pit_slots(NORTH)) == [7, 8, 9, 10, 11, 12]
    assert geometry.slot_name(0) == "South's pit 1" and geometry.slot_name(13) == "North's store"
    assert geometry.slot_name(12) == "North's pit 6"


def test_rows_side_seeds_and_the_board_seen_by_a_side():
    slots = [1, 2, 3, 4, 5, 6, 20, 7, 8, 9, 10, 11, 12, 30]
    assert geometry.row(slots, NORTH) == [7, 8, 9, 10, 11, 12]
    assert geometry.side_seeds(slots, SOUTH) == 21 + 20 and geometry.side_seeds(slots, NORTH) == 57 + 30
    assert geometry.seen_by(slots, SOUTH) == slots
    assert geometry.seen_by(slots, NORTH) == [7, 8, 9, 10, 11, 12, 30, 1, 2, 3, 4, 5, 6, 20]


def test_a_pov_score_turns_to_either_side():
    assert PovScore(3, NORTH).pov(NORTH) == 3 and PovScore(3, NORTH).south() == -3
    assert PovScore(-5, SOUTH).north() == 5 and PovScore(-5, SOUTH).south() == -5
    assert PovScore(0, NORTH).south() == 0


def test_an_outcomes_score_is_the_final_margin_from_either_view():
    # South's row is empty: North sweeps its 5 into its store, 20 + 5 against 23
    board = mancala.Board([0, 0, 0, 0, 0, 0, 23, 1, 0, 4, 0, 0, 0, 20], to_move=NORTH)
    outcome = board.outcome()
    assert (outcome.south, outcome.north) == (23, 25)
    assert outcome.score.south() == -2 and outcome.score.pov(NORTH) == 2


def test_the_layout_as_json():
    assert geometry.layout() == {
        "pits": 6, "slots": 14, "stores": [6, 13],
        "pit_slots": [[0, 1, 2, 3, 4, 5], [7, 8, 9, 10, 11, 12]],
        "side_names": ["South", "North"], "side_keys": ["south", "north"]}


def test_no_face_defines_the_geometry_again():
    """The slot counts are named in mancala.geometry alone (the twin keeps its own on purpose)."""
    import pathlib
    import re
    root = pathlib.Path(mancala.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name in ("geometry.py", "_reference.py"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"\s*(PITS|SLOTS|STORES)\s*=", line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert found == []
