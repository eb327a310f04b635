"""Endgame levels are used only under this installation's seal (issue 38 item 2).

The attack as a user met it: a 16-seed database whose levels 1..16 were
negated, their chunk hashes and checksums recomputed with the project's own
functions, made ``solve --board 1,0,0,2,0,1,20,0,1,0,0,3,0,20 --endgame 16``
print 6 (the true value is +4: worked in the issue), exit 0; plain ``endgame
verify`` said ok, and ``--deep`` named the level but left it for the next
solve. Now a level this installation neither built nor found right by a deep
check is refused with one line naming the commands that check or rebuild it;
a level the deep check finds wrong is set aside for good; a level copied from
another installation (another key) is used once it was deep-checked here.
"""
import json
import logging
import os
import shutil
import subprocess
import sys

import pytest

from mancala import _core, endgame, seal
from mancala.endgame import files, sealing
from mancala.endgame.building import build_levels
from mancala.endgame.verifying import deep_verify
from mancala.errors import EndgameUntrustedError

#        12 11 10  9  8  7
#  [20]   0  3  0  0  1  0  [20]
#         1  0  0  2  0  1            South to move, 8 seeds in the pits: +4 with perfect play
BOARD, TRUTH, FORGED_ANSWER = "1,0,0,2,0,1,20,0,1,0,0,3,0,20", 4, 6
SEEDS = 16
VERIFY = f"python -m mancala endgame verify --deep --seeds {SEEDS} --capture standard"
BUILD = f"python -m mancala endgame build --seeds {SEEDS}"
NEGATED = bytes((-(b - 256 if b > 127 else b)) & 0xFF for b in range(256))


