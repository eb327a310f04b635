"""How the terminal game shows things: the board, a move, a game's record, its result.

Plain functions of the library's values (:class:`mancala.Board`,
:class:`mancala.board.MoveRecord`, :class:`mancala.players.MoveInfo`), and
:class:`Style`, the ANSI colours (or none). :mod:`mancala.cli.play` prints
what they return.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from typing import List, Optional, Sequence, Tuple

from mancala.board import Board, MoveRecord
from mancala.cli.entry import pit_label
from mancala.cli.format import duration as _duration
from mancala.cli.options import is_terminal
from mancala.geometry import NORTH, PITS, SIDE_NAMES, SOUTH, pit_of, pit_slot, pit_slots, store_slot
from mancala.players import MoveInfo
from mancala.scores import Score
from mancala.untrusted import printable

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

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


def move_text(record: MoveRecord) -> str:
    """A move as every face of the terminal writes it, its capture named:
    '3 (C)', '5 (K), captures 4 seeds', '3 (C), extra turn'."""
    return ", ".join([f"{record.pit + 1} ({pit_label(record.pit, record.player)})"]
                     + record.effects())


def describe_move(record: MoveRecord, specs, info: Optional[MoveInfo],
                  you: Optional[int] = None, scores: bool = True) -> str:
    """'North (ai:medium) plays 3 (I), extra turn.  [+4 for you (depth 8), 7 ms]':
    the computer's score only when ``scores`` (never in a rated game), for ``you``."""
    side = SIDE_NAMES[record.player]
    text = f"{side} ({printable(specs[record.player])}) plays {move_text(record)}."
    if info is not None and scores:
        text += "  [" + describe_info(info, record.player, you) + "]"
    return text


def describe_info(info: MoveInfo, mover: int, you: Optional[int] = None) -> str:
    """'South +5 (depth 8), 68 ms', '+5 for you (exact), solved, 1.2 s', 'random move, 0 ms'."""
    parts = []
    if info.at_random:
        parts.append("random move")
    else:
        parts.append(Score.of(info, mover).text(you))
        if info.note:
            parts.append(info.note)
    parts.append(_duration(info.elapsed))
    return ", ".join(parts)


def describe_turns(records: Sequence[MoveRecord]) -> List[str]:
    """The game record, one line per turn, each move with its number (the numbers
    ``review`` uses: one a sowing): '   5-6  North: 2 (H), extra turn; 5 (K), captures 4 seeds'."""
    lines: List[str] = []
    turn: List[Tuple[int, MoveRecord]] = []
    for number, record in enumerate(list(records) + [None], 1):
        if turn and (record is None or record.player != turn[0][1].player):
            first, last = turn[0][0], turn[-1][0]
            numbers = f"{first}" if first == last else f"{first}-{last}"
            moves = "; ".join(move_text(r) for _, r in turn)
            lines.append(f"  {numbers:>7}  {SIDE_NAMES[turn[0][1].player]}: {moves}")
            turn = []
        if record is not None:
            turn.append((number, record))
    return lines


def describe_outcome(outcome, you: Optional[int] = None, resigned: Optional[int] = None) -> str:
    """'Game over: you lost 11-37 (by 26).', 'Game over: South wins 30-18 (by 12).',
    'Game over: you resigned, a loss (you had 12, North 20).'."""
    seeds = (outcome.south, outcome.north)
    if resigned is not None:
        who = "you" if resigned == you else SIDE_NAMES[resigned]
        winner = "you win" if you is not None and you != resigned else             f"a loss for {'you' if resigned == you else SIDE_NAMES[resigned]}"
        return (f"Game over: {who} resigned, {winner} (stores {SIDE_NAMES[0]} {seeds[0]}, "
                f"{SIDE_NAMES[1]} {seeds[1]}).")
    if outcome.winner is None:
        return f"Game over: a draw, {outcome.south}-{outcome.north}."
    mine = outcome.winner if you is None else you
    score = f"{seeds[mine]}-{seeds[1 - mine]} (by {abs(outcome.margin)})"
    if you is not None:
        return f"Game over: you {'won' if outcome.winner == you else 'lost'} {score}."
    return f"Game over: {SIDE_NAMES[outcome.winner]} wins {score}."


_LABEL = re.compile(r"\([A-L]\)[,;.:]?")     # a pit's letter: '3 (I),' is never broken
_ITEM = re.compile(r" *\d+\. +")              # '  2. ' opens a menu's or a list's item
_GAP = re.compile(r" {2,}(?=\S)")             # two spaces or more: a column starts
_SIGN = re.compile(r"[<>=-]+")                 # '<-', '->': never the last word of a line


def hang(line: str, width: int) -> int:
    """The column a broken line goes on at: under the text after its item number
    ('  2. resume ...') or after its last gap of two spaces or more within the
    first half of ``width`` ('  undo         take back ...', '   13-14  North: ...'),
    else its own indent."""
    plain = _ANSI.sub("", line)
    column = len(plain) - len(plain.lstrip(" "))
    item = _ITEM.match(plain)
    if item:
        column = item.end()
    for gap in _GAP.finditer(plain, column):
        if gap.end() <= width // 2:
            column = gap.end()
    return column


def wrap(text: str, width: Optional[int] = None) -> str:
    """``text`` with each line broken between words to fit ``width`` columns (default:
    the terminal's when stdout is one, else left whole). Colour codes take no column;
    the lines a line is broken into go on under its text (:func:`hang`), a pit's
    number keeps its letter ('3 (I)') and an arrow its word ('<- best')."""
    if width is None:
        if not is_terminal(sys.stdout):
            return text
        width = shutil.get_terminal_size().columns
    out = []
    for line in text.split("\n"):
        if len(_ANSI.sub("", line)) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        more = " " * hang(line, width)
        words: List[str] = []
        for word in line.lstrip(" ").split(" "):
            # a pit's letter stays with its number, an arrow ('<-') with the word it points at
            if words and words[-1] and word and (_LABEL.fullmatch(word) or _SIGN.fullmatch(words[-1])):
                words[-1] += " " + word
            else:
                words.append(word)
        current, used, start = "", 0, indent
        for word in words:
            size = len(_ANSI.sub("", word))
            if current and used + 1 + size > width:
                out.append(current)
                start = more
                current, used = start + word, len(start) + size
            elif current:
                current, used = current + " " + word, used + 1 + size
            else:
                current, used = start + word, len(start) + size
        out.append(current)
    return "\n".join(out)


__all__ = ["Style", "want_color", "render_board", "describe_move", "describe_info", "describe_turns",
           "describe_outcome", "move_text", "wrap"]
