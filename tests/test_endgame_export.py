"""Exact positions as a dataset (issue 41, section 4): ``python -m mancala endgame
export`` writes every position of a cached database with its value and best
moves as Parquet, and :func:`mancala.endgame.iter_positions` hands them out in
batches. The rows are held against a brute force over the slow twin's rules
(all of them, 8 seeds) and against the engine's own search (a sample, 20
seeds); bad input is one line each."""
import functools
import importlib.util
import json
import os
import random
import signal
import struct
import subprocess
import sys
from math import comb

import pytest

from mancala import Board, Engine, _core, _reference, endgame, seal
from mancala.endgame import files
from mancala.endgame import PositionBatch, best_pits, iter_positions
from mancala.errors import EndgameFileError, InvalidLimitError

needs_pyarrow = pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None,
                                   reason="needs pyarrow: the export extra (pip install -e '.[export]')")
SLOT_COLUMNS = [f"slot_{s}" for s in (0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12)]


def run(args, cache, timeout=600, **more):
    env = dict(os.environ, MANCALA_CACHE=str(cache))
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, **more)


def built(cache, seeds):
    done = run(["endgame", "build", "--seeds", str(seeds), "--threads", "2"], cache)
    assert done.returncode == 0, done.stderr
    return cache


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@functools.lru_cache(maxsize=None)
def rest_of_game(pits, capture):
    """The final margin for South to move on these twelve pits (South's six, then
    North's; the stores empty), by plain minimax over the slow twin's rules, and
    the pits that reach it: what no database was asked for."""
    slots = list(pits[:6]) + [0] + list(pits[6:]) + [0]
    if _reference.is_game_over(slots):
        return sum(pits[:6]) - sum(pits[6:]), ()
    scored = {}
    for pit in _reference.legal_moves(slots, 0):
        child, mover, _ = _reference.play(slots, 0, pit, capture)
        banked = child[6] - child[13]
        if _reference.is_game_over(child):
            scored[pit] = banked
        elif mover == 0:
            scored[pit] = banked + rest_of_game(tuple(child[0:6] + child[7:13]), capture)[0]
        else:
            scored[pit] = banked - rest_of_game(tuple(child[7:13] + child[0:6]), capture)[0]
    top = max(scored.values())
    return top, tuple(pit for pit, value in scored.items() if value == top)


# -- the library: batches in the database's order --------------------------------------

def test_iter_positions_hands_out_every_rank_of_every_level_once_in_order():
    db = endgame.build("empty", 5)
    seen = {n: 0 for n in range(6)}
    for batch in iter_positions(5, "empty", batch=1000, database=db):
        assert isinstance(batch, PositionBatch) and 1 <= len(batch) <= 1000
        assert batch.first == seen[batch.seeds]           # no gap, no overlap, rank order
        for i in range(0, len(batch), 37):
            pits, value, bits = batch.row(i)
            assert pits == _core.egdb_position(batch.seeds, batch.first + i)
            assert value == memoryview(db.levels[batch.seeds]).cast("b")[batch.first + i]
            board = batch.board(i)
            assert (board.to_move, board.capture, board.pits[6], board.pits[13]) == (0, "empty", 0, 0)
            assert db.value(board) == value
        seen[batch.seeds] += len(batch)
    assert seen == {n: comb(n + 11, 11) for n in range(6)}


def test_best_moves_are_bits_of_pit_indices():
    assert best_pits(0) == [] and best_pits(0b100001) == [0, 5] and best_pits(0b000100) == [2]


def test_a_database_that_contradicts_itself_is_refused_with_one_line():
    db = endgame.build("standard", 4)
    assert sum(len(batch) for batch in iter_positions(4, database=db)) == comb(16, 12)
    rank = 700          # both rows hold seeds: its value is its best move's, made 2 more here
    assert all(map(sum, (_core.egdb_position(4, rank)[:6], _core.egdb_position(4, rank)[6:])))
    values = memoryview(db.levels[4]).cast("b")
    values[rank] = values[rank] + 2 if values[rank] <= 2 else values[rank] - 2
    with pytest.raises(EndgameFileError) as caught:
        list(iter_positions(4, database=db))
    line = str(caught.value)
    assert line.startswith("level 4 of the standard database contradicts itself at position ")
    assert int(line.split("position ")[1].split(" ")[0]) <= rank     # or a position moving into it
    assert "`python -m mancala endgame verify --deep --seeds 4 --capture standard`" in line


