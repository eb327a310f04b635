"""A puzzle, the puzzles shipped with the package, and an attempt at one.

:class:`Puzzle` is a position, its rule, its solution line and its rating (see
:mod:`mancala.puzzles` for what makes a position one), read from and written
as one JSON line (:func:`parse_lines`, :func:`export`). :func:`load` reads the
shipped ones (:data:`DATA_FILE`), :func:`choose` picks one near a player's
rating, and :class:`Attempt` plays one out.
"""
from __future__ import annotations

import hashlib
import json
import lzma
import random
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from mancala.board import CAPTURE_RULES, Board, rules_words
from mancala.geometry import PITS
from mancala.errors import IllegalMoveError, InputError, quote
from mancala.puzzles import teaching

DATA_FILE = "puzzles.jsonl.xz"  #: the shipped puzzles, in mancala/data: JSON lines, xz-compressed


@dataclass(frozen=True)
class Puzzle:
    """A position, its rule, its solution line and its rating."""

    id: str                         #: a short name, stable: from the position and rule
    board: Tuple[int, ...]          #: the 14 slots in rule order
    to_move: int                    #: the solver: 0 South, 1 North
    capture: str                    #: the capture rule
    solution: Tuple[int, ...]       #: the whole line, pit indices 0..5 of whoever moves
    rating: int                     #: how hard, on the players' Elo scale
    value: int                      #: the position's perfect-play value for the solver
    gap: int                        #: the fewest seeds a second-best move loses, over the solver's moves
    depth: int                      #: the search depth that settles on every solver move (:func:`find_depth`)
    source: str = ""                #: where it came from, for a player's own ('game 5, move 12')

    def position(self) -> Board:
        """The puzzle's position, a new Board."""
        return Board(list(self.board), self.to_move, capture=self.capture)

    @property
    def seeds(self) -> Optional[int]:
        """Seeds per pit of the game it comes from (a start holds twelve times as many
        seeds); None for a position no start's seed count leads to."""
        total = sum(self.board)
        return total // (2 * PITS) if total % (2 * PITS) == 0 else None

    @property
    def rules(self) -> str:
        """The puzzle's rules as the faces show them: '4 seeds per pit, standard capture'
        (:func:`mancala.board.rules_words`; '50 seeds, no captures' when :attr:`seeds` is None)."""
        if self.seeds is None:
            return f"{sum(self.board)} seeds, {rules_words(None, self.capture)}"
        return rules_words(self.seeds, self.capture)

    def solver_steps(self) -> Tuple[int, ...]:
        """The places in :attr:`solution` of the solver's moves."""
        board = self.position()
        steps = []
        for index, pit in enumerate(self.solution):
            if board.to_move == self.to_move:
                steps.append(index)
            board.push(pit)
        return tuple(steps)

    @property
    def themes(self) -> Tuple[str, ...]:
        """What it teaches: 'capture', 'extra-turn', 'starving', 'endgame'
        (:func:`mancala.puzzles.teaching.themes`)."""
        return teaching.themes(self)

    def to_json(self) -> Dict[str, Any]:
        """The puzzle as the data file and ``puzzle --export`` hold it (``seeds`` when
        :attr:`seeds` is known, ``source`` only for a player's own)."""
        data = {"id": self.id, "board": list(self.board), "to_move": self.to_move,
                "seeds": self.seeds, "capture": self.capture, "solution_indices": list(self.solution),
                "rating": self.rating, "value": self.value, "gap": self.gap, "depth": self.depth}
        if self.seeds is None:
            del data["seeds"]
        if self.source:
            data["source"] = self.source
        return data

    @classmethod
    def from_json(cls, data: Any) -> "Puzzle":
        """A puzzle from its JSON object; InputError (one line) if it is not one:
        a field missing or of the wrong type, a board that is not a position,
        a solution that is not legal there or does not end with the solver's move."""
        if not isinstance(data, dict):
            raise InputError(f"a puzzle is a JSON object, not {quote(data)}")
        fields = ("id", "board", "to_move", "capture", "solution_indices", "rating", "value",
                  "gap", "depth")
        missing = [name for name in fields if name not in data]
        if missing:
            raise InputError(f"a puzzle has no {quote(missing[0])} field")
        whole = [name for name in ("to_move", "rating", "value", "gap", "depth")
                 if not _is_int(data[name])]
        if whole:
            raise InputError(f"a puzzle's {whole[0]} is a whole number, not {quote(data[whole[0]])}")
        if not isinstance(data["id"], str) or not data["id"]:
            raise InputError(f"a puzzle's id is a name, not {quote(data['id'])}")
        if data["capture"] not in CAPTURE_RULES:
            raise InputError(f"unknown capture rule {quote(data['capture'])}")
        board, solution = data["board"], data["solution_indices"]
        if not isinstance(board, list) or not all(_is_int(v) for v in board):
            raise InputError(f"a puzzle's board is 14 counts, not {quote(board)}")
        if not isinstance(solution, list) or not solution or not all(_is_int(v) for v in solution):
            raise InputError(f"a puzzle's solution is a list of pit indices, not {quote(solution)}")
        source = data.get("source", "")
        if not isinstance(source, str) or len(source) > 200:
            raise InputError(f"a puzzle's source is a short text, not {quote(source)}")
        puzzle = cls(data["id"], tuple(board), data["to_move"], data["capture"], tuple(solution),
                     data["rating"], data["value"], data["gap"], data["depth"], source)
        position = puzzle.position()            # InvalidBoardError for a board that is not one
        if "seeds" in data and data["seeds"] != puzzle.seeds:
            raise InputError(f"puzzle {puzzle.id}: its seeds per pit are {quote(puzzle.seeds)} by its "
                             f"board, not {quote(data['seeds'])}")
        if position.is_game_over():
            raise InputError(f"puzzle {puzzle.id}: the game is over in its position")
        mover = position.to_move
        for pit in solution:
            position.push(pit)                  # IllegalMoveError for a move that is not legal
            if position.is_game_over():
                break
        if len(position.move_stack) != len(solution) or position.move_stack[-1].player != mover:
            raise InputError(f"puzzle {puzzle.id}: its solution does not end with the solver's move")
        return puzzle


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def puzzle_id(board: Sequence[int], to_move: int, capture: str) -> str:
    """The puzzle's name: 8 hex digits of a hash of its position and rule."""
    text = f"{capture}:{to_move}:{','.join(map(str, board))}"
    return hashlib.sha1(text.encode()).hexdigest()[:8]


