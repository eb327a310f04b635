"""Endgame databases: every entry against brute force, levels built whole or in parts,
level files saved, found and rebuilt, the search using them."""
import itertools
import json
import os
import random
import subprocess
import sys

import pytest

import mancala
from mancala import _core, _reference, endgame
from mancala.board import capture_code
from mancala.endgame import files

from conftest import brute_force

PIT_SLOTS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]


def random_pits(rng, most):
    """14 slots with 1..most seeds dropped at random into the pits, stores empty."""
    slots = [0] * 14
    for _ in range(rng.randint(1, most)):
        slots[rng.choice(PIT_SLOTS)] += 1
    return slots


def rows_with(total):
    """Every row of six pits holding `total` seeds, in lexicographic order (first pit first)."""
    for cut in itertools.combinations(range(total + 5), 5):
        yield [b - a - 1 for a, b in zip((-1,) + cut, cut + (total + 5,))]


def positions_with(seeds):
    """Every placement of `seeds` seeds in the twelve pits, stores empty, South to
    move, in the order of the database's ranks as csrc/egdb.h states it: by the
    seeds South holds, then South's row, then North's, each lexicographically."""
    for mine in range(seeds + 1):
        for south in rows_with(mine):
            for north in rows_with(seeds - mine):
                yield south + [0] + north + [0]


def test_level_sizes_are_the_binomials():
    assert [_core.egdb_level_size(n) for n in range(4)] == [1, 12, 78, 364]   # C(n + 11, 11)
    assert _core.egdb_level_size(18) == 34597290                                # C(29, 11)
    assert _core.egdb_size(18) == 86493225 == sum(_core.egdb_level_size(n) for n in range(19))


@pytest.mark.parametrize("seeds", [0, 1, 2, 5, 7])
def test_a_position_ranks_in_the_lexicographic_order_of_its_level(seeds):
    """The rank is dense and follows the order csrc/egdb.h states: the i-th is rank i."""
    for i, slots in enumerate(positions_with(seeds)):
        assert _core.egdb_rank_of(slots, 0) == (seeds, i), slots
    assert i + 1 == _core.egdb_level_size(seeds)
    rotated = [0, 0, 0, 0, 0, 0, 9, 1, 0, 0, 0, 0, 2, 4]    # North to move: its pits come first
    assert _core.egdb_rank_of(rotated, 1) == _core.egdb_rank_of([1, 0, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 9], 0)


@pytest.mark.parametrize("capture", mancala.CAPTURE_RULES)
def test_a_class_of_a_level_leads_nowhere_else_in_the_level(capture):
    """Blocks a and n - a of level n (the mover holds a seeds) are a class: every
    move from it that keeps n seeds in the pits stays in it (the twin's rules)."""
    code = capture_code(capture)
    for seeds in range(8):
        for slots in positions_with(seeds):
            mine = sum(slots[0:6])
            for pit in _reference.legal_moves(slots, 0):
                child, to_move, _ = _reference.play(slots, 0, pit, code)
                if child[6] + child[13] == 0 and not _reference.is_game_over(child):
                    held = sum(child[0:6]) if to_move == 0 else sum(child[7:13])
                    assert held in (mine, seeds - mine), (slots, pit)


@pytest.mark.parametrize("capture", mancala.CAPTURE_RULES)
def test_every_entry_up_to_5_seeds_equals_brute_force(capture):
    code = capture_code(capture)
    levels = _core.egdb_build(5, code)
    assert [len(level) for level in levels] == [1, 12, 78, 364, 1365, 4368]
    checked = 0
    for seeds in range(6):
        for slots in positions_with(seeds):
            expected = brute_force(tuple(slots), 0, code)
            assert _core.egdb_lookup(levels, slots, 0) == expected, (slots, capture)
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
    for code in range(3):
        assert _core.egdb_build(12, code, threads=threads) == _core.egdb_build(12, code)


@pytest.mark.parametrize("capture", mancala.CAPTURE_RULES)
def test_passes_over_rows_build_the_bytes_of_the_search(capture):
    """The build by passes over a class's rows (csrc/egdb_build.h, worked out
    from each row once) gives every level the bytes of the memoised search that
    plays each move on the board and ranks its child (egdb_solve): up to 14
    seeds, so with moves of 13 seeds and more, captures after a lap, game ends
    and every shape of class (a = n - a too), each chain from its own levels."""
    code = capture_code(capture)
    searched = _core.egdb_build(14, code, search=True)
    for threads in (1, 2):
        passes = _core.egdb_build(14, code, threads=threads)
        for n in range(15):
            assert passes[n] == searched[n], (capture, n, threads)


