"""Solving on a Ray cluster (the extra ``cluster``) gives the single-machine
solve's value and optimal moves, whatever the job budget, with a node removed
mid-solve, or with the driver killed and started again from its journal.
The cluster's tests skip without Ray; a journal is checked before Ray starts."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from mancala import Board, Engine, endgame

NEEDS_RAY = "the cluster tests need the extra: pip install -e '.[cluster]'"


def run(args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.fixture
def quiet_env(monkeypatch):
    """Ray kept to this test (no token under home, its files in a short folder of
    the test's, no cluster found by accident), for this process and its children."""
    folder = tempfile.mkdtemp(prefix="kr", dir="/tmp")
    for key, value in {"RAY_AUTH_MODE": "disabled", "TMPDIR": folder, "RAY_TMPDIR": folder}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    yield dict(os.environ)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="class")
def ray_local():
    """One Ray runtime with 2 CPUs for a class of library solves."""
    ray = pytest.importorskip("ray", reason=NEEDS_RAY)
    folder = tempfile.mkdtemp(prefix="kr", dir="/tmp")
    with pytest.MonkeyPatch.context() as patch:
        for key, value in {"RAY_AUTH_MODE": "disabled", "TMPDIR": folder,
                           "RAY_TMPDIR": folder}.items():
            patch.setenv(key, value)
        patch.delenv("RAY_ADDRESS", raising=False)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield ray
        finally:
            ray.shutdown()
            shutil.rmtree(folder, ignore_errors=True)


def single_machine(board):
    engine = Engine(hash_mb=64, endgame=None)
    value = engine.solve(board).score
    return value, engine.optimal_moves(board, value)


# Kalah(6,3) and a midgame position of each rule, solved with budgets that make
# one job the whole proof, and that split it into hundreds
POSITIONS = [Board(seeds=3), Board(seeds=3, capture="empty"),
             Board([0, 4, 4, 0, 5, 1, 6, 2, 0, 3, 3, 1, 0, 7], 1, capture="none")]


class TestOnALocalRuntime:
    @pytest.mark.parametrize("board", POSITIONS, ids=["6,3 standard", "6,3 empty", "midgame none"])
    @pytest.mark.parametrize("job_nodes", [20_000, 50_000_000], ids=["split", "one job"])
    def test_a_cluster_solve_is_the_single_machine_solve(self, ray_local, board, job_nodes):
        from mancala.cluster.solve import solve
        found = solve(board, hash_mb=32, job_nodes=job_nodes, all_moves=True, threads=1)
        value, moves = single_machine(board)
        assert (found.value, found.optimal_moves) == (value, moves)
        assert found.move in moves and found.workers == 2 and found.jobs_from_journal == 0
        assert found.useful_nodes + sum(found.wasted.values()) == found.nodes
        if job_nodes < 10 ** 6 and board.seeds > 30:
            assert found.jobs > 5                   # the proof took many jobs

    @pytest.mark.parametrize("board", POSITIONS[1:], ids=["6,3 empty", "midgame none"])
    def test_by_default_a_node_is_one_worker_whose_threads_share_its_table(self, ray_local, board):
        from mancala.cluster.solve import solve
        found = solve(board, hash_mb=32, job_nodes=20_000, all_moves=True)
        assert (found.workers, found.threads) == (1, 2)        # the runtime has one node of 2 CPUs
        assert (found.value, found.optimal_moves) == single_machine(board)

    def test_a_worker_wider_than_every_node_is_one_line(self, ray_local):
        from mancala.cluster.solve import solve
        from mancala.errors import ClusterError
        with pytest.raises(ClusterError, match="no node of the cluster has 3 CPUs"):
            solve(Board(seeds=3), hash_mb=16, threads=3)

    def test_an_exhausted_position_is_asked_again_with_more_or_split(self, ray_local, tmp_path):
        """One worker: nobody waits, so a position whose job ran out of budget is
        asked again (its table warm) with four times the budget, up to 64 times
        the first, then split; the budgets of one position's jobs never go down."""
        from mancala.cluster.solve import read_journal, solve
        board = Board(seeds=3)
        journal = tmp_path / "k63.jsonl"
        found = solve(board, hash_mb=16, job_nodes=1000, threads=1, workers=1, journal=journal)
        assert found.value == 2
        jobs = read_journal(journal, board)
        by_key = {}
        for job in jobs:
            by_key.setdefault(job["key"], []).append(job["budget"])
        assert any(b[:3] == [1000, 4000, 16000] for b in by_key.values())
        assert max(max(b) for b in by_key.values()) <= 64 * 1000
        assert all(b == sorted(b) for b in by_key.values()), by_key

    def test_a_job_no_longer_needed_is_stopped_at_once(self, ray_local):
        """The pool stops a running job (the actor's second thread stops its engine):
        a search of Kalah(6,6) with no budget comes back within seconds, stopped."""
        from mancala.cluster.manager import Job
        from mancala.cluster.solve import RayPool
        from mancala.cluster.tree import key_of
        pool = RayPool(1, 1, ("standard", 16, None, None, 1))
        try:
            job = Job(0, key_of(Board(seeds=6)), 0, 2 ** 62, 1, 0, False, None)
            pool.submit(job)
            assert pool.wait(1.0) == []                         # searching
            start = time.monotonic()
            pool.cancel(job)
            answers = []
            while not answers and time.monotonic() - start < 30:
                answers = pool.wait(0.25)
            assert answers and answers[0][0] is job and answers[0][1]["stopped"]
            assert answers[0][1]["bound"] is None and time.monotonic() - start < 10
        finally:
            pool.close()

    def test_kalah_6_3_is_plus_2_under_both_rules(self, ray_local):
        """Kalah(6,3): +2 for the first player under both capture rules (Irving,
        Donkers and Uiterwijk, 2000, for the empty-capture rule; the shipped book for both)."""
        from mancala.cluster.solve import solve
        for capture in ("standard", "empty"):
            found = solve(Board(seeds=3, capture=capture), hash_mb=32, job_nodes=100_000)
            assert found.value == 2


