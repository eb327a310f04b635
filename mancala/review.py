"""Review after a game: what each move lost against the best move, in seeds.

For every move of a game, the score of every legal move of the position it
was played in, from the mover's view: exact (the final margin under perfect
play) where each move's child solves within a node budget (the endgame
database answers many at once), else the score of a search ``depth`` moves
deep (:mod:`mancala.scores`: the same number the hint and the analysis give
at that depth). The move's **loss** is the best move's score minus its own (0
for a best move), and it is marked by the seeds it lost (:data:`MARKS`):

==============  ===========  ==================================================
mark            seeds lost   why
==============  ===========  ==================================================
(none)          0            a best move
``inaccuracy``  1-2          one seed changes sides (the margin moves by 2)
``mistake``     3-5          two seeds change sides
``blunder``     6 or more    three seeds or more: a capture given or missed
==============  ===========  ==================================================

Scores are final margins (mine minus the opponent's), so a seed that goes to
the other side moves the margin by two: with the even seed totals every start
has, exact losses are even (0, 2, 4, ...), and a search's scores may be odd.

    >>> review = review_game(1, "standard", [5, 4, 4, 3, 3, 2, 5])   # Kalah(6,1), South wins 9-3
    >>> third = review.moves[2]                                      # North's first move
    >>> third.side, third.pit_index, third.loss, third.exact, third.mark
    (1, 4, 4, True, 'mistake')
    >>> third.best_indices, third.score_before, third.score_after
    ((1, 2, 3, 5), -2, -6)
    >>> third.after.text(), third.after.text(you=1)
    ('South +6 (exact)', '-6 for you (exact)')

A move marked has ``best_indices`` (every move that keeps the score) and
``line_indices``, the line of the first of them: with exact scores each move
of it solved (the best move, then each side's move that keeps the score, at
most :data:`LINE_PLIES` moves, the same rule as the puzzles' lines); with a
search, its principal variation.

**Speed.** :func:`review_moves` reviews the last move first: the last
positions solve at once (few seeds are left), and what their solves put in
the engine's table helps each earlier one (those with at most
:data:`QUICK_SEEDS` seeds in the pits are solved by a small engine of their
own, so the first moves come before an endgame database has opened). Once a
position does not solve within the budget, the positions before it (more
seeds still in play) are not tried: they are searched ``depth`` moves deep at once. It yields each
move as soon as it is reviewed, so a face shows the first marks while the
rest is computed. A review is plain data (:meth:`Review.to_json`,
:meth:`Review.from_json`): :mod:`mancala.history` keeps it with its game, so
opening it again does no search (:func:`kept_review`, :func:`keep_review`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from mancala.board import Board
from mancala.engine import Engine
from mancala.errors import IllegalMoveError, InputError, InvalidLimitError, quote
from mancala.geometry import PovScore, seeds_in_pits
from mancala.limits import QUICK_HASH_MB, REVIEW_HASH_MB, check_depth, check_nodes
from mancala.scores import Score

#: the least seeds lost for each mark, strongest last
MARKS: Tuple[Tuple[str, int], ...] = (("inaccuracy", 1), ("mistake", 3), ("blunder", 6))
DEFAULT_NODES = 2_000_000   #: a position's budget for solving its moves' children exactly
DEFAULT_DEPTH = 14          #: the search depth where the solves do not finish (the hint's)
LINE_PLIES = 8              #: the longest line shown for a better move
QUICK_SEEDS = 24            #: positions with this few seeds in the pits are solved without a database
                            #: (by an engine of their own: limits.QUICK_HASH_MB; the review's: REVIEW_HASH_MB)
FORMAT = 1                  #: the version of :meth:`Review.to_json`'s form

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
    """One move of a game, reviewed; scores are seeds from the mover's view."""

    number: int                     #: its place in the game (1 is the first move)
    side: int                       #: who played it: 0 South, 1 North
    pit_index: int                  #: the pit played, 0..5 from the mover's left
    loss: int                       #: seeds lost against the best move (0: a best move)
    exact: bool                     #: the scores are perfect play (else a search's)
    mark: Optional[str]             #: 'inaccuracy', 'mistake', 'blunder' or None
    best_indices: Tuple[int, ...]   #: every move with the best score
    score_before: int               #: the position's score: the best move's
    score_after: int                #: the score of the move played
    scores: Tuple[Tuple[int, int], ...]     #: (pit index, score) of every legal move
    line_indices: Tuple[int, ...]   #: the first best move's line (only for a move that lost)
    depth: Optional[int]            #: the search depth when not exact, else None

    @property
    def before(self) -> Score:
        """The position's score (the best move's), with its side and kind."""
        return Score(self.score_before, self.side, self.exact, self.depth)

    @property
    def after(self) -> Score:
        """The score of the move played, with its side and kind."""
        return Score(self.score_after, self.side, self.exact, self.depth)

    def better(self) -> str:
        """The best moves (pits 1..6) and their score, as every face words them:
        '2, 3, 4 or 6, South +2 (exact)', '6, South +7 (depth 14)'."""
        pits = [str(pit + 1) for pit in self.best_indices]
        named = pits[0] if len(pits) == 1 else f"{', '.join(pits[:-1])} or {pits[-1]}"
        return f"{named}, {self.before.text()}"

    def to_json(self) -> Dict[str, Any]:
        """The move as ``review --json`` prints it (``south_before``/``south_after``:
        the scores from South's view, as a chart of the game draws them; ``better``:
        :meth:`better`'s words)."""
        return {
            "number": self.number,
            "side": self.side,
            "pit_index": self.pit_index,
            "loss": self.loss,
            "exact": self.exact,
            "mark": self.mark,
            "best_indices": list(self.best_indices),
            "score_before": self.score_before,
            "score_after": self.score_after,
            "south_before": self.before.south,
            "south_after": self.after.south,
            "scores": [{"pit_index": pit, "score": score} for pit, score in self.scores],
            "line_indices": list(self.line_indices),
            "depth": self.depth,
            "better": self.better(),
        }

    @classmethod
    def from_json(cls, data: Any) -> "MoveReview":
        """A move from :meth:`to_json`'s form; InputError if it is not one."""
        try:
            move = cls(data["number"], data["side"], data["pit_index"], data["loss"],
                       data["exact"], data["mark"], tuple(data["best_indices"]),
                       data["score_before"], data["score_after"],
                       tuple((s["pit_index"], s["score"]) for s in data["scores"]),
                       tuple(data["line_indices"]), data["depth"])
        except (KeyError, TypeError) as exc:
            raise InputError(f"a reviewed move lacks {exc}") from None
        whole = (move.number, move.side, move.pit_index, move.loss, move.score_before,
                 move.score_after, *move.best_indices, *move.line_indices,
                 *(v for pair in move.scores for v in pair))
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in whole) \
                or not isinstance(move.exact, bool) or move.mark != mark(move.loss) \
                or (move.depth is not None and not isinstance(move.depth, int)):
            raise InputError(f"reviewed move {quote(data.get('number'))} does not add up")
        return move


