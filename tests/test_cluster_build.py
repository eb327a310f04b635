"""Endgame levels built on a Ray cluster (the extra ``cluster``) are the local
build's bytes, on any number of workers and nodes; an address that cannot be
used, or a missing extra, is one line. The cluster's tests skip without Ray."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from mancala.endgame import building, files

SEEDS = 10          # levels 0..10: 646,646 positions, built in well under a second


def run(args, env=None, timeout=240):
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.fixture
def quiet_env():
    """Ray kept to this test: no token under the home folder, its files in a
    short folder of the test's (Ray's socket paths must stay under 107
    characters), and no cluster found by accident."""
    folder = tempfile.mkdtemp(prefix="kr", dir="/tmp")
    env = dict(os.environ, RAY_AUTH_MODE="disabled", TMPDIR=folder, RAY_TMPDIR=folder)
    env.pop("RAY_ADDRESS", None)
    yield env
    shutil.rmtree(folder, ignore_errors=True)


def level_bytes(root, capture="standard", top=SEEDS):
    return [files.level_path(capture, n, root).read_bytes() for n in range(top + 1)]


@pytest.fixture(scope="module")
def local_levels(tmp_path_factory):
    """The levels as the plain local build writes them: the reference."""
    root = tmp_path_factory.mktemp("local")
    building.build_levels("standard", SEEDS, root=root, threads=1)
    return level_bytes(root)


def one_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


def test_cluster_without_the_extra_names_it_in_one_line(tmp_path):
    code = ("import sys; sys.modules['ray'] = None\n"        # import ray fails, as without the extra
            "from mancala.cli import main\n"
            f"sys.exit(main(['endgame', 'build', '--seeds', '4', '--cluster', 'local:1',"
            f" '--cache', {str(tmp_path)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "pip install 'kalah[cluster]'" in one_line(done.stderr)
    assert not files.levels_on_disk("standard", tmp_path)        # nothing written


@pytest.mark.parametrize("address", ["lcoal", "local:0", "ray://host", "http://10.0.0.1:6379", "local:two"])
def test_a_malformed_address_is_one_line(tmp_path, address):
    done = run(["endgame", "build", "--seeds", "4", "--cluster", address, "--cache", str(tmp_path)])
    assert done.returncode != 0
    line = one_line(done.stderr)
    assert "local" in line and "ray://HOST:PORT" in line or "CPUs" in line, line


@pytest.mark.parametrize("command", [["endgame", "build", "--seeds", "4", "--cache", "{cache}"],
                                     ["solve", "--seeds", "3", "--endgame", "4"],
                                     ["arena", "random", "random", "--games", "2"]],
                         ids=["build", "solve", "arena"])
@pytest.mark.parametrize("address, says", [
    ("", "--cluster is local, local:N, auto or ray://HOST:PORT, not ''"),
    ("local:2\n", "--cluster is local, local:N, auto or ray://HOST:PORT, not 'local:2\\n'"),
    (" auto", "--cluster is local, local:N, auto or ray://HOST:PORT, not ' auto'"),
    ("ray://127.0.0.1:99999", "a port is 1 to 65535, not 99999 (in 'ray://127.0.0.1:99999')"),
    ("ray://127.0.0.1:0", "a port is 1 to 65535, not 0 (in 'ray://127.0.0.1:0')"),
])
def test_an_address_as_typed_is_refused_before_any_work(tmp_path, command, address, says):
    """Before: '' (falsy) ran the command on this machine, 'local:2\\n' was stripped
    and run, and port 99999 waited 30 s for Ray to give up. Nothing is built,
    solved or played: the line comes first."""
    args = [arg.replace("{cache}", str(tmp_path)) for arg in command]
    done = run([*args, "--cluster", address], env=dict(os.environ, MANCALA_CACHE=str(tmp_path)))
    assert done.returncode == 2
    assert one_line(done.stderr) == f"mancala: {says}"
    assert done.stdout == ""
    assert not files.levels_on_disk("standard", tmp_path)


def test_a_cache_that_cannot_hold_a_build_is_one_line_naming_its_path(tmp_path):
    """Before: '[Errno 21] Is a directory: ...' and '[Errno 17] File exists: ...'."""
    lock = files.rule_dir("standard", tmp_path / "a") / ".build.lock"
    lock.mkdir(parents=True)
    done = run(["endgame", "build", "--seeds", "4", "--cache", str(tmp_path / "a")])
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"mancala: cannot build the standard database: {lock} is a "
                                     f"folder, not a file")
    rule = files.rule_dir("standard", tmp_path / "b")
    rule.parent.mkdir(parents=True)
    rule.write_bytes(b"")
    done = run(["endgame", "build", "--seeds", "4", "--cache", str(tmp_path / "b")])
    assert done.returncode == 2
    assert one_line(done.stderr) == (f"mancala: cannot build the standard database: {rule} is a "
                                     f"file, not a folder")
    assert rule.read_bytes() == b""


def test_a_full_disk_in_a_build_is_one_line_naming_the_folder(tmp_path, monkeypatch, capsys):
    """Before: '[Errno 28] No space left on device', no path (a write's error
    names no file). Seen with a real tmpfs filled mid-build (local and on
    local:2); here the build's write is made to fail that way."""
    import errno
    from mancala.cli import endgame as command, main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(command, "build_levels", full)
    with pytest.raises(SystemExit) as stop:
        main(["endgame", "build", "--seeds", "4", "--cache", str(tmp_path)])
    assert stop.value.code == 2
    folder = files.rule_dir("standard", tmp_path)
    assert one_line(capsys.readouterr().err) == (f"mancala: cannot build the standard database: "
                                                 f"no space left on device: {folder}")


