"""What reading a large journal costs: peak memory and time of the commands a
user runs on it (issue 38 item 9: 200,000 lines took 733 MB to verify and
1.5 GB to resume; a million did not finish in 240 s).

    python bench/journal_memory.py --lines 200000,1000000 [--json]

For each size, a journal of Kalah(6,3) is written (sealed with this
installation's key, in a temporary data folder): every line a job on a
position drawn at random (up to the root's 36 seeds in the pits), saying a
true bound (at least -S for S seeds in its pits, so the lines never
contradict each other) or nothing (ran out of budget), a fact beside every
tenth. Then, each a separate process whose peak resident memory is read
from the kernel (``ru_maxrss`` of the child):

- ``verify``: ``solve --verify-journal J --sample 0.0001`` (the reading and
  every check; a handful of searches);
- ``resume``: ``solve --seeds 3 --cluster local:2 --journal J`` (the whole
  journal fed to the proof manager, then the solve goes on to its answer).

Prints bytes a line (peak less the memory of the same command on an empty
journal, over the lines). Needs the cluster extra for ``resume``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOLVE = ["solve", "--seeds", "3", "--endgame", "0", "--threads", "1", "--hash-mb", "16"]


def write_journal(path: Path, lines: int, seed: int = 1) -> None:
    """A journal of Kalah(6,3) with ``lines`` random, consistent jobs, sealed here."""
    from mancala import Board
    from mancala.cluster.journal import canonical, journal_header, sealed
    rng = random.Random(seed)
    board = Board(seeds=3)
    head = journal_header(board, "0" * 16)
    last = head["check"]
    with open(path, "wb") as out:
        out.write(canonical(head) + b"\n")
        for i in range(lines):
            pits = [0] * 12
            for _ in range(rng.randint(1, 36)):
                pits[rng.randrange(12)] += 1
            seeds = sum(pits)
            exhausted = i % 3 == 0
            record = {"key": [pits, rng.randint(0, 1)], "beta": -seeds,
                      "bound": None if exhausted else -seeds, "nodes": rng.randint(1000, 10 ** 7),
                      "seconds": 0.5, "cpu": 0.5, "test": 1, "depth": 3, "budget": 4_000_000,
                      "split": False, "speculative": False, "cancelled": False, "move": None,
                      "facts": []}
            record = sealed(record, last)
            last = record["check"]
            out.write(canonical(record) + b"\n")


def measure(args: list, env: dict) -> dict:
    """A command's wall time, exit status and peak resident memory (MB)."""
    code = ("import resource, subprocess, sys, time\n"
            "start = time.perf_counter()\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
            "seconds = time.perf_counter() - start\n"
            "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
            "print(done.returncode, seconds, peak, flush=True)\n"
            "sys.stderr.buffer.write(done.stderr[-400:])\n")
    done = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "mancala", *args],
                          capture_output=True, env=env, text=True)
    status, seconds, peak = done.stdout.split()
    return {"exit": int(status), "seconds": round(float(seconds), 1), "peak_mb": int(peak) // 1024,
            "said": done.stderr.strip().splitlines()[-1:] if int(status) else []}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", default="200000,1000000")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="journal-memory-") as folder:
        env = dict(os.environ, MANCALA_HOME=folder, RAY_AUTH_MODE="disabled", TMPDIR=folder)
        os.environ["MANCALA_HOME"] = folder
        base = {}
        for lines in [0] + [int(n) for n in args.lines.split(",")]:
            path = Path(folder) / f"j{lines}.jsonl"
            start = time.perf_counter()
            write_journal(path, lines)
            made = time.perf_counter() - start
            row = {"lines": lines, "mb": round(path.stat().st_size / 2 ** 20, 1),
                   "written_seconds": round(made, 1)}
            row["verify"] = measure(["solve", "--verify-journal", str(path), "--endgame", "0",
                                     "--threads", "1", "--sample", "0.0001", "--seed", "1"], env)
            row["resume"] = measure(SOLVE + ["--cluster", "local:2", "--job-nodes", "200000",
                                             "--journal", str(path)], env)
            for what in ("verify", "resume"):
                if lines == 0:
                    base[what] = row[what]["peak_mb"]
                else:
                    row[what]["bytes_a_line"] = round((row[what]["peak_mb"] - base[what]) * 2 ** 20 / lines)
            rows.append(row)
            path.unlink()
            if not args.json:
                print(f"{lines:>9,} lines ({row['mb']} MB): " + "; ".join(
                    f"{what} {row[what]['seconds']} s, peak {row[what]['peak_mb']} MB"
                    + (f" ({row[what].get('bytes_a_line')} B a line)" if lines else "")
                    + (f", exit {row[what]['exit']}: {row[what]['said']}" if row[what]["exit"] else "")
                    for what in ("verify", "resume")), flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
