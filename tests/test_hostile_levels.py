"""Hostile endgame levels, as a user meets them: a level forged with its
checksums recomputed (every value negated, or one byte changed) passes the
plain checks of the file but not its seal, so the plain ``endgame verify``
calls it not trusted, and ``endgame verify --deep``, which builds each level
again from the levels below it and compares, names the first position that
differs and sets the level aside (issue 31: the databases a proof stands on
need the same checks as its journal; issue 38: and a level found wrong is
never used again)."""
import json
import os
import subprocess
import sys

import pytest


def run(args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def forge_negated(cache, capture, n):
    """Level n of a rule's database with every value negated and its chunk hashes
    and checksum recomputed, as a forger who knows the format (but not this
    installation's key) would write it."""
    from mancala import _core
    from mancala.endgame import files
    level = files.open_level(capture, n, cache)
    values = bytearray((-v) & 0xFF for v in memoryview(level.values).cast("b"))
    level.close()
    hashes, problem = _core.egdb_check_level(values, n)
    assert problem is None                  # -v is a value of the level whenever v is
    files.write_level(files.level_path(capture, n, cache), capture, n, values, hashes, sealed=False)
    return files.level_path(capture, n, cache)


@pytest.mark.parametrize("capture, forged, top", [("standard", 10, 10), ("empty", 7, 10)])
def test_deep_verify_catches_a_negated_level_that_passes_the_plain_checks(tmp_path, capture, forged,
                                                                         top):
    from mancala import _reference, endgame
    cache = tmp_path / "cache"
    endgame.ensure(capture, top, root=cache)
    path = forge_negated(cache, capture, forged)
    before = path.read_bytes()
    env = dict(os.environ, MANCALA_CACHE=str(cache))
    plain = run(["endgame", "verify", "--capture", capture], env)
    assert plain.returncode == 1 and f"level {forged:2d}  NOT TRUSTED" in plain.stdout, plain.stdout
    assert plain.stdout.count("NOT TRUSTED") == 1 and plain.stdout.count("  ok") == top
    deep = run(["endgame", "verify", "--capture", capture, "--deep", "--threads", "2", "--json"], env)
    assert deep.returncode == 1, deep.stderr
    verdicts = json.loads(deep.stdout)
    assert [v["ok"] for v in verdicts] == [True] * forged + [False] * (top + 1 - forged)
    bad = verdicts[forged]
    assert bad["error"] is None and bad["file_value"] == -bad["value"] != 0
    # the position named, and its value, by the pure-Python twin's full-depth search
    mover, other = bad["position"][:6], bad["position"][6:]
    assert sum(bad["position"]) == forged
    assert _reference.alphabeta(mover + [0] + other + [0], 0, 200, capture)[0] == bad["value"]
    assert all(v["error"].startswith(f"not checked: built from level {forged}")
               for v in verdicts[forged + 1:])
    assert bad["set_aside"] == f"renamed to {path.name}.refused" and not path.exists()
    assert path.with_name(path.name + ".refused").read_bytes() == before     # set aside as it was
    path.with_name(path.name + ".refused").rename(path)
    text = run(["endgame", "verify", "--capture", capture, "--deep"], env)
    assert text.returncode == 1 and f"level {forged:2d}  DIFFERS: position {bad['index']:,}" in text.stdout
    assert "set aside" in text.stdout and "endgame build --seeds" in text.stdout


def test_deep_verify_passes_an_honest_database(tmp_path):
    from mancala import endgame
    cache = tmp_path / "cache"
    endgame.ensure("none", 11, root=cache)
    done = run(["endgame", "verify", "--deep", "--threads", "2"], dict(os.environ, MANCALA_CACHE=str(cache)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:3] for line in done.stdout.splitlines()] == \
        [["none", "level", str(n)] for n in range(12)]
    assert all("ok, rebuilt and identical" in line for line in done.stdout.splitlines())


@pytest.mark.parametrize("memory", [1, 1 << 30], ids=["a class at a time", "whole level"])
def test_deep_verify_names_the_one_byte_changed(tmp_path, memory):
    """One value changed by 2 (still in range, of the right parity) and the
    hashes recomputed: the rank named is that one, however the level is cut."""
    from mancala import _core, endgame
    from mancala.endgame import files
    from mancala.endgame.verifying import deep_verify
    cache = tmp_path / "cache"
    endgame.ensure("standard", 9, root=cache)
    level = files.open_level("standard", 9, cache)
    values = bytearray(level.values)
    level.close()
    rank = 4321
    signed = values[rank] - 256 if values[rank] > 127 else values[rank]
    forged = signed - 2 if signed > -7 else signed + 2
    values[rank] = forged & 0xFF
    files.write_level(files.level_path("standard", 9, cache), "standard", 9, values,
                      _core.egdb_check_level(values, 9)[0])
    verdicts = deep_verify("standard", 9, cache, threads=2, memory=memory)
    assert [v.ok for v in verdicts] == [True] * 9 + [False]
    assert (verdicts[9].index, verdicts[9].file_value, verdicts[9].value) == (rank, forged, signed)
    position = verdicts[9].position
    assert _core.egdb_rank_of(position[:6] + [0] + position[6:] + [0], 0) == (9, rank)