def test_an_unreachable_cluster_is_one_line(tmp_path, quiet_env):
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    env = quiet_env
    # port 9 refuses everywhere; "auto" is left out: it joins any Ray runtime running on
    # this machine, and one may start between a look and the build (another session's
    # local:2 did, and the build ran on it)
    for address in ["ray://127.0.0.1:9", "ray://127.0.0.1:1"]:
        started = time.monotonic()
        done = run(["endgame", "build", "--seeds", "4", "--cluster", address,
                    "--cache", str(tmp_path / "cache")], env=env, timeout=180)
        assert done.returncode != 0, done
        assert "cannot reach the Ray cluster at " + address in one_line(done.stderr)
        assert time.monotonic() - started < 150              # gives up by itself
    assert not files.levels_on_disk("standard", tmp_path / "cache")


NODE_TIMES_OUT = """
import sys, ray
def init(*args, **kwargs):      # as Ray says it when a node misses its 30 s start on a loaded machine
    raise Exception("The current node timed out during startup. This could happen because some "
                    "of the raylet failed to startup or the GCS has become overloaded.")
ray.init = init
from mancala.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("command", [["solve", "--seeds", "3", "--endgame", "0"],
                                     ["endgame", "build", "--seeds", "4"]])
def test_a_local_runtime_that_does_not_start_is_one_line(tmp_path, quiet_env, command):
    """Ray raises a bare Exception when its node misses its start time: one line, not a
    traceback (seen at load 23)."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    done = subprocess.run([sys.executable, "-c", NODE_TIMES_OUT, *command, "--cluster", "local:2",
                           "--cache", str(tmp_path / "cache")] if command[0] == "endgame" else
                          [sys.executable, "-c", NODE_TIMES_OUT, *command, "--cluster", "local:2"],
                          capture_output=True, text=True, timeout=120, env=quiet_env)
    assert done.returncode != 0
    assert one_line(done.stderr) == ("mancala: the local Ray runtime did not start: The current node "
                                     "timed out during startup. This could happen because some of "
                                     "the raylet failed to startup or the GCS has become overloaded.")


def test_a_build_on_a_local_runtime_as_typed_is_the_local_build(tmp_path, local_levels, quiet_env):
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    env = quiet_env
    cache = tmp_path / "cache"
    done = run(["endgame", "build", "--seeds", str(SEEDS), "--cluster", "local:2",
                "--cache", str(cache)], env=env)
    assert done.returncode == 0, done.stderr
    assert "building on the cluster at local:2 (2 CPUs)" in done.stderr
    assert level_bytes(cache) == local_levels                   # byte for byte, headers too
    assert run(["endgame", "verify", "--cache", str(cache)], env=env).returncode == 0
    assert os.listdir(env["TMPDIR"]) == []                      # the runtime's folder is gone


