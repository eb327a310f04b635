"""Time two installs' endgame database builds, alternately, and check their level files agree.

    python bench/build_speed.py OLD_PYTHON NEW_PYTHON [--seeds 20] [--rounds 3]
                                [--capture standard] [--threads 2] [--folder DIR]

OLD_PYTHON and NEW_PYTHON are the interpreters of two virtual environments,
each with its own install (an older commit's in its own checkout, say:
``git worktree add /tmp/old-build COMMIT``, a venv there, ``pip install -e .``).
Each round runs ``python -m mancala endgame build --seeds N`` with both, into a
fresh cache folder each (``MANCALA_CACHE``), swapping which goes first; the
machine's load moves single timings by tens of percent, the median of the
ratios far less. A run's time is the whole process's, as a user would see it.

Every run's level files must be the same bytes as the first run's (each
file's SHA-256 compared, so the checksums in their headers too): a faster
build that changed a value would stop the benchmark. The folders are removed
after each round (``--keep`` leaves the last round's).
"""
import argparse
import hashlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mancala.cli.options import add_capture


def build(python, seeds, capture, threads, folder):
    """Seconds of one `endgame build` run (the whole process) into a fresh folder."""
    command = [python, "-m", "mancala", "endgame", "build", "--seeds", str(seeds),
               "--capture", capture, "--threads", str(threads), "--cache", str(folder)]
    start = time.perf_counter()
    # run from the folder: `python -m` puts the working directory first on the path, and a
    # checkout there would be imported instead of the interpreter's own install
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder.parent)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{python}: endgame build failed ({done.returncode}): {done.stderr.strip()}")
    return took


def digests(folder, capture):
    """{file name: SHA-256} of a rule's level files."""
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted((Path(folder) / f"endgame-{capture}").glob("level-*.bin"))}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    add_capture(parser)     # the rules of the install running this script
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--folder", default=None, help="where the cache folders go (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="leave the last round's folders")
    args = parser.parse_args(argv)
    pythons = {"old": args.old, "new": args.new}
    root = Path(tempfile.mkdtemp(prefix="build_speed.", dir=args.folder))
    for name, python in pythons.items():
        where = subprocess.run([python, "-c", "import mancala; print(mancala.__file__)"],
                               capture_output=True, text=True, cwd=root).stdout.strip()
        print(f"{name}: {python} imports {where}")
    times = {name: [] for name in pythons}
    reference = None
    print(f"endgame build --seeds {args.seeds} --capture {args.capture} --threads {args.threads}, "
          f"{args.rounds} rounds, alternately", flush=True)
    try:
        for r in range(args.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for name in order:
                folder = root / f"{name}-{r + 1}"
                times[name].append(build(pythons[name], args.seeds, args.capture, args.threads, folder))
                files = digests(folder, args.capture)
                if len(files) != args.seeds + 1:
                    sys.exit(f"{name}: {len(files)} level files, not {args.seeds + 1}")
                if reference is None:
                    reference = files
                elif files != reference:
                    differ = [n for n in reference if reference[n] != files.get(n)]
                    sys.exit(f"round {r + 1} {name}: level files differ from the first run's: {differ}")
                print(f"round {r + 1} {name}: {times[name][-1]:.2f} s", flush=True)
            if not (args.keep and r == args.rounds - 1):
                for name in order:
                    shutil.rmtree(root / f"{name}-{r + 1}", ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    ratios = [old / new for old, new in zip(times["old"], times["new"])]
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print(f"all {len(reference)} level files identical in every run (SHA-256)")
    print(f"median: old {old:.2f} s, new {new:.2f} s; old/new per round "
          f"{', '.join(f'{x:.2f}' for x in ratios)}, median {statistics.median(ratios):.2f}x")
    if args.keep:
        print(f"kept: {root}")


if __name__ == "__main__":
    main(sys.argv[1:])
