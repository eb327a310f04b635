"""The terminal's words: what a person types at the game's prompt, and what it does.

A line is a pit (1-6 from the mover's left, or its letter: A-F are South's
pits, G-L North's, whoever moves) or a command (``hint``, ``undo``, ``save
[FILE]``, ``load FILE``, ``resign``, ``help``, ``quit``). :func:`parse_entry` reads one
line; a :class:`Keyboard` is the person at the terminal: it is a human
player's ``ask`` (:class:`mancala.players.Human`), reads lines until one is a
pit, and carries out the commands itself with the game's own operations
(:meth:`mancala.game.Game.hint`, ``undo``, ``save``, ``load``, ``quit``).
The players and the game loop know nothing of typing.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, NamedTuple, Optional, Union

from mancala import storage
from mancala.board import Board
from mancala.errors import EntryError, MancalaError, one_line, quote
from mancala.geometry import PITS, SIDE_NAMES
from mancala.limits import parse_whole

if TYPE_CHECKING:
    from mancala.game import Game

COMMANDS = ("hint", "undo", "save", "load", "resign", "help", "quit")
COMMAND_ALIASES = {"?": "help", "q": "quit", "exit": "quit"}
RESUME_HINT = "python -m mancala play --resume"

HELP = """\
Type a pit to sow it: 1-6, counted from the mover's left (1 is the pit farthest
from the mover's store), or its letter: A-F are South's pits, G-L North's.
Commands:
  hint         the engine's suggestion and its score (not in a rated game)
  undo         take back your last move and the computer's reply (not in a rated game)
  save [FILE]  save the game (default: in the data folder; not in a rated game);
               a FILE ending in .kalah is a game record people can read and paste
  load FILE    continue a saved game instead
  resign       give up this game: it counts as your loss (asks once)
  help         this text
  quit         stop; the game is autosaved ({resume})""".format(resume=RESUME_HINT)


class Command(NamedTuple):
    """A command typed instead of a pit: its name (one of :data:`COMMANDS`) and argument."""

    command: str
    argument: str = ""


def pit_label(pit: int, player: int) -> str:
    """The letter of a pit: A-F for South's pits 0..5, G-L for North's."""
    return "ABCDEFGHIJKL"[player * PITS + pit]


def parse_entry(text: str, board: Board) -> Union[int, Command]:
    """A typed line as a pit (0..5 from the mover's left) or a :class:`Command`.

    Raises EntryError (a ValueError) with a one-line reason (without the legal pits) for
    anything else, including an empty or illegal pit.
    """
    words = text.strip().split(None, 1)
    if not words:
        raise EntryError("type a pit number or a command")
    word = words[0].lower()
    argument = words[1].strip() if len(words) > 1 else ""
    word = COMMAND_ALIASES.get(word, word)
    if word in COMMANDS:
        if word == "load" and not argument:
            raise EntryError("load needs a file name: load FILE")
        if argument and word not in ("save", "load"):
            raise EntryError(f"{word} takes no argument, not {quote(argument)}")
        return Command(word, argument)
    if argument:
        raise EntryError(f"{quote(text.strip())} is not a pit or a command")
    mover = board.to_move
    if len(word) == 1 and "a" <= word <= "l":
        owner, pit = divmod(ord(word) - ord("a"), PITS)
        if owner != mover:
            first, last = pit_label(0, mover), pit_label(PITS - 1, mover)
            raise EntryError(f"{word.upper()} is {SIDE_NAMES[owner]}'s pit; "
                             f"{SIDE_NAMES[mover]} plays {first}-{last}")
    elif (number := parse_whole(word)) is not None:
        if not 1 <= number <= PITS:
            raise EntryError(f"there is no pit {number}; pits are 1-{PITS}")
        pit = number - 1
    else:
        raise EntryError(f"{quote(text.strip())} is not a pit or a command (type help)")
    if pit not in board.legal_moves:
        raise EntryError(f"pit {pit + 1} ({pit_label(pit, mover)}) is empty")
    return pit


def legal_pits_text(board: Board) -> str:
    """'1 2 4 (A B D)': the legal pits as a person types them."""
    moves = board.legal_moves
    numbers = " ".join(str(pit + 1) for pit in moves)
    letters = " ".join(pit_label(pit, board.to_move) for pit in moves)
    return f"{numbers} ({letters})"


def prompt(board: Board) -> str:
    """'South, your move (1 2 4; or help): '."""
    pits = " ".join(str(pit + 1) for pit in board.legal_moves)
    return f"{SIDE_NAMES[board.to_move]}, your move ({pits}; or help): "


class Keyboard:
    """The person at the terminal: every human player of a game asks it for a move.

    ``Keyboard(read, write)``: ``read(prompt)`` returns a line (EOFError at the
    end of input, which passes through), ``write(text)`` shows one. Give
    :meth:`ask` to the game (``Game(..., ask=keyboard.ask)``) and the game to
    the keyboard (``keyboard.game = game``). A pit is returned; ``help`` is
    answered here; ``hint`` and ``save`` are the game's operations, and the
    person is asked again; ``undo``, ``load`` and ``quit`` change the game, so
    no pit is returned (None: the game loop asks again, or stops). A command
    that fails is told to the game's observer (``on_error``) in one line.
    """

    def __init__(self, read: Callable[[str], str], write: Callable[[str], None]) -> None:
        self.read = read
        self.write = write
        self.game: Optional["Game"] = None

    def ask(self, board: Board) -> Optional[int]:
        """The pit the person types for ``board``, or None once a command changed the game."""
        while True:
            line = self.read(prompt(board))
            try:
                entry = parse_entry(line, board)
            except EntryError as exc:
                self.write(f"{exc}. Legal pits: {legal_pits_text(board)}")
                continue
            if isinstance(entry, int):
                return entry
            if self.obey(entry):
                return None

    def obey(self, entry: Command) -> bool:
        """Carry out a command; whether it changed the game (undo, load, quit)."""
        game = self.game
        if entry.command == "help" or game is None:
            self.write(HELP)
            return False
        try:
            if entry.command == "hint":
                game.hint()
            elif entry.command == "save":
                game.save(storage.save_path(entry.argument))
            elif entry.command == "undo":
                game.undo()
            elif entry.command == "load":
                game.load(os.path.expanduser(entry.argument))
            elif entry.command == "resign":
                return self.resign(game)
            else:
                game.quit()
        except (MancalaError, OSError) as exc:
            game.observer.on_error(game, one_line(exc))
            return False
        return entry.command in ("undo", "load", "quit")

    def resign(self, game: "Game") -> bool:
        """Ask once; on yes the side to move resigns (the game is over). Whether it did."""
        counted = "a loss, and your rating counts it" if game.rated else "a loss"
        answer = self.read(f"Resign this game? It is kept as {counted}. [y/N]: ").strip().lower()
        if answer not in ("y", "yes"):
            self.write("Not resigned; play on.")
            return False
        game.resign(game.to_move)
        return True


__all__ = ["COMMANDS", "HELP", "RESUME_HINT", "Command", "Keyboard", "parse_entry", "pit_label",
           "legal_pits_text", "prompt"]
