"""How fast Ctrl-C stops a search: ``python bench/interrupt_latency.py [RUNS]``.

A real SIGINT in the middle of long searches, in this process (until
``KeyboardInterrupt`` reaches the caller) and to ``python -m mancala``
commands (until the process has exited). The goal is 50 ms; tests/test_interrupt.py
checks the behaviour with a generous bound, this measures the time.
"""
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from mancala import Board, Engine


def report(label, seconds, what):
    print(f"{label:34s} median {statistics.median(seconds) * 1000:6.1f} ms  "
          f"max {max(seconds) * 1000:6.1f} ms  (n={len(seconds)}, {what})")


def in_process(label, call, runs):
    seconds = []
    for i in range(runs):
        sent = {}

        def fire():
            sent["at"] = time.perf_counter()
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(0.15 + 0.01 * i, fire)
        timer.start()
        try:
            call()
            raise SystemExit(f"{label}: the search finished before the signal")
        except KeyboardInterrupt:
            seconds.append(time.perf_counter() - sent["at"])
        timer.join()
    report(label, seconds, "SIGINT to KeyboardInterrupt")


def command(label, args, runs, home):
    seconds = []
    env = dict(os.environ, MANCALA_CACHE=os.path.join(home, "cache"), MANCALA_HOME=home)
    for _ in range(runs):
        proc = subprocess.Popen([sys.executable, "-m", "mancala", *args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        time.sleep(0.8)                 # past its imports, deep in the search
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        seconds.append(time.perf_counter() - sent)
        assert proc.returncode == 130, proc.returncode
    report(label, seconds, "SIGINT to process exit")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    one = Engine(hash_mb=64, endgame=None)
    two = Engine(hash_mb=64, endgame=None, threads=2)
    in_process("Engine.solve, 1 thread", lambda: one.solve(Board(seeds=4)), runs)
    in_process("Engine.solve, 2 threads", lambda: two.solve(Board(seeds=4)), runs)
    in_process("Engine.search depth 40", lambda: one.search(Board(seeds=6), depth=40), runs)
    in_process("Engine.analyse depth 30", lambda: one.analyse(Board(seeds=4), depth=30), runs)
    solve = ["solve", "--seeds", "4", "--endgame", "0", "--hash-mb", "64", "--threads"]
    with tempfile.TemporaryDirectory() as home:
        command("solve --threads 1", solve + ["1"], runs, home)
        command("solve --threads 2", solve + ["2"], runs, home)
        command("analyze --depth 30", ["analyze", "--depth", "30"], runs, home)


if __name__ == "__main__":
    main()
