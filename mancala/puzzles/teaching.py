"""What a puzzle teaches: its themes, its goal in plain words, its line move by move.

A puzzle's **themes** come from its solution line, replayed (:func:`themes`):

==============  =================================================================
theme           the line...
==============  =================================================================
``capture``     has a move of the solver's that captures
``extra-turn``  has the solver move again after its own move: an extra-turn chain
``starving``    ends the game by leaving the opponent's row empty, while the
                solver's row still holds seeds it keeps
``endgame``     starts with at most :data:`ENDGAME_SEEDS` seeds left in the pits
==============  =================================================================

A puzzle may have several themes, or none. :func:`goal` says what to find
in words a player reads at once ("Find the move that wins at least 4 more
seeds than any other: with best play you then end 8 ahead."), from the
puzzle's own numbers: its gap (what the second-best move loses, as a final
margin) and its value.

    >>> from mancala.puzzles import Puzzle
    >>> puzzle = Puzzle("x", (1, 0, 0, 1, 0, 3, 20, 1, 0, 0, 0, 1, 0, 21), 0, "standard",
    ...                 (0, 0, 3), 850, 6, 8, 2)
    >>> [move_words(record) for record in line_records(puzzle)]
    ['South 1 (A), captures 2 seeds', 'North 1 (G)', 'South 4 (D), captures 2 seeds, the game is over, South keeps the 3 seeds left in its row']
    >>> themes(puzzle)          # North's row is left empty: South keeps the 3 seeds in its 6th pit
    ('capture', 'starving', 'endgame')
    >>> goal(puzzle)
    'Find the move that wins at least 8 more seeds than any other: with best play you then end 6 ahead. The line asks 2 moves of you: find each.'
    >>> goal(Puzzle("y", puzzle.board, 0, "standard", (0,), 850, -4, 2, 2), you=False)
    'Find the move that loses the least: any other ends at least 2 seeds worse; with best play South ends 4 behind.'

"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from mancala.board import Board, MoveRecord
from mancala.engine import Engine
from mancala.geometry import PITS, SIDE_NAMES, PovScore, row, seeds_in_pits
from mancala.review import QUICK_SEEDS, quick_engine

THEMES = ("capture", "extra-turn", "starving", "endgame")   #: every theme, in this order
THEME_NAMES = {"capture": "capture", "extra-turn": "extra-turn chain",
               "starving": "starving the opponent", "endgame": "endgame"}
ENDGAME_SEEDS = 12      #: a puzzle with at most this many seeds in the pits is an endgame's
WRONG_SOLVE_NODES = 2_000_000   #: a wrong answer's value is solved within this budget, else not said


def line_records(puzzle) -> List[MoveRecord]:
    """The solution line played out: each move's record (who, which pit, what it did)."""
    board = puzzle.position()
    return [board.push(pit) for pit in puzzle.solution]


def after_line(puzzle) -> Board:
    """The position once the whole solution line is played."""
    board = puzzle.position()
    for pit in puzzle.solution:
        board.push(pit)
    return board


def themes(puzzle) -> Tuple[str, ...]:
    """The puzzle's themes (see the module docstring), in :data:`THEMES` order."""
    board = puzzle.position()
    solver = puzzle.to_move
    found = set()
    if sum(row(board.pits, 0)) + sum(row(board.pits, 1)) <= ENDGAME_SEEDS:
        found.add("endgame")
    for index, pit in enumerate(puzzle.solution):
        record = board.push(pit)
        if record.player != solver:
            continue
        if record.captured:
            found.add("capture")
        if record.extra_turn and index + 1 < len(puzzle.solution):
            found.add("extra-turn")
        if record.game_over and record.swept[solver] > 0:
            found.add("starving")
    return tuple(theme for theme in THEMES if theme in found)


def goal(puzzle, you: bool = True) -> str:
    """What to find, in plain words, from the puzzle's value and gap (``you``: said to
    the solver; else naming its side): 'Find the move that wins at least 4 more seeds
    than any other: with best play you then end 8 ahead.'"""
    who = "you" if you else SIDE_NAMES[puzzle.to_move]
    ends = "end" if you else "ends"
    value, gap = puzzle.value, puzzle.gap
    seeds = f"{gap} seed{'' if gap == 1 else 's'}"
    if value > 0:
        text = (f"Find the move that wins at least {gap} more seed{'' if gap == 1 else 's'} "
                f"than any other: with best play {who} then {ends} {value} ahead.")
    elif value == 0:
        text = f"Find the move that holds the draw: any other loses at least {seeds}."
    else:
        text = (f"Find the move that loses the least: any other ends at least {seeds} worse; "
                f"with best play {end_words(value, you, puzzle.to_move)}.")
    steps = len(puzzle.solver_steps())
    return text + ("" if steps == 1 else f" The line asks {steps} moves of {who}: find each.")


def end_words(value: int, you: bool = True, side: int = 0) -> str:
    """'you end 8 ahead', 'South ends 2 behind', 'the game is a draw': a final margin in words."""
    who, ends = ("you", "end") if you else (SIDE_NAMES[side], "ends")
    if value == 0:
        return "the game is a draw"
    return f"{who} {ends} {abs(value)} {'ahead' if value > 0 else 'behind'}"


def move_words(record: MoveRecord) -> str:
    """'South 4 (D), captures 2 seeds': who moved, the pit (1..6 and its letter), what it did."""
    letter = "ABCDEFGHIJKL"[record.player * PITS + record.pit]
    return ", ".join([f"{SIDE_NAMES[record.player]} {record.pit + 1} ({letter})"] + record.effects())


def wrong_move_value(board: Board, pit: int, large: Optional[Callable[[], Any]] = None,
                     nodes: int = WRONG_SOLVE_NODES) -> Optional[int]:
    """What ``pit`` played on ``board`` is worth to its mover with perfect play (the final
    margin, solved within ``nodes``; None when the solve does not finish): what a
    wrong answer to a puzzle is told it ends with. A position with at most
    :data:`mancala.review.QUICK_SEEDS` seeds in the pits is solved at once by an engine
    without a database (no wait for one to open: 4 s the first time on a busy
    machine); a larger one by ``large()`` (default: an engine with the cached database)."""
    child = board.copy(stack=False)
    child.push(pit)
    if seeds_in_pits(child.pits) <= QUICK_SEEDS:
        engine = quick_engine()
    elif large is not None:
        engine = large()
    else:
        engine = Engine(hash_mb=16)
    solved = engine.solve(child, nodes=nodes)
    return PovScore(solved.score, child.to_move).pov(board.to_move) if solved.exact else None


__all__ = ["THEMES", "THEME_NAMES", "ENDGAME_SEEDS", "WRONG_SOLVE_NODES", "themes", "goal",
           "end_words", "line_records", "after_line", "move_words", "wrong_move_value"]