@pytest.mark.parametrize("batch", [0, -1, True, 1.5, 1 << 27])
def test_a_batch_out_of_range_is_refused(batch):
    with pytest.raises(InvalidLimitError, match="a batch is 1 to"):
        next(iter_positions(3, database=endgame.build("standard", 3), batch=batch))


# -- the command: every row of a small database against brute force --------------------

@needs_pyarrow
def test_an_8_seed_export_holds_every_position_with_its_brute_force_value_and_best_moves(tmp_path):
    import pyarrow.parquet as pq
    cache = built(tmp_path / "cache", 8)
    target = tmp_path / "positions.parquet"
    done = run(["endgame", "export", "--seeds", "8", "--capture", "standard", str(target)], cache)
    assert done.returncode == 0, done.stderr
    assert f"125,970 standard positions (levels 0..8) in {target}" in done.stdout
    assert "level  8 of 0..8 [########################] 100%" in done.stderr     # the house's bar

    parquet = pq.ParquetFile(target)
    assert parquet.schema_arrow.names == ["seeds", *SLOT_COLUMNS, "value", "best_moves"]
    assert parquet.metadata.num_row_groups == 9                 # a level a batch: streamed
    table = parquet.read().to_pydict()
    rows = len(table["value"])
    assert rows == comb(8 + 12, 12) == 125_970
    for i in range(rows):
        pits = tuple(table[name][i] for name in SLOT_COLUMNS)
        value, best = rest_of_game(pits, _reference.STANDARD)
        assert (table["seeds"][i], table["value"][i], best_pits(table["best_moves"][i])) == \
            (sum(pits), value, list(best)), f"row {i}: pits {pits}"
    assert len(set(zip(*(table[name] for name in SLOT_COLUMNS)))) == rows     # each position once

    document = json.loads(parquet.schema_arrow.metadata[b"mancala"])
    assert (document["capture"], document["max_seeds"], document["rows"]) == ("standard", 8, rows)
    for n, level in enumerate(document["levels"]):              # the level files' own headers
        head = files.level_path("standard", n, cache).read_bytes()[:files.HEADER.size]
        checksum = struct.unpack("<8sIIIIQQ", head)[6]
        assert level == {"level": n, "positions": comb(n + 11, 11), "checksum": f"{checksum:016x}"}
    assert f"levels 0..8 under this installation's seal (key {seal.key_id()})" == document["trust"]
    assert sorted(os.listdir(tmp_path)) == ["cache", "positions.parquet"]     # no temporary file
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask    # as any new file: not the temporary's 0600


@needs_pyarrow
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_20_seed_export_matches_the_solver_on_1000_sampled_rows(tmp_path):
    """The engine's own search (a database of 12 seeds below it, built apart in
    memory) gives each sampled row's value and its every best move."""
    import pyarrow.parquet as pq
    cache = built(tmp_path / "cache", 20)
    target = tmp_path / "positions.parquet"
    done = run(["endgame", "export", "--seeds", "20", str(target)], cache, timeout=1500)
    assert done.returncode == 0, done.stderr
    parquet = pq.ParquetFile(target)
    assert parquet.metadata.num_rows == comb(20 + 12, 12)
    pick = random.Random(41)
    groups = pick.sample([g for g in range(parquet.metadata.num_row_groups)
                          if parquet.metadata.row_group(g).num_rows >= 25], 40)
    engine = Engine(hash_mb=64, endgame=endgame.build("standard", 12))
    checked = 0
    for group in groups:
        table = parquet.read_row_group(group).to_pydict()
        for i in pick.sample(range(len(table["value"])), 25):
            pits = [table[name][i] for name in SLOT_COLUMNS]
            board = Board(pits[:6] + [0] + pits[6:] + [0], 0)
            value = table["value"][i]
            if board.is_game_over():
                assert (value, table["best_moves"][i]) == (board.outcome().score.pov(0), 0)
            else:
                assert engine.solve(board).score == value, pits
                assert sorted(engine.optimal_moves(board, value)) == best_pits(table["best_moves"][i])
            checked += 1
    assert checked == 1000


