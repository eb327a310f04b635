"""Review after a game: what each move lost against the best move, in seeds.

For every move of a game, the value of every legal move of the position it
was played in, from the mover's view: exact (the final margin under perfect
play) where each move's child solves within a node budget (the endgame
database answers many at once), else the score of a depth-limited search.
The move's **loss** is the best move's value minus its own (0 for a best
move), and it is marked by the seeds it lost (:data:`MARKS`):

==============  ===========  ==================================================
mark            seeds lost   why
==============  ===========  ==================================================
(none)          0            a best move
``inaccuracy``  1-2          one seed changes sides (the margin moves by 2)
``mistake``     3-5          two seeds change sides
``blunder``     6 or more    three seeds or more: a capture given or missed
==============  ===========  ==================================================

Values are final margins (mine minus the opponent's), so a seed that goes to
the other side moves the margin by two: with the even seed totals every start
has, exact losses are even (0, 2, 4, ...), and a search's scores may be odd.

    >>> review = review_game(1, "standard", [5, 4, 4, 3, 3, 2, 5])   # Kalah(6,1), South wins 9-3
    >>> third = review.moves[2]                                      # North's first move
    >>> third.side, third.pit_index, third.loss, third.exact, third.mark
    (1, 4, 4, True, 'mistake')
    >>> third.best_indices, third.value_before, third.value_after
    ((1, 2, 3, 5), -2, -6)

A move marked has ``best_indices`` (every move that keeps the value) and
``line_indices``, the line of the first of them: with exact values each move
of it solved (the best move, then each side's move that keeps the value, at
most :data:`LINE_PLIES` moves, the same rule as the puzzles' lines); with a
search, its principal variation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from mancala.board import Board
from mancala.engine import Engine
from mancala.errors import IllegalMoveError, InvalidLimitError, quote
from mancala.geometry import PovScore
from mancala.limits import check_depth, check_nodes

#: the least seeds lost for each mark, strongest last
MARKS: Tuple[Tuple[str, int], ...] = (("inaccuracy", 1), ("mistake", 3), ("blunder", 6))
DEFAULT_NODES = 2_000_000   #: a position's budget for solving its moves' children exactly
DEFAULT_DEPTH = 14          #: the search depth where the solves do not finish
LINE_PLIES = 8              #: the longest line shown for a better move
REVIEW_HASH_MB = 128        #: the review's table: solves of a game's positions share it

Progress = Callable[[int, int], None]       # (moves reviewed, moves in all)


def mark(loss: int) -> Optional[str]:
    """The mark for a loss in seeds: None, 'inaccuracy', 'mistake' or 'blunder'."""
    found = None
    for name, least in MARKS:
        if loss >= least:
            found = name
    return found


@dataclass(frozen=True)
class MoveReview:
    """One move of a game, reviewed; values are seeds from the mover's view."""

    number: int                     #: its place in the game (1 is the first move)
    side: int                       #: who played it: 0 South, 1 North
    pit_index: int                  #: the pit played, 0..5 from the mover's left
    loss: int                       #: seeds lost against the best move (0: a best move)
    exact: bool                     #: the values are perfect play (else a search's scores)
    mark: Optional[str]             #: 'inaccuracy', 'mistake', 'blunder' or None
    best_indices: Tuple[int, ...]   #: every move worth the best value
    value_before: int               #: the position's value: the best move's
    value_after: int                #: the value of the move played
    values: Tuple[Tuple[int, int], ...]     #: (pit index, value) of every legal move
    line_indices: Tuple[int, ...]   #: the first best move's line (only for a move that lost)
    depth: Optional[int]            #: the search depth when not exact, else None

    def to_json(self) -> Dict[str, Any]:
        """The move as ``review --json`` prints it."""
        return {
            "number": self.number,
            "side": self.side,
            "pit_index": self.pit_index,
            "loss": self.loss,
            "exact": self.exact,
            "mark": self.mark,
            "best_indices": list(self.best_indices),
            "value_before": self.value_before,
            "value_after": self.value_after,
            "values": [{"pit_index": pit, "value": value} for pit, value in self.values],
            "line_indices": list(self.line_indices),
            "depth": self.depth,
        }


@dataclass(frozen=True)
class Review:
    """A whole game reviewed: its rules and every move."""

    seeds: int
    capture: str
    moves: Tuple[MoveReview, ...]

    def summary(self, side: int) -> Dict[str, Any]:
        """One side's count of each mark and seeds lost in all."""
        mine = [move for move in self.moves if move.side == side]
        counts = {name: sum(1 for move in mine if move.mark == name) for name, _ in MARKS}
        return {"moves": len(mine), "seeds_lost": sum(move.loss for move in mine), **counts}


