"""``python -m mancala puzzle``: find the move that wins more than any other.

The terminal session: a puzzle near your puzzle rating (of a theme you choose
with ``--theme``, or one of your own mistakes with ``--mine``), its goal in
plain words (:func:`mancala.puzzles.goal`); you type the move, the opponent
(the engine) answers, until the line is done. A wrong move is taken
back and you try again; the puzzle moves your puzzle rating once (Glicko-2,
kept in ``puzzles.sqlite3`` in the data folder), missed at the first wrong
move. Then the line is shown move by move and the position it leads to.
``--export FILE`` writes every shipped puzzle as JSON lines instead.
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
from mancala.cli.entry import Command, legal_pits_text, parse_entry
from mancala.cli.render import Style, move_text, render_board, want_color, wrap
from mancala.engine import Engine
from mancala.geometry import SIDE_NAMES, store_slot
from mancala.history import History
from mancala.puzzles import mine
from mancala.errors import CommandError, EntryError, HistoryError, MancalaError
from mancala.limits import SMALL_HASH_MB
from mancala.puzzles.teaching import (THEME_NAMES, THEMES, after_line, end_words, goal,
                                      line_records, wrong_move_value)
from mancala.rating import Rating
from mancala.scores import Score
from mancala.untrusted import printable

GIVE_UP = ("solution", "give up", "resign")
HELP = """\
Find the move that wins more seeds than any other (every other loses at least 2).
Type a pit: 1-6 from the mover's left, or its letter (A-F South's, G-L North's).
A wrong move is taken back: try again (the puzzle counts as missed, once).
Commands:
  solution     show the solution, played out (the puzzle counts as missed)
  help         this text
  quit         stop (a puzzle left before a wrong move counts for nothing)"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "puzzle", help="puzzles: find the move that wins more than any other",
        description="Solve puzzles in the terminal: exactly one move keeps the position's "
                    "perfect-play score, every other loses at least 2 seeds. You play the "
                    "solver's moves, the engine the answers, until the line is done; a wrong "
                    "move is taken back to try again. Each puzzle moves your puzzle rating "
                    "once (Glicko-2), kept in "
                    f"{_puzzles.FILE_NAME} in the data folder ($MANCALA_HOME, else "
                    "~/.local/share/mancala).",
        epilog="--export writes JSON lines, a puzzle each: id, board (14 counts in rule "
               "order), to_move (0 South, 1 North), seeds (per pit), capture, solution_indices "
               "(the whole line, "
               "pit indices 0..5 of whoever moves), rating, value (the solver's perfect-play "
               "value), gap (the fewest seeds a second-best move loses), depth.")
    p.add_argument("--export", metavar="FILE",
                   help="write every puzzle to FILE as JSON lines (- for stdout) and stop")
    p.add_argument("--id", metavar="ID", help="play this puzzle (its 8-digit id), then stop")
    p.add_argument("--theme", choices=THEMES,
                   help="puzzles of one theme: capture, extra-turn (a chain of extra turns), "
                        "starving (leave the opponent no seeds to move), endgame (few seeds left)")
    p.add_argument("--mine", action="store_true",
                   help="your own puzzles: the mistakes of your games, made puzzles when "
                        "python -m mancala review reviews a game of your history")
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
    if args.mine:
        shipped = own_puzzles()
    chosen = _puzzles.by_id(args.id, shipped) if args.id is not None else None
    session = Session(shipped, Style(want_color(args.no_color)), random.Random(args.seed),
                      theme=args.theme)
    session.run(chosen)
    return 0


