"""What each endgame database size buys: build it from nothing, then solve with it.

    python bench/database_table.py CACHE [--sizes 16,18,...,30] [--capture standard]
                                   [--solve-seeds 4] [--rounds 1] [--typed 5]

Builds the database one size after another into CACHE (``MANCALA_CACHE``; the
sizes already there are not rebuilt, so give an empty folder for build times
from nothing), each build adding levels to the last, and times every build as
a whole process. Then, for each size, ``python -m mancala solve --seeds 4
--endgame N --json`` (``--solve-seeds``) as a user types it (the default
table), ``--rounds`` times, the sizes taken in turn each round. ``--typed 5``
adds ``solve --seeds 5 --json`` with no flags at the end (the largest database
cached, the default table: minutes). Each solve's value is checked against
the opening book's; a run that fails or disagrees stops the benchmark.

Prints a Markdown table: size on disk, cumulative build time, and each solve's
nodes, the JSON's ``seconds`` (the solve, levels' first check included), the
whole command's wall time and its peak memory (the child's own ``ru_maxrss``).
Timings on a shared machine move by tens of percent: compare within one run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mancala import book
from mancala.cli.options import add_capture
from mancala.endgame import files

BOOK = book.load()


def run(command, cache):
    """(wall seconds, peak MB, stdout) of one whole process, with MANCALA_CACHE=cache."""
    env = dict(os.environ, MANCALA_CACHE=str(cache))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        # run from the cache's parent: `python -m` puts the working directory first on the
        # path, and a checkout there would be imported instead of the interpreter's install
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=Path(cache).parent)
        _, status, usage = os.wait4(child.pid, 0)
        took = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        if child.returncode != 0:
            sys.exit(f"{' '.join(command)}: exit {child.returncode}: {err.read().strip()[-500:]}")
        return took, usage.ru_maxrss / 1024, out.read()


def book_value(seeds, capture):
    """The opening book's value of a start (None when it has none)."""
    entry = BOOK.get((seeds, capture))
    return None if entry is None else entry.value


def solve(python, seeds, capture, cache, endgame=None):
    command = [python, "-m", "mancala", "solve", "--seeds", str(seeds), "--capture", capture, "--json"]
    if endgame is not None:
        command += ["--endgame", str(endgame)]
    wall, peak, out = run(command, cache)
    report = json.loads(out)
    expected = book_value(seeds, capture)
    if expected is not None and report["value"] != expected:
        sys.exit(f"{' '.join(command)}: value {report['value']}, the book says {expected}")
    return {"wall": wall, "peak": peak, "seconds": report["seconds"], "nodes": report["nodes"],
            "value": report["value"], "endgame": report.get("endgame_seeds")}


def size_on_disk(cache, capture, seeds):
    return sum(files.level_path(capture, n, Path(cache)).stat().st_size for n in range(seeds + 1))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("cache")
    parser.add_argument("--sizes", default="16,18,20,22,24,26,28,30")
    add_capture(parser)
    parser.add_argument("--solve-seeds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--typed", type=int, default=None, metavar="SEEDS",
                        help="also solve this start with no flags, after the table")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    cache = Path(args.cache).resolve()
    cache.mkdir(parents=True, exist_ok=True)

    built, total = {}, 0.0
    for n in sizes:
        wall, peak, _ = run([args.python, "-m", "mancala", "endgame", "build", "--seeds", str(n),
                             "--capture", args.capture], cache)
        total += wall
        built[n] = (total, peak)
        print(f"built {n} seeds: {wall:.1f} s ({total:.1f} s from the first size), peak {peak:.0f} MB",
              flush=True)

    solves = {n: [] for n in sizes}
    for round_ in range(args.rounds):
        for n in sizes:
            result = solve(args.python, args.solve_seeds, args.capture, cache, n)
            solves[n].append(result)
            print(f"round {round_ + 1}, {n} seeds: {result['value']:+d}, {result['nodes'] / 1e6:.2f} M nodes, "
                  f"solve {result['seconds']:.2f} s, command {result['wall']:.2f} s, "
                  f"peak {result['peak']:.0f} MB", flush=True)

    print(f"\n| database | size | built from nothing | Kalah(6,{args.solve_seeds}): nodes | solve | command | peak |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        runs = solves[n]
        walls = ", ".join(f"{r['wall']:.2f}" for r in runs)
        print(f"| {n} seeds | {size_on_disk(cache, args.capture, n) / 1e9:.2f} GB | {built[n][0]:.1f} s "
              f"| {statistics.median(r['nodes'] for r in runs) / 1e6:.2f} M "
              f"| {statistics.median(r['seconds'] for r in runs):.2f} s | {walls} s "
              f"| {max(r['peak'] for r in runs) / 1024:.2f} GB |")
    if args.typed:
        result = solve(args.python, args.typed, args.capture, cache)
        print(f"\nsolve --seeds {args.typed} --json, as typed: {result['value']:+d} with the "
              f"{result['endgame']}-seed database, {result['nodes'] / 1e6:.0f} M nodes, solve "
              f"{result['seconds']:.1f} s, command {result['wall']:.1f} s, peak {result['peak'] / 1024:.1f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