def test_a_node_removed_mid_solve_changes_nothing(quiet_env):
    """Three Ray nodes on this machine; one of the workers' nodes is removed while
    jobs run on it: its worker is replaced, its jobs asked again, the same answer."""
    ray = pytest.importorskip("ray", reason=NEEDS_RAY)
    from ray.cluster_utils import Cluster

    from mancala.cluster.solve import solve
    board = Board(seeds=3, capture="empty")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        doomed = [cluster.add_node(num_cpus=1) for _ in range(2)][-1]
        ray.init(address=cluster.address, log_to_driver=False)
        gone, after = threading.Event(), []

        def progress(p):
            # the node goes while the driver waits: the solve cannot end before it is gone
            if gone.is_set():
                after.append(p["done"])
            elif p["done"] >= 20:
                cluster.remove_node(doomed)
                gone.set()

        found = solve(board, hash_mb=32, job_nodes=10_000, all_moves=True, progress=progress)
        assert gone.is_set() and after and after[-1] > after[0]   # jobs finished after it went
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert (found.value, found.optimal_moves) == single_machine(board)


def test_a_killed_driver_resumes_from_its_journal(tmp_path, quiet_env):
    pytest.importorskip("ray", reason=NEEDS_RAY)
    journal = tmp_path / "solve.jsonl"
    args = ["solve", "--seeds", "3", "--capture", "empty", "--cluster", "local:2", "--journal",
            str(journal), "--job-nodes", "5000", "--hash-mb", "16", "--json", "--endgame", "0",
            "--threads", "1"]      # two workers of one thread: many jobs
    driver = subprocess.Popen([sys.executable, "-m", "mancala", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and driver.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") > 30:
                break
            time.sleep(0.02)
        assert driver.poll() is None, "the solve ended before it could be killed"
        os.killpg(driver.pid, signal.SIGKILL)       # the driver and the runtime it started
    finally:
        driver.wait(30)
        driver.stdout.close()
    finished = journal.read_bytes().count(b"\n") - 1
    done = run([a.replace("5000", "1000000") if a == "5000" else a for a in args])    # a bigger budget: the jobs kept still count
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["value"] == 2 and report["move_index"] == 4          # Kalah(6,3), empty: +2
    assert report["cluster"]["jobs_from_journal"] >= finished - 1 > 0  # a torn last line at most
    assert 0 < report["cluster"]["cpu_seconds"] < 10 * report["cluster"]["seconds"] + 60


@pytest.mark.parametrize("how, status, says", [(signal.SIGINT, 130, "mancala: interrupted"),
                                               (signal.SIGTERM, 143, "mancala: terminated")],
                         ids=["Ctrl-C", "SIGTERM"])
def test_ctrl_c_stops_the_solve_and_leaves_the_journal_usable(tmp_path, quiet_env, how, status, says):
    """Ctrl-C, and SIGTERM (kill, a batch scheduler) the same way: Ray's own
    SIGTERM handler printed a stack dump and exited 1, its runtime left behind."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    journal = tmp_path / "solve.jsonl"
    args = ["solve", "--seeds", "3", "--cluster", "local:2", "--journal", str(journal),
            "--job-nodes", "5000", "--hash-mb", "16", "--json", "--endgame", "0", "--threads", "1"]
    driver = subprocess.Popen([sys.executable, "-m", "mancala", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and driver.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") > 20:
                break
            time.sleep(0.02)
        assert driver.poll() is None, "the solve ended before it could be stopped"
        driver.send_signal(how)
        out, err = driver.communicate(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == status and err.strip().splitlines()[-1] == says, err
    assert "Traceback" not in err and "SIGTERM received" not in err, err
    done = run([a.replace("5000", "1000000") if a == "5000" else a for a in args])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["value"] == 2
    assert json.loads(done.stdout)["cluster"]["jobs_from_journal"] > 0
    assert os.listdir(quiet_env["TMPDIR"]) == []           # no runtime left behind


def test_sigterm_while_the_driver_waits_on_a_long_job_is_still_sigterm(tmp_path, quiet_env):
    """Ray's wait turns the exception a signal handler raised into a plain
    KeyboardInterrupt: the command must still say terminated and exit 143."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    driver = subprocess.Popen(
        [sys.executable, "-m", "mancala", "solve", "--seeds", "5", "--cluster", "local:1",
         "--endgame", "0", "--hash-mb", "16", "--job-nodes", str(10 ** 12), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "testing value" not in driver.stderr.readline():
            pass                    # the first job runs: the driver sits in ray.wait
        time.sleep(1.5)
        driver.send_signal(signal.SIGTERM)
        out, err = driver.communicate(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 143 and err.strip().splitlines()[-1] == "mancala: terminated", err
    assert os.listdir(quiet_env["TMPDIR"]) == []           # no runtime left behind


def _journal(*records, board=None, id="0123456789abcdef"):
    """The bytes of a journal of board's solve (Kalah(6,3)) holding records, each sealed."""
    from mancala.cluster.journal import canonical, journal_header, sealed
    head = journal_header(board or Board(seeds=3), id)
    lines, last = [canonical(head)], head["check"]
    for record in records:
        record = sealed(record, last)
        lines.append(canonical(record))
        last = record["check"]
    return b"".join(line + b"\n" for line in lines)


@pytest.mark.parametrize("content, says", [
    (b"not json at all\n", "is not a cluster solve journal"),
    (b'{"kind":"mancala cluster solve journal","format":99}\n', "has format 99"),
    (b'{"kind":"mancala cluster solve journal","format":1,"pits":[3,3,3,3,3,3,0,3,3,3,3,3,3,0],'
     b'"to_move":0,"capture":"standard"}\n', "has format 1, whose lines carry no checksums"),
    (_journal(board=Board(seeds=4)), "is of another solve"),
    (_journal({"key": [[1], 0]}, {"key": 1}), "line 2 has no position"),
], ids=["not json", "format 99", "format 1", "another solve", "not a job"])
def test_a_journal_of_anything_else_is_refused_in_one_line(tmp_path, content, says):
    journal = tmp_path / "solve.jsonl"
    journal.write_bytes(content)
    done = run(["solve", "--seeds", "3", "--cluster", "local:1", "--journal", str(journal)])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr
    assert journal.read_bytes() == content                 # never changed


def test_a_torn_last_line_is_cut_off_and_the_rest_kept(tmp_path):
    from mancala.cluster.solve import read_journal
    board = Board(seeds=3)
    job = {"key": [[3] * 12, 0], "beta": 2, "bound": 2, "nodes": 10, "seconds": 0.1, "test": 1,
           "depth": 0, "after": None}
    whole = _journal(job)
    journal = tmp_path / "solve.jsonl"
    journal.write_bytes(whole + whole.splitlines(True)[1][:30])
    jobs = read_journal(journal, board)
    assert [j["bound"] for j in jobs] == [2]
    assert journal.read_bytes() == whole                   # the next line appended is whole


def test_cluster_options_need_cluster(tmp_path):
    done = run(["solve", "--seeds", "3", "--journal", str(tmp_path / "j")])
    assert done.returncode == 2 and "--journal and --job-nodes go with --cluster" in done.stderr


def test_a_level_truncated_under_a_cluster_solve_is_no_crash(tmp_path, quiet_env, monkeypatch):
    """The workers map the levels; one is cut to nothing while they search: no
    worker dies (no SIGBUS), the solve ends with the right value."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path / "cache"))
    endgame.ensure("standard", 12)
    top = endgame.files.level_path("standard", 12)
    journal = tmp_path / "solve.jsonl"
    driver = subprocess.Popen(
        [sys.executable, "-m", "mancala", "solve", "--seeds", "3", "--cluster", "local:2",
         "--journal", str(journal), "--job-nodes", "5000", "--hash-mb", "16", "--json",
         "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and driver.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") > 10:
                break
            time.sleep(0.02)
        assert driver.poll() is None, "the solve ended before the level could be cut"
        os.truncate(top, 0)
        out, err = driver.communicate(timeout=240)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0 and "Traceback" not in err, err
    report = json.loads(out)
    assert (report["value"], report["move_index"], report["endgame_seeds"]) == (2, 4, 12)


@pytest.mark.slow
@pytest.mark.parametrize("seeds, capture, value, endgame_seeds", [
    (4, "standard", 8, 18), (4, "empty", 10, 18), (3, "none", 0, 16)])
def test_published_values_on_the_cluster(tmp_path, quiet_env, monkeypatch, seeds, capture, value,
                                         endgame_seeds):
    """Kalah(6,4): +8 standard, +10 empty capture (Irving et al., 2000); Kalah(6,3)
    with no captures: the single-machine solve's 0 (38 s here with a 16-seed database)."""
    pytest.importorskip("ray", reason=NEEDS_RAY)
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path / "cache"))
    done = run(["solve", "--seeds", str(seeds), "--capture", capture, "--cluster", "local:2",
                "--endgame", str(endgame_seeds), "--hash-mb", "256", "--all", "--json"],
               timeout=1800)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["value"] == value
    board = Board(seeds=seeds, capture=capture)
    book = {(e["seeds"], e["capture"]): e["moves"] for e in json.loads(
        (endgame.files.Path(__file__).parent.parent / "mancala" / "data" / "openings.json")
        .read_text())["openings"]}
    if (seeds, capture) in book:
        assert report["optimal_move_indices"] == book[seeds, capture]
    assert report["cluster"]["workers"] * report["cluster"]["threads"] == 2
    assert board.seeds == seeds * 12


def test_a_worker_on_another_machine_takes_the_levels_the_driver_checked(tmp_path, monkeypatch):
    """A worker on another machine holds another key: the levels' seals are the
    driver's, so it refuses them alone, and takes them by the digests the driver
    found when it checked them (what `solve --cluster` hands every worker)."""
    from mancala.cluster.solve import SolveWorker, run_job
    from mancala.cluster.tree import key_of
    from mancala.errors import EndgameUntrustedError
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "driver"))
    db = endgame.ensure("standard", 8)
    vouched = [level.digest for level in db.files]
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "another machine"))
    with pytest.raises(EndgameUntrustedError, match="not sealed by this installation"):
        SolveWorker("standard", 16, 8, str(tmp_path / "cache"))
    worker = SolveWorker("standard", 16, 8, str(tmp_path / "cache"), vouched=vouched)
    board = Board([1, 0, 0, 2, 0, 1, 0, 0, 1, 0, 0, 3, 0, 0])     # 8 seeds: the database's answer
    assert worker.engine.endgame.max_seeds == 8
    value = Engine(hash_mb=16, endgame=None).solve(board).score
    assert run_job(worker.engine, "standard", key_of(board), value, 10 ** 6)["bound"] >= value
    assert run_job(worker.engine, "standard", key_of(board), value + 1, 10 ** 6)["bound"] < value + 1