def own_puzzles() -> list:
    """The puzzles kept with the reviews of your games; CommandError when there are none."""
    history = History()
    waiting = mine.waiting(history)
    if waiting:
        count = len(waiting)
        print(wrap(f"Making puzzles of your mistakes in {count} reviewed game"
                   f"{'' if count == 1 else 's'} (once)..."), flush=True)
    found = mine.kept(history)
    for notice in history.notices:
        print(f"mancala: {notice}", file=sys.stderr)
    if not found:
        raise CommandError("no puzzles of your own yet: review a game you played "
                           "(python -m mancala review --last); its mistakes become puzzles")
    return found


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
    """Puzzles one after another in the terminal, each result kept in the log.

    A wrong move is taken back and the person tries again (the rating counts
    the puzzle once, missed, at the first wrong move); ``solution`` plays the
    line out. After a puzzle the line is shown move by move and the position it
    leads to is drawn.
    """

    def __init__(self, shipped, style: Style, rng: random.Random,
                 input: Callable[[str], str] = input, output: Callable[[str], None] = print,
                 theme: Optional[str] = None) -> None:
        self.shipped = shipped
        self.style = style
        self.rng = rng
        self.input = input
        self.output = lambda text: output(wrap(text))
        self.theme = theme
        self.log: Optional[_puzzles.PuzzleLog] = _puzzles.PuzzleLog()
        self.engine = Engine(hash_mb=SMALL_HASH_MB)
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
            puzzle = chosen or _puzzles.choose(self.shipped, self.rating.rating, self.tried,
                                               self.rng, theme=self.theme)
            try:
                if not self.play(puzzle):
                    return
                if chosen is not None or not self.again():
                    return
            except EOFError:
                self.output("")
                return

    def play(self, puzzle: _puzzles.Puzzle) -> bool:
        """One puzzle; False if the person quit before its end (nothing more is kept then)."""
        attempt = _puzzles.Attempt(puzzle, retry=True)
        solver = SIDE_NAMES[puzzle.to_move]
        themes = ", ".join(THEME_NAMES[theme] for theme in puzzle.themes)
        self.output("")
        self.output(f"Puzzle {puzzle.id}, rated {puzzle.rating}"
                    + (f" ({themes})" if themes else "") + f", {puzzle.rules}: "
                    f"you play {solver}." + (f" From your {puzzle.source}." if puzzle.source else ""))
        self.output(self.board_text(attempt.board, puzzle))
        self.output(goal(puzzle))
        while attempt.result is None:
            pit = self.ask(attempt.board)
            if pit is None:
                return False
            if pit == "solution":
                attempt.give_up()
                self.count(attempt)
                break
            board_before = attempt.board.copy(stack=False)
            made = len(attempt.board.move_stack)
            outcome = attempt.play(pit)
            if outcome == "wrong":
                self.output(self.style(f"Not the move: {self.loses(board_before, pit, puzzle)} "
                                       "Try again, or type solution.", "bad"))
                self.count(attempt)
                continue
            said = f"Right: {move_text(attempt.board.move_stack[made])}"
            if attempt.replies:
                other = SIDE_NAMES[1 - puzzle.to_move]
                made = attempt.board.move_stack[-len(attempt.replies):]
                said += f". {other} answers {'; '.join(move_text(record) for record in made)}"
            elif outcome == "right":
                said += "; move again"
            self.output(self.style(said + ".", "good"))
            if outcome == "right":
                self.output(self.board_text(attempt.board, puzzle))
        if attempt.result == "solved":
            self.output(self.style("Solved!" if not attempt.missed else
                                   "Solved, on another try (the miss is what counted).", "good"))
        self.count(attempt)
        self.tried.add(puzzle.id)
        self.show_line(puzzle)
        return True

    def show_line(self, puzzle: _puzzles.Puzzle) -> None:
        """The solution line move by move, and the position it leads to."""
        self.output("The line: " + "; ".join(
            f"{SIDE_NAMES[record.player]} {move_text(record)}"
            for record in line_records(puzzle)) + ".")
        end = after_line(puzzle)
        self.output("After it:")
        self.output(render_board(end, self.names(puzzle), self.style))
        you, other = end.pits[store_slot(puzzle.to_move)], end.pits[store_slot(1 - puzzle.to_move)]
        state = "the game is over" if end.is_game_over() else \
            f"{SIDE_NAMES[end.to_move]} would move next"
        self.output(f"Your store {you}, {SIDE_NAMES[1 - puzzle.to_move]}'s {other}; {state}. "
                    f"With best play from the puzzle's start {end_words(puzzle.value)}.")

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
        text = move_text(board.copy(stack=False).push(pit))
        worth = wrong_move_value(board, pit, lambda: self.engine)
        if worth is None:
            return f"{text} loses at least {_puzzles.MIN_GAP} seeds against the best move."
        score = Score(worth, board.to_move, exact=True)
        lost = puzzle.value - score.seeds       # the line keeps the solver's value all the way
        return (f"{text} ends {score.words(you=board.to_move)} with best play, "
                f"{lost} seed{'' if lost == 1 else 's'} less than the best move.")

    def count(self, attempt: _puzzles.Attempt) -> None:
        """Keep the attempt's result in the log when the rating counts it (once)."""
        result = attempt.take_result()
        if result is None or self.log is None:
            return
        puzzle = attempt.puzzle
        try:
            kept = self.log.record(puzzle, result, attempt.played)
        except HistoryError as exc:
            self._log_off(exc)
            return
        finally:
            self._notices()
        if not kept.counted:
            self.output(f"Already counted: a puzzle moves your rating once, the first time; "
                        f"your puzzle rating stays {self.rating.shown()}.")
            return
        self.rating = kept.after
        change = kept.after.rating - kept.before.rating
        low, high = kept.after.interval()
        again = " (counted once: another try now changes nothing)" if not result and \
            attempt.result is None else ""
        between = "" if kept.after.provisional else f", 95% between {low:.0f} and {high:.0f}"
        self.output(f"Your puzzle rating: {kept.after.shown()} ({change:+.0f}){between}{again}.")

    def again(self) -> bool:
        answer = self.input("Another puzzle? [Y/n]: ").strip().lower()
        return answer in ("", "y", "yes")

    def rating_line(self) -> str:
        if self.log is None:
            return "Puzzle rating: off (the puzzle log cannot be used)."
        if not self.tried:
            return (f"Your puzzle rating starts at {self.rating.shown()}; each puzzle you "
                    "solve or miss moves it.")
        low, high = self.rating.interval()
        provisional = "provisional: " if self.rating.provisional else ""
        return (f"Your puzzle rating: {self.rating.shown()} ({provisional}"
                f"95% between {low:.0f} and {high:.0f}), from {len(self.tried)} "
                f"puzzle{'' if len(self.tried) == 1 else 's'}.")

    @staticmethod
    def names(puzzle: _puzzles.Puzzle) -> tuple:
        return ("you", "engine") if puzzle.to_move == 0 else ("engine", "you")

    def board_text(self, board: Board, puzzle: _puzzles.Puzzle) -> str:
        return render_board(board, self.names(puzzle), self.style)

    def _log_off(self, exc: MancalaError) -> None:
        self.output(f"puzzle log is off: {printable(' '.join(str(exc).split()))}")
        self.log = None

    def _notices(self) -> None:
        if self.log is not None:
            for notice in self.log.notices:
                self.output(printable(notice))
            self.log.notices.clear()


__all__ = ["add_parser", "run", "export", "Session"]
