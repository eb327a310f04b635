"""A program that speaks the engine protocol, driven as a subprocess.

:class:`EngineProcess` starts the program (its command split as a shell
would, but run without one), shakes hands (``ugi``/``ugiok``,
``isready``/``readyok``) and asks it for moves: ``position ...`` with the
game so far, then ``go movetime MS``, then reads ``bestmove``. Whatever goes
wrong raises :class:`mancala.errors.PlayerFailedError` with its reason
("crash", "timeout", "illegal-move", "protocol") after the process has been
killed and reaped; the process is also ended by :meth:`close`, when the
object is collected, and when the interpreter exits.

A program is untrusted. Its output is read as bytes by a thread that never
blocks the game: a line longer than MAX_LINE_BYTES, more than
MAX_PENDING_BYTES of output not yet read, more than MAX_MOVE_BYTES in one move,
or a line that is not UTF-8 is a "protocol" forfeit. It runs in a process group
of its own, marked by a token in its environment: closing it kills the group,
then (on Linux) every process still carrying the token, so a child that left
the group (``setsid``) or outlived its parent goes too. A child that holds the
output open after the program exits cannot keep a game waiting: a move is
forfeited within its time limit, and the reader stops when the program is closed.
"""
from __future__ import annotations

import os
import queue
import re
import secrets
import select
import shlex
import signal
import subprocess
import threading
import time
import weakref
from typing import List, Sequence, Tuple, Union

from mancala.board import Board, start_slots
from mancala.errors import PlayerFailedError, PlayerSpecError, quote
from mancala.geometry import SIDE_KEYS
from mancala.limits import MAX_SEEDS_PER_PIT, MIN_SEEDS, parse_whole

HANDSHAKE_SECONDS = 10.0    # a program has this long to answer ugi and isready
MARGIN_SECONDS = 1.0        # a move may take its time * (1 + MARGIN_SHARE) + this
MARGIN_SHARE = 0.5
QUIT_SECONDS = 0.5          # after quit, how long a program may take to exit before it is killed
EXIT_SECONDS = 1.0          # after its output ends, how long a program may take to exit
MAX_LINE_BYTES = 64 * 1024          # a longer line is a protocol forfeit
MAX_PENDING_BYTES = 1024 * 1024     # output read but not yet taken by the game
MAX_MOVE_BYTES = 4 * 1024 * 1024    # output during one move
TOKEN_VARIABLE = "MANCALA_ENGINE_TOKEN"   # marks every process an engine starts


