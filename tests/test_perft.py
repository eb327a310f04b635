"""Perft counts from tests/data/perft.txt, checked on both implementations.

On a mismatch the message gives the per-move split (perft of each child at
depth - 1), so the first wrong move can be chased down one level at a time.
"""
import pathlib
import re

import pytest

DATA = pathlib.Path(__file__).parent / "data" / "perft.txt"
LINE = re.compile(r"seeds=(\d+) capture=(\w+) depth=(\d+) nodes=(\d+)$")
SLOW_NODES = 500_000            # beyond this the pure-Python twin takes seconds
CAPTURES = ("standard", "empty", "none")


def start_position(seeds):
    return [seeds] * 6 + [0] + [seeds] * 6 + [0]


def load_cases():
    cases = []
    for number, text in enumerate(DATA.read_text().splitlines(), 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        match = LINE.match(text)
        assert match, f"perft.txt line {number}: {text!r}"
        seeds, capture, depth, nodes = match.groups()
        marks = [pytest.mark.slow] if int(nodes) > SLOW_NODES else []
        cases.append(pytest.param(
            int(seeds), CAPTURES.index(capture), int(depth), int(nodes),
            id=f"seeds={seeds}-{capture}-depth={depth}", marks=marks))
    return cases


def split(impl, slots, to_move, depth, capture):
    """Perft of each child of the position at ``depth - 1``, by pit."""
    counts = {}
    for pit in impl.legal_moves(slots, to_move):
        child, next_to_move, _ = impl.play(slots, to_move, pit, capture)
        counts[pit] = impl.perft(child, next_to_move, depth - 1, capture)
    return counts


@pytest.mark.parametrize("seeds, capture, depth, nodes", load_cases())
def test_perft(impl, seeds, capture, depth, nodes):
    slots = start_position(seeds)
    found = impl.perft(slots, 0, depth, capture)
    if found != nodes and depth > 0:
        lines = [f"  pit {pit}: {count}" for pit, count in
                 split(impl, slots, 0, depth, capture).items()]
        pytest.fail(f"{impl.__name__}: perft {found}, expected {nodes}; "
                    f"split at depth {depth - 1}:\n" + "\n".join(lines))
    assert found == nodes


def count_leaves(rules, slots, to_move, depth, capture):
    """Leaves counted move by move with ``rules.play``: not any perft function."""
    if depth == 0 or rules.is_game_over(slots):
        return 1
    total = 0
    for pit in rules.legal_moves(slots, to_move):
        child, next_to_move, _ = rules.play(slots, to_move, pit, capture)
        total += count_leaves(rules, child, next_to_move, depth - 1, capture)
    return total


@pytest.mark.parametrize("seeds, capture, depth, nodes",
                         [case for case in load_cases() if case.values[3] <= 60_000])
def test_data_file_agrees_with_a_count_by_the_compiled_rules(seeds, capture, depth, nodes):
    """The file was written by the twin's perft, so it is no test of that perft by
    itself: here its small lines are counted again, move by move, with the
    compiled core's sowing."""
    from mancala import _core
    assert count_leaves(_core, start_position(seeds), 0, depth, capture) == nodes


def test_data_file_covers_kalah_6_4_from_depth_0():
    depths = [case.values[2] for case in load_cases()
              if case.values[:2] == (4, CAPTURES.index("standard"))]
    assert depths[:8] == list(range(8))


def test_start_split_at_depth_2_by_hand(impl):
    # After South's pit 2 the last seed is in South's store: South moves again
    # and has five non-empty pits. Every other first move hands North six moves.
    assert split(impl, start_position(4), 0, 2, 0) == {0: 6, 1: 6, 2: 5, 3: 6, 4: 6, 5: 6}


def test_start_split_at_depth_3_by_hand(impl):
    # Replies to each first move of South, and how many moves the side to move
    # then has (a North move ending in North's store gives North five more):
    # pit 0 -> S [0 5 5 5 5 4]: N0 5, N1 5, N2 extra 5, N3..N5 refill S0: 6 6 6 = 33
    # pit 1 -> S [4 0 5 5 5 5]: N0 5, N1 5, N2 extra 5, N3 5, N4 N5 refill S1: 6 6 = 32
    # pit 2 -> extra turn, S [4 4 0 5 5 5]: five South moves, each leaves N 6 = 30
    # pit 3 -> S [4 4 4 0 5 5], N0 has 5: N2 extra 5, all others leave S 5 = 30
    # pit 4 -> S [4 4 4 4 0 5], N1 and N2 extra 5 each, others S 5 = 30
    # pit 5 -> S [4 4 4 4 4 0], N1 extra 5 (N2 now sows 5 into S0), others S 5 = 30
    assert split(impl, start_position(4), 0, 3, 0) == {
        0: 33, 1: 32, 2: 30, 3: 30, 4: 30, 5: 30}


def test_perft_of_a_finished_game_is_one(impl):
    finished = [0, 0, 0, 0, 0, 0, 24, 1, 2, 0, 0, 3, 0, 18]
    assert impl.perft(finished, 0, 5, 0) == 1
    assert impl.perft(start_position(4), 0, 0, 0) == 1
