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
from mancala.cli.format import duration as _duration
from mancala.cli.options import is_terminal
from mancala.geometry import (NORTH, PITS, SIDE_NAMES, SOUTH, pit_letter, pit_of, pit_slot, pit_slots,
                              store_slot)
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


def columns() -> Optional[int]:
    """The terminal's width when stdout is one (``COLUMNS``, else the terminal's own
    size: :func:`shutil.get_terminal_size`), else None: a pipe or a file is written whole."""
    if not is_terminal(sys.stdout):
        return None
    return shutil.get_terminal_size().columns


def render_board(board: Board, specs, style: Style, last: Optional[MoveRecord] = None,
                 width: Optional[int] = None) -> str:
    """Both rows, both stores, the mover's pit numbers 1..6 and everyone's letters.

    North sits on top (its pits run right to left), South below; North's store
    is on the left, South's on the right. The players' names and the legend of
    the pit numbers stand beside the rows; when that does not fit ``width``
    columns (a narrow terminal, a long player's name) the board is drawn compact
    (:func:`compact_board`), names on lines of their own, so no line is broken.
    """
    wide = _wide_board(board, specs, style, last)
    if width is None or max(len(_ANSI.sub("", line)) for line in wide) <= width:
        return "\n".join(wide)
    return "\n".join(compact_board(board, specs, style, last))


def _cell_text(board: Board, style: Style, last: Optional[MoveRecord], digits: int):
    """A function drawing a slot as '[  4]' (``digits`` wide), the last move's pit lit."""
    lit = None if last is None else pit_slot(last.player, last.pit)

    def cell(slot: int) -> str:
        text = f"[{board.pits[slot]:{digits}d}]"
        return style(text, "last") if slot == lit else text
    return cell


def _wide_board(board: Board, specs, style: Style, last: Optional[MoveRecord]) -> List[str]:
    slots = board.pits
    mover = None if board.is_game_over() else board.to_move
    margin = " " * (2 + CELL + GAP)
    cell = _cell_text(board, style, last, CELL - 2)

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
    lines.append(labels([pit_letter(NORTH, pit_of(s)) for s in north_slots]))
    lines.append(north_row + f"    North  {printable(specs[1])}")
    lines.append(stores)
    lines.append(south_row + f"    South  {printable(specs[0])}")
    lines.append(labels([pit_letter(SOUTH, pit_of(s)) for s in south_slots]))
    if mover == 0:
        lines.append(style(labels([str(n) for n in range(1, 7)]), "mover")
                     + "   South's pits, 1-6")
    return lines


def compact_board(board: Board, specs, style: Style, last: Optional[MoveRecord] = None) -> List[str]:
    """The board in 41 columns (cells as wide as the largest count needs, two digits
    at least): each side's name on a line of its own, the mover's pit numbers beside
    its name; the letters and stores as on the wide board::

           North  ai:medium
            L    K    J    I    H    G
           [ 4] [ 4] [ 4] [ 4] [ 4] [ 4]
      [ 0] <- North's         South's -> [ 1]
           [ 4] [ 4] [ 0] [ 5] [ 5] [ 5]
            A    B    C    D    E    F
            1    2    3    4    5    6
           South  human  (pits 1-6)
    """
    slots = board.pits
    mover = None if board.is_game_over() else board.to_move
    digits = max(2, len(str(max(slots))))
    size = digits + 2
    cell = _cell_text(board, style, last, digits)
    margin = " " * (2 + size + GAP)
    north_slots = list(reversed(pit_slots(NORTH)))
    south_slots = list(pit_slots(SOUTH))

    def labels(items: List[str]) -> str:
        return margin + " ".join(f"{item:^{size}}" for item in items).rstrip()

    def name(side: int) -> str:
        text = margin + f"{SIDE_NAMES[side]}  {printable(specs[side])}"
        return text + (style("  (pits 1-6)", "mover") if side == mover else "")

    inner = PITS * size + (PITS - 1) * GAP
    left, right = "<- North's", "South's ->"
    lines = [name(NORTH)]
    if mover == NORTH:
        lines.append(style(labels([str(n) for n in range(6, 0, -1)]), "mover"))
    lines += [labels([pit_letter(NORTH, pit_of(s)) for s in north_slots]),
              margin + " ".join(cell(s) for s in north_slots),
              "  " + style(f"[{slots[store_slot(NORTH)]:{digits}d}]", "bold")
              + style(" " + left + " " * (inner - len(left) - len(right)) + right + " ", "dim")
              + style(f"[{slots[store_slot(SOUTH)]:{digits}d}]", "bold"),
              margin + " ".join(cell(s) for s in south_slots),
              labels([pit_letter(SOUTH, pit_of(s)) for s in south_slots])]
    if mover == SOUTH:
        lines.append(style(labels([str(n) for n in range(1, 7)]), "mover"))
    lines.append(name(SOUTH))
    return lines