def run(args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def solve(env, *more):
    return run(["solve", "--board", BOARD, "--json", "--threads", "1", "--hash-mb", "16", *more], env)


def forge(cache, n):
    """Level n negated, its chunk hashes and header recomputed with the project's
    own functions, written over the file in place (its seal file left beside it:
    the forger's best case)."""
    path = files.level_path("standard", n, cache)
    values = path.read_bytes()[files.values_offset(n):].translate(NEGATED)
    path.write_bytes(files.header("standard", n, _core.egdb_chunk_hashes(values)) + values)


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.timeout(300)
def test_a_consistently_forged_database_is_refused_set_aside_and_built_again(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, MANCALA_CACHE=str(cache))
    built = run(["endgame", "build", "--seeds", str(SEEDS), "--threads", "2"], env)
    assert built.returncode == 0, built.stderr
    honest = solve(env, "--endgame", str(SEEDS))
    assert honest.returncode == 0 and json.loads(honest.stdout)["value"] == TRUTH, honest.stderr
    for n in range(1, SEEDS + 1):
        forge(cache, n)

    # was: "value": 6, exit 0
    forged = solve(env, "--endgame", str(SEEDS))
    assert forged.returncode != 0 and forged.stdout == ""
    line = one_line(forged.stderr)
    assert f"levels 1..{SEEDS} of the standard database" in line and "not sealed" in line
    assert f"`{VERIFY}`" in line and f"`{BUILD}`" in line

    # was: every level "ok", exit 0
    plain = run(["endgame", "verify", "--capture", "standard"], env)
    assert plain.returncode == 1
    lines = plain.stdout.splitlines()
    assert lines[0].split() == ["standard", "level", "0", "ok"]
    assert [line.split()[:4] for line in lines[1:]] == \
        [["standard", "level", str(n), "NOT"] for n in range(1, SEEDS + 1)]
    assert all(VERIFY in line for line in lines[1:])

    # was: DIFFERS, and the level left where the next solve read it
    deep = run(["endgame", "verify", "--deep", "--capture", "standard", "--threads", "2"], env)
    assert deep.returncode == 1
    lines = deep.stdout.splitlines()
    assert "ok, rebuilt and identical" in lines[0] and "sealed" in lines[0]
    assert lines[1].startswith("standard  level  1  DIFFERS") and "renamed to level-01.bin.refused" \
        in lines[1] and f"`{BUILD}`" in lines[1]
    folder = files.rule_dir("standard", cache)
    assert (folder / "level-01.bin.refused").exists() and not (folder / "level-01.bin").exists()

    again = solve(env, "--endgame", str(SEEDS))
    assert again.returncode != 0 and f"levels 2..{SEEDS}" in one_line(again.stderr)
    auto = solve(env)                           # the largest database cached: level 0 alone now
    assert auto.returncode == 0, auto.stderr
    assert (json.loads(auto.stdout)["value"], json.loads(auto.stdout)["exact"]) == (TRUTH, True)

    rebuilt = run(["endgame", "build", "--seeds", str(SEEDS), "--threads", "2"], env)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert f"levels 2..{SEEDS} of the standard database" in rebuilt.stderr
    assert "building them again" in rebuilt.stderr
    answer = solve(env, "--endgame", str(SEEDS))
    assert answer.returncode == 0, answer.stderr
    assert (json.loads(answer.stdout)["value"], json.loads(answer.stdout)["endgame_seeds"]) == \
        (TRUTH, SEEDS)
    assert FORGED_ANSWER != TRUTH


@pytest.mark.timeout(300)
def test_a_database_copied_from_another_installation_is_used_once_deep_checked_here(tmp_path):
    there = dict(os.environ, MANCALA_CACHE=str(tmp_path / "there"), MANCALA_HOME=str(tmp_path / "other"))
    built = run(["endgame", "build", "--seeds", str(SEEDS), "--threads", "2"], there)
    assert built.returncode == 0, built.stderr
    shutil.copytree(tmp_path / "there", tmp_path / "here")          # its seal files too
    here = dict(os.environ, MANCALA_CACHE=str(tmp_path / "here"))   # this installation's key

    asked = solve(here, "--endgame", str(SEEDS))
    assert asked.returncode != 0 and asked.stdout == ""
    line = one_line(asked.stderr)
    assert "sealed by another installation" in line and f"`{VERIFY}`" in line
    auto = solve(here)
    assert auto.returncode == 0
    report = json.loads(auto.stdout)
    assert (report["value"], report["exact"], report["endgame_seeds"]) == (TRUTH, True, None)
    warned = [line for line in auto.stderr.splitlines() if "left out" in line]
    assert len(warned) == 1 and f"left out levels 0..{SEEDS}" in warned[0] and VERIFY in warned[0]

    checked = run(["endgame", "verify", "--deep", "--capture", "standard", "--threads", "2"], here)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert len(checked.stdout.splitlines()) == SEEDS + 1
    assert all(line.endswith("; sealed") for line in checked.stdout.splitlines())
    assert run(["endgame", "verify"], here).returncode == 0
    answer = solve(here, "--endgame", str(SEEDS))
    assert answer.returncode == 0 and "left out" not in answer.stderr
    assert (json.loads(answer.stdout)["value"], json.loads(answer.stdout)["endgame_seeds"]) == \
        (TRUTH, SEEDS)


# -- values changed under the same chunk hashes ------------------------------------------

MASK, PRIME = (1 << 64) - 1, 0x100000001B3
LANE_STARTS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB)   # csrc/egdb.h