@dataclass(frozen=True)
class Review:
    """A whole game reviewed: its rules, every move, and the budget it was made with."""

    seeds: int
    capture: str
    moves: Tuple[MoveReview, ...]
    nodes: int = DEFAULT_NODES      #: each position's budget for solves
    depth: int = DEFAULT_DEPTH      #: the search depth where they did not finish

    def summary(self, side: int) -> Dict[str, Any]:
        """One side's count of each mark and seeds lost in all."""
        mine = [move for move in self.moves if move.side == side]
        counts = {name: sum(1 for move in mine if move.mark == name) for name, _ in MARKS}
        return {"moves": len(mine), "seeds_lost": sum(move.loss for move in mine), **counts}

    def to_json(self) -> Dict[str, Any]:
        """The review as the history keeps it (:meth:`from_json` reads it back)."""
        return {"format": FORMAT, "seeds": self.seeds, "capture": self.capture,
                "nodes": self.nodes, "depth": self.depth,
                "moves": [move.to_json() for move in self.moves]}

    @classmethod
    def from_json(cls, data: Any) -> "Review":
        """A review from :meth:`to_json`'s form; InputError if it is not one."""
        if not isinstance(data, dict) or data.get("format") != FORMAT \
                or not isinstance(data.get("moves"), list):
            raise InputError("not a review this version of mancala writes")
        moves = tuple(MoveReview.from_json(move) for move in data["moves"])
        if [move.number for move in moves] != list(range(1, len(moves) + 1)):
            raise InputError("a review's moves are not numbered 1, 2, 3, ...")
        return cls(data.get("seeds"), data.get("capture"), moves, data.get("nodes"),
                   data.get("depth"))

    def fits(self, seeds: int, capture: str, moves: Sequence[int], nodes: int, depth: int) -> bool:
        """Whether this is the review of that game with that budget."""
        return (self.seeds, self.capture, self.nodes, self.depth) == (seeds, capture, nodes, depth) \
            and [move.pit_index for move in self.moves] == list(moves)


