"""An arena on a Ray cluster (the extra ``cluster``) plays the serial run's games:
game pairs as Ray tasks, the same games, results and statistics; an SPRT that
decides stops the run; Ctrl-C stops it with the games finished. Players that
search by depth make every game reproducible, so the runs are compared game for
game (the time fields aside)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from mancala.arena import ArenaConfig, run_arena

ray = pytest.importorskip("ray", reason="the cluster tests need the extra: pip install -e '.[cluster]'")

TIMES = ("a_time", "b_time", "a_time_per_move", "b_time_per_move")


def untimed(document):
    games = [{k: v for k, v in game.items() if k not in TIMES} for game in document["games"]]
    summary = {k: v for k, v in document["summary"].items() if k not in TIMES}
    return games, summary


@pytest.fixture
def quiet_env():
    """Ray kept to this test (no token under home, its files in a short folder)."""
    folder = tempfile.mkdtemp(prefix="kr", dir="/tmp")
    env = dict(os.environ, RAY_AUTH_MODE="disabled", TMPDIR=folder, RAY_TMPDIR=folder)
    env.pop("RAY_ADDRESS", None)
    yield env
    shutil.rmtree(folder, ignore_errors=True)


def arena(args, env, timeout=300):
    done = subprocess.run([sys.executable, "-m", "mancala", "arena", *args, "--json"],
                          capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout), done.stderr


RUN = ["ai:depth=3", "alphabeta:2", "--seeds", "3", "--openings", "2"]


def test_a_cluster_arena_over_three_nodes_plays_the_serial_games(quiet_env, monkeypatch):
    """A head and two worker nodes on this machine, joined with --cluster auto
    as a user would after `ray start`: the same games as the plain command."""
    from ray.cluster_utils import Cluster

    for key, value in quiet_env.items():
        monkeypatch.setenv(key, value)
    serial, _ = arena(RUN, quiet_env)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        for _ in range(2):
            cluster.add_node(num_cpus=1)
        on_cluster, said = arena([*RUN, "--cluster", "auto"],
                                 dict(quiet_env, RAY_ADDRESS=cluster.address))
    finally:
        cluster.shutdown()
    assert "playing on the cluster at auto (3 CPUs)" in said
    assert len(serial["games"]) > 20
    assert untimed(on_cluster) == untimed(serial)
    assert on_cluster["workers"] == 3


def test_a_decided_sprt_stops_the_cluster_run_at_the_serial_runs_game(quiet_env, monkeypatch):
    for key, value in quiet_env.items():
        monkeypatch.setenv(key, value)
    from mancala.cluster.arena import run_on_cluster
    config = ArenaConfig("ai:depth=4", "random", games=400, seeds=3, sprt=(0.0, 300.0))
    serial = run_arena(config)
    seen = []
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        report = run_arena(config, workers=2, runner=run_on_cluster,
                           progress=lambda result, done, total: seen.append(result.index))
    finally:
        ray.shutdown()
    assert serial.summary.sprt.verdict == "H1" and len(serial.games) < 100
    assert [g.line for g in report.games] == [g.line for g in serial.games]
    assert [g.result for g in report.games] == [g.result for g in serial.games]
    assert report.summary.sprt == serial.summary.sprt
    # no more submitted than the pairs in flight when it decided (2 pairs of 2 games)
    assert len(seen) <= len(serial.games) + 4, (len(seen), len(serial.games))


def test_ctrl_c_stops_a_cluster_arena_with_the_games_finished(quiet_env):
    process = subprocess.Popen([sys.executable, "-m", "mancala", "arena", "ai:time=0.2", "ai:time=0.2",
                                "--games", "40", "--json", "--cluster", "local:2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=quiet_env)
    try:
        deadline = time.monotonic() + 120
        for line in process.stderr:          # the first games are in
            if "arena: 2/40" in line or "arena: 4/40" in line or time.monotonic() > deadline:
                break
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    report = json.loads(out)
    assert 2 <= len(report["games"]) < 40 and report["interrupted"]
    assert os.listdir(quiet_env["TMPDIR"]) == []     # the local runtime is gone, with its folder


def test_workers_and_cluster_together_is_one_line(quiet_env):
    done = subprocess.run([sys.executable, "-m", "mancala", "arena", "random", "random",
                           "--workers", "2", "--cluster", "local:1"],
                          capture_output=True, text=True, timeout=60, env=quiet_env)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--workers" in lines[0], done.stderr
