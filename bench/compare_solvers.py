"""Time our Kalah(6,4) solve and 18-seed endgame build against the public C solvers.

Measures whole processes (wall time, time.perf_counter around subprocess.run):
  solve  the Kalah(6,4) start, standard capture, with an 18-seed endgame
         database already on disk (loading it counts); a printed value other
         than +8 gets no time;
  build  that 18-seed database from nothing, in a fresh directory.
Each round runs every command once, rotating the order, so load from other
work falls on all alike; then medians per command and theirs/ours ratios.

  ours      MANCALA_CACHE=--cache python -m mancala solve --seeds 4 --endgame 18
                --json --threads T   (the script fills --cache first, untimed)
            MANCALA_CACHE=<fresh> python -m mancala endgame build --seeds 18 --threads T
  CMancala  Mancala --api --egdb 18 loads EGDB/egdb_N.bin from its working
            directory, building and saving what is missing. Build: fresh
            directory, stdin "QUIT". Solve: in that round's build directory,
            stdin "SOLVE <start code>", answer "OK EVAL 8 MOVE 2 ...".
  Irving    generator endgame.dat, stdin "4 / c 18 / q" (4-bit entries, complete
            to 18 seeds, save) in a fresh directory; solve there with
            kalah-s -t 24 -e 18 s 4, answer "Move: s 0, m 2, r 8, ...".
Both C programs are single-threaded, hence T (--threads) defaults to 1; their
transposition tables are 2^24 entries (CMancala's default; Irving's -t 24).

Getting and building the C solvers (gcc 12 used; none of their code is here):
  CMancala (A. Kurtz; standard capture), commit 1c8dbdae35ea5e1873271d54580486694f31390c:
      git clone https://github.com/LifesLight/CMancala && cd CMancala && git checkout 1c8dbda
      cmake -S . -B build -DCMAKE_C_COMPILER=gcc && cmake --build build -j2
  (its CMakeLists sets -O3 -march=native -flto=auto; binary build/Mancala, RAM EGDB backend)

  girving/kalah (G. Irving, 2000), commit 0a0c00702908f4ba865f2a1baa548ac0e3724950,
  plays empty capture only (+10 for Kalah(6,4)). Standard capture needs a source
  change in a copy, guarded by a new define STANDARD_CAPTURE:
    - rules.c move(): both capture tests also require the opposite pit non-empty;
    - endgame.h / generator.c: entries hold the mover's share v of the remaining
      seeds as v-1 (the 1 in eg_lookup's "++r" and generator crunch()'s "v = 1",
      "eg_setd(l,v-1)", "r + s + 1", "n - s - 1"), assuming the mover always
      gets a seed: true under empty capture, not under standard. A macro
      EG_BIAS (0 with STANDARD_CAPTURE, else 1) replaces that 1. Without it the
      database is wrong on 10.7 M of its 86 M positions (the start still comes
      out +8, in 54.8 M nodes instead of 53.8 M); with it all 86 M entries
      agree with CMancala's database.
      git clone https://github.com/girving/kalah kalah-std && cd kalah-std   # edit as above
      make serial CFLAGS="-O3 -march=native -funroll-loops -fgnu89-inline -w -DSTANDARD_CAPTURE"
  (-fgnu89-inline for its "extern inline" headers; the Makefile's Apple-only
  -fnested-functions dropped.) --irving is the folder holding kalah-s and generator.

Usage:
    python bench/compare_solvers.py --cmancala CMancala/build/Mancala [--irving kalah-std]
        [--rounds 3] [--cache DIR] [--python PY] [--threads 1] [--tmp DIR]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXPECTED = 8                          # Kalah(6,4), standard capture, first player


def cmancala_start_code():
    """CMancala's board code of the start: colour bit, then 8 bits a cell, 5 hex digits cut."""
    cells = [4] * 6 + [0] + [4] * 6 + [0]
    packed = 1 | sum(seeds << (1 + 8 * i) for i, seeds in enumerate(cells))
    return f"{packed:032x}"[5:]


def timed(command, cwd=None, env=None, stdin=""):
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"exit {done.returncode}: {(done.stderr or done.stdout)[-300:]}")
    return seconds, done.stdout


def check_value(value):
    if value != EXPECTED:
        raise RuntimeError(f"wrong value {value:+d} (expected {EXPECTED:+d}): no time reported")


