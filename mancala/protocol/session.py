"""The engine protocol: lines on stdin, answers on stdout (``python -m mancala engine``).

The shape of UCI and UGI (its game-neutral descendant, spoken by the cutegames
runner); every command and answer is in ``docs/protocol.md``. :class:`Session`
keeps the state (options, position, the engine) and runs each search in a
worker thread; the reader never waits for it: ``stop``, ``quit``, ``isready``
and ``query`` are answered at once, and ``go``, ``setoption`` and
``uginewgame`` are refused while a search runs. Every line that cannot be
obeyed gets one ``info string error: ...`` line and changes nothing.

Moves are pits 1..6 counted from the mover's left, as the terminal game
numbers them (``Board.push`` takes 0..5). What the lines say (a position, a
go's limits) is read by :mod:`mancala.protocol.lines`.
"""
from __future__ import annotations

import threading
from typing import Callable, Iterable, Optional, Sequence, Union

from mancala._core import EVALUATIONS
from mancala.board import Board
from mancala.engine import Engine
from mancala.errors import InputError, MancalaError, quote
from mancala.geometry import SIDE_KEYS
from mancala.limits import (DEFAULT_HASH_MB, MAX_THREADS, PLAY_EVALUATION, check_hash_mb, check_threads,
                            default_table_mb, hash_mb_ceiling)
from mancala.protocol.lines import MAX_LINE_BYTES, GoLimits, parse_position, pits_text, whole

AUTHOR = "the mancala developers"
STOP_POLL_SECONDS = 0.01                   # stop repeats this often until the search has ended