# -- the shipped puzzles -------------------------------------------------------------------------

_loaded: Optional[List[Puzzle]] = None


def load() -> List[Puzzle]:
    """The puzzles shipped with the package (:data:`DATA_FILE`), easiest first.

    InputError (one line) if the file is damaged: not xz, not JSON lines, a puzzle that is not one.
    """
    global _loaded
    if _loaded is None:
        raw = resources.files("mancala.data").joinpath(DATA_FILE).read_bytes()
        try:
            text = lzma.decompress(raw).decode("utf-8")
        except (lzma.LZMAError, UnicodeDecodeError) as exc:
            raise InputError(f"the puzzle file {DATA_FILE} is damaged ({exc})") from None
        _loaded = sorted(parse_lines(text.splitlines(), DATA_FILE), key=lambda p: (p.rating, p.id))
    return list(_loaded)


def parse_lines(lines: Iterable[str], where: str) -> List[Puzzle]:
    """Puzzles from JSON lines (blank lines skipped); InputError naming the line."""
    found = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            found.append(Puzzle.from_json(json.loads(line)))
        except (ValueError, RecursionError) as exc:     # InputError and JSON's errors are ValueErrors
            raise InputError(f"{where} line {number}: {exc}") from None
    return found


def by_id(puzzle_id: str, puzzles: Optional[Sequence[Puzzle]] = None) -> Puzzle:
    """The puzzle of that id; InputError if there is none."""
    for puzzle in (load() if puzzles is None else puzzles):
        if puzzle.id == puzzle_id:
            return puzzle
    raise InputError(f"no puzzle {quote(puzzle_id)}")