def move_text(record: MoveRecord) -> str:
    """A move's words: the library's (:meth:`mancala.board.MoveRecord.words`), '3 (C)',
    '5 (K), captures 4 seeds', '3 (C), extra turn'."""
    return record.words()


def describe_move(record: MoveRecord, specs, info: Optional[MoveInfo],
                  you: Optional[int] = None, scores: bool = True) -> str:
    """'North (ai:medium) plays 3 (I), extra turn.  [+4 for you (depth 8), 7 ms]':
    the computer's score only when ``scores`` (never in a rated game), for ``you``."""
    text = record.words(f"{SIDE_NAMES[record.player]} ({printable(specs[record.player])})")
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
_NUMBER = re.compile(r"[\[(]?[+-]?[\d,.]*\d")  # '2', '[+12', '1,234', '12.5'
_UNIT = re.compile(r"(ms|s|min|h|[KMG]B|seeds?|moves?|games?|nodes)[\]),.;:]*")
_COMMAND = re.compile(r"`?python")             # 'python -m mancala play --resume' is kept whole
_VALUE = re.compile(r"[~/.]|[A-Z0-9]+\b|\S*/")   # an option's value: a path, a number, a metavar


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


def _units(words: List[str]) -> List[List[str]]:
    """The words of a line in the groups a line is never broken inside: a pit's number
    and its letter ('3 (I)'), an arrow and its word ('<- best'), a number and its unit
    ('2 ms', '12 seeds'), a command ('python -m mancala play --resume')."""
    units: List[List[str]] = []
    command = False
    for word in words:
        plain = _ANSI.sub("", word)
        previous = _ANSI.sub("", units[-1][-1]) if units else ""
        if command and (plain.startswith("-") or plain.startswith("mancala")
                        or (len(units[-1]) == 3 and plain.isalpha())
                        or (previous.startswith("--") and _VALUE.match(plain))):
            units[-1].append(word)
            continue
        command = bool(_COMMAND.fullmatch(plain))
        if previous and plain and (_LABEL.fullmatch(plain) or _SIGN.fullmatch(previous)
                                   or (_UNIT.fullmatch(plain) and _NUMBER.fullmatch(previous))):
            units[-1].append(word)
        else:
            units.append([word])
    return units


def wrap(text: str, width: Optional[int] = None) -> str:
    """``text`` with each line broken between words to fit ``width`` columns (default:
    the terminal's when stdout is one, else left whole: :func:`columns`). Colour codes
    take no column; the lines a line is broken into go on under its text (:func:`hang`);
    a line is never broken inside a pit's number and letter, an arrow and its word, a
    number and its unit or a command (:func:`_units`), unless that alone is too wide."""
    if width is None:
        width = columns()
        if width is None:
            return text
    out = []
    for line in text.split("\n"):
        if len(_ANSI.sub("", line)) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        more = " " * hang(line, width)
        units = _units(line.lstrip(" ").split(" "))
        current, used, start = "", 0, indent
        for unit in units:
            size = len(_ANSI.sub("", " ".join(unit)))
            pieces = [" ".join(unit)] if len(more) + size <= width else unit
            for piece in pieces:
                size = len(_ANSI.sub("", piece))
                if current and used + 1 + size > width:
                    out.append(current)
                    start = more
                    current, used = start + piece, len(start) + size
                elif current:
                    current, used = current + " " + piece, used + 1 + size
                else:
                    current, used = start + piece, len(start) + size
        out.append(current)
    return "\n".join(out)


__all__ = ["Style", "want_color", "columns", "render_board", "compact_board", "describe_move",
           "describe_info", "describe_turns",
           "describe_outcome", "move_text", "wrap"]
