"""How fast a review is as a player meets it (docs/review.md): ``python -m mancala review
--last`` in a real terminal, and the web app's streamed review in a real server.

    python bench/review_as_met.py [GAME.json] [--runs N] [--no-web]

GAME.json (default bench/data/review-game.json) is a save file; it is kept in a fresh
history (a temporary MANCALA_HOME) as a game of ``human`` (South) against its North,
so the review speaks to a person and finds their mistakes. Each run, in a fresh home:

* terminal: ``python -m mancala review --last`` on a pseudo-terminal (pexpect), the
  seconds from its start to its first progress line, to the first progress line that
  counts a mark, to the review shown, and to its exit; then the same command again
  (the review kept with the game) five times, alternately with ``python -m mancala
  history`` (the same start and the same file read, no review): the difference of their
  medians is what opening the kept review costs;
* web: ``python -m mancala serve`` started once; ``POST /api/review`` streamed for
  the game by its number in the history: the seconds to the first move that carries a
  mark, and to the whole review; then again (kept).

Wall seconds: the machine's load (``os.getloadavg``) is printed beside each run, since
on a shared machine the wall clock follows it. Runs alternate the two faces.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def env_for(home: Path) -> dict:
    env = dict(os.environ, MANCALA_HOME=str(home), NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def fresh_home(game) -> Path:
    """A temporary data folder whose history keeps ``game`` as the person's (South)."""
    from mancala.history import History
    home = Path(tempfile.mkdtemp(prefix="review-as-met-"))
    History(home / "history.sqlite3").record("human", game.north, game.seeds, game.capture,
                                             list(game.moves))
    return home


def terminal(home: Path) -> dict:
    """``review --last`` on a pseudo-terminal, the times of what it shows."""
    import pexpect
    times = {}
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "review", "--last"], env=env_for(home),
                          encoding="utf-8", timeout=300, dimensions=(50, 120))
    patterns = [r"Reviewing [0-9]+ moves", r"[1-9][0-9]* marked \(the latest", r"South human vs North",
                pexpect.EOF]
    names = ["progress", "first mark", "shown", "exit"]
    while "exit" not in times:
        index = child.expect(patterns)
        times.setdefault(names[index], time.perf_counter() - start)
    child.close()
    return times


def command(home: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mancala", *args], env=env_for(home), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def serve(home: Path):
    process = subprocess.Popen([sys.executable, "-m", "mancala", "serve", "--port", "0"],
                               env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    line = process.stdout.readline()
    found = re.search(r"http://[0-9.]+:[0-9]+/", line)
    if not found:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, found.group(0)


def web(url: str, game, game_id: int) -> dict:
    """The streamed review of history game ``game_id``: seconds to its first mark and to the whole."""
    body = json.dumps({"position": {"seeds": game.seeds, "capture": game.capture,
                                    "moves": list(game.moves)},
                       "stream": True, "game": game_id}).encode()
    request = urllib.request.Request(url + "api/review", data=body,
                                     headers={"content-type": "application/json"})
    times = {}
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=300) as answer:
        for raw in answer:
            line = json.loads(raw)
            if line["type"] == "move" and line["mark"] and "first mark" not in times:
                times["first mark"] = time.perf_counter() - start
            if line["type"] == "review":
                times.setdefault("first mark", time.perf_counter() - start)   # kept: all at once
                times["whole"] = time.perf_counter() - start
                times["kept"] = line["kept"]
    return times


def load() -> str:
    return "load %.1f" % os.getloadavg()[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default=str(ROOT / "bench/data/review-game.json"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-web", action="store_true")
    args = parser.parse_args()
    from mancala import storage
    game = storage.load(args.game)
    print(f"{args.game}: {len(game.moves)} moves, Kalah(6,{game.seeds}) capture {game.capture}; "
          "wall seconds")
    for run in range(1, args.runs + 1):
        home = fresh_home(game)
        try:
            first = terminal(home)
            agains, histories = [], []
            for _ in range(5):          # alternately: the load moves both alike
                agains.append(command(home, "review", "--last"))
                histories.append(command(home, "history"))
            again, history = statistics.median(agains), statistics.median(histories)
            print(f"run {run} terminal ({load()}): progress {first['progress']:.2f}, first mark "
                  f"{first.get('first mark', float('nan')):.2f}, shown {first['shown']:.2f}, exit "
                  f"{first['exit']:.2f}; again (median of 5): {again:.2f}, history alone "
                  f"{history:.2f}: opening the kept review {1000 * (again - history):+.0f} ms")
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if args.no_web:
            continue
        home = fresh_home(game)
        process, url = serve(home)
        try:
            first = web(url, game, 1)
            again = web(url, game, 1)
            print(f"run {run} web ({load()}): first mark {first['first mark']:.2f}, whole "
                  f"{first['whole']:.2f}; again (kept: {again['kept']}): whole "
                  f"{1000 * again['whole']:.0f} ms")
        finally:
            process.terminate()
            process.wait(timeout=30)
            shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
