"""The review's curve on a terminal: the score after each move as a small plot of block
characters, read at a glance as people read lichess's curve of a game.

One column a move (a long game on a narrow terminal: one column for several, each
showing the last of its moves), South's lead rising above the middle and North's
hanging below it, each half :data:`ROWS` rows of half blocks (``▄`` and ``█`` above,
``▀`` and ``█`` below: characters every terminal font has), scaled to the game's
largest lead, which labels the top and the bottom row. Beside the review's table when
the terminal has room for it (:func:`beside`), else under it, never wider than the
terminal::

    Score after each move:
    South +12 █
              █▄
              ██  ▄
                █  █
                   █
    North +12      █
         move 1    6

(the scores 12, 6, -3, 0, 1, -12: six, three, two, none, one and six half blocks).

A score of 0 leaves its column empty; any other score shows at least a half block,
so a lead of one seed is seen.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

ROWS = 3                        #: rows above the middle, and as many below
LEVELS = 2 * ROWS               #: half blocks a column can fill on each side
GAP = 3                         #: columns between the table and the plot beside it
MIN_BESIDE = 20                 #: the fewest moves' columns worth putting beside the table
TITLE = "Score after each move:"
_ABOVE, _BELOW = " ▄█", " ▀█"


def level(value: int, top: int) -> int:
    """How many half blocks ``value`` fills when ``top`` fills them all (signed as the
    value: South's leads up, North's down); at least one for any lead."""
    if value == 0:
        return 0
    filled = max(1, min(LEVELS, int(LEVELS * abs(value) / top + 0.5)))
    return filled if value > 0 else -filled


def sample(values: Sequence[int], count: int) -> List[Tuple[int, int]]:
    """At most ``count`` columns of a game's scores: (the move's number, from 1, and
    its score), the last move of each stretch of moves a column stands for."""
    total = len(values)
    if total <= count:
        return [(number, value) for number, value in enumerate(values, 1)]
    picked = [int((column + 1) * total / count + 0.5) for column in range(count)]
    return [(number, values[number - 1]) for number in picked]


def plot(values: Sequence[int], width: int) -> List[str]:
    """The plot of the scores after each move (South's view), within ``width`` columns
    (its title may be longer when the plot is narrower than it); [] when there is no
    room for a column."""
    top = max(1, max((abs(value) for value in values), default=0))
    labels = [f"South +{top}", f"North +{top}"]
    margin = max(map(len, labels))
    room = width - margin - 1
    if room < 1 or not values:
        return []
    columns = sample(values, room)
    levels = [level(value, top) for _, value in columns]
    rows = []
    for row in range(ROWS):                     # above the middle, the top row first
        below_it = 2 * (ROWS - 1 - row)
        rows.append("".join(_ABOVE[min(2, max(0, filled - below_it))] for filled in levels))
    for row in range(ROWS):                     # below it, the row nearest the middle first
        rows.append("".join(_BELOW[min(2, max(0, -filled - 2 * row))] for filled in levels))
    left = [labels[0]] + [""] * (2 * ROWS - 2) + [labels[1]]
    lines = [f"{label:>{margin}} {cells}".rstrip() for label, cells in zip(left, rows)]
    first, last = str(columns[0][0]), str(columns[-1][0])
    span = len(columns)
    axis = last.rjust(span) if len(first) + 1 + len(last) > span else \
        first + last.rjust(span - len(first))
    return [TITLE] + lines + [f"{'move':>{margin}} {axis}"]


def beside(table: Sequence[str], values: Sequence[int], width: int) -> Optional[List[str]]:
    """The table's lines with the plot beside their first lines, when ``width`` columns
    hold the table, a gap and a plot of at least :data:`MIN_BESIDE` moves (all of them,
    for a shorter game); None when they do not (the plot then goes under the table)."""
    wide = max((len(line) for line in table), default=0)
    room = width - wide - GAP
    drawn = plot(values, room)
    margin = len(f"North +{max(1, max((abs(v) for v in values), default=0))}") + 1
    if not drawn or room - margin < min(len(values), MIN_BESIDE) or room < len(TITLE):
        return None
    lines = list(table) + [""] * max(0, len(drawn) - len(table))
    return [f"{line:<{wide}}{' ' * GAP}{drawn[index]}".rstrip() if index < len(drawn) else line
            for index, line in enumerate(lines)]


__all__ = ["plot", "beside", "level", "sample", "ROWS", "LEVELS", "GAP", "MIN_BESIDE", "TITLE"]
