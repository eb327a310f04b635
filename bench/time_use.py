"""How much of a per-move time budget Engine.search uses, and how far it overruns.

    python bench/time_use.py OLD_PYTHON NEW_PYTHON [BUDGET ...] [--evaluation E] [--threads N]

OLD_PYTHON and NEW_PYTHON are the interpreters of two virtual environments,
each with its own install of mancala (for example issue 12's first commit,
built in its own checkout, and this one). Run it from outside both checkouts
(so each interpreter imports its own install). For each budget (default 0.1
and 1 seconds) each install searches, with a fresh engine, the Kalah(6,4)
start and every bench position (mancala/data/bench_positions.txt) with
``Engine.search(board, time=BUDGET)``, alternating which install goes first;
each call's wall time is measured around the call. Reported per install and
budget: the average share of the budget used by the searches that did not
end with an exact value (a solved position needs no more time; the share over
all of them beside it), the worst overrun in ms (wall time beyond the budget),
the depth reached from the Kalah(6,4) start, and the average depth over the
positions that did not end exact. ``--evaluation E``: the new install's
engines use evaluation E (the old ones the default, the store difference);
``--threads N``: the new install's engines search on N threads (issue 33:
every thread must stop by the time limit).
"""
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time
from mancala import Board, Engine
from mancala.positions import load_positions
budget = float(sys.argv[1])
options = json.loads(sys.argv[2])
rows = []
boards = [("start", Board())] + [(p.name, p.board()) for p in load_positions()]
for name, board in boards:
    engine = Engine(**options)
    began = time.perf_counter()
    result = engine.search(board, time=budget)
    wall = time.perf_counter() - began
    rows.append({"name": name, "wall": wall, "depth": result.depth, "move": result.move,
                 "exact": result.exact})
print(json.dumps(rows))
"""


def measure(python, budget, options):
    out = subprocess.run([python, "-c", CHILD, str(budget), json.dumps(options)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main(argv):
    options = {}
    for flag, name, kind in (("--evaluation", "evaluation", str), ("--threads", "threads", int)):
        if flag in argv:
            at = argv.index(flag)
            options[name] = kind(argv[at + 1])
            argv = argv[:at] + argv[at + 2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    pythons = {"old": argv[0], "new": argv[1]}
    budgets = [float(b) for b in argv[2:]] or [0.1, 1.0]
    print(f"{'budget':>6}  {'build':5} {'share used':>10} {'(all)':>6} {'worst overrun':>14} "
          f"{'start depth':>11} {'mean depth':>10}  positions (not exact)")
    for turn, budget in enumerate(budgets):
        order = ["old", "new"] if turn % 2 == 0 else ["new", "old"]
        results = {name: measure(pythons[name], budget, options if name == "new" else {})
                   for name in order}
        for name in ("old", "new"):
            rows = results[name]
            open_rows = [r for r in rows if not r["exact"]] or rows
            share = statistics.mean(r["wall"] / budget for r in open_rows)
            share_all = statistics.mean(r["wall"] / budget for r in rows)
            overrun = max(r["wall"] - budget for r in rows) * 1000
            depth = statistics.mean(r["depth"] for r in open_rows)
            print(f"{budget:6g}  {name:5} {share:10.1%} {share_all:6.0%} {overrun:11.1f} ms "
                  f"{rows[0]['depth']:11d} {depth:10.1f}  {len(rows)} ({len(open_rows)})")


if __name__ == "__main__":
    main(sys.argv[1:])