def split_command(command: Union[str, Sequence[str]]) -> List[str]:
    """The argument list of a command line (shlex, no shell); PlayerSpecError if empty or unbalanced."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise PlayerSpecError(f"engine command {quote(command)} cannot be split: {exc}") from None
    else:
        argv = [str(word) for word in command]
    if not argv:
        raise PlayerSpecError(f"engine command is empty: {quote(command)}")
    return argv


def position_command(board: Board) -> str:
    """The ``position`` line of board: its first position and the moves since (pits 1..6)."""
    root = board.copy()
    moves: List[int] = []
    while root.ply:
        moves.append(root.pop().pit)
    moves.reverse()
    slots = root.pits
    seeds = slots[0]
    if root.to_move == 0 and MIN_SEEDS <= seeds <= MAX_SEEDS_PER_PIT and slots == start_slots(seeds):
        line = f"position startpos seeds {seeds}"
    else:
        line = f"position board {' '.join(map(str, slots))} {SIDE_KEYS[root.to_move]}"
    line += f" capture {root.capture}"
    if moves:
        line += " moves " + " ".join(str(pit + 1) for pit in moves)
    return line


def _marked(token: str) -> List[int]:
    """The pids of processes whose environment holds TOKEN_VARIABLE=token (Linux's
    /proc; elsewhere none are found)."""
    needle = f"{TOKEN_VARIABLE}={token}".encode()
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if needle in environ.read().split(b"\0"):
                    found.append(int(name))
        except OSError:             # gone, or another user's
            pass
    return found


def _kill(process: subprocess.Popen, group: bool, token: str, stop: threading.Event) -> None:
    """End the program, its process group and every process that carries its
    token, reap it, and let its reader stop. Raises nothing."""
    stop.set()
    try:
        if group:
            try:
                os.killpg(process.pid, signal.SIGKILL)   # its children too, even if it has exited
            except OSError:
                pass
        if process.poll() is None:
            process.kill()
        process.wait(timeout=5)
        for _ in range(3):          # children that left the group; their own children next round
            left = _marked(token)
            if not left:
                break
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)
    except Exception:
        pass
    try:
        if process.stdin is not None:
            process.stdin.close()
    except Exception:
        pass


class _Trouble:
    """What the reader found wrong with the output (a protocol forfeit)."""

    def __init__(self, message: str) -> None:
        self.message = message


def _read(fd: int, lines: "queue.Queue", taken: List[int], stop: threading.Event) -> None:
    """Split the program's output into lines (UTF-8) onto ``lines``, then None at
    its end; a _Trouble instead when it breaks the limits. Stops when ``stop``
    is set (the program was closed) even if a child still holds the output."""
    buffer = b""
    queued = 0                  # bytes of lines put on the queue; taken[0]: of those taken off
    try:
        while not stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for raw in complete:
                if len(raw) > MAX_LINE_BYTES:
                    lines.put(_Trouble(f"sent a line of {len(raw):,} bytes (at most "
                                       f"{MAX_LINE_BYTES:,})"))
                    return
                try:
                    line = raw.decode("utf-8").rstrip("\r")
                except UnicodeDecodeError:
                    lines.put(_Trouble(f"sent a line that is not UTF-8: {raw[:60]!r}"))
                    return
                queued += len(line.encode()) + 1
                lines.put(line)
            if len(buffer) > MAX_LINE_BYTES:
                lines.put(_Trouble(f"sent more than {MAX_LINE_BYTES:,} bytes without a newline"))
                return
            if queued - taken[0] > MAX_PENDING_BYTES:
                lines.put(_Trouble(f"sent more than {MAX_PENDING_BYTES:,} bytes that were not "
                                   f"asked for"))
                return
    except (OSError, ValueError):
        pass
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
    lines.put(None)


class EngineProcess:
    """One running program that speaks the protocol.

    Raises PlayerSpecError for a command that cannot be split,
    PlayerFailedError("crash") if it cannot be started or ends, ("timeout")
    if it does not finish the handshake within ``handshake`` seconds.
    """

    def __init__(self, command: Union[str, Sequence[str]], *,
                 handshake: float = HANDSHAKE_SECONDS) -> None:
        self.argv = split_command(command)
        self.name = " ".join(self.argv)
        self.engine_name = ""
        self.info: List[str] = []       # the info lines of the last move
        self._lines: "queue.Queue[Union[str, _Trouble, None]]" = queue.Queue()
        self._taken = [0]               # bytes of lines taken off the queue (the reader counts its own)
        self._stop = threading.Event()
        group = os.name == "posix"      # its own process group: Ctrl-C is ours to pass on
        token = secrets.token_hex(8)
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1, start_new_session=group,
                env={**os.environ, TOKEN_VARIABLE: token})
        except OSError as exc:
            raise PlayerFailedError(f"engine {quote(self.name)} cannot be started: "
                                    f"{exc.strerror or exc}", "crash") from None
        self.pid = self.process.pid
        # the reader owns the output's descriptor: the text stream Popen made is never read
        out = os.dup(self.process.stdout.fileno())
        self.process.stdout.close()
        self.process.stdout = None
        self._finalizer = weakref.finalize(self, _kill, self.process, group, token, self._stop)
        threading.Thread(target=_read, args=(out, self._lines, self._taken, self._stop),
                         name="mancala-engine-reader", daemon=True).start()
        try:
            self.send("ugi")
            for line in self._until("ugiok", handshake, "the handshake (ugi)"):
                if line.startswith("id name "):
                    self.engine_name = line[len("id name "):].strip()
            self.send("isready")
            self._until("readyok", handshake, "the handshake (isready)")
        except BaseException:   # Ctrl-C too: no quit and wait, it is killed at once
            self.close(kill=True)
            raise

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _fail(self, message: str, reason: str) -> PlayerFailedError:
        """Kill the program and make the error to raise."""
        self.close(kill=True)
        return PlayerFailedError(f"engine {quote(self.name)} {message}", reason)

    def _ended(self) -> str:
        """How the program's output ended: its exit status, or a closed output (it is killed next)."""
        try:
            return f"exited (status {self.process.wait(timeout=EXIT_SECONDS)})"
        except subprocess.TimeoutExpired:
            return "closed its output"

    def send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            raise self._fail("closed its input (it has exited)", "crash") from None

    def _take(self, timeout: float) -> "Union[str, _Trouble, None]":
        item = self._lines.get(timeout=timeout)
        if isinstance(item, str):
            self._taken[0] += len(item.encode()) + 1
        return item

    def _until(self, word: str, seconds: float, what: str) -> List[str]:
        """The lines up to the first whose first word is ``word``."""
        deadline = time.monotonic() + seconds
        seen: List[str] = []
        size = 0
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._take(max(0.0, min(left, 0.1)))
            except queue.Empty:
                if left <= 0:
                    raise self._fail(f"did not answer {what} within {seconds:g} s", "timeout") from None
                if not self.alive and self._lines.empty():  # exited; a child may hold its output
                    raise self._fail(f"exited (status {self.process.returncode}) during {what}",
                                     "crash") from None
                continue
            if line is None:
                raise self._fail(f"{self._ended()} during {what}", "crash")
            if isinstance(line, _Trouble):
                raise self._fail(f"{line.message} during {what}", "protocol")
            size += len(line) + 1
            if size > MAX_MOVE_BYTES:
                raise self._fail(f"sent more than {MAX_MOVE_BYTES:,} bytes during {what}", "protocol")
            if line.split()[:1] == [word]:
                return seen + [line]
            if line.startswith("info") or word != "bestmove":
                seen.append(line)

    def bestmove(self, board: Board, seconds: float) -> int:
        """The program's move (0..5) for board, searching ``seconds``.

        Raises PlayerFailedError: "crash" if it exits, "timeout" if it takes
        longer than seconds * 1.5 + 1, "illegal-move" for a pit that is not
        legal, "protocol" for an answer that is not a pit or an error line
        about the position. Ctrl-C kills the program and passes on.
        """
        try:
            return self._bestmove(board, seconds)
        except KeyboardInterrupt:
            self.close(kill=True)
            raise

    def _bestmove(self, board: Board, seconds: float) -> int:
        while True:     # forget what it said between moves
            try:
                line = self._take(0)
            except queue.Empty:
                break
            if line is None:
                raise self._fail(f"{self._ended()} between moves", "crash")
            if isinstance(line, _Trouble):
                raise self._fail(f"{line.message} between moves", "protocol")
        self.send(position_command(board))
        movetime = max(1, round(seconds * 1000))
        self.send(f"go movetime {movetime}")
        limit = seconds * (1 + MARGIN_SHARE) + MARGIN_SECONDS
        lines = self._until("bestmove", limit, f"go movetime {movetime}")
        self.info = [line for line in lines if line.startswith("info")]
        for line in self.info:
            if line.startswith("info string error"):
                raise self._fail(f"refused the position: {quote(line)}", "protocol")
        words = lines[-1].split()
        answer = words[1] if len(words) > 1 else ""
        number = parse_whole(answer)
        if number is None or not 1 <= number <= 6:
            raise self._fail(f"answered {quote(lines[-1])}, not a pit 1..6", "protocol")
        pit = number - 1
        if pit not in board.legal_moves:
            legal = " ".join(str(p + 1) for p in board.legal_moves)
            raise self._fail(f"played pit {pit + 1}, which is not legal (legal: {legal})",
                             "illegal-move")
        return pit

    def said(self) -> Tuple[int, int, int, bool]:
        """What the program's last ``info ... score ...`` line of the last move said:
        (score, depth, nodes, exact), 0 (False) for what it did not say."""
        for line in reversed(self.info):
            words = line.split()
            found = {}
            for key in ("depth", "score", "nodes"):
                if key in words:
                    at = words.index(key) + 1
                    exact = key == "score" and words[at:at + 1] == ["exact"]
                    value = words[at + 1 if exact else at:][:1]
                    if value and re.fullmatch(r"-?[0-9]{1,30}", value[0]):
                        found[key] = int(value[0])
                    found["exact"] = found.get("exact") or exact
            if "score" in found:
                return found["score"], found.get("depth", 0), found.get("nodes", 0), bool(found["exact"])
        return 0, 0, 0, False

    def close(self, kill: bool = False) -> None:
        """Ask the program to quit, then kill it if it has not; always reaped. Raises nothing."""
        if not self._finalizer.alive:
            return
        if not kill and self.alive:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=QUIT_SECONDS)
            except Exception:
                pass
        self._finalizer()       # kills whatever is left and reaps it, once


__all__ = ["EngineProcess", "position_command", "split_command", "HANDSHAKE_SECONDS",
           "MARGIN_SECONDS", "MARGIN_SHARE"]