def test_a_level_built_in_parts_apart_is_the_level_built_whole():
    """What a cluster's workers do: each builds a class of a level into memory of
    its own (zeros elsewhere), and the parts put together are the level, with the
    checksum folded from the classes' chunk hashes; any range of ranks built
    alone is the same bytes too."""
    from mancala.cluster.build import classes
    levels = _core.egdb_build(13, 0)
    whole = levels[13]
    size = len(whole)
    assembled, hashes = bytearray(size), {}
    for parts in classes(13):
        out = bytearray(size)
        _core.egdb_build_level(levels[:13], out, 0, 1, None, parts)
        for start, stop in parts:
            assert out[start:stop] == whole[start:stop]
            assembled[start:stop] = out[start:stop]
            hashes[start] = _core.egdb_chunk_hashes(out, start, stop)
    assert assembled == whole
    folded = [h for start in sorted(hashes) for h in hashes[start]]
    assert (folded, None) == _core.egdb_check_level(whole, 13)
    for start, stop in [(0, 1000), (77_777, 1_300_000), (size - 5, size)]:
        out = bytearray(size)
        _core.egdb_build_level(levels[:13], out, 0, 1, None, [(start, stop)])
        assert out[start:stop] == whole[start:stop]
    with pytest.raises(ValueError, match="checksum chunks"):
        _core.egdb_chunk_hashes(whole, 1000)


def test_build_threads_must_be_a_small_whole_number():
    for threads in (0, -1, 65, 1.5, "2", True):
        with pytest.raises(ValueError, match="threads"):
            _core.egdb_build(3, 0, threads=threads)


def test_save_load_round_trip_and_find(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    big = endgame.build("empty", 6)
    endgame.save(endgame.build("empty", 4))
    assert endgame.find("empty").max_seeds == 4
    endgame.save(big)
    loaded = endgame.load("empty", 6)
    assert [bytes(level) for level in loaded.levels] == [bytes(level) for level in big.levels]
    assert sorted(os.listdir(tmp_path / "endgame-empty")) == \
        sorted(f"level-{n:02d}.{kind}" for n in range(7) for kind in ("bin", "seal"))
    assert endgame.find("empty").max_seeds == 6
    assert endgame.find("standard") is None
    with pytest.raises(endgame.EndgameMissingError):
        endgame.load("empty", 7)


def test_find_serves_the_levels_below_the_first_gap(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    endgame.save(endgame.build("standard", 8))
    os.unlink(files.level_path("standard", 5))
    db = endgame.find("standard")
    assert db.max_seeds == 4
    board = mancala.Board([1, 0, 0, 0, 0, 1, 3, 0, 0, 1, 0, 0, 1, 5])
    assert db.value(board) == brute_force(tuple(board.pits), 0, 0)


def corrupt(path, how):
    data = bytearray(path.read_bytes())
    if how == "flip":
        data[-1] ^= 0x02        # keeps the parity, breaks the checksum
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
def test_a_bad_level_is_refused_and_ensure_rebuilds_only_it(tmp_path, monkeypatch, how):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    good = endgame.build("standard", 7)
    endgame.save(good)
    path = files.level_path("standard", 6)
    corrupt(path, how)
    stamps = {n: os.stat(files.level_path("standard", n)).st_mtime_ns for n in range(8) if n != 6}
    with pytest.raises(endgame.EndgameFileError) as info:
        endgame.load("standard", 7)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    assert endgame.find("standard").max_seeds == 5
    rebuilt = endgame.ensure("standard", 7)
    assert [bytes(level) for level in rebuilt.levels] == [bytes(level) for level in good.levels]
    assert {n: os.stat(files.level_path("standard", n)).st_mtime_ns for n in stamps} == stamps


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


@pytest.mark.parametrize("capture", ["standard", "empty"])
def test_a_solve_with_a_database_is_exact_where_it_leaves_the_table_alone(capture):
    """A solve with a database of N seeds does not use the table at positions of at
    most N + 2 seeds (faster searched again than probed): boards of 8 to 11 seeds
    over a 5-seed database have such positions and tabled ones above them; the
    value and each optimal move against a brute force over the twin's rules."""
    db = endgame.build(capture, 5)
    code = capture_code(capture)
    rng = random.Random(23)
    solved = 0
    while solved < 12:
        slots = random_pits(rng, 11)
        board = mancala.Board(slots, rng.randint(0, 1), capture=capture)
        if board.is_game_over() or sum(slots) < 8:
            continue
        engine = mancala.Engine(hash_mb=1, endgame=db, threads=1)
        result = engine.solve(board)
        truth = brute_force(tuple(slots), board.to_move, code)
        assert (result.score, result.exact, result.endgame) == (truth, True, 5), slots
        for pit in engine.optimal_moves(board, result.score):
            child = board.copy()
            child.push(pit)
            value = brute_force(tuple(child.pits), child.to_move, code)
            assert (value if child.to_move == board.to_move else -value) == truth, (slots, pit)
        solved += 1


def test_solve_command_with_a_database_agrees_with_a_brute_force(tmp_path):
    """The same as the user types it: solve --endgame 6 builds the database into the
    cache, then solves an 11-seed board (the table left alone at 8 seeds and below)."""
    slots = [2, 0, 1, 2, 0, 1, 0, 0, 2, 1, 0, 1, 1, 0]
    done = subprocess.run([sys.executable, "-m", "mancala", "solve", "--board", ",".join(map(str, slots)),
                           "--endgame", "6", "--json"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, MANCALA_CACHE=str(tmp_path)), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["value"], answer["endgame_seeds"]) == (brute_force(tuple(slots), 0, 0), 6)


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
            _core.egdb_level_size(n)
    with pytest.raises(ValueError):
        mancala.Engine(endgame="yes")
    with pytest.raises(ValueError, match="level 3"):
        _core.egdb_lookup([b"\0", bytes(12), bytes(78), bytes(10)], [0] * 14, 0)