class Ours:
    name = "ours"

    def __init__(self, args):
        self.python, self.cache, self.threads = args.python, args.cache, str(args.threads)

    def env(self, cache):
        return {**os.environ, "MANCALA_CACHE": str(cache)}

    def build(self, directory):
        command = [self.python, "-m", "mancala", "endgame", "build", "--seeds", "18", "--threads", self.threads]
        return timed(command, env=self.env(directory))[0]

    def solve(self, directory):
        command = [self.python, "-m", "mancala", "solve", "--seeds", "4", "--endgame", "18",
                   "--json", "--threads", self.threads]
        seconds, out = timed(command, env=self.env(self.cache))
        answer = json.loads(out)
        if answer.get("endgame_seeds") != 18 or not answer.get("exact"):
            raise RuntimeError(f"not an exact solve with the 18-seed database: {answer}")
        check_value(answer["value"])
        return seconds


class CMancala:
    name = "cmancala"

    def __init__(self, args):
        self.binary = str(Path(args.cmancala).resolve())

    def build(self, directory):
        seconds, _ = timed([self.binary, "--api", "--egdb", "18"], cwd=directory, stdin="QUIT\n")
        if not (Path(directory) / "EGDB" / "egdb_18.bin").is_file():
            raise RuntimeError("no EGDB/egdb_18.bin written")
        return seconds

    def solve(self, directory):
        stdin = f"SOLVE {cmancala_start_code()}\nQUIT\n"
        seconds, out = timed([self.binary, "--api", "--egdb", "18"], cwd=directory, stdin=stdin)
        found = re.search(r"^OK EVAL (-?\d+) MOVE", out, re.M)
        if not found:
            raise RuntimeError(f"no answer: {out[-300:]}")
        check_value(int(found.group(1)))
        return seconds


class Irving:
    name = "irving"

    def __init__(self, args):
        self.folder = Path(args.irving).resolve()

    def build(self, directory):
        seconds, out = timed([str(self.folder / "generator"), "endgame.dat"], cwd=directory,
                             stdin="4\nc 18\nq\n")
        if "Saving endgame database...done" not in out:
            raise RuntimeError(f"database not saved: {out[-300:]}")
        return seconds

    def solve(self, directory):
        seconds, out = timed([str(self.folder / "kalah-s"), "-t", "24", "-e", "18", "s", "4"], cwd=directory)
        found = re.search(r"^Move: s 0, m \S+, r (-?\d+)", out, re.M)
        if not found:
            raise RuntimeError(f"no answer: {out[-300:]}")
        check_value(int(found.group(1)))
        return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmancala", required=True, help="CMancala's build/Mancala")
    parser.add_argument("--irving", help="folder of the standard-capture kalah-s and generator")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache", default=os.environ.get("MANCALA_CACHE"),
                        help="MANCALA_CACHE for our solves (holding or receiving the 18-seed database)")
    parser.add_argument("--python", default=sys.executable, help="interpreter with mancala installed")
    parser.add_argument("--threads", type=int, default=1, help="threads for ours (default 1, as theirs)")
    parser.add_argument("--tmp", help="where the fresh build folders go (default: the system's)")
    args = parser.parse_args()
    if not args.cache:
        parser.error("--cache (or MANCALA_CACHE) is needed")
    solvers = [Ours(args), CMancala(args)] + ([Irving(args)] if args.irving else [])

    print(f"filling {args.cache} with our 18-seed standard database if needed (not timed)")
    subprocess.run([args.python, "-m", "mancala", "endgame", "build", "--seeds", "18"],
                   env={**os.environ, "MANCALA_CACHE": args.cache}, check=True, capture_output=True)

    times = {(task, s.name): [] for task in ("build", "solve") for s in solvers}
    failed = False
    for round_number in range(args.rounds):
        shift = round_number % len(solvers)
        order = solvers[shift:] + solvers[:shift]
        with tempfile.TemporaryDirectory(prefix="compare_solvers-", dir=args.tmp) as scratch:
            folders = {s.name: Path(scratch, s.name) for s in solvers}
            for folder in folders.values():
                folder.mkdir()
            for task in ("build", "solve"):     # theirs solve with this round's fresh build
                line = []
                for solver in order:
                    try:
                        seconds = getattr(solver, task)(folders[solver.name])
                    except RuntimeError as error:
                        failed = True
                        line.append(f"{solver.name} FAILED ({error})")
                        continue
                    times[task, solver.name].append(seconds)
                    line.append(f"{solver.name} {seconds:7.2f} s")
                print(f"round {round_number + 1}  {task:5}  " + "   ".join(line), flush=True)

    print(f"\nmedians over {args.rounds} round(s); ratio = theirs / ours")
    for task in ("solve", "build"):
        medians = {name: statistics.median(t) for (k, name), t in times.items() if k == task and t}
        ours = medians.get("ours")
        for name, median in medians.items():
            ratio = f"   x{median / ours:.2f}" if ours and name != "ours" else ""
            print(f"  {task:5}  {name:9} {median:7.2f} s{ratio}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
