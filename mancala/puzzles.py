"""Puzzles: positions from engine games where exactly one move keeps the value.

A **puzzle** is a position, its capture rule and a solution line. Its first
move is the only move that keeps the position's perfect-play value: every
other legal move loses at least :data:`MIN_GAP` seeds, each proven by an
exact solve of the move's position. The **solution line** goes on while it
stays so:

1. the solver plays the unique move;
2. if the game is over, or the solver has played :data:`MAX_SOLVER_MOVES`, the line ends;
3. if the solver moves again (an extra turn), and again exactly one move keeps
   the value, that move is next (back to 1); else the line ends;
4. the opponent answers with a move that keeps *its* value (every move of a
   chain of extra turns, too), the first in pit order after which the solver
   again has exactly one move that keeps the value (back to 1); if no answer
   leads to such a position, the line ends before the answer.

So a line always ends with the solver's move, and every solver move in it is
unique. ``solution`` holds the whole line, pit indices 0..5 of whoever moves.

The **rating** is on the Elo scale of the players' ratings (a newcomer
starts at 1500; see :func:`rating`): a puzzle is harder the deeper a plain
search must look before it settles on the solver's moves, the more moves the
line asks for, and the fewer seeds the second-best move loses.

The package ships :data:`DATA_FILE`, puzzles found in engine games by
``bench/make_puzzles.py``; :func:`load` reads them. :class:`Attempt` plays
one out; :class:`PuzzleLog` keeps each attempt and the player's puzzle rating
(Glicko-2, :mod:`mancala.rating`) in ``puzzles.sqlite3`` in the data folder,
with the care of :class:`mancala.sqlitefile.SQLiteFile`.

    >>> board = Board([1, 0, 0, 1, 0, 3, 27, 1, 0, 0, 0, 1, 0, 14], to_move=0)
    >>> puzzle = find(board, Engine(hash_mb=1, endgame=None))
    >>> puzzle.solution, puzzle.solver_steps()     # South 1, North 1, South 4
    ((0, 0, 3), (0, 2))
    >>> puzzle.value, puzzle.gap, puzzle.rating    # South ends 20 ahead; the rest lose 8 or more
    (20, 8, 850)
"""
from __future__ import annotations

import hashlib
import json
import lzma
import random
import sqlite3
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from mancala import rating as _rating
from mancala.board import CAPTURE_RULES, Board
from mancala.engine import Engine
from mancala.errors import HistoryError, IllegalMoveError, InputError, quote
from mancala.sqlitefile import SQLiteFile
from mancala.rating import Rating
from mancala.review import solved_values

DATA_FILE = "puzzles.jsonl.xz"  #: the shipped puzzles, in mancala/data: JSON lines, xz-compressed
MIN_GAP = 2                     #: every other move loses at least this many seeds
MAX_SOLVER_MOVES = 3            #: the longest line asks this many moves of the solver
SOLVE_NODES = 2_000_000         #: a position's budget for solving its moves (generation)
FIND_DEPTH_LIMIT = 16           #: the deepest search :func:`find_depth` runs
FILE_NAME = "puzzles.sqlite3"   #: the puzzle log, in the data folder
#: the rating's parts (see :func:`rating`)
BASE_RATING, PER_DEPTH, PER_MOVE = 700, 90, 150
GAP_BONUS = {2: 250, 4: 100}    #: seeds the second-best move loses -> added rating
TWO_MOVES = -200                #: only two legal moves at the first step: a coin would solve half
MIN_RATING, MAX_RATING = 400, 2800
PUZZLE_RD = 0.0                 #: a puzzle's rating is taken as known, as the levels' Elo are


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

    def position(self) -> Board:
        """The puzzle's position, a new Board."""
        return Board(list(self.board), self.to_move, capture=self.capture)

    def solver_steps(self) -> Tuple[int, ...]:
        """The places in :attr:`solution` of the solver's moves."""
        board = self.position()
        steps = []
        for index, pit in enumerate(self.solution):
            if board.to_move == self.to_move:
                steps.append(index)
            board.push(pit)
        return tuple(steps)

    def to_json(self) -> Dict[str, Any]:
        """The puzzle as the data file and ``puzzle --export`` hold it."""
        return {"id": self.id, "board": list(self.board), "to_move": self.to_move,
                "capture": self.capture, "solution_indices": list(self.solution),
                "rating": self.rating, "value": self.value, "gap": self.gap, "depth": self.depth}

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
        puzzle = cls(data["id"], tuple(board), data["to_move"], data["capture"], tuple(solution),
                     data["rating"], data["value"], data["gap"], data["depth"])
        position = puzzle.position()            # InvalidBoardError for a board that is not one
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


