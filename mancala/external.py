"""A program that speaks the engine protocol, driven as a subprocess.

:class:`EngineProcess` starts the program (its command split as a shell
would, but run without one), shakes hands (``ugi``/``ugiok``,
``isready``/``readyok``) and asks it for moves: ``position ...`` with the
game so far, then ``go movetime MS``, then reads ``bestmove``. Whatever goes
wrong raises :class:`mancala.errors.PlayerFailedError` with its reason
("crash", "timeout", "illegal-move", "protocol") after the process has been
killed and reaped; the process is also ended by :meth:`close`, when the
object is collected, and when the interpreter exits.
"""
from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import weakref
from typing import List, Optional, Sequence, Union

from mancala.board import Board
from mancala.errors import PlayerFailedError, PlayerSpecError, quote

HANDSHAKE_SECONDS = 10.0    # a program has this long to answer ugi and isready
MARGIN_SECONDS = 1.0        # a move may take its time * (1 + MARGIN_SHARE) + this
MARGIN_SHARE = 0.5
QUIT_SECONDS = 0.5          # after quit, how long a program may take to exit before it is killed
EXIT_SECONDS = 1.0          # after its output ends, how long a program may take to exit
SIDES = ("south", "north")


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
    if root.to_move == 0 and slots == ([seeds] * 6 + [0]) * 2 and 1 <= seeds <= 12:
        line = f"position startpos seeds {seeds}"
    else:
        line = f"position board {' '.join(map(str, slots))} {SIDES[root.to_move]}"
    line += f" capture {root.capture}"
    if moves:
        line += " moves " + " ".join(str(pit + 1) for pit in moves)
    return line


def _kill(process: subprocess.Popen, group: bool) -> None:
    """End process (and its process group) and reap it. Raises nothing."""
    try:
        if process.poll() is None:
            if group:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except OSError:
                    process.kill()
            else:
                process.kill()
        process.wait(timeout=5)
    except Exception:
        pass
    for stream in (process.stdin, process.stdout):
        try:
            if stream is not None:
                stream.close()
        except Exception:
            pass


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
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        group = os.name == "posix"      # its own process group: Ctrl-C is ours to pass on
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1, start_new_session=group)
        except OSError as exc:
            raise PlayerFailedError(f"engine {quote(self.name)} cannot be started: "
                                    f"{exc.strerror or exc}", "crash") from None
        self.pid = self.process.pid
        self._finalizer = weakref.finalize(self, _kill, self.process, group)
        threading.Thread(target=self._read, args=(self.process.stdout, self._lines),
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

    @staticmethod
    def _read(stream, lines: "queue.Queue[Optional[str]]") -> None:
        try:
            for line in stream:
                lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        lines.put(None)

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

    def _until(self, word: str, seconds: float, what: str) -> List[str]:
        """The lines up to the first whose first word is ``word``."""
        deadline = time.monotonic() + seconds
        seen: List[str] = []
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.0, left))
            except queue.Empty:
                raise self._fail(f"did not answer {what} within {seconds:g} s", "timeout") from None
            if line is None:
                raise self._fail(f"{self._ended()} during {what}", "crash")
            seen.append(line)
            if line.split()[:1] == [word]:
                return seen

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
                if self._lines.get_nowait() is None:
                    raise self._fail(f"{self._ended()} between moves", "crash")
            except queue.Empty:
                break
        self.send(position_command(board))
        self.send(f"go movetime {max(1, round(seconds * 1000))}")
        limit = seconds * (1 + MARGIN_SHARE) + MARGIN_SECONDS
        lines = self._until("bestmove", limit, f"go movetime (within {limit:g} s)")
        self.info = [line for line in lines if line.startswith("info")]
        for line in self.info:
            if line.startswith("info string error"):
                raise self._fail(f"refused the position: {quote(line)}", "protocol")
        words = lines[-1].split()
        answer = words[1] if len(words) > 1 else ""
        if not answer.isdigit() or not 1 <= int(answer) <= 6:
            raise self._fail(f"answered {quote(lines[-1])}, not a pit 1..6", "protocol")
        pit = int(answer) - 1
        if pit not in board.legal_moves:
            legal = " ".join(str(p + 1) for p in board.legal_moves)
            raise self._fail(f"played pit {pit + 1}, which is not legal (legal: {legal})",
                             "illegal-move")
        return pit

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
