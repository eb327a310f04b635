"""How the terminal game shows things: the board, a move, a game's record, its result.

Plain functions of the library's values (:class:`mancala.Board`,
:class:`mancala.board.MoveRecord`, :class:`mancala.players.MoveInfo`), and
:class:`Style`, the ANSI colours (or none). :mod:`mancala.cli.play` prints
what they return.
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from mancala.board import Board, MoveRecord
from mancala.cli.entry import pit_label
from mancala.cli.format import duration as _duration
from mancala.cli.options import is_terminal
from mancala.geometry import NORTH, PITS, SIDE_NAMES, SOUTH, pit_of, pit_slot, pit_slots, store_slot
from mancala.players import MoveInfo
from mancala.untrusted import printable

# -- colour ----------------------------------------------------------------------

class Style:
    """ANSI styles, or nothing at all when colour is off."""

    CODES = {"bold": "1", "dim": "2", "mover": "1;36", "last": "1;33", "good": "1;32",
             "bad": "31"}

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color:
            return text
        return f"\033[{self.CODES[style]}m{text}\033[0m"


def want_color(no_color_flag: bool, stream=None) -> bool:
    """Colour only on a terminal, without NO_COLOR, --no-color or TERM=dumb."""
    stream = stream or sys.stdout
    if no_color_flag or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return is_terminal(stream)


# -- drawing ---------------------------------------------------------------------

CELL = 5      # "[ 12]"
GAP = 1


def render_board(board: Board, specs, style: Style, last: Optional[MoveRecord] = None) -> str:
    """Both rows, both stores, the mover's pit numbers 1..6 and everyone's letters.

    North sits on top (its pits run right to left), South below; North's store
    is on the left, South's on the right.
    """
    slots = board.pits
    mover = None if board.is_game_over() else board.to_move
    margin = " " * (2 + CELL + GAP)

    def cell(slot: int) -> str:
        text = f"[{slots[slot]:3d}]"
        if last is not None and pit_slot(last.player, last.pit) == slot:
            return style(text, "last")
        return text

    def labels(items: List[str]) -> str:
        return margin + " ".join(f"{item:^{CELL}}" for item in items).rstrip()

    north_slots = list(reversed(pit_slots(NORTH)))     # North's pits run right to left
    south_slots = list(pit_slots(SOUTH))
    north_row = margin + " ".join(cell(s) for s in north_slots)
    south_row = margin + " ".join(cell(s) for s in south_slots)
    width = PITS * CELL + (PITS - 1) * GAP
    inner = width + 2 * GAP
    left, right = " <- North's store", "South's store -> "
    stores = ("  " + style(f"[{slots[store_slot(NORTH)]:3d}]", "bold")
              + style(left + " " * (inner - len(left) - len(right)) + right, "dim")
              + style(f"[{slots[store_slot(SOUTH)]:3d}]", "bold"))
    lines = []
    if mover == 1:
        lines.append(style(labels([str(n) for n in range(6, 0, -1)]), "mover")
                     + "   North's pits, 1-6")
    lines.append(labels([pit_label(pit_of(s), NORTH) for s in north_slots]))
    lines.append(north_row + f"    North  {printable(specs[1])}")
    lines.append(stores)
    lines.append(south_row + f"    South  {printable(specs[0])}")
    lines.append(labels([pit_label(pit_of(s), SOUTH) for s in south_slots]))
    if mover == 0:
        lines.append(style(labels([str(n) for n in range(1, 7)]), "mover")
                     + "   South's pits, 1-6")
    return "\n".join(lines)


def describe_move(record: MoveRecord, specs, info: Optional[MoveInfo]) -> str:
    """'North (ai:medium) plays 3 (I): extra turn. [score +4, depth 8, 7 ms]'."""
    side = SIDE_NAMES[record.player]
    text = f"{side} ({printable(specs[record.player])}) plays {record.pit + 1} ({pit_label(record.pit, record.player)})"
    effects = []
    if record.captured:
        effects.append(f"captures {record.captured} seeds")
    if record.extra_turn:
        effects.append("extra turn")
    if record.game_over:
        effects.append("the game is over")
    text += ": " + ", ".join(effects) + "." if effects else "."
    if info is not None:
        text += "  [" + describe_info(info) + "]"
    return text


def describe_info(info: MoveInfo) -> str:
    parts = []
    if info.note == "random move":
        parts.append("random move")
    else:
        parts.append(f"score {info.score:+d}" + (" exact" if info.exact else ""))
        if info.depth:
            parts.append(f"depth {info.depth}")
        if info.note and info.note != "random move":
            parts.append(info.note)
    parts.append(_duration(info.elapsed))
    return ", ".join(parts)


def describe_turns(turns) -> List[str]:
    """The game record (:meth:`mancala.game.Game.turns`), one line per turn:
    '  3. North: 2 (extra turn), 5 (captures 4)'."""
    lines = []
    for number, turn in enumerate(turns, 1):
        moves = []
        for record in turn.moves:
            note = []
            if record.extra_turn:
                note.append("extra turn")
            if record.captured:
                note.append(f"captures {record.captured}")
            moves.append(f"{record.pit + 1}" + (f" ({', '.join(note)})" if note else ""))
        lines.append(f"  {number:3d}. {SIDE_NAMES[turn.player]}: {', '.join(moves)}")
    return lines


def describe_outcome(outcome) -> str:
    if outcome.winner is None:
        return f"Game over: a draw, {outcome.south}-{outcome.north}."
    winner = SIDE_NAMES[outcome.winner]
    scores = (outcome.south, outcome.north)
    return (f"Game over: {winner} wins {scores[outcome.winner]}-{scores[1 - outcome.winner]} "
            f"(by {abs(outcome.margin)}).")


__all__ = ["Style", "want_color", "render_board", "describe_move", "describe_info", "describe_turns",
           "describe_outcome"]
