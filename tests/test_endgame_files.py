"""Endgame level files are untrusted input: a hostile level is refused (one line),
set aside so the next process does not pay for it again, and never stops, hangs,
fools or kills a solve -- not even when it is truncated or rewritten while mapped."""
import json
import logging
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

import mancala
from mancala import _core, _system, endgame
from mancala.endgame import files, legacy
from mancala.endgame.verifying import deep_verify
from mancala.errors import InvalidLimitError

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


def write(path, n, values, level=None, count=None, padding=False):
    """A level file with its hashes recomputed (what a forger would do)."""
    head = bytearray(files.header("standard", n, _core.egdb_chunk_hashes(values)))
    fields = list(files.HEADER.unpack_from(head))
    fields[3] = n if level is None else level
    fields[5] = len(values) if count is None else count
    files.HEADER.pack_into(head, 0, *fields)
    if padding:
        head[files.HEADER.size] = 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(head) + bytes(values))


def forged(good, how):
    values = bytearray(good.levels[SEEDS])
    if how == "all 0x80":
        values[:] = b"\x80" * len(values)
    elif how == "out of range":
        values[7] = 10                           # 8 seeds cannot be worth 10
    elif how == "wrong parity":
        values[100] = 3                          # 8 seeds end 8-0, 7-1, ...: an even margin
    return values


HOSTILE = ["all 0x80", "out of range", "wrong parity", "fifo", "sparse level 30",
           "truncated", "another level in the header", "a directory", "a symlink loop",
           "a dangling symlink", "header count lies", "bytes in the header's padding"]


def work_done():
    """(bytes read, CPU seconds) of this process so far, every thread's: /proc/self/io's
    rchar and getrusage."""
    with open("/proc/self/io") as io:
        read = int(next(line for line in io if line.startswith("rchar:")).split()[1])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return read, usage.ru_utime + usage.ru_stime


def make_hostile(how, good, cache):
    """Write one kind of hostile level file into the cache; returns its path."""
    endgame.save(endgame.EndgameDatabase("standard", good.levels[:SEEDS]))   # levels 0..7, sound
    path = files.level_path("standard", SEEDS)
    if how in ("all 0x80", "out of range", "wrong parity"):
        write(path, SEEDS, forged(good, how))
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "sparse level 30":
        path = files.level_path("standard", 30)
        size = _core.egdb_level_size(30)         # 3.2 GB of holes behind a real-looking header
        with open(path, "wb") as f:
            f.write(files.header("standard", 30, [12345] * files.chunks(30)))
            f.truncate(files.values_offset(30) + size)
    elif how == "truncated":
        write(path, SEEDS, good.levels[SEEDS])
        with open(path, "r+b") as f:
            f.truncate(files.PAGE + 1000)
    elif how == "another level in the header":
        write(path, SEEDS, good.levels[SEEDS], level=7)
    elif how == "a directory":
        path.mkdir()
    elif how == "a symlink loop":
        os.symlink(path.name, path)
    elif how == "a dangling symlink":
        os.symlink("nowhere.bin", path)
    elif how == "header count lies":
        write(path, SEEDS, good.levels[SEEDS], count=10)
    elif how == "bytes in the header's padding":
        write(path, SEEDS, good.levels[SEEDS], padding=True)
    return path


@pytest.mark.timeout(30)
@pytest.mark.parametrize("how", HOSTILE)
def test_a_hostile_level_is_refused_with_one_line_and_set_aside(how, good, cache, caplog):
    path = make_hostile(how, good, cache)
    level = 30 if "30" in how else SEEDS
    read, cpu = work_done()
    with pytest.raises(endgame.EndgameFileError) as info:
        files.open_level("standard", level)
    # refused from its first bytes, not after checking 3.2 GB of holes: the bytes the process
    # read and the CPU time its threads used, as the kernel counts them (a clock would count
    # the machine's load as well; going through 3.2 GB costs seconds of CPU, a header a few ms)
    read_after, cpu_after = work_done()
    assert read_after - read < 64 * 2 ** 20 and cpu_after - cpu < 0.5
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    assert not os.path.lexists(path), "a refused file stays where the next process pays for it"
    assert "renamed to" in message or "removed" in message
    # what Engine(endgame="auto") does: never raises, says so once, serves the levels below
    # (a level 30 above a gap is not even read)
    make_hostile(how, good, cache)
    with caplog.at_level(logging.WARNING):
        db = endgame.find("standard")
    assert db.max_seeds == SEEDS - 1
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) == (level == SEEDS)
    assert all("\n" not in line and str(path) in line for line in refused)


IN_EVERY_RUN = ("all 0x80", "fifo", "sparse level 30", "a directory", "a symlink loop")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", [h if h in IN_EVERY_RUN else pytest.param(h, marks=pytest.mark.slow)
                                 for h in HOSTILE])