def same_hash_change(values, n):
    """Two bytes of level n's first chunk to change, each to a value its position
    can have, that leave the chunk's hash as it was (egdb_chunk_hash: four lanes,
    ``lane = (lane ^ word) * prime``). A word's top byte changes only the top
    byte of its lane's state (the low bits of a product depend on the low bits
    alone), and the top byte of the lane's next word makes up for it by xor."""
    start, stop = _core.egdb_chunks(n)[0]
    allowed = {v & 0xFF for v in range(-n, n + 1, 2)}
    for k, lane in enumerate(LANE_STARTS + (stop - start,)):
        for j in range((stop - start) // 32 - 1):
            at = start + 32 * j + 8 * k
            word = int.from_bytes(values[at:at + 8], "little")
            after = ((lane ^ word) * PRIME) & MASK
            for byte in sorted(allowed - {values[at + 7]}):
                other = ((lane ^ (word & ((1 << 56) - 1) | byte << 56)) * PRIME) & MASK
                assert (after ^ other) & ((1 << 56) - 1) == 0
                fix = values[at + 32 + 7] ^ ((after ^ other) >> 56)
                if fix in allowed:
                    return {at + 7: byte, at + 32 + 7: fix}
            lane = after
    raise AssertionError("no such change in the first chunk")


def test_values_changed_under_the_same_chunk_hashes_are_not_trusted(tmp_path):
    """Why the seal binds the values by a strong hash and the file, not by the
    header's chunk hashes: those are quick, not strong."""
    cache = tmp_path / "cache"
    endgame.ensure("standard", 10, root=cache)
    path = files.level_path("standard", 10, cache)
    data = bytearray(path.read_bytes())
    head, values = bytes(data[:files.values_offset(10)]), data[files.values_offset(10):]
    honest = bytes(values)
    for index, byte in same_hash_change(values, 10).items():
        values[index] = byte
    assert bytes(values) != honest and _core.egdb_verify(values, 10) == -1
    assert _core.egdb_chunk_hashes(values) == _core.egdb_chunk_hashes(honest)   # the same header
    path.write_bytes(head + bytes(values))
    with pytest.raises(EndgameUntrustedError, match="changed since it was sealed"):
        endgame.load("standard", 10, cache)
    assert endgame.find("standard", cache).max_seeds == 9
    verdicts = deep_verify("standard", 10, cache)
    assert [v.ok for v in verdicts] == [True] * 10 + [False] and not path.exists()


# -- the seal file: moved with its level, or hostile -------------------------------------

def test_a_database_moved_with_its_seals_is_hashed_once_and_sealed_anew(tmp_path, monkeypatch, caplog):
    endgame.ensure("standard", 6, root=tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")                 # new inodes: the file tags fail
    before = {n: json.loads(files.seal_path(files.level_path("standard", n, tmp_path / "b")).read_text())
              for n in range(7)}
    hashed = []
    real = sealing.values_digest
    monkeypatch.setattr(sealing, "values_digest", lambda values, *a: hashed.append(1) or real(values, *a))
    with caplog.at_level(logging.WARNING):
        assert endgame.find("standard", tmp_path / "b").max_seeds == 6
        assert len(hashed) == 7
        assert endgame.find("standard", tmp_path / "b").max_seeds == 6
    assert len(hashed) == 7 and not caplog.records                  # the second time: the file tags
    after = {n: json.loads(files.seal_path(files.level_path("standard", n, tmp_path / "b")).read_text())
             for n in range(7)}
    assert all(after[n]["values"] == before[n]["values"] for n in range(7))
    assert all(after[n]["file"] != before[n]["file"] for n in range(7))


HOSTILE_SEALS = ["a fifo", "a directory", "a link to /dev/zero", "huge", "not json", "a list",
                 "another key's"]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("how", HOSTILE_SEALS)
def test_a_hostile_seal_file_leaves_its_level_out_and_a_build_replaces_it(tmp_path, how, caplog):
    endgame.ensure("standard", 4, root=tmp_path)
    level = files.level_path("standard", 3, tmp_path)
    seal = files.seal_path(level)
    record = json.loads(seal.read_text())
    seal.unlink()
    if how == "a fifo":
        os.mkfifo(seal)
    elif how == "a directory":
        seal.mkdir()
    elif how == "a link to /dev/zero":
        seal.symlink_to("/dev/zero")
    elif how == "huge":
        with open(seal, "wb") as f:
            f.truncate(1 << 30)
    elif how == "not json":
        seal.write_text("{\"format\": 1, ")
    elif how == "a list":
        seal.write_text(json.dumps([record]))
    else:
        seal.write_text(json.dumps(dict(record, key="0123456789abcdef")))
    with caplog.at_level(logging.WARNING):
        assert endgame.find("standard", tmp_path).max_seeds == 2
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "left out levels 3..4" in said[0] and "\n" not in said[0]
    with pytest.raises(EndgameUntrustedError):
        files.open_level("standard", 3, tmp_path)
    assert build_levels("standard", 4, root=tmp_path) == [3]
    assert endgame.load("standard", 4, tmp_path).max_seeds == 4
    assert seal.is_file() and not seal.is_symlink()


def test_a_level_made_by_a_maker_that_does_not_seal_is_sealed_by_the_build(tmp_path):
    """A maker that writes the level and renames it into place unsealed (the
    cluster's did, till it sealed before its rename): the build that asked for
    it seals it, so the levels it made are used like those built here."""
    made = []

    def unsealing(capture, n, below, root, report):
        values = endgame.build(capture, n).levels[n]
        files.write_level(files.level_path(capture, n, root), capture, n, values,
                          _core.egdb_check_level(values, n)[0], sealed=False)
        made.append(n)

    assert build_levels("standard", 5, root=tmp_path, maker=unsealing) == made == list(range(6))
    assert all(files.seal_path(files.level_path("standard", n, tmp_path)).is_file() for n in range(6))
    assert endgame.load("standard", 5, tmp_path).max_seeds == 5


def test_a_worker_with_another_key_opens_the_levels_vouched_for_and_no_others(tmp_path, monkeypatch):
    """A cluster worker on another machine holds another key: the process that
    found the levels sealed hands it their digests, and it opens those levels."""
    checked = endgame.load("standard", 5, endgame.save(endgame.build("standard", 5), tmp_path).parent)
    vouched = [level.digest for level in checked.files]
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "another machine"))
    with pytest.raises(EndgameUntrustedError, match="this one has no key yet"):
        endgame.load("standard", 5, tmp_path)
    assert endgame.load("standard", 5, tmp_path, vouched=vouched).max_seeds == 5
    forge(tmp_path, 4)
    with pytest.raises(EndgameUntrustedError, match="level-04.bin: not the level that was checked"):
        endgame.load("standard", 5, tmp_path, vouched=vouched)


