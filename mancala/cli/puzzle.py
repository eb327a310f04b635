"""``python -m mancala puzzle``: find the only move that keeps the value.

The terminal session: a puzzle near your puzzle rating, you type the move, the
engine answers with the line's reply, until the line is done or a move is
wrong; each result moves your puzzle rating (Glicko-2, kept in
``puzzles.sqlite3`` in the data folder). ``--export FILE`` writes every
shipped puzzle as JSON lines instead.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Callable, Optional

from mancala import puzzles as _puzzles
from mancala._system import NotARegularFile, read_head, refuse_special, write_atomically
from mancala.board import Board
from mancala.cli import options
from mancala.cli.entry import Command, legal_pits_text, parse_entry, pit_label
from mancala.cli.render import Style, render_board, want_color
from mancala.engine import Engine
from mancala.geometry import PovScore, SIDE_NAMES
from mancala.errors import CommandError, EntryError, HistoryError, MancalaError
from mancala.rating import Rating
from mancala.untrusted import printable

GIVE_UP = ("solution", "give up", "resign")
HELP = """\
Find the move that keeps the value: every other move loses at least 2 seeds.
Type a pit: 1-6 from the mover's left, or its letter (A-F South's, G-L North's).
Commands:
  solution     show the solution (the puzzle counts as missed)
  help         this text
  quit         stop (a puzzle left unfinished counts for nothing)"""
WRONG_SOLVE_NODES = 2_000_000   # to say what a wrong move loses: one solve, within this budget


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "puzzle", help="puzzles: find the only move that keeps the value",
        description="Solve puzzles from engine games in the terminal: exactly one move keeps "
                    "the position's perfect-play value, every other loses at least 2 seeds. "
                    "You play the solver's moves, the engine the answers, until the line is "
                    "done; each result moves your puzzle rating (Glicko-2), kept in "
                    f"{_puzzles.FILE_NAME} in the data folder ($MANCALA_HOME, else "
                    "~/.local/share/mancala).",
        epilog="--export writes JSON lines, a puzzle each: id, board (14 counts in rule "
               "order), to_move (0 South, 1 North), capture, solution_indices (the whole line, "
               "pit indices 0..5 of whoever moves), rating, value (the solver's perfect-play "
               "value), gap (the fewest seeds a second-best move loses), depth.")
    p.add_argument("--export", metavar="FILE",
                   help="write every puzzle to FILE as JSON lines (- for stdout) and stop")
    p.add_argument("--id", metavar="ID", help="play this puzzle (its 8-digit id), then stop")
    p.add_argument("--seed", type=options.seed, default=None, metavar="N",
                   help="repeat the same choice of puzzles")
    p.add_argument("--no-color", action="store_true", help="no colours")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    shipped = _puzzles.load()
    if args.export is not None:
        if args.id is not None:
            raise CommandError("give --export or --id, not both")
        count = export(shipped, args.export)
        if args.export != "-":
            print(f"Wrote {count:,} puzzles to {args.export}.")
        return 0
    chosen = _puzzles.by_id(args.id, shipped) if args.id is not None else None
    session = Session(shipped, Style(want_color(args.no_color)), random.Random(args.seed))
    session.run(chosen)
    return 0


# -- export -----------------------------------------------------------------------------

def export(shipped, target: str) -> int:
    """Write the puzzles as JSON lines to target ('-': stdout), atomically;
    CommandError if target is a folder, in a folder that does not exist, or an
    existing file that is not a puzzle export."""
    if target == "-":
        return _puzzles.export(shipped, sys.stdout.write)
    path = Path(target)
    if path.is_dir():
        raise CommandError(f"{target!r} is a folder")
    if not path.parent.is_dir():
        raise CommandError(f"no folder {str(path.parent)!r}: create it first")
    try:
        refuse_special(path)
    except NotARegularFile:
        raise CommandError(f"will not write to {target!r}: not a regular file") from None
    if path.exists() and not _is_export(path):
        raise CommandError(f"will not overwrite {target!r}: it is not a puzzle export")
    return write_atomically(path, lambda handle: _puzzles.export(shipped, handle.write))


def _is_export(path: Path) -> bool:
    """An empty file, or one whose first line is a puzzle."""
    try:
        first = read_head(path, 1 << 16).decode("utf-8", "replace").split("\n", 1)[0]
        if not first.strip():
            return os.stat(path).st_size == 0
        _puzzles.Puzzle.from_json(json.loads(first))
        return True
    except (OSError, ValueError, RecursionError):
        return False


# -- the session ------------------------------------------------------------------------

class Session:
    """Puzzles one after another in the terminal, each result kept in the log."""

    def __init__(self, shipped, style: Style, rng: random.Random,
                 input: Callable[[str], str] = input, output: Callable[[str], None] = print) -> None:
        self.shipped = shipped
        self.style = style
        self.rng = rng
        self.input = input
        self.output = output
        self.log: Optional[_puzzles.PuzzleLog] = _puzzles.PuzzleLog()
        self.engine = Engine(hash_mb=16)
        self.rating = Rating()
        self.tried = set()
        try:
            attempts = self.log.attempts()
            self.rating = attempts[-1].after if attempts else Rating()
            self.tried = {attempt.puzzle for attempt in attempts}
        except HistoryError as exc:
            self._log_off(exc)
        self._notices()

    def run(self, chosen: Optional[_puzzles.Puzzle] = None) -> None:
        """Puzzles until quit or the end of input (one puzzle with ``chosen``)."""
        self.output(self.rating_line())
        while True:
            puzzle = chosen or _puzzles.choose(self.shipped, self.rating.rating, self.tried, self.rng)
            try:
                if not self.play(puzzle):
                    return
                if chosen is not None or not self.again():
                    return
            except EOFError:
                self.output("")
                return

    def play(self, puzzle: _puzzles.Puzzle) -> bool:
        """One puzzle; False if the person quit before its end (nothing is kept then)."""
        attempt = _puzzles.Attempt(puzzle)
        solver = SIDE_NAMES[puzzle.to_move]
        self.output("")
        self.output(f"Puzzle {puzzle.id}, rated {puzzle.rating}, capture {puzzle.capture}: "
                    f"{solver} to move.")
        self.output(self.board_text(attempt.board))
        self.output(f"Find the only move that keeps {solver}'s value, {value_text(puzzle.value, solver)};"
                    f" every other move loses at least {_puzzles.MIN_GAP} seeds.")
        while attempt.result is None:
            pit = self.ask(attempt.board)
            if pit is None:
                return False
            if pit == "solution":
                self.output(f"The solution: {line_text(puzzle)}.")
                self.finish(puzzle, False, attempt.played)
                return True
            board_before = attempt.board.copy(stack=False)
            outcome = attempt.play(pit)
            if outcome == "wrong":
                self.output(self.style(f"Not the move: {self.loses(board_before, pit, puzzle)}", "bad"))
                self.output(f"The solution: {line_text(puzzle)}.")
                self.finish(puzzle, False, attempt.played)
                return True
            said = f"Right: {pit + 1} ({pit_label(pit, puzzle.to_move)})"
            if attempt.replies:
                other = SIDE_NAMES[1 - puzzle.to_move]
                answers = ", ".join(f"{r + 1} ({pit_label(r, 1 - puzzle.to_move)})"
                                    for r in attempt.replies)
                said += f". {other} answers {answers}"
            elif outcome == "right":
                said += "; an extra turn, move again"
            self.output(self.style(said + ".", "good"))
            if outcome == "right":
                self.output(self.board_text(attempt.board))
        self.output(self.style("Solved!", "good"))
        self.finish(puzzle, True, attempt.played)
        return True

    def ask(self, board: Board):
        """The person's move (a pit index), 'solution', or None for quit."""
        while True:
            text = self.input(f"Your move ({' '.join(str(p + 1) for p in board.legal_moves)}; "
                              "or solution, help, quit): ")
            if text.strip().lower() in GIVE_UP:
                return "solution"
            try:
                entry = parse_entry(text, board)
            except EntryError as exc:
                self.output(f"{exc}; legal pits: {legal_pits_text(board)}")
                continue
            if isinstance(entry, Command):
                if entry.command == "quit":
                    return None
                if entry.command == "help":
                    self.output(HELP)
                else:
                    self.output(f"{entry.command} is not for puzzles: type a pit, solution, help or quit")
                continue
            return entry

    def loses(self, board: Board, pit: int, puzzle: _puzzles.Puzzle) -> str:
        """What the wrong move is worth, when a quick solve says."""
        child = board.copy(stack=False)
        child.push(pit)
        solved = self.engine.solve(child, nodes=WRONG_SOLVE_NODES)
        text = f"{pit + 1} ({pit_label(pit, board.to_move)})"
        if not solved.exact:
            return f"{text} does not keep the value."
        value = PovScore(solved.score, child.to_move).pov(board.to_move)
        kept = puzzle.value         # the line keeps the solver's value all the way
        lost = kept - value
        return (f"{text} is worth {value:+d}, {lost} seed{'' if lost == 1 else 's'} less "
                f"than {f'{kept:+d}' if kept else '0'}.")

    def finish(self, puzzle: _puzzles.Puzzle, solved: bool, moves) -> None:
        self.tried.add(puzzle.id)
        if self.log is None:
            return
        try:
            kept = self.log.record(puzzle, solved, moves)
        except HistoryError as exc:
            self._log_off(exc)
            return
        finally:
            self._notices()
        if not kept.counted:
            self.output(f"Already counted: a puzzle moves your rating once, the first time; "
                        f"your puzzle rating stays {self.rating.rating:.0f}.")
            return
        self.rating = kept.after
        change = kept.after.rating - kept.before.rating
        low, high = kept.after.interval()
        self.output(f"Your puzzle rating: {kept.after.rating:.0f} ({change:+.0f}), "
                    f"95% between {low:.0f} and {high:.0f}.")

    def again(self) -> bool:
        answer = self.input("Another puzzle? [Y/n]: ").strip().lower()
        return answer in ("", "y", "yes")

    def rating_line(self) -> str:
        if self.log is None:
            return "Puzzle rating: off (the puzzle log cannot be used)."
        if not self.tried:
            return (f"Your puzzle rating starts at {self.rating.rating:.0f}; each puzzle you "
                    "solve or miss moves it.")
        low, high = self.rating.interval()
        return (f"Your puzzle rating: {self.rating.rating:.0f} (95% between {low:.0f} and "
                f"{high:.0f}), from {len(self.tried)} puzzle{'' if len(self.tried) == 1 else 's'}.")

    def board_text(self, board: Board) -> str:
        names = ("you", "engine") if board.to_move == 0 else ("engine", "you")
        return render_board(board, names, self.style)

    def _log_off(self, exc: MancalaError) -> None:
        self.output(f"puzzle log is off: {printable(' '.join(str(exc).split()))}")
        self.log = None

    def _notices(self) -> None:
        if self.log is not None:
            for notice in self.log.notices:
                self.output(printable(notice))
            self.log.notices.clear()


def value_text(value: int, solver: str) -> str:
    """'+8 (South ends 8 seeds ahead with best play)'."""
    if value == 0:
        return "0 (a draw with best play)"
    ahead = "ahead" if value > 0 else "behind"
    return f"{value:+d} ({solver} ends {abs(value)} seed{'' if abs(value) == 1 else 's'} {ahead} with best play)"


def line_text(puzzle: _puzzles.Puzzle) -> str:
    """'South 5 (E), North 3 (I), South 1 (A)'."""
    board = puzzle.position()
    words = []
    for pit in puzzle.solution:
        mover = board.to_move
        words.append(f"{SIDE_NAMES[mover]} {pit + 1} ({pit_label(pit, mover)})")
        board.push(pit)
    return ", ".join(words)


__all__ = ["add_parser", "run", "export", "Session", "line_text", "value_text"]