def review_game(seeds: int, capture: str, moves: Sequence[int], engine: Optional[Engine] = None,
                *, nodes: int = DEFAULT_NODES, depth: int = DEFAULT_DEPTH,
                progress: Optional[Progress] = None) -> Review:
    """Review the moves of a game from the start of ``seeds`` per pit (a finished
    game, or the moves so far of one still going).

    ``nodes`` is each position's budget for exact solves, ``depth`` the search
    depth where they do not finish. ``engine`` (default: a fresh one of
    :data:`REVIEW_HASH_MB`, using the cached endgame database) does the work;
    the review is the same run after run. ``progress(done, total)`` is called
    after each move. Raises IllegalMoveError for a move that is not legal,
    InvalidLimitError for a budget out of range, InvalidRuleError for bad rules.
    """
    check_nodes(nodes)
    check_depth(depth)
    board = Board(seeds=seeds, capture=capture)
    moves = list(moves)
    for number, pit in enumerate(moves, 1):
        if isinstance(pit, bool) or not isinstance(pit, int) or not board.is_legal(pit):
            raise IllegalMoveError(f"move {number} ({quote(pit)}) is not legal in that game")
        board.push(pit)
    engine = engine if engine is not None else Engine(hash_mb=REVIEW_HASH_MB)
    board = Board(seeds=seeds, capture=capture)
    reviewed: List[MoveReview] = []
    for number, pit in enumerate(moves, 1):
        reviewed.append(review_move(engine, board, pit, number, nodes=nodes, depth=depth))
        board.push(pit)
        if progress is not None:
            progress(number, len(moves))
    return Review(seeds, capture, tuple(reviewed))


def review_move(engine: Engine, board: Board, pit: int, number: int = 1, *,
                nodes: int = DEFAULT_NODES, depth: int = DEFAULT_DEPTH) -> MoveReview:
    """One move (``pit`` played on ``board``) reviewed; see :func:`review_game`."""
    if not board.is_legal(pit):
        raise IllegalMoveError(f"pit index {quote(pit)} is not legal on {board!r}")
    values, exact, searched = move_values(engine, board, nodes=nodes, depth=depth)
    best = max(values.values())
    best_indices = tuple(move for move in sorted(values) if values[move] == best)
    loss = best - values[pit]
    line: Tuple[int, ...] = ()
    if loss > 0:
        if exact:
            line = best_line(engine, board, best_indices[0], nodes=nodes)
        else:
            line = searched[best_indices[0]][:LINE_PLIES]
    return MoveReview(number, board.to_move, pit, loss, exact, mark(loss), best_indices,
                      best, values[pit], tuple(sorted(values.items())), line,
                      None if exact else depth)


def move_values(engine: Engine, board: Board, *, nodes: int = DEFAULT_NODES,
                depth: int = DEFAULT_DEPTH) -> Tuple[Dict[int, int], bool, Dict[int, Tuple[int, ...]]]:
    """The value of every legal move from the mover's view: ({pit: value}, exact,
    {pit: principal variation}).

    Exact when every child solves within ``nodes`` in all (:func:`solved_values`;
    the variations are then empty); else every move's score from a search
    ``depth`` moves deep (exact if every line of it reached the end of the game).
    """
    values = solved_values(engine, board, nodes=nodes)
    if values is not None:
        return values, True, {}
    results = engine.analyse(board, depth=depth)
    return ({pit: result.score for pit, result in results.items()},
            all(result.exact for result in results.values()),
            {pit: tuple(result.pv) for pit, result in results.items()})


def solved_values(engine: Engine, board: Board, *, nodes: int = DEFAULT_NODES) -> Optional[Dict[int, int]]:
    """The perfect-play value of every legal move from the mover's view ({pit:
    value}), each move's position solved by ``engine``; None if the solves do
    not all finish within ``nodes`` in all ({} for a finished game)."""
    values: Dict[int, int] = {}
    spent = 0
    for pit in board.legal_moves:
        child = board.copy(stack=False)
        child.push(pit)
        if spent >= nodes:
            return None
        solved = engine.solve(child, nodes=nodes - spent)
        spent += solved.nodes
        if not solved.exact:
            return None
        values[pit] = PovScore(solved.score, child.to_move).pov(board.to_move)
    return values


def best_line(engine: Engine, board: Board, first: int, *, nodes: int = DEFAULT_NODES,
              plies: int = LINE_PLIES) -> Tuple[int, ...]:
    """``first`` (a move that keeps the value), then each mover's move that keeps
    it, as solved, while a solve finishes within ``nodes``: at most ``plies`` moves."""
    if plies < 1:
        raise InvalidLimitError(f"a line has at least one move, not {quote(plies)}")
    line = [first]
    child = board.copy(stack=False)
    child.push(first)
    while len(line) < plies and not child.is_game_over():
        solved = engine.solve(child, nodes=nodes)
        if not solved.exact or solved.move is None:
            break
        line.append(solved.move)
        child.push(solved.move)
    return tuple(line)


__all__ = ["MoveReview", "Review", "review_game", "review_move", "move_values", "solved_values",
           "best_line",
           "mark", "MARKS", "DEFAULT_NODES", "DEFAULT_DEPTH", "LINE_PLIES"]