# -- reviewing -----------------------------------------------------------------------------

def positions(seeds: int, capture: str, moves: Sequence[int]) -> List[Board]:
    """The position before each move (IllegalMoveError for a move that is not legal)."""
    board = Board(seeds=seeds, capture=capture)
    found = []
    for number, pit in enumerate(moves, 1):
        if isinstance(pit, bool) or not isinstance(pit, int) or not board.is_legal(pit):
            raise IllegalMoveError(f"move {number} ({quote(pit)}) is not legal in that game")
        found.append(board.copy(stack=False))
        board.push(pit)
    return found


def review_moves(seeds: int, capture: str, moves: Sequence[int], engine: Any = None, *,
                 nodes: int = DEFAULT_NODES, depth: int = DEFAULT_DEPTH,
                 hash_mb: float = REVIEW_HASH_MB, quick: Any = None) -> Iterator[MoveReview]:
    """Each move of a game from the start of ``seeds`` per pit reviewed, yielded as
    soon as it is, the last move first (see the module docstring for why).

    ``nodes`` is each position's budget for exact solves, ``depth`` the search
    depth where they do not finish. ``engine`` (default: a fresh one of
    ``hash_mb``, using the cached endgame database) does the work, and
    ``quick`` the positions with at most :data:`QUICK_SEEDS` seeds in the pits
    (default: with no ``engine`` given, a small one without a database, so the
    first moves need no database opened; with one, that one); the review is the
    same run after run. Raises IllegalMoveError for a move that is not legal,
    InvalidLimitError for a budget out of range, InvalidRuleError for bad rules
    (all before any search).
    """
    check_nodes(nodes)
    check_depth(depth)
    moves = list(moves)
    boards = positions(seeds, capture, moves)
    if engine is None:
        engine = Engine(hash_mb=hash_mb)
        if quick is None:
            quick = quick_engine()
    solving = True
    for index in reversed(range(len(moves))):
        board = boards[index]
        which = quick if quick is not None and seeds_in_pits(board.pits) <= QUICK_SEEDS else engine
        values = solved_values(which, board, nodes=nodes) if solving else None
        solving = values is not None
        yield _reviewed(which, board, moves[index], index + 1, values, nodes, depth)


def quick_engine() -> Any:
    """An engine for the positions with at most :data:`QUICK_SEEDS` seeds in the pits:
    they solve at once with no endgame database, so none has to be opened first."""
    return Engine(hash_mb=QUICK_HASH_MB, endgame=None)


def review_game(seeds: int, capture: str, moves: Sequence[int], engine: Any = None,
                *, nodes: int = DEFAULT_NODES, depth: int = DEFAULT_DEPTH,
                hash_mb: float = REVIEW_HASH_MB, progress: Optional[Progress] = None,
                on_move: Optional[Callable[[MoveReview], None]] = None,
                quick: Any = None) -> Review:
    """The whole :func:`review_moves` of a game (a finished game, or the moves so far
    of one still going), in the game's order. ``progress(done, total)`` and
    ``on_move(move)`` are called as each move is reviewed. Raises what
    :func:`review_moves` raises."""
    moves = list(moves)
    found: Dict[int, MoveReview] = {}
    for move in review_moves(seeds, capture, moves, engine, nodes=nodes, depth=depth,
                             hash_mb=hash_mb, quick=quick):
        found[move.number] = move
        if on_move is not None:
            on_move(move)
        if progress is not None:
            progress(len(found), len(moves))
    return Review(seeds, capture, tuple(found[n] for n in sorted(found)), nodes, depth)