# -- finding puzzles -------------------------------------------------------------------------

def unique_best(values: Dict[int, int], min_gap: int = MIN_GAP) -> Optional[Tuple[int, int]]:
    """(the move, seeds the second-best loses) when exactly one move is best and
    every other loses at least ``min_gap``; None otherwise (one legal move included)."""
    if len(values) < 2:
        return None
    ranked = sorted(values.items(), key=lambda item: -item[1])
    gap = ranked[0][1] - ranked[1][1]
    return (ranked[0][0], gap) if gap >= min_gap else None


def find(board: Board, engine: Engine, *, nodes: int = SOLVE_NODES,
         searcher: Optional[Engine] = None) -> Optional[Puzzle]:
    """The puzzle at ``board`` (the side to move solves it), or None if it is
    none: not exactly one move keeps the value, or a solve does not finish
    within ``nodes`` (each position's budget). ``engine`` solves (with its
    endgame database, if any); ``searcher`` runs :func:`find_depth` (default: a
    small one with no database)."""
    if board.is_game_over():
        return None
    start = board.copy(stack=False)
    values = solved_values(engine, start, nodes=nodes)
    found = unique_best(values) if values else None
    if found is None:
        return None
    solver = start.to_move
    value = max(values.values())
    line: List[int] = []
    gaps: List[int] = []
    steps: List[Tuple[Board, int]] = []
    position = start.copy(stack=False)
    while found is not None:
        move, gap = found
        steps.append((position.copy(stack=False), move))
        gaps.append(gap)
        line.append(move)
        position.push(move)
        found = None
        if position.is_game_over() or len(steps) == MAX_SOLVER_MOVES:
            break
        if position.to_move == solver:
            again = solved_values(engine, position, nodes=nodes)
            found = unique_best(again) if again else None
            continue
        answer = _answer(engine, position, solver, nodes)
        if answer is not None:
            replies, found = answer
            for reply in replies:
                line.append(reply)
                position.push(reply)
    searcher = searcher if searcher is not None else Engine(hash_mb=16, endgame=None)
    depth = max(find_depth(searcher, step, move) for step, move in steps)
    return Puzzle(puzzle_id(start.pits, solver, start.capture), tuple(start.pits), solver,
                  start.capture, tuple(line), rating(depth, len(steps), min(gaps),
                                                    len(start.legal_moves)),
                  value, min(gaps), depth)


def _answer(engine: Engine, board: Board, solver: int, nodes: int
            ) -> Optional[Tuple[List[int], Tuple[int, int]]]:
    """The opponent's moves that keep its value, the first in pit order after
    which the solver has a unique move: (the moves, (that move, its gap))."""
    values = solved_values(engine, board, nodes=nodes)
    if not values:
        return None
    best = max(values.values())
    for reply in sorted(pit for pit, value in values.items() if value == best):
        child = board.copy(stack=False)
        child.push(reply)
        if child.is_game_over():
            continue
        if child.to_move == solver:
            again = solved_values(engine, child, nodes=nodes)
            found = unique_best(again) if again else None
            if found is not None:
                return [reply], found
        else:
            deeper = _answer(engine, child, solver, nodes)
            if deeper is not None:
                return [reply] + deeper[0], deeper[1]
    return None