def test_a_level_the_cluster_renames_into_place_carries_its_seal_already(tmp_path, monkeypatch):
    """A cluster build's driver renames the level its workers wrote into place;
    its seal must be there first, or a process opening the level in between (a
    solve, ``endgame verify``, the web server's find) meets it unsealed and
    leaves it out, and a driver killed in between leaves it to be built again."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    from mancala.cluster import connect
    from mancala.cluster.build import ClusterLevels

    top = 8
    cache = tmp_path / "cache"
    env = dict(os.environ)
    build_levels("standard", top - 1, root=cache)            # the levels below, built (and sealed) here
    short = os.path.join("/tmp", f"kr{os.getpid()}")          # Ray's socket paths must stay short
    os.makedirs(short, exist_ok=True)
    for key, value in {"RAY_AUTH_MODE": "disabled", "TMPDIR": short, "RAY_TMPDIR": short}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    target = files.level_path("standard", top, cache)
    seen = []
    real_replace = os.replace

    def replace(source, destination, *args, **kwargs):
        if os.fspath(destination) == os.fspath(target):     # the level appears: is its seal there?
            record = sealing.read_seal(target)
            seen.append(record is not None and _seal_names(record, source))
        return real_replace(source, destination, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    try:
        with connect("local:1") as cpus:
            ClusterLevels(cpus, top=top)("standard", top, [], cache, lambda done, total: None)
    finally:
        monkeypatch.setattr(os, "replace", real_replace)
        shutil.rmtree(short, ignore_errors=True)
    assert seen == [True]
    done = run(["endgame", "verify", "--cache", str(cache)], env)
    assert done.returncode == 0 and "NOT TRUSTED" not in done.stdout, done.stdout + done.stderr
    assert bytes(endgame.load("standard", top, cache).levels[top]) == \
        bytes(endgame.build("standard", top).levels[top])           # the local build's values


def _seal_names(record, path):
    """Whether a seal record's file tag names the file at path (its header and identity)."""
    with open(path, "rb") as f:
        head = f.read(files.values_offset(int(record["level"])))
    return seal.holds(record["file"], sealing.SEAL_PURPOSE, b"file", head, sealing.identity(os.stat(path)))