def review_move(engine: Any, board: Board, pit: int, number: int = 1, *,
                nodes: int = DEFAULT_NODES, depth: int = DEFAULT_DEPTH) -> MoveReview:
    """One move (``pit`` played on ``board``) reviewed; see :func:`review_game`."""
    if not board.is_legal(pit):
        raise IllegalMoveError(f"pit index {quote(pit)} is not legal on {board!r}")
    return _reviewed(engine, board, pit, number, solved_values(engine, board, nodes=nodes),
                     nodes, depth)


def _reviewed(engine: Any, board: Board, pit: int, number: int,
              solved: Optional[Dict[int, int]], nodes: int, depth: int) -> MoveReview:
    """The move's review from its position's solved values, or a search where None."""
    if solved is not None:
        values, exact, searched = solved, True, {}
    else:
        values, exact, searched = searched_values(engine, board, depth)
    best = max(values.values())
    best_indices = tuple(move for move in sorted(values) if values[move] == best)
    loss = best - values[pit]
    line: Tuple[int, ...] = ()
    if loss > 0:
        if solved is not None:
            line = best_line(engine, board, best_indices[0], nodes=nodes)
        else:
            line = searched[best_indices[0]][:LINE_PLIES]
    return MoveReview(number, board.to_move, pit, loss, exact, mark(loss), best_indices,
                      best, values[pit], tuple(sorted(values.items())), line,
                      None if exact else depth)


def move_values(engine: Any, board: Board, *, nodes: int = DEFAULT_NODES,
                depth: int = DEFAULT_DEPTH) -> Tuple[Dict[int, int], bool, Dict[int, Tuple[int, ...]]]:
    """The score of every legal move from the mover's view: ({pit: score}, exact,
    {pit: principal variation}).

    Exact when every child solves within ``nodes`` in all (:func:`solved_values`;
    the variations are then empty); else :func:`searched_values`.
    """
    values = solved_values(engine, board, nodes=nodes)
    if values is not None:
        return values, True, {}
    return searched_values(engine, board, depth)


def searched_values(engine: Any, board: Board, depth: int
                    ) -> Tuple[Dict[int, int], bool, Dict[int, Tuple[int, ...]]]:
    """Every move's score from a search ``depth`` moves deep (``engine.analyse``),
    exact if every line of it reached the end of the game, with each principal variation."""
    results = engine.analyse(board, depth=depth)
    return ({pit: result.score for pit, result in results.items()},
            all(result.exact for result in results.values()),
            {pit: tuple(result.pv) for pit, result in results.items()})


def solved_values(engine: Any, board: Board, *, nodes: int = DEFAULT_NODES) -> Optional[Dict[int, int]]:
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


def best_line(engine: Any, board: Board, first: int, *, nodes: int = DEFAULT_NODES,
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


# -- reviews kept with their game ----------------------------------------------------------

def kept_review(history: Any, game_id: int, seeds: int, capture: str, moves: Sequence[int], *,
                nodes: int = DEFAULT_NODES, depth: int = DEFAULT_DEPTH) -> Optional[Review]:
    """The review kept with game ``game_id`` of ``history`` (a
    :class:`mancala.history.History`) if it is this game's with this budget, else
    None: nothing is searched. HistoryError if the history cannot be read."""
    data = history.reviews([game_id]).get(game_id)
    if data is None:
        return None
    try:
        review = Review.from_json(data)
    except InputError:
        return None             # another version's, or edited by hand: made again
    return review if review.fits(seeds, capture, moves, nodes, depth) else None


def keep_review(history: Any, game_id: int, review: Review) -> bool:
    """Keep ``review`` with game ``game_id`` (False if there is no such game)."""
    return history.keep_review(game_id, review.to_json())


__all__ = ["MoveReview", "Review", "review_game", "review_moves", "review_move", "move_values",
           "searched_values", "solved_values", "best_line", "positions", "kept_review",
           "keep_review", "mark", "quick_engine", "MARKS", "DEFAULT_NODES", "DEFAULT_DEPTH", "LINE_PLIES",
           "QUICK_SEEDS"]
