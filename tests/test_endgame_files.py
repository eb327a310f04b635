"""Endgame database files are untrusted input: a hostile cache is refused file by
file (one line each), set aside so the next process does not pay for it again,
and never stops, hangs or fools a solve."""
import json
import logging
import os
import subprocess
import sys
import time

import pytest

import mancala
from mancala import _core, _system, endgame

SEEDS = 8                                    # 125,970 positions: milliseconds to build
#        12 11 10  9  8  7
#   [ 0]  0  0  0  0  0  2  [ 0]
#         0  0  0  0  1  1            South to move: +4 with perfect play
BOARD, TRUTH = "0,0,0,0,1,1,0,2,0,0,0,0,0,0", 4


@pytest.fixture(scope="module")
def good():
    return endgame.build("standard", SEEDS)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))
    return tmp_path


def write(path, values, seeds=SEEDS, checksum=None, count=None):
    """A database file with its checksum recomputed (what a forger would do)."""
    header = endgame.HEADER.pack(endgame.MAGIC, endgame.VERSION, 0, seeds,
                                 len(values) if count is None else count,
                                 _core.egdb_hash(values) if checksum is None else checksum)
    path.write_bytes(header + bytes(values))


def level_start(n):
    return _core.egdb_size(n - 1) if n else 0


def forged(good, how):
    values = bytearray(good.values)
    if how == "all 0x80":
        values[:] = b"\x80" * len(values)
    elif how == "out of range":
        values[level_start(3) + 7] = 5           # 3 seeds cannot be worth 5
    elif how == "wrong parity":
        values[level_start(6) + 100] = 3         # 6 seeds end 6-0, 5-1, ...: an even margin
    elif how == "unknown marker":
        values[-1] = 0x80                        # EGDB_UNKNOWN: a build that never finished
    return values


HOSTILE = ["all 0x80", "out of range", "wrong parity", "unknown marker", "fifo", "sparse 26 seeds",
           "truncated", "another N in the header", "a directory", "a symlink loop",
           "a dangling symlink", "header size lies"]


def make_hostile(how, good, cache):
    """Write one kind of hostile file into the cache; returns its path."""
    path = endgame.path_for("standard", SEEDS)
    if how in ("all 0x80", "out of range", "wrong parity", "unknown marker"):
        write(path, forged(good, how))
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "sparse 26 seeds":
        path = endgame.path_for("standard", 26)
        size = _core.egdb_size(26)               # 2.7 GB of holes behind a real-looking header
        with open(path, "wb") as f:
            f.write(endgame.HEADER.pack(endgame.MAGIC, endgame.VERSION, 0, 26, size, 12345))
            f.truncate(endgame.HEADER.size + size)
    elif how == "truncated":
        write(path, good.values)
        with open(path, "r+b") as f:
            f.truncate(endgame.HEADER.size + 1000)
    elif how == "another N in the header":
        small = endgame.build("standard", 6)
        write(path, small.values, seeds=6)
    elif how == "a directory":
        path.mkdir()
    elif how == "a symlink loop":
        os.symlink(path.name, path)
    elif how == "a dangling symlink":
        os.symlink("nowhere.bin", path)
    elif how == "header size lies":
        write(path, good.values, count=10)
    return path


@pytest.mark.timeout(30)
@pytest.mark.parametrize("how", HOSTILE)
def test_a_hostile_database_is_refused_with_one_line_and_set_aside(how, good, cache, caplog):
    path = make_hostile(how, good, cache)
    seeds = 26 if "26" in how else SEEDS
    start = time.perf_counter()
    with pytest.raises(endgame.EndgameFileError) as info:
        endgame.load("standard", seeds)
    assert time.perf_counter() - start < 2
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    if "26" not in how or _system.available_bytes() > _core.egdb_size(26):
        assert not os.path.lexists(path), "a refused file stays where the next process pays for it"
        assert "renamed to" in message or "removed" in message
    # what Engine(endgame="auto") does: never raises, says so once, finds nothing
    if not os.path.lexists(path):
        make_hostile(how, good, cache)
    with caplog.at_level(logging.WARNING):
        assert endgame.find("standard") is None
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == 1 and "\n" not in refused[0]


IN_EVERY_RUN = ("all 0x80", "fifo", "sparse 26 seeds", "a directory", "a symlink loop")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", [h if h in IN_EVERY_RUN else pytest.param(h, marks=pytest.mark.slow)
                                 for h in HOSTILE])