def test_solve_still_answers_right_beside_a_hostile_level(how, good, cache):
    make_hostile(how, good, cache)
    out = subprocess.run([sys.executable, "-m", "mancala", "solve", "--board", BOARD, "--json",
                          "--hash-mb", "4", "--threads", "1"],
                         capture_output=True, text=True, timeout=30, env={**os.environ})
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert (report["value"], report["exact"], report["endgame_seeds"]) == (TRUTH, True, SEEDS - 1)
    lines = [line for line in out.stderr.splitlines() if "refused" in line]
    assert len(lines) == ("30" not in how), out.stderr
    assert endgame.find("standard").max_seeds == SEEDS - 1    # the next process pays nothing


def test_ensure_rebuilds_over_a_forged_level(good, cache, caplog):
    make_hostile("all 0x80", good, cache)
    with caplog.at_level(logging.WARNING):
        db = endgame.ensure("standard", SEEDS)
    assert bytes(db.levels[SEEDS]) == bytes(good.levels[SEEDS])
    assert db.value(mancala.Board([int(x) for x in BOARD.split(",")])) == TRUTH
    assert any("refused" in r.getMessage() for r in caplog.records)
    assert (cache / "endgame-standard" / f"level-{SEEDS:02d}.bin.refused").exists()


def test_every_value_of_real_databases_fits_its_level():
    """The rule egdb_verify enforces (|v| <= n, v = n mod 2 for n seeds in the pits)
    holds for every position of every rule, checked here in Python."""
    for capture in mancala.CAPTURE_RULES:
        for n, values in enumerate(endgame.build(capture, 8).levels):
            assert _core.egdb_verify(values, n) == -1
            for v in values:
                v = v - 256 if v > 127 else v
                assert abs(v) <= n and (v - n) % 2 == 0, (capture, n, v)


def test_verify_names_the_first_bad_position(good):
    values = bytearray(good.levels[5])
    assert _core.egdb_verify(values, 5) == -1
    for index, byte in [(0, 2), (1, 6), (3, 7), (len(values) - 1, 0x80), (200, 0x7F)]:
        bad = bytearray(values)
        bad[index] = byte
        assert _core.egdb_verify(bad, 5) == index
        hashes, problem = _core.egdb_check_level(bad, 5)
        chunks = _core.egdb_chunks(5)
        assert problem == ("value", index) and chunks[len(hashes)][0] <= index < chunks[len(hashes)][1]
        assert hashes == _core.egdb_check_level(values, 5)[0][:len(hashes)]
        assert _core.egdb_verify(bad, 5, index + 1) == -1
        assert _core.egdb_verify(bad, 5, 0, index) == -1


def test_cached_seeds_counts_the_levels_on_disk_from_0_up(tmp_path):
    assert endgame.cached_seeds("standard", tmp_path) == 0          # no folder
    endgame.ensure("standard", 6, root=tmp_path)
    assert endgame.cached_seeds("standard", tmp_path) == 6
    assert endgame.cached_seeds("empty", tmp_path) == 0
    files.level_path("standard", 4, tmp_path).unlink()
    (files.rule_dir("standard", tmp_path) / "level-09.bin.refused").write_bytes(b"")
    assert endgame.cached_seeds("standard", tmp_path) == 3          # 5 and 6 wait for 4
    assert endgame.find("standard", tmp_path).max_seeds == 3        # as find sees it


def test_ensure_checks_each_level_once(tmp_path, monkeypatch):
    # checking is most of opening a large database: ensure opened every level twice before
    endgame.ensure("standard", 6, root=tmp_path)
    files.level_path("standard", 6, tmp_path).unlink()
    checked = []
    real = _core.egdb_check_level

    def counted(values, n, *args, **kwargs):
        checked.append(n)
        return real(values, n, *args, **kwargs)

    monkeypatch.setattr(_core, "egdb_check_level", counted)
    db = endgame.ensure("standard", 6, root=tmp_path)
    assert sorted(checked) == [0, 1, 2, 3, 4, 5, 6, 6]     # level 6 built (checked), then opened
    assert [bytes(level) for level in db.levels] == \
        [bytes(level) for level in endgame.build("standard", 6).levels]      # built in memory


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_a_level_checked_on_threads_reports_its_first_problem_in_order(threads):
    # level 18 (44 chunks of at most 2^20 values) all zeros: a value every position of 18 seeds can have
    values = bytearray(_core.egdb_level_size(18))
    chunks = _core.egdb_chunks(18)
    assert len(chunks) == 44
    whole = _core.egdb_chunk_hashes(values)
    assert _core.egdb_check_level(values, 18, whole, threads) == (whole, None)
    # a chunk that does not match the file's hash (5), bad values after it (9, 30)
    told = list(whole)
    told[5] ^= 1
    bad = bytearray(values)
    bad[chunks[9][0] + 17] = 1          # odd: no position of 18 seeds is worth that
    bad[chunks[30][0]] = 40             # more than 18
    assert _core.egdb_check_level(bad, 18, told, threads) == (whole[:5], ("chunk", 5))
    assert _core.egdb_check_level(bad, 18, None, threads) == (whole[:9], ("value", chunks[9][0] + 17))
    bad[chunks[9][0] + 17] = 0
    assert _core.egdb_check_level(bad, 18, None, threads) == (whole[:30], ("value", chunks[30][0]))
    bad[len(bad) - 1] = 0x81            # -127, the last value of the last chunk
    assert _core.egdb_check_level(bad, 18, whole, threads) == (whole[:30], ("value", chunks[30][0]))


