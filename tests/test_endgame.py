"""Endgame databases: every entry against brute force, files checked and rebuilt, the search using them."""
import itertools
import random

import pytest

import mancala
from mancala import _core, endgame
from mancala.board import capture_code

from conftest import brute_force

PIT_SLOTS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]


def random_pits(rng, most):
    """14 slots with 1..most seeds dropped at random into the pits, stores empty."""
    slots = [0] * 14
    for _ in range(rng.randint(1, most)):
        slots[rng.choice(PIT_SLOTS)] += 1
    return slots


def positions_with(seeds):
    """Every placement of `seeds` seeds in the twelve pits, stores empty."""
    for cut in itertools.combinations(range(seeds + 11), 11):
        counts = [b - a - 1 for a, b in zip((-1,) + cut, cut + (seeds + 11,))]
        slots = [0] * 14
        for slot, n in zip(PIT_SLOTS, counts):
            slots[slot] = n
        yield slots


@pytest.mark.parametrize("capture", mancala.CAPTURE_RULES)
def test_every_entry_up_to_5_seeds_equals_brute_force(capture):
    code = capture_code(capture)
    values = _core.egdb_build(5, code)
    assert len(values) == _core.egdb_size(5) == 6188  # C(17, 12)
    checked = 0
    for seeds in range(6):
        for slots in positions_with(seeds):
            expected = brute_force(tuple(slots), 0, code)
            assert _core.egdb_lookup(values, 5, slots, 0) == expected, (slots, capture)
            checked += 1
    assert checked == 6188


def test_entries_up_to_9_seeds_agree_with_the_solver_on_stored_positions():
    db = endgame.build("standard", 9)
    engine = mancala.Engine(hash_mb=4, endgame=None)
    rng = random.Random(2)
    for _ in range(150):
        slots = random_pits(rng, 9)
        slots[6], slots[13] = rng.randint(0, 30), rng.randint(0, 30)
        board = mancala.Board(slots, rng.randint(0, 1))
        assert db.value(board) == engine.solve(board).score, board


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_build_the_same_bytes_as_one(threads):
    """Threads share each level (racing to fill the same positions): no byte may differ."""
    for capture in mancala.CAPTURE_RULES:
        code = mancala.CAPTURE_RULES.index(capture)
        alone = _core.egdb_build(12, code)
        assert _core.egdb_build(12, code, threads=threads) == alone, capture


def test_build_threads_must_be_a_small_whole_number():
    for threads in (0, -1, 65, 1.5, "2", True):
        with pytest.raises(ValueError, match="threads"):
            _core.egdb_build(3, 0, threads=threads)


def test_save_load_round_trip_and_find(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    small, big = endgame.build("empty", 4), endgame.build("empty", 6)
    endgame.save(small)
    endgame.save(big)
    loaded = endgame.load("empty", 6)
    assert bytes(loaded.values) == bytes(big.values)
    assert endgame.find("empty").max_seeds == 6
    assert endgame.find("standard") is None


def corrupt(path, how):
    data = bytearray(path.read_bytes())
    if how == "flip":
        data[-1] ^= 0x01
    elif how == "truncate":
        data = data[:-10]
    elif how == "magic":
        data[0:8] = b"NOTKALAH"
    elif how == "version":
        data[8] = 99
    elif how == "rule":
        data[12] = 1
    elif how == "empty":
        data = bytearray()
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["flip", "truncate", "magic", "version", "rule", "empty"])
def test_a_bad_file_is_refused_and_ensure_rebuilds_it(tmp_path, monkeypatch, how):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    good = endgame.build("standard", 5)
    path = endgame.save(good)
    corrupt(path, how)
    with pytest.raises(endgame.EndgameFileError) as info:
        endgame.load("standard", 5)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert endgame.find("standard") is None
    rebuilt = endgame.ensure("standard", 5)
    assert bytes(rebuilt.values) == bytes(good.values)
    assert bytes(endgame.load("standard", 5).values) == bytes(good.values)


def test_solve_uses_a_cached_database_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    board = mancala.Board(seeds=2)
    plain = mancala.Engine(hash_mb=4).solve(board)
    assert plain.endgame is None
    endgame.save(endgame.build("standard", 10))
    helped = mancala.Engine(hash_mb=4).solve(board)
    assert helped.endgame == 10
    assert (helped.score, helped.exact) == (plain.score, True)
    assert helped.nodes < plain.nodes
    assert mancala.Engine(hash_mb=4, endgame=None).solve(board).endgame is None


def test_search_with_a_database_scores_covered_positions_exactly():
    db = endgame.build("standard", 8)
    engine = mancala.Engine(hash_mb=4, endgame=db)
    rng = random.Random(4)
    for _ in range(40):
        slots = random_pits(rng, 12)
        board = mancala.Board(slots, rng.randint(0, 1))
        if board.is_game_over():
            continue
        result = engine.search(board, depth=2)
        assert result.endgame == 8
        if sum(slots) <= 8 + 1:  # every child is in the database
            assert result.score == brute_force(tuple(slots), board.to_move, 0)


def test_a_database_of_another_rule_is_not_used():
    db = endgame.build("empty", 6)
    board = mancala.Board([1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0])
    result = mancala.Engine(hash_mb=1, endgame=db).solve(board)
    assert result.endgame is None
    assert result.score == brute_force(tuple(board.pits), 0, 0)


def test_bad_database_sizes_are_refused():
    for n in (-1, 37, "8", None):
        with pytest.raises(ValueError):
            _core.egdb_size(n)
    with pytest.raises(ValueError):
        mancala.Engine(endgame="yes")