def find_depth(searcher: Engine, board: Board, move: int, limit: int = FIND_DEPTH_LIMIT) -> int:
    """The smallest depth from which a depth-limited search (``searcher``'s
    evaluation, its table cleared first) plays ``move`` at every depth up to
    ``limit``; ``limit + 1`` if it does not play it at ``limit``."""
    searcher.clear()
    chosen: Dict[int, Optional[int]] = {}
    searcher.search(board, depth=limit,
                    progress=lambda info: chosen.__setitem__(info.depth, info.move))
    last = max(chosen)          # a search that reaches every end stops before the limit
    if chosen[last] != move:
        return limit + 1
    depth = last
    while depth > 1 and chosen.get(depth - 1) == move:
        depth -= 1
    return depth


def rating(depth: int, solver_moves: int, gap: int, legal_moves: int) -> int:
    """A puzzle's rating from what makes it hard, on the players' Elo scale:

    ``BASE_RATING`` (700) + ``PER_DEPTH`` (90) a ply of search depth past the
    first that the solver's moves need (:func:`find_depth`) + ``PER_MOVE`` (150)
    for each solver move past the first + ``GAP_BONUS`` when the second-best
    move loses only 2 seeds (250) or 4 (100) + ``TWO_MOVES`` (-200) when the
    first step has only two legal moves; within 400..2800, to the nearest 10.
    """
    value = (BASE_RATING + PER_DEPTH * (depth - 1) + PER_MOVE * (solver_moves - 1)
             + GAP_BONUS.get(gap, 0) + (TWO_MOVES if legal_moves == 2 else 0))
    return int(round(max(MIN_RATING, min(MAX_RATING, value)), -1))


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
           rng: Optional[random.Random] = None, nearest: int = 10) -> Puzzle:
    """A puzzle near the player's rating: one of the ``nearest`` untried ones
    whose ratings are closest to ``player`` (all of them once every one was tried)."""
    if not puzzles:
        raise InputError("there are no puzzles to choose from")
    tried = set(tried)
    pool = [puzzle for puzzle in puzzles if puzzle.id not in tried] or list(puzzles)
    pool.sort(key=lambda puzzle: (abs(puzzle.rating - player), puzzle.id))
    return (rng or random.Random()).choice(pool[:nearest])


# -- playing one ---------------------------------------------------------------------------------

class Attempt:
    """One try at a puzzle: the solver plays, the line answers.

    ``board`` is the position now; :meth:`play` takes the solver's move and
    returns what happened: ``"wrong"`` (the attempt is over, failed),
    ``"right"`` (the line's answers, if any, are played: see :attr:`replies`)
    or ``"solved"`` (the last move of the line).
    """

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.board = puzzle.position()
        self.played: List[int] = []             #: the solver's moves, as tried
        self.replies: Tuple[int, ...] = ()      #: the answers to the last right move
        self._next = 0                          #: the place in the line of the move expected
        self.result: Optional[str] = None       #: "solved" or "wrong" once over

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
            self.result = "wrong"
            return self.result
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


# -- the puzzle log and the player's puzzle rating --------------------------------------------

_COLUMNS = ("id", "finished", "puzzle", "puzzle_rating", "solved", "moves",
            "rating_before", "rd_before", "volatility_before", "rating", "rd", "volatility")