@pytest.mark.parametrize("threads", [0, 65, True, 2.0])
def test_a_check_takes_1_to_64_threads(threads):
    with pytest.raises(InvalidLimitError, match="threads is 1 to 64"):
        _core.egdb_check_level(bytearray(_core.egdb_level_size(3)), 3, None, threads)


# -- a level changed while a process uses it --------------------------------------------

SOLVER = """
import sys, time, mancala
from mancala import endgame
db = endgame.find("standard")
print("mapped", db.max_seeds, flush=True)
sys.stdin.readline()          # the test changes the files now
engine = mancala.Engine(hash_mb=16, threads=1, endgame=db)
result = engine.solve(mancala.Board(seeds=2))
print("value", result.score, result.exact, flush=True)
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how", ["truncated", "emptied", "rewritten in place", "replaced"])
def test_a_level_changed_under_a_running_process_never_kills_it(how, cache):
    """A mapped file that shrinks would end the process with SIGBUS: here the
    lost pages read as zeros, the engine notices, says so in one line, drops the
    database and solves again -- the right value, exit status 0. A file
    replaced by a rename is harmless (the mapping keeps the old one)."""
    endgame.ensure("standard", 14, threads=2)
    truth = mancala.Engine(hash_mb=16, endgame=None).solve(mancala.Board(seeds=2)).score
    child = subprocess.Popen([sys.executable, "-c", SOLVER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().split() == ["mapped", "14"]
        for n in (12, 13, 14):
            path = files.level_path("standard", n)
            if how == "truncated":
                os.truncate(path, files.PAGE + 1000)
            elif how == "emptied":
                os.truncate(path, 0)
            elif how == "rewritten in place":
                with open(path, "r+b") as f:
                    f.seek(files.PAGE)
                    f.write(b"\x7f" * 5000)
            else:
                tmp = path.with_name("new.tmp")
                tmp.write_bytes(path.read_bytes())
                os.replace(tmp, path)
        out, err = child.communicate("go\n", timeout=100)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, (child.returncode, err[-500:])   # -7 would be SIGBUS
    assert out.split()[-3:] == ["value", str(truth), "True"]
    lines = err.splitlines()
    if how == "replaced":
        assert lines == []
    else:
        assert len(lines) == 1 and "refused" in lines[0] and "goes on without" in lines[0], err
        assert "shrank" in lines[0] if how != "rewritten in place" else "changed" in lines[0]


def test_a_mapping_survives_its_file_truncated_to_nothing(good, cache):
    """The guard on its own: a level read after its file is gone gives zeros and
    says it is damaged; the process lives (no faulthandler, no SIGBUS)."""
    endgame.save(good)
    script = f"""
import os
from mancala.endgame import files
from mancala.errors import InvalidLimitError
level = files.open_level("standard", {SEEDS})
os.truncate(level.path, 0)
view = memoryview(level.values)
total = sum(view[i] for i in range(0, len(view), 4096))
print(total, level.values.damaged, level.intact() is not None)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, (out.returncode, out.stderr[-300:])
    assert out.stdout.split() == ["0", "True", "True"]


