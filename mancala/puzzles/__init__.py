"""Puzzles: positions from engine games where exactly one move keeps the value.

A **puzzle** is a position, its capture rule and a solution line. Its first
move is the only move that keeps the position's perfect-play value: every
other legal move loses at least :data:`MIN_GAP` seeds, each proven by an
exact solve of the move's position. A position already decided (a store holds
more than half the seeds: :func:`decided`) is no puzzle. The **solution
line** goes on while it stays so:

1. the solver plays the unique move;
2. if the game is over, the line ends;
3. if the solver moves again (an extra turn), and again exactly one move keeps
   the value, that move is next (back to 1); else the line is cut (below);
4. if the solver has played :data:`MAX_SOLVER_MOVES`, the line ends; else the
   opponent answers with a move that keeps *its* value (every move of a chain
   of extra turns, too), the first in pit order after which the solver again
   has exactly one move that keeps the value (back to 1); if no answer leads
   to such a position, the line ends before the answer.

A line ends only where the solver's turn passes (or the game ends): one that
would end with the solver still to move, after an extra turn, is cut back to
the solver's last move that passed the turn, the answers after it dropped; a
position where no move does so is no puzzle. So a line ends with the solver's
move, every solver move in it is unique, and after it the opponent is to move
(or nobody is). ``solution`` holds the whole line, pit indices 0..5 of whoever
moves.

The **rating** is on the Elo scale of the players' ratings (a newcomer
starts at 940; see :func:`rating`): a puzzle is harder the deeper a plain
search must look before it settles on the solver's moves, the more moves the
line asks for, and the fewer seeds the second-best move loses.

The package ships :data:`DATA_FILE`, puzzles found in engine games by
``bench/make_puzzles.py``; :func:`load` reads them. :class:`Attempt` plays
one out; :class:`PuzzleLog` keeps each attempt and the player's puzzle rating
(Glicko-2, :mod:`mancala.rating`) in ``puzzles.sqlite3`` in the data folder,
with the care of :class:`mancala.sqlitefile.SQLiteFile`.

Every name is imported from here; they live in five modules:
:mod:`mancala.puzzles.shipped` (a puzzle, the shipped ones, an attempt),
:mod:`mancala.puzzles.finding` (finding and rating new ones),
:mod:`mancala.puzzles.teaching` (a puzzle's themes, its goal in words, its line),
:mod:`mancala.puzzles.mine` (your own, made of your mistakes by a game's review) and
:mod:`mancala.puzzles.log` (the puzzle log).

    >>> from mancala import Board, Engine
    >>> board = Board([1, 0, 0, 1, 0, 3, 20, 1, 0, 0, 0, 1, 0, 21], to_move=0)
    >>> puzzle = find(board, Engine(hash_mb=1, endgame=None))
    >>> puzzle.solution, puzzle.solver_steps()     # South 1, North 1, South 4
    ((0, 0, 3), (0, 2))
    >>> puzzle.value, puzzle.gap, puzzle.rating    # South ends 6 ahead; the rest lose 8 or more
    (6, 8, 850)
    >>> decided(Board([1, 0, 0, 1, 0, 3, 27, 1, 0, 0, 0, 1, 0, 14]))   # South's store: 27 of 48
    True

The last is no puzzle (:func:`find` gives None): South has won whatever is played.
"""
from mancala.errors import HistoryError
from mancala.puzzles.shipped import (DATA_FILE, Attempt, Puzzle, by_id, choose, export, load,
                                     parse_lines, puzzle_id)
from mancala.puzzles.finding import (MAX_RATING, MAX_SOLVER_MOVES, MIN_GAP, MIN_RATING, decided,
                                     find, find_depth, rating, unique_best)
from mancala.puzzles.log import FILE_NAME, AttemptRecord, PuzzleLog
from mancala.puzzles.teaching import THEME_NAMES, THEMES, goal, themes

__all__ = ["Puzzle", "Attempt", "PuzzleLog", "AttemptRecord", "find", "find_depth", "rating",
           "unique_best", "decided", "load", "parse_lines", "by_id", "choose", "export", "puzzle_id",
           "DATA_FILE", "FILE_NAME", "MIN_GAP", "MAX_SOLVER_MOVES", "MIN_RATING", "MAX_RATING",
           "HistoryError", "THEMES", "THEME_NAMES", "goal", "themes"]