def test_solve_still_answers_right_beside_a_hostile_database(how, good, cache):
    make_hostile(how, good, cache)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "mancala", "solve", "--board", BOARD, "--json",
                          "--hash-mb", "4", "--threads", "1"],
                         capture_output=True, text=True, timeout=30, env={**os.environ})
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert (report["value"], report["exact"], report["endgame_seeds"]) == (TRUTH, True, None)
    assert time.perf_counter() - start < 10
    lines = [line for line in out.stderr.splitlines() if "refused" in line]
    assert len(lines) == 1, out.stderr
    if "26" not in how or _system.available_bytes() > _core.egdb_size(26):
        assert endgame.find("standard") is None and "refused" in lines[0] and \
            not any(name.endswith(".bin") for name in os.listdir(cache)), "the next process pays again"


def test_ensure_rebuilds_over_a_forged_database(good, cache, caplog):
    make_hostile("all 0x80", good, cache)
    with caplog.at_level(logging.WARNING):
        db = endgame.ensure("standard", SEEDS)
    assert bytes(db.values) == bytes(good.values)
    assert db.value(mancala.Board([int(x) for x in BOARD.split(",")])) == TRUTH
    assert any("refused" in r.getMessage() for r in caplog.records)
    assert bytes(endgame.load("standard", SEEDS).values) == bytes(good.values)
    assert (cache / f"endgame-standard-{SEEDS}.bin.refused").exists()


def test_every_value_of_real_databases_fits_its_level():
    """The rule egdb_verify enforces (|v| <= n, v = n mod 2 for n seeds in the pits)
    holds for every position of every rule, checked here in Python."""
    for capture in mancala.CAPTURE_RULES:
        values = endgame.build(capture, 8).values
        assert _core.egdb_verify_values(values) == -1
        for n in range(9):
            for v in values[level_start(n):_core.egdb_size(n)]:
                v = v - 256 if v > 127 else v
                assert abs(v) <= n and (v - n) % 2 == 0, (capture, n, v)


def test_verify_names_the_first_bad_position(good):
    values = bytearray(good.values)
    assert _core.egdb_verify_values(values) == -1
    for index, byte in [(0, 2), (1, 0), (level_start(5) + 3, 7), (len(values) - 1, 0x80),
                        (level_start(8), 0x7F)]:
        bad = bytearray(values)
        bad[index] = byte
        assert _core.egdb_verify_values(bad) == index
        assert _core.egdb_verify_values(bad, index + 1) == -1
        assert _core.egdb_verify_values(bad, 0, index) == -1


def test_a_file_truncated_after_loading_does_not_kill_the_process(good, cache):
    """The values live in memory: truncating the file under a running solver is harmless."""
    path = endgame.save(good)
    script = f"""
import mancala
from mancala import endgame
db = endgame.load("standard", {SEEDS})
with open({str(path)!r}, "r+b") as f:
    f.truncate(100)
engine = mancala.Engine(hash_mb=4, threads=1, endgame=db)
result = engine.solve(mancala.Board([{BOARD}]))
total = sum(db.values[i] for i in range(0, len(db.values), 97))   # touch every part of it
print(result.score, result.endgame, db.value(mancala.Board([{BOARD}])))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, (out.returncode, out.stderr[-300:])
    assert out.stdout.split() == [str(TRUTH), str(SEEDS), str(TRUTH)]


def test_stale_temporary_files_of_killed_writes_are_removed(good, cache):
    dead = 4_194_304 + 1
    while True:
        try:
            os.kill(dead, 0)
            dead += 1
        except ProcessLookupError:
            break
        except (PermissionError, OverflowError):
            dead += 1
    names = {
        f"endgame-standard-{SEEDS}.bin.{dead}.abc123.tmp": False,        # writer gone
        f"endgame-standard-{SEEDS}.bin.{os.getpid()}.def456.tmp": True,  # writer alive, fresh
        f"endgame-empty-{SEEDS}.bin.ghi789.tmp": True,                   # old name, fresh
        f"endgame-none-{SEEDS}.bin.jkl012.tmp": False,                   # old name, two hours old
        f"endgame-none-{SEEDS}.bin.{os.getpid()}.mno345.tmp": False,     # alive but two hours old
        "notes.tmp": True,                                               # not ours
    }
    old = time.time() - 7200
    for name in names:
        (cache / name).write_bytes(b"x" * 100)
        if "jkl" in name or "mno" in name:
            os.utime(cache / name, (old, old))
    assert endgame.find("standard") is None
    assert {name: (cache / name).exists() for name in names} == names
    # ensure scans too
    (cache / f"endgame-standard-{SEEDS}.bin.{dead}.zzz999.tmp").write_bytes(b"x")
    endgame.ensure("standard", 4)
    assert not (cache / f"endgame-standard-{SEEDS}.bin.{dead}.zzz999.tmp").exists()


def test_save_names_its_temporary_file_after_the_writer(good, cache, monkeypatch):
    seen = []
    real = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    endgame.save(good)
    assert seen and seen[0].startswith(f"endgame-standard-{SEEDS}.bin.{os.getpid()}.")
    assert endgame.TEMP_NAME.fullmatch(seen[0])