def test_a_sigbus_that_is_not_ours_still_ends_the_process(tmp_path):
    """The guard covers its own mappings only: another mapping's lost page is
    the SIGBUS it always was."""
    script = f"""
import mmap, os
from mancala import _core
path = {str(tmp_path / 'other.bin')!r}
with open(path, "wb") as f:
    f.write(bytes(8192))
fd = os.open(path, os.O_RDONLY)
guarded = _core.MappedLevel(fd, 4096, 4096)      # installs the handler
other = mmap.mmap(fd, 8192, access=mmap.ACCESS_READ)
os.truncate(path, 0)
print(other[5000])
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == -signal.SIGBUS, (out.returncode, out.stderr[-300:])


# -- builds that stop, files of killed writers, old formats ------------------------------

def test_a_build_killed_mid_level_resumes_there_and_builds_nothing_twice(cache):
    """kill -9 during level 17: levels 0..16 stay as they were written, the
    next build makes 17 and 18 only, and the bytes are a fresh build's."""
    command = [sys.executable, "-m", "mancala", "endgame", "build", "--seeds", "18", "--threads", "2"]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = files.level_path("standard", 16)
    deadline = time.monotonic() + 120
    while not done.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.communicate()
    assert done.exists() and not files.level_path("standard", 18).exists()
    before = {n: os.stat(files.level_path("standard", n)) for n in range(17)
              if files.level_path("standard", n).exists()}
    assert sorted(before) == list(range(17))
    second = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    built = [line for line in second.stderr.splitlines() if line.startswith("built")]
    assert built and built[0].startswith("built levels 17..18"), second.stderr
    after = {n: os.stat(files.level_path("standard", n)) for n in range(17)}
    assert {n: (s.st_ino, s.st_mtime_ns) for n, s in after.items()} == \
        {n: (s.st_ino, s.st_mtime_ns) for n, s in before.items()}
    assert not [name for name in os.listdir(cache / "endgame-standard") if name.endswith(".tmp")]
    fresh = endgame.build("standard", 18, threads=2)
    db = endgame.load("standard", 18)
    assert all(bytes(db.levels[n]) == bytes(fresh.levels[n]) for n in (0, 9, 16, 17, 18))


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
    folder = cache / "endgame-standard"
    folder.mkdir()
    names = {
        f"level-08.bin.{dead}.abc123.tmp": False,              # writer gone
        f"level-08.bin.{os.getpid()}.def456.tmp": True,        # writer alive, fresh
        f"level-09.bin.{os.getpid()}.mno345.tmp": False,       # alive but two hours old
        "notes.tmp": True,                                     # not ours
    }
    old = time.time() - 7200
    for name in names:
        (folder / name).write_bytes(b"x" * 100)
        if "mno" in name:
            os.utime(folder / name, (old, old))
    assert endgame.find("standard") is None
    assert {name: (folder / name).exists() for name in names} == names


def test_a_level_is_written_under_a_temporary_name_of_its_writer(good, cache, monkeypatch):
    seen = []
    real = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    endgame.save(good)
    levels = [name for name in seen if ".bin." in name]
    assert len(levels) == SEEDS + 1 and levels[0].startswith(f"level-00.bin.{os.getpid()}.")
    assert all(files.TEMP_NAME.fullmatch(name) for name in seen)
    # each level's seal is in place before the level: no reader meets a level without it
    assert [name.split(".")[:2] for name in seen] == \
        [[f"level-{n:02d}", kind] for n in range(SEEDS + 1) for kind in ("seal", "bin")]


def legacy_file(path, levels, seeds, capture_code=0, checksum=None):
    """A single-file database of format 1, written here by hand: header, then every level."""
    values = b"".join(bytes(level) for level in levels[:seeds + 1])
    header = legacy.LEGACY_HEADER.pack(legacy.LEGACY_MAGIC, legacy.LEGACY_VERSION, capture_code,
                                       seeds, len(values),
                                       _core.egdb_fnv(values) if checksum is None else checksum)
    path.write_bytes(header + values)


def test_a_single_file_database_of_format_1_is_split_into_levels_once(good, cache, caplog):
    legacy_file(cache / f"endgame-standard-{SEEDS}.bin", good.levels, SEEDS)
    with caplog.at_level(logging.WARNING):
        assert endgame.find("standard") is None
        assert endgame.find("standard") is None
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 3 and "converted" in said[0] and f"endgame-standard-{SEEDS}.bin" in said[0]
    # nothing says where an old file came from: its levels wait for a deep check, then serve
    assert all(f"left out levels 0..{SEEDS}" in line and "not sealed" in line for line in said[1:])
    assert not (cache / f"endgame-standard-{SEEDS}.bin").exists()
    assert all(verdict.sealed for verdict in deep_verify("standard", SEEDS))
    db = endgame.find("standard")
    assert db.max_seeds == SEEDS
    assert [bytes(level) for level in db.levels] == [bytes(level) for level in good.levels]


def test_a_corrupt_file_of_format_1_is_refused_and_converts_nothing(good, cache, caplog):
    legacy_file(cache / f"endgame-standard-{SEEDS}.bin", good.levels, SEEDS, checksum=1)
    with caplog.at_level(logging.WARNING):
        assert endgame.find("standard") is None
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "refused" in said[0] and "checksum" in said[0]
    assert not (cache / "endgame-standard").exists() or not os.listdir(cache / "endgame-standard")
    assert (cache / f"endgame-standard-{SEEDS}.bin.refused").exists()