_SCHEMA = """
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,         -- the order attempts were written in
    finished TEXT NOT NULL,         -- when: ISO 8601, UTC ('2026-05-01T12:00:00Z')
    puzzle TEXT NOT NULL,           -- the puzzle's id
    puzzle_rating REAL NOT NULL,    -- its rating then
    solved INTEGER NOT NULL,        -- 1 solved, 0 not
    moves TEXT NOT NULL,            -- JSON list of the solver's moves as tried, pit indices 0..5
    rating_before REAL NOT NULL,    -- the player's puzzle rating (Glicko-2) before and after
    rd_before REAL NOT NULL,
    volatility_before REAL NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    volatility REAL NOT NULL
)
"""


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt as the log keeps it."""

    id: int
    finished: str
    puzzle: str
    puzzle_rating: float
    solved: bool
    moves: Tuple[int, ...]
    before: Rating
    after: Rating


class PuzzleLog(SQLiteFile):
    """Every puzzle attempt and the player's puzzle rating, in one SQLite file
    (``path``; default ``<data dir>/puzzles.sqlite3``), kept as the game history
    is: several writers at once lose nothing, a damaged file is set aside with
    a notice (:attr:`notices`) and a new one started. HistoryError if it cannot
    be read or written."""

    TABLE = "attempts"
    COLUMNS = _COLUMNS
    SCHEMA = _SCHEMA
    APPLICATION_ID = 0x4B616C50     # "KalP"
    SCHEMA_VERSION = 1
    WHAT = "puzzle log"

    def __init__(self, path=None) -> None:
        if path is None:
            from mancala.storage import data_dir
            path = data_dir() / FILE_NAME
        super().__init__(path)

    def record(self, puzzle: Puzzle, solved: bool, moves: Sequence[int],
               finished: Optional[float] = None) -> AttemptRecord:
        """Keep an attempt and move the player's rating by it (one rating period,
        against the puzzle's rating); the attempt as kept."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(finished))
        moves = [int(pit) for pit in moves]

        def write(db) -> AttemptRecord:         # one transaction: the rating read is the last
            before = self._current(db)
            after = _rating.update(before, [(puzzle.rating, PUZZLE_RD, 1.0 if solved else 0.0)])
            cursor = db.execute(
                f"INSERT INTO attempts ({', '.join(_COLUMNS[1:])}) VALUES "
                f"({', '.join('?' * (len(_COLUMNS) - 1))})",
                (stamp, puzzle.id, float(puzzle.rating), int(bool(solved)), json.dumps(moves),
                 before.rating, before.rd, before.volatility,
                 after.rating, after.rd, after.volatility))
            return AttemptRecord(cursor.lastrowid, stamp, puzzle.id, float(puzzle.rating),
                                 bool(solved), tuple(moves), before, after)
        return self._write(write)

    def attempts(self) -> List[AttemptRecord]:
        """Every attempt kept, oldest first (rows that do not add up are left out, with a notice)."""
        if not self.path.exists():
            return []
        rows = self._run(False, lambda db: db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM attempts ORDER BY id").fetchall())
        found = []
        for row in rows:
            record = _attempt(row)
            if record is not None:
                found.append(record)
        if len(found) < len(rows):
            self.notices.append(f"{len(rows) - len(found)} attempt(s) in {self.path} do not add "
                                "up and are left out.")
        return found

    def rating(self) -> Rating:
        """The player's puzzle rating now (a newcomer's before the first attempt)."""
        done = self.attempts()
        return done[-1].after if done else Rating()

    @staticmethod
    def _current(db) -> Rating:
        row = db.execute("SELECT rating, rd, volatility FROM attempts ORDER BY id DESC "
                         "LIMIT 1").fetchone()
        if row is None:
            return Rating()
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v == v for v in row):
            raise sqlite3.DatabaseError("a rating that is not a number")
        return Rating(*row)


def _attempt(row: Sequence[Any]) -> Optional[AttemptRecord]:
    values = dict(zip(_COLUMNS, row))
    numbers = [values[name] for name in _COLUMNS[6:]] + [values["puzzle_rating"]]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v == v for v in numbers):
        return None
    try:
        moves = json.loads(values["moves"])
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(moves, list) or not all(_is_int(pit) for pit in moves) \
            or values["solved"] not in (0, 1) or not isinstance(values["puzzle"], str):
        return None
    return AttemptRecord(values["id"], values["finished"], values["puzzle"],
                         float(values["puzzle_rating"]), bool(values["solved"]), tuple(moves),
                         Rating(values["rating_before"], values["rd_before"],
                                values["volatility_before"]),
                         Rating(values["rating"], values["rd"], values["volatility"]))


def export(puzzles: Iterable[Puzzle], write: Callable[[str], Any]) -> int:
    """Write the puzzles as JSON lines (see :meth:`Puzzle.to_json`); how many."""
    count = 0
    for puzzle in puzzles:
        write(json.dumps(puzzle.to_json(), separators=(",", ":")) + "\n")
        count += 1
    return count


__all__ = ["Puzzle", "Attempt", "PuzzleLog", "AttemptRecord", "find", "find_depth", "rating",
           "unique_best", "load", "parse_lines", "by_id", "choose", "export", "puzzle_id",
           "DATA_FILE", "MIN_GAP", "MAX_SOLVER_MOVES", "HistoryError"]
