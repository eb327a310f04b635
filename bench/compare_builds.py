"""Compare the speed of two installs of mancala, in one run, alternately.

    python bench/compare_builds.py OLD_PYTHON NEW_PYTHON [ROUNDS]

OLD_PYTHON and NEW_PYTHON are the interpreters of two virtual environments,
each with its own install (for example an older commit's, built in its own
checkout). Each round runs ``python -m mancala bench`` and ``bench --compare``
with both, swapping which goes first, and the medians are compared at the end:
the machine's load moves single timings by tens of percent, their ratio much
less. Both must report the same bench signature, or the trees differ and the
timings do not compare.

Each round also times, inside each interpreter, every bench position's
depth-12 search (fresh 64 MB table) and plain depth-8 alpha-beta five times;
the best times over all rounds are the least disturbed by other work.
"""
import re
import statistics
import subprocess
import sys


def bench(python, *options):
    """(nodes per second, signature) of one `bench` run, or the compiled ms of `--compare`."""
    out = subprocess.run([python, "-m", "mancala", "bench", *options],
                         capture_output=True, text=True, check=True).stdout
    totals = re.findall(r"^total\s+(\S+)\s+(\S+)\s+(\S+)", out, re.M)
    number = lambda text: float(text.replace(",", ""))
    if options:                                 # --compare's table, last: nodes, twin ms, compiled ms
        return number(totals[-1][2]), None
    signature = re.search(r"signature: (\d+)", out).group(1)
    return number(totals[0][2]), signature     # total nodes, ms, nodes/s


BEST_OF = """
import time
from mancala import Engine
from mancala.positions import load_positions
search = plain = 0.0
for position in load_positions():
    times, plain_times = [], []
    for _ in range(5):
        times.append(Engine(hash_mb=64, endgame=None).search(position.board(), depth=12).elapsed)
        engine = Engine(plain=True)
        start = time.perf_counter()
        engine.search(position.board(), depth=8)
        plain_times.append(time.perf_counter() - start)
    search += min(times)
    plain += min(plain_times)
print(search, plain)
"""


def best_of(python):
    """The sums over the bench positions of the best search and plain times (seconds)."""
    out = subprocess.run([python, "-c", BEST_OF], capture_output=True, text=True, check=True).stdout
    return tuple(float(x) for x in out.split())


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2].strip())
    pythons = {"old": argv[0], "new": argv[1]}
    rounds = int(argv[2]) if len(argv) == 3 else 5
    nps = {name: [] for name in pythons}
    compare_ms = {name: [] for name in pythons}
    best = {name: [] for name in pythons}
    signatures = {}
    for r in range(rounds):
        for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
            speed, signatures[name] = bench(pythons[name])
            nps[name].append(speed)
            compare_ms[name].append(bench(pythons[name], "--compare")[0])
            best[name].append(best_of(pythons[name]))
            print(f"round {r + 1} {name}: bench {speed:,.0f} nodes/s, "
                  f"--compare compiled {compare_ms[name][-1]:.1f} ms", flush=True)
    if signatures["old"] != signatures["new"]:
        sys.exit(f"the signatures differ ({signatures['old']} and {signatures['new']}): not the same tree")
    old, new = statistics.median(nps["old"]), statistics.median(nps["new"])
    print(f"bench nodes/s, median of {rounds}: old {old:,.0f}, new {new:,.0f}, new/old {new / old:.3f}")
    old, new = statistics.median(compare_ms["old"]), statistics.median(compare_ms["new"])
    print(f"--compare compiled ms, median of {rounds}: old {old:.1f}, new {new:.1f}, "
          f"new/old {new / old:.3f} (below 1 is faster)")
    for i, what in enumerate(("depth-12 search", "plain depth-8 alpha-beta")):
        old = min(times[i] for times in best["old"])
        new = min(times[i] for times in best["new"])
        print(f"{what}, best of {5 * rounds} in process: old {old * 1e3:.1f} ms, new {new * 1e3:.1f} ms, "
              f"new/old {new / old:.3f} (below 1 is faster)")


if __name__ == "__main__":
    main(sys.argv[1:])
