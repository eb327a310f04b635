"""How long the engine protocol's first moves take, the endgame database included.

    MANCALA_CACHE=DIR python bench/first_move.py [PYTHON] [MOVETIME_MS]

Starts ``PYTHON -m mancala engine`` (default: this interpreter), does the
handshake (``ugi``, ``isready``: where the engine loads the cached endgame
database), then times ``go movetime MS`` (default 100) from the start and
after one and two moves, from the line sent to ``bestmove`` read. With a
database cached (``python -m mancala solve --endgame 20``, or a cache given in
MANCALA_CACHE) an engine that loads it inside the first move shows it here.
"""
import subprocess
import sys
import time


def main(argv):
    python = argv[0] if argv else sys.executable
    movetime = int(argv[1]) if len(argv) > 1 else 100
    engine = subprocess.Popen([python, "-m", "mancala", "engine"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def until(word):
        while not (line := engine.stdout.readline()).startswith(word):
            if not line:
                sys.exit(f"the engine ended before {word!r}")
        return line

    began = time.monotonic()
    send("ugi")
    until("ugiok")
    send("isready")
    until("readyok")
    print(f"handshake (ugi, isready): {1000 * (time.monotonic() - began):.0f} ms")
    for moves in ("", " moves 3", " moves 3 6"):
        send("position startpos" + moves)
        began = time.monotonic()
        send(f"go movetime {movetime}")
        until("bestmove")
        print(f"position startpos{moves}: go movetime {movetime} -> bestmove in "
              f"{1000 * (time.monotonic() - began):.0f} ms")
    send("quit")
    engine.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
