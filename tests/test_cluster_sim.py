"""bench/cluster_sim.py replays a journal's jobs on more workers: figures worked by hand."""
import json
import subprocess
import sys
from pathlib import Path

SIM = Path(__file__).resolve().parent.parent / "bench" / "cluster_sim.py"
HEAD = ('{"kind":"mancala cluster solve journal","format":1,'
        '"pits":[3,3,3,3,3,3,0,3,3,3,3,3,3,0],"to_move":0,"capture":"standard"}')


def job(seconds, test, after):
    return json.dumps({"key": [[3] * 12, 0], "beta": 2, "bound": None, "nodes": 1,
                       "seconds": seconds, "test": test, "depth": 0, "after": after})


def sim(path, *args):
    done = subprocess.run([sys.executable, str(SIM), str(path), *args], capture_output=True,
                          text=True, timeout=60)
    return done


def test_a_journal_replayed_on_more_workers(tmp_path):
    # test 1: job 0 (4 s) is split; jobs 1 and 2 (2 s each) wait for it; test 2's
    # job 3 (1 s) waits for test 1's last job. One worker: 4 + 2 + 2 + 1 = 9 s;
    # two: 4, then 1 and 2 side by side (6), then 3: 7 s; more workers change nothing.
    journal = tmp_path / "j.jsonl"
    journal.write_text("\n".join([HEAD, job(4, 1, None), job(2, 1, 0), job(2, 1, 0),
                                  job(1, 2, None)]) + "\n")
    done = sim(journal, "--workers", "1,2,4", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert [(r["workers"], r["seconds"]) for r in rows] == [(1, 9), (2, 7), (4, 7)]
    assert rows[1]["speedup"] == round(9 / 7, 2) and rows[1]["efficiency"] == round(9 / 7 / 2, 3)
    assert journal.read_text().count("\n") == 5


def test_a_torn_line_is_left_alone_and_bad_input_is_one_line(tmp_path):
    journal = tmp_path / "j.jsonl"
    text = "\n".join([HEAD, job(3, 1, None), job(1, 1, None)]) + "\n" + job(5, 1, None)[:20]
    journal.write_text(text)
    done = sim(journal, "--workers", "2", "--json")
    assert json.loads(done.stdout)["rows"][0]["seconds"] == 3
    assert journal.read_text() == text                          # a replay never writes
    bad = sim(journal, "--workers", "0,x")
    assert bad.returncode == 2 and "--workers is a list" in bad.stderr.splitlines()[-1]
    other = tmp_path / "other.jsonl"
    other.write_text("hello\n")
    done = sim(other)
    assert done.returncode != 0 and "Traceback" not in done.stderr