class Session:
    """One protocol conversation: call :meth:`handle` with each line; answers go to ``write``.

    ``handle`` returns False once ``quit`` has been obeyed. ``write`` is
    called with one line at a time, from the reader's thread or the search's,
    never both at once.
    """

    def __init__(self, write: Callable[[str], None], version: str = "",
                 evaluation: str = PLAY_EVALUATION, threads: int = 1) -> None:
        self._write_line = write
        self._out_lock = threading.Lock()
        self.version = version
        self.hash_mb: float = default_table_mb(DEFAULT_HASH_MB)
        self.threads = check_threads(threads)
        self.evaluation = self._evaluation(evaluation)
        self.board = Board()
        self._engine = None
        self._thread: Optional[threading.Thread] = None
        # True from an accepted go until its bestmove is written: set by the reader,
        # cleared by the search thread with its bestmove, both under _state, so a line
        # sent after the bestmove was seen never finds the search still running
        self._running = False
        self._state = threading.Lock()
        self._searcher = None               # the engine the running search uses (stop's target)
        self._release = threading.Event()   # go infinite: the answer waits for stop
        self._quitting = False
        self.gone = False                   # stdout was closed: nobody reads the answers

    # -- output

    def say(self, line: str) -> None:
        """Write one line; a reader that went away (a closed pipe) ends the session."""
        with self._out_lock:
            if self.gone:
                return
            try:
                self._write_line(line)
            except (OSError, ValueError):
                self.gone = True

    def error(self, message: str) -> None:
        self.say(f"info string error: {message}")

    # -- the engine

    @property
    def engine(self):
        if self._engine is None:
            self._engine = Engine(hash_mb=self.hash_mb, threads=self.threads,
                                  evaluation=self.evaluation)
        return self._engine

    @property
    def searching(self) -> bool:
        """A search runs: its bestmove is still to come."""
        return self._running

    # -- reading

    def handle(self, line: Union[str, bytes]) -> bool:
        """Obey one line (text, or bytes in UTF-8); False after ``quit``. Never raises for a bad line."""
        if isinstance(line, bytes):
            try:
                line = self._text(line)
            except InputError as exc:
                self.error(str(exc))
                return not self.gone
        words = line.split()
        if not words:
            return True
        command, args = words[0].lower(), words[1:]
        try:
            if command == "quit":
                self.quit()
                return False
            handler = self.HANDLERS.get(command)
            if handler is None:
                raise InputError(f"unknown command {quote(words[0])}; commands are "
                                         f"{', '.join(sorted(self.HANDLERS))}, quit")
            handler(self, args)
        except (MancalaError, ValueError) as exc:
            self.error(str(exc).replace("\n", " "))
        except Exception as exc:    # never a traceback: the conversation goes on
            self.error(f"{command}: {type(exc).__name__}: {exc}".replace("\n", " "))
        return not self.gone

    @staticmethod
    def _text(raw: bytes) -> str:
        """A line's bytes as text, or InputError quoting them (escaped: the answer stays ASCII)."""
        body = raw.rstrip(b"\r\n")
        if len(body) > MAX_LINE_BYTES:
            raise InputError(f"a line is at most {MAX_LINE_BYTES:,} bytes; this one is longer: "
                             f"{quote(body[:200])}")
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"a line is UTF-8 text; this one is not: {quote(body)}") from None

    def _no_args(self, command: str, args: Sequence[str]) -> None:
        if args:
            raise InputError(f"{command} takes nothing after it, not {quote(' '.join(args))}")

    def _idle(self, command: str) -> None:
        """Refuse ``command`` while a search runs: the reader never waits for one, so
        stop, isready, query and quit are answered at once, whatever the search's limits."""
        with self._state:
            if self._running:
                raise InputError(f"{command} while a search runs: send stop first, "
                                 f"or wait for its bestmove")

    # -- commands

    def cmd_ugi(self, args: Sequence[str], ok: str = "ugiok") -> None:
        self._no_args(ok[:-2], args)
        self.say(f"id name mancala {self.version}".rstrip())
        self.say(f"id author {AUTHOR}")
        self.say(f"option name Hash type spin default {DEFAULT_HASH_MB} min 0 "
                 f"max {hash_mb_ceiling()}")
        self.say(f"option name Threads type spin default {self.threads} min 1 max {MAX_THREADS}")
        self.say(f"option name Evaluation type combo default {self.evaluation} "
                 + " ".join(f"var {name}" for name in EVALUATIONS))
        self.say(ok)

    def cmd_uci(self, args: Sequence[str]) -> None:
        self.cmd_ugi(args, ok="uciok")

    def cmd_isready(self, args: Sequence[str]) -> None:
        """readyok; the engine (its table) is made and the cached endgame database
        of the position's rule loaded here, not in the first go's time (UGI's rule)."""
        self._no_args("isready", args)
        if not self.searching:
            try:
                seeds = self.engine.prepare(self.board.capture)
            except Exception as exc:   # the table cannot be had: say so, stay ready
                self._engine = None
                self.error(f"the engine cannot be made: {exc}".replace("\n", " "))
            else:
                if seeds is not None:
                    self.say(f"info string endgame database: {self.board.capture} capture, "
                             f"positions with at most {seeds} seeds in the pits")
        self.say("readyok")

    def cmd_setoption(self, args: Sequence[str]) -> None:
        self._idle("setoption")
        lowered = [w.lower() for w in args]
        if len(args) != 4 or lowered[0] != "name" or lowered[2] != "value":
            raise InputError("setoption is 'setoption name Hash|Threads|Evaluation value V', "
                                     f"not {quote(' '.join(args))}")
        name, value = lowered[1], args[3]
        if name == "hash":
            number = whole(value, "Hash (megabytes)", 0, hash_mb_ceiling())
            self.hash_mb = check_hash_mb(number, given=value)
        elif name == "threads":
            self.threads = check_threads(whole(value, "Threads", 1, MAX_THREADS), given=value)
        elif name == "evaluation":
            self.evaluation = self._evaluation(value)
        else:
            raise InputError(f"unknown option {quote(args[1])}; options are Hash, Threads, Evaluation")
        self._engine = None        # made again, with the new option, when next needed

    @staticmethod
    def _evaluation(name: str) -> str:
        """An evaluation's name (store: the store difference; positional, learned: more terms)."""
        if name.lower() not in EVALUATIONS:
            raise InputError(f"Evaluation is one of {', '.join(EVALUATIONS)}, not {quote(name)}")
        return name.lower()

    def cmd_newgame(self, args: Sequence[str]) -> None:
        self._idle("newgame")
        self._no_args("newgame", args)
        if self._engine is not None:
            self._engine.clear()

    def cmd_position(self, args: Sequence[str]) -> None:
        self.board = parse_position(args)     # a bad line raises first: the old position stays

    def cmd_go(self, args: Sequence[str]) -> None:
        self._idle("go")
        limits = GoLimits(args, self.board.to_move)
        if self.board.is_game_over():
            self.error("the game is over: there is no move to search")
            self.say("bestmove none")
            return
        board = self.board.copy(stack=False)
        engine = self._engine_for_go()
        if engine is None:
            self.say(f"bestmove {board.legal_moves[0] + 1}")
            return
        self._release.clear()
        self._searcher = engine
        self._running = True
        self._thread = threading.Thread(target=self._search, args=(engine, board, limits),
                                        name="mancala-search", daemon=True)
        self._thread.start()

    def _engine_for_go(self):
        """The engine, or when it cannot be made (its table cannot be allocated) one
        error line and an engine without a table, or None if even that fails: a go
        is answered by a bestmove whatever memory there is."""
        try:
            return self.engine
        except Exception as exc:
            self._engine = None
            reason = f"the engine cannot be made: {exc}".replace("\n", " ")
        try:
            fallback = Engine(hash_mb=0, threads=self.threads, evaluation=self.evaluation)
        except Exception:
            self.error(reason)
            return None
        self.error(f"{reason}; this search runs without a table")
        return fallback

    def cmd_stop(self, args: Sequence[str]) -> None:
        self._no_args("stop", args)
        self._end_search()

    def cmd_query(self, args: Sequence[str]) -> None:
        if len(args) != 1:
            raise InputError("query is one of: gameover, p1turn, result, position")
        what = args[0].lower()
        board = self.board
        if what == "gameover":
            self.say(f"response {str(board.is_game_over()).lower()}")
        elif what == "p1turn":
            self.say(f"response {str(board.to_move == 0 and not board.is_game_over()).lower()}")
        elif what == "result":
            outcome = board.outcome()
            if outcome is None:
                answer = "none"
            else:
                answer = {0: "p1win", 1: "p2win", None: "draw"}[outcome.winner]
            self.say(f"response {answer}")
        elif what == "position":
            counts = " ".join(str(n) for n in board.pits)
            self.say(f"response {counts} {SIDE_KEYS[board.to_move]} capture {board.capture}")
        else:
            raise InputError(f"query is one of: gameover, p1turn, result, position; "
                                     f"not {quote(args[0])}")

    HANDLERS = {
        "ugi": cmd_ugi, "uci": cmd_uci, "isready": cmd_isready, "setoption": cmd_setoption,
        "newgame": cmd_newgame, "uginewgame": cmd_newgame, "ucinewgame": cmd_newgame,
        "position": cmd_position, "go": cmd_go, "stop": cmd_stop, "query": cmd_query,
    }

    def quit(self) -> None:
        """Stop any search (its answer is not printed) and let the reader end."""
        self._quitting = True
        self._end_search()

    def _end_search(self) -> None:
        """Stop the search, and return once its bestmove is written (or dropped, on quit)."""
        thread = self._thread
        if thread is None:
            return
        self._release.set()
        while thread.is_alive():
            # stopped again till it ends: a stop made before the engine's call began
            # is forgotten by it (each call starts with the stop flag down)
            self._searcher.stop()
            thread.join(STOP_POLL_SECONDS)
        self._thread = None

    # -- the search thread

    def _search(self, engine, board: Board, limits: GoLimits) -> None:
        """The search thread: info lines, then bestmove (a legal pit whatever happens)."""
        move = board.legal_moves[0]
        try:
            if limits.solve:
                result = engine.solve(board, progress=self._bounds())
                self._info(None, result.score if result.exact else None, result.exact,
                           result.nodes, result.elapsed, result.pv if result.move is not None else ())
            else:
                result = engine.search(board, progress=self._progress, **limits.search_limits())
            # a solve stopped in its first short search has no move yet: a depth-1 search has
            move = result.move if result.move is not None else engine.search(board, depth=1).move
            if limits.infinite:
                self._release.wait()    # UCI: infinite answers only when told to stop
        except Exception as exc:     # the engine failed: say so, answer a legal move
            self.error(f"search failed: {type(exc).__name__}: {exc}".replace("\n", " "))
        finally:
            with self._state:
                if not self._quitting:
                    self.say(f"bestmove {move + 1}")
                self._running = False

    def _progress(self, info) -> None:
        """One finished depth of Engine.search (a SearchProgress) as an info line."""
        try:
            self._info(info.depth, info.score, info.exact, info.nodes, info.seconds, info.pv)
        except Exception:   # a progress report must never end the search
            pass

    def _bounds(self) -> Callable[[int, int, int, float], None]:
        """A solve's progress(lower, upper, nodes, seconds) as info lines: after each
        null-window search the bound it moved, ``score L lowerbound`` or ``score U upperbound``
        (the exact value's line comes from the result)."""
        last = [None, None]

        def report(lower: int, upper: int, nodes: int, seconds: float) -> None:
            if lower == upper:
                return
            score = f"{lower} lowerbound" if lower != last[0] else f"{upper} upperbound"
            last[:] = [lower, upper]
            self._info(None, score, False, nodes, seconds, ())
        return report

    def _info(self, depth, score, exact, nodes, seconds, pv) -> None:
        parts = ["info"]
        if depth is not None:
            parts.append(f"depth {depth}")
        if score is not None:
            parts.append(f"score {'exact ' if exact else ''}{score}")
        if nodes is not None:
            parts.append(f"nodes {nodes}")
            if seconds:
                parts.append(f"nps {int(nodes / seconds)}")
        if seconds is not None:
            parts.append(f"time {int(seconds * 1000)}")
        if pv:
            parts.append(f"pv {pits_text(pv)}")
        self.say(" ".join(parts))


def serve(lines: Iterable[Union[str, bytes]], write: Callable[[str], None], version: str = "",
          evaluation: str = PLAY_EVALUATION, threads: int = 1) -> int:
    """Run a session over ``lines`` until ``quit`` or their end; the exit status:
    0, or 1 when the answers' reader went away (as every command does).
    ``evaluation`` and ``threads`` are the Evaluation and Threads options' first values."""
    session = Session(write, version, evaluation, threads)
    try:
        for line in lines:
            if not session.handle(line):
                break
    finally:
        session.quit()
    return 1 if session.gone else 0


__all__ = ["Session", "serve"]