# -- what a user gets wrong: one line each, nothing written --------------------------------

@needs_pyarrow
def test_without_a_database_cached_the_export_says_which_command_builds_it(tmp_path):
    done = run(["endgame", "export", "--seeds", "8", str(tmp_path / "a.parquet")], tmp_path / "cache")
    assert done.returncode == 2
    assert one_line(done.stderr) == (
        f"mancala: no standard database is cached in {tmp_path / 'cache' / 'endgame-standard'}: "
        f"`python -m mancala endgame build --seeds 8` builds one")
    assert not (tmp_path / "a.parquet").exists()


@needs_pyarrow
@pytest.mark.parametrize("case", ["beyond the cache", "missing folder", "fifo", "folder", "unsealed"])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, case):
    cache = built(tmp_path / "cache", 6)
    target, seeds = tmp_path / "a.parquet", "6"
    if case == "beyond the cache":
        seeds = "7"
        expected = (f"the standard database cached in {cache / 'endgame-standard'} has levels 0..6, "
                    f"not 0..7: `python -m mancala endgame build --seeds 7` builds the rest")
    elif case == "missing folder":
        target = tmp_path / "nowhere" / "a.parquet"
        expected = f"{target}: no folder {tmp_path / 'nowhere'} to write it in"
    elif case == "fifo":
        target = tmp_path / "a.fifo"
        os.mkfifo(target)
        expected = f"{target}: not a regular file"
    elif case == "folder":
        target = tmp_path / "a-folder"
        target.mkdir()
        expected = f"{target}: not a regular file"
    else:
        for n in (3, 4):
            os.unlink(files.seal_path(files.level_path("standard", n, cache)))
        expected = "levels 3..4 of the standard database in"
    before = sorted(os.listdir(tmp_path))
    done = run(["endgame", "export", "--seeds", seeds, str(target)], cache, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    line = one_line(done.stderr)
    assert line.startswith(f"mancala: {expected}"), line
    assert sorted(os.listdir(tmp_path)) == before


def test_the_plain_install_imports_no_pyarrow():
    done = subprocess.run([sys.executable, "-c", "import sys, mancala, mancala.cli, mancala.endgame.export; "
                           "print('pyarrow' in sys.modules)"], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_without_pyarrow_the_export_names_its_extra_in_one_line(tmp_path):
    hidden = ("import sys; sys.modules['pyarrow'] = None; from mancala.cli import main; "
              f"sys.exit(main(['endgame', 'export', '--seeds', '3', {str(tmp_path / 'a.parquet')!r}]))")
    done = subprocess.run([sys.executable, "-c", hidden], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line.startswith("mancala: the export writes Parquet through pyarrow, its extra: "
                           "pip install 'kalah[export]'"), line
    assert not (tmp_path / "a.parquet").exists()


@needs_pyarrow
def test_an_interrupted_export_leaves_no_file(tmp_path):
    cache = built(tmp_path / "cache", 16)
    target = tmp_path / "a.parquet"
    env = dict(os.environ, MANCALA_CACHE=str(cache))
    with subprocess.Popen([sys.executable, "-m", "mancala", "endgame", "export", "--seeds", "16",
                           str(target)], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          env=env) as process:
        for line in process.stderr:             # a line a level finished (no terminal)
            if line.startswith("level 12"):
                process.send_signal(signal.SIGINT)
                break
        rest = process.stderr.read()
        assert process.wait(timeout=120) == 130, rest
    assert "mancala: interrupted" in rest
    assert sorted(os.listdir(tmp_path)) == ["cache"]