def test_a_build_over_several_nodes_is_the_local_build(tmp_path, local_levels, monkeypatch,
                                                      quiet_env):
    """Three Ray nodes on this machine (a head and two workers, one CPU each):
    every level's classes spread over them, the same bytes as one process."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    import ray
    from ray.cluster_utils import Cluster

    from mancala.cluster import connect
    from mancala.cluster.build import ClusterLevels

    for key, value in quiet_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, log_to_driver=False)
        with connect("auto") as cpus:                 # joined already: the driver's connection
            assert cpus == 3
            maker = ClusterLevels(cpus)
            built = building.build_levels("standard", SEEDS, root=tmp_path / "cache", maker=maker)
            nodes = set(ray.get([actor.node.remote() for actor in maker.actors]))
        assert built == list(range(SEEDS + 1))
        assert len(nodes) == 3                        # one worker on each node
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert level_bytes(tmp_path / "cache") == local_levels


def test_a_build_in_chains_and_batches_is_the_local_build(tmp_path, local_levels, monkeypatch,
                                                          quiet_env):
    """Levels cut fine (parallelism 64, tasks of 64 positions and up) on a real
    local:2 runtime: calls carry chains (a task sent before its needs were
    done, to the worker that had them) and batches (several tasks a call),
    and every level is the local build's bytes. Before chains, no task left
    the driver before its needs were done."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    from mancala.cluster import build_calls, build_plan, connect
    from mancala.cluster.build import ClusterLevels

    for key, value in quiet_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(build_plan, "MIN_TASK", 64)
    seen = {"calls": 0, "chained": 0, "batched": 0}
    made_by = build_calls.Calls.next

    def watched(calls):
        made = made_by(calls)
        if made is not None:
            seen["calls"] += 1
            seen["batched"] += len(made[1]) > 1
            seen["chained"] += sum(1 for task in made[1] if calls.waiting[task])
        return made

    monkeypatch.setattr(build_calls.Calls, "next", watched)
    with connect("local:2") as cpus:
        assert cpus == 2
        built = building.build_levels("standard", SEEDS, root=tmp_path / "cache",
                                      maker=ClusterLevels(cpus, parallelism=64, top=SEEDS))
    assert built == list(range(SEEDS + 1))
    assert seen["chained"] > 0 and seen["batched"] > 0, seen
    assert level_bytes(tmp_path / "cache") == local_levels


def test_a_killed_cluster_build_resumes_at_its_level(tmp_path, local_levels, quiet_env):
    """SIGKILL to the driver mid-build: the next build keeps every finished level
    (not rewritten: same inode and time) and makes the rest, the same bytes."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    env = quiet_env
    cache = tmp_path / "cache"
    top = 14                                           # level 14 alone: 4.3 M positions
    args = ["endgame", "build", "--cluster", "local:1", "--cache", str(cache)]
    driver = subprocess.Popen([sys.executable, "-m", "mancala", *args, "--seeds", str(top)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and driver.poll() is None:
            if len(files.levels_on_disk("standard", cache)) >= 12:
                break
            time.sleep(0.05)
        assert driver.poll() is None, driver.stderr.read()
        os.killpg(driver.pid, signal.SIGKILL)          # the driver and the runtime it started
    finally:
        driver.wait(30)
        driver.stderr.close()
    kept = {n: os.stat(files.level_path("standard", n, cache))
            for n in files.levels_on_disk("standard", cache)}
    assert len(kept) >= 12
    done = run([*args, "--seeds", str(top)], env=env)
    assert done.returncode == 0, done.stderr
    for n, before in kept.items():
        after = os.stat(files.level_path("standard", n, cache))
        assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), n
    assert level_bytes(cache, top=SEEDS) == local_levels
    assert run(["endgame", "verify", "--cache", str(cache)], env=env).returncode == 0
    leftovers = [p for p in files.rule_dir("standard", cache).iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_a_local_runtime_runs_its_workers_at_the_command_s_priority(tmp_path, quiet_env):
    """Ray nices its workers to 15 by default: on a shared machine a cluster
    solve then ran at a fraction of the speed of the same solve on one machine."""
    pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
    script = ("import os, ray\n"
              "from mancala.cluster import connect\n"
              "with connect('local:1'):\n"
              "    print(os.nice(0), ray.get(ray.remote(lambda: os.nice(0)).remote()))\n")
    done = subprocess.run(["nice", "-n", "3", sys.executable, "-c", script], capture_output=True,
                          text=True, timeout=120, env=quiet_env)
    assert done.returncode == 0, done.stderr
    expected = str(min(os.nice(0) + 3, 19))        # the suite may itself run under nice
    assert done.stdout.split() == [expected, expected]
    assert os.listdir(quiet_env["TMPDIR"]) == []