def choose(puzzles: Sequence[Puzzle], player: float, tried: Iterable[str],
           rng: Optional[random.Random] = None, nearest: int = 10,
           theme: Optional[str] = None) -> Puzzle:
    """A puzzle near the player's rating: one of the ``nearest`` untried ones
    whose ratings are closest to ``player`` (all of them once every one was
    tried), of ``theme`` when one is given (:data:`mancala.puzzles.teaching.THEMES`).
    InputError if there is none to choose from, or the theme is unknown."""
    if theme is not None:
        if theme not in teaching.THEMES:
            raise InputError(f"unknown theme {quote(theme)}; choose one of {', '.join(teaching.THEMES)}")
        puzzles = [puzzle for puzzle in puzzles if theme in puzzle.themes]
    if not puzzles:
        raise InputError("there are no puzzles to choose from")
    tried = set(tried)
    pool = [puzzle for puzzle in puzzles if puzzle.id not in tried] or list(puzzles)
    pool.sort(key=lambda puzzle: (abs(puzzle.rating - player), puzzle.id))
    return (rng or random.Random()).choice(pool[:nearest])


def export(puzzles: Iterable[Puzzle], write: Callable[[str], Any]) -> int:
    """Write the puzzles as JSON lines (see :meth:`Puzzle.to_json`); how many."""
    count = 0
    for puzzle in puzzles:
        write(json.dumps(puzzle.to_json(), separators=(",", ":")) + "\n")
        count += 1
    return count


# -- playing one ---------------------------------------------------------------------------------

class Attempt:
    """One try at a puzzle: the solver plays, the opponent answers (the line's moves).

    ``board`` is the position now; :meth:`play` takes the solver's move and
    returns what happened: ``"wrong"``, ``"right"`` (the opponent's answers,
    if any, are played: see :attr:`replies`) or ``"solved"`` (the last move of
    the line). With ``retry`` a wrong move is taken back and the solver tries
    again (the board is as it was; :attr:`missed` says a move was wrong);
    without it a wrong move ends the attempt. :meth:`give_up` ends it too.
    The rating counts an attempt once: :meth:`take_result` says when and how.
    """

    def __init__(self, puzzle: Puzzle, retry: bool = False) -> None:
        self.puzzle = puzzle
        self.retry = retry
        self.board = puzzle.position()
        self.played: List[int] = []             #: the solver's moves, as tried
        self.replies: Tuple[int, ...] = ()      #: the opponent's answers to the last right move
        self.missed = False                     #: a move of the solver's was wrong
        self._next = 0                          #: the place in the line of the move expected
        self._taken = False                     #: the result for the rating was taken
        self.result: Optional[str] = None       #: "solved", "wrong" or "given up" once over

    @property
    def expected(self) -> int:
        """The solver's move the line asks for now."""
        return self.puzzle.solution[self._next]

    def play(self, pit: int) -> str:
        """The solver's move (a pit index); IllegalMoveError if it is not legal
        here, InputError if the attempt is over."""
        if self.result is not None:
            raise InputError(f"the attempt is over ({self.result})")
        if not self.board.is_legal(pit):
            raise IllegalMoveError(f"pit index {quote(pit)} is not legal here")
        self.played.append(pit)
        self.replies = ()
        if pit != self.expected:
            self.missed = True
            if not self.retry:
                self.result = "wrong"
            return "wrong"
        self.board.push(pit)
        self._next += 1
        line = self.puzzle.solution
        replies = []
        while self._next < len(line) and self.board.to_move != self.puzzle.to_move:
            replies.append(line[self._next])
            self.board.push(line[self._next])
            self._next += 1
        self.replies = tuple(replies)
        if self._next == len(line):
            self.result = "solved"
            return self.result
        return "right"

    def give_up(self) -> None:
        """End the attempt unsolved (InputError if it is over)."""
        if self.result is not None:
            raise InputError(f"the attempt is over ({self.result})")
        self.result = "given up"

    def take_result(self) -> Optional[bool]:
        """What the rating counts, once: False at the first wrong move or on giving
        up, True when solved without a wrong move; None when it is not yet known
        or was already taken (a retry after a miss counts for nothing more)."""
        if self._taken:
            return None
        if self.missed or self.result == "given up":
            self._taken = True
            return False
        if self.result == "solved":
            self._taken = True
            return True
        return None


__all__ = ["Puzzle", "Attempt", "load", "parse_lines", "by_id", "choose", "export", "puzzle_id",
           "DATA_FILE"]
