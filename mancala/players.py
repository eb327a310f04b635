"""Players: anything that chooses a move for a board.

The game loop depends only on :class:`Player` (``choose(board) -> pit``, with
pits 0..5 from the mover's left). :func:`make_player` makes the player a
:class:`mancala.specs.PlayerSpec` names, :func:`parse_player` the one a spelling
names (``parse_player("ai:hard")``; the spellings are :mod:`mancala.specs`'):

==================  ==========================================================
``human``           a person, asked by a user interface; see :class:`Human`
``random``          a uniformly random legal move (seedable)
``minimax:N``       the textbook full-width search of ``mancala._reference``, N moves deep
``alphabeta:N``     the textbook alpha-beta of ``mancala._reference``, N moves deep
``ai:easy``         every move scored 2 moves deep, one picked by a softmax (``ai:depth=2,temp=1``)
``ai:medium``       the best move 8 moves deep, ties broken at random (``ai:depth=8,temp=0``)
``ai:hard``         the engine for about 1 second per move (iterative deepening)
``ai:perfect``      the opening book's move at a standard start; else solves exactly for
                    up to 3 s (with an endgame database when one is built), else searches 1 s
``ai:elo=N``        a strength of N Elo on the levels' scale (:mod:`mancala.levels`)
``ai:depth=N``      the engine N moves deep (1..254)
``ai:depth=N,temp=T``  every move scored N moves deep, one picked by a softmax at temperature
                    T seeds, never one more than 4 seeds below the best (:mod:`mancala.levels`)
``ai:time=S``       the engine for S seconds per move (0 < S <= 3600)
``ai``              the same as ``ai:medium``
``engine:"CMD"``    any program speaking the engine protocol (docs/protocol.md),
                    0.1 s per move; ``engine:"CMD"@S`` for S seconds per move
==================  ==========================================================

Depth counts every sowing, extra-turn moves included. ``ai:perfect`` plays
the first move of a standard start from the opening book
(``mancala/data/openings.json``); solving the next few moves of Kalah(6,4)
does not finish in 3 s today, so it plays them from a deep search and plays
perfectly once the solve finishes (sooner with an endgame database built by
``python -m mancala solve --endgame 16``). The last search is kept in
``player.last`` (a :class:`MoveInfo`) so a user interface can show it.
"""
from __future__ import annotations

import logging
import random
import time
from typing import Callable, Dict, NamedTuple, Optional, Union

from mancala import _reference, book, levels
from mancala.board import Board, capture_code
from mancala.engine import Engine
from mancala.errors import GameError, PlayerSpecError
from mancala.external import EngineProcess
from mancala.levels import LEVEL_THREADS, Level, levels_by_spec, mixture, pick
from mancala.limits import PERFECT_HASH_MB, SMALL_HASH_MB, default_table_mb
from mancala.specs import EXTERNAL_TIME, PlayerSpec, canonical_spec, program_in  # noqa: F401  (their home is specs)


class MoveInfo(NamedTuple):
    """How a computer player found its move (score from the mover's view, in seeds)."""

    score: int
    depth: int          #: moves searched ahead (0 when solved exactly or random)
    elapsed: float      #: seconds
    nodes: int = 0
    exact: bool = False  #: the score is the perfect-play value
    note: str = ""       #: e.g. "random move", "solved": shown beside the score, never read
    at_random: bool = False  #: a uniformly random move: nothing was searched, no score to show


#: how a human player is asked for a move: its pit, or None when the person did
#: something else instead (took moves back, loaded a game, quit)
Ask = Callable[[Board], Optional[int]]


class Player:
    """Chooses a move: ``choose(board)`` returns a legal pit 0..5 of the side to move
    (a :class:`Human` may return None: see there)."""

    #: its canonical spelling (str of its PlayerSpec; saved in game files)
    spec: str = "?"
    #: one line for menus and help
    description: str = ""
    is_human = False

    def __init__(self) -> None:
        self.last: Optional[MoveInfo] = None

    def choose(self, board: Board) -> Optional[int]:
        raise NotImplementedError

    def close(self) -> None:
        """Let go of what the player holds (a program it runs); most hold nothing. Raises nothing."""

    @property
    def name(self) -> str:
        return self.spec

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


# -- people ---------------------------------------------------------------------

class Human(Player):
    """A person: ``ask(board)`` is how they are asked for a move.

    ``ask`` returns their pit, or None when they did something else instead
    of moving (took moves back, loaded another game, quit): the game loop
    then asks again, or stops. What they type and how it is read are the user
    interface's (the terminal's: :class:`mancala.cli.entry.Keyboard`); a
    human without ``ask`` cannot be asked (GameError on its move).
    """

    is_human = True
    description = "a person at the keyboard"

    def __init__(self, ask: Optional[Ask] = None) -> None:
        super().__init__()
        self._ask = ask
        self.spec = "human"

    def choose(self, board: Board) -> Optional[int]:
        self.last = None
        if self._ask is None:
            raise GameError("a human player needs a way to be asked for moves (ask=)")
        return self._ask(board)


# -- computer players -------------------------------------------------------------

class RandomPlayer(Player):
    """A uniformly random legal move; ``seed`` makes the sequence repeatable."""

    description = "a random legal move"

    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__()
        self.spec = "random"
        self._rng = random.Random(seed)

    def choose(self, board: Board) -> int:
        pit = self._rng.choice(board.legal_moves)
        self.last = MoveInfo(0, 0, 0.0, 0, False, "random move", at_random=True)
        return pit


class _ReferencePlayer(Player):
    """A pure-Python search of mancala._reference at a fixed depth."""

    kind = ""

    def __init__(self, depth: int) -> None:
        """PlayerSpecError unless ``depth`` is 1..30 (:data:`mancala.limits.MAX_REFERENCE_DEPTH`)."""
        super().__init__()
        self.spec = str(PlayerSpec(self.kind, depth=depth))
        self.depth = depth
        self.description = f"textbook {self.kind} in pure Python, {depth} moves deep"

    def _search(self, slots, to_move, depth, capture):
        raise NotImplementedError

    def choose(self, board: Board) -> int:
        start = time.perf_counter()
        score, pit, nodes = self._search(board.pits, board.to_move, self.depth,
                                         capture_code(board.capture))
        self.last = MoveInfo(score, self.depth, time.perf_counter() - start, nodes)
        return pit


class MinimaxPlayer(_ReferencePlayer):
    """Full-width negamax in pure Python (``mancala._reference.minimax``)."""

    kind = "minimax"

    def _search(self, slots, to_move, depth, capture):
        return _reference.minimax(slots, to_move, depth, capture)


class AlphaBetaPlayer(_ReferencePlayer):
    """Textbook alpha-beta in pure Python (``mancala._reference.alphabeta``)."""

    kind = "alphabeta"

    def _search(self, slots, to_move, depth, capture):
        return _reference.alphabeta(slots, to_move, depth, capture)


class EnginePlayer(Player):
    """The compiled engine at a level, or at a custom depth or time.

    ``EnginePlayer("medium")``, ``EnginePlayer(depth=10)``, ``EnginePlayer(time=0.5)``;
    see the module docstring for what each level does. The engine (and its
    transposition table, which it keeps from move to move) is made on the
    first move, so building a player is cheap. Raises PlayerSpecError for an
    unknown level, a depth outside 1..254 or a time outside (0, 3600] seconds.
    """

    DESCRIPTIONS = {
        "easy": f"looks {levels.LEVEL_SKILLS['easy'][0]} moves ahead and often plays a lesser move",
        "medium": f"looks {levels.LEVEL_SKILLS['medium'][0]} moves ahead",
        "hard": f"searches about {levels.HARD_TIME:g} s per move",
        "perfect": (f"opening book, then solves exactly (up to {levels.PERFECT_SOLVE_TIME:g} s), "
                    f"else searches {levels.PERFECT_FALLBACK_TIME:g} s"),
    }

    def __init__(self, level: Optional[str] = None, *, depth: Optional[int] = None,
                 time: Optional[float] = None, temperature: Optional[float] = None,
                 seed: Optional[int] = None, threads: int = 1) -> None:
        super().__init__()
        spec = PlayerSpec("ai", level=level, depth=depth, time=time, temperature=temperature)
        if spec.needs_time:
            raise PlayerSpecError("give one of level, depth or time")
        self.spec = str(spec)
        self.level, self.depth, self.time = spec.level, spec.depth, spec.time
        self.temperature = spec.temperature
        if spec.level in levels.LEVEL_SKILLS:
            self.depth, self.temperature = levels.LEVEL_SKILLS[spec.level]
        if spec.level is not None:
            self.description = self.DESCRIPTIONS[spec.level]
        elif spec.temperature is not None:
            self.description = (f"looks {spec.depth} moves ahead, picks by a softmax at "
                                f"{spec.temperature:g} seeds")
        elif spec.depth is not None:
            self.description = f"looks {spec.depth} moves ahead"
        else:
            self.description = f"searches {spec.time:g} s per move"
        self._rng = random.Random(seed)
        self._engine = None
        self._book_failed = False
        # the levels play on one thread, as their Elo was measured (mancala.levels);
        # ai:depth=N and ai:time=S on the threads they are given
        self.threads = threads if spec.level is None and spec.temperature is None else LEVEL_THREADS

    @property
    def engine(self):
        if self._engine is None:
            # the library's evaluations: the timed levels (hard, perfect, time=S) play
            # with the learned one, the depth levels look N moves ahead at the store
            # difference, the same every time
            if self.level == "perfect":
                self._engine = Engine(hash_mb=default_table_mb(PERFECT_HASH_MB),
                                      threads=levels.PERFECT_THREADS)
            else:
                self._engine = Engine(hash_mb=default_table_mb(SMALL_HASH_MB), threads=self.threads)
        return self._engine

    def choose(self, board: Board) -> int:
        if self.temperature is not None:
            return self._softmax(board)
        if self.level == "hard":
            return self._searched(board, time=levels.HARD_TIME)
        if self.level == "perfect":
            return self._perfect(board)
        if self.depth is not None:
            return self._searched(board, depth=self.depth)
        return self._searched(board, time=self.time)

    def _searched(self, board: Board, note: str = "", **limit) -> int:
        result = self.engine.search(board, **limit)
        self.last = MoveInfo(result.score, result.depth, result.elapsed, result.nodes,
                             result.exact, note)
        return result.move

    def _softmax(self, board: Board) -> int:
        start = time.perf_counter()
        results = self.engine.analyse(board, depth=self.depth)
        scores = {pit: result.score for pit, result in results.items()}
        pit = pick(scores, self.temperature, self._rng)
        best = max(scores.values())
        lost = best - scores[pit]
        note = "" if not lost else f"{lost} seed{'' if lost == 1 else 's'} below its best move"
        self.last = MoveInfo(scores[pit], self.depth, time.perf_counter() - start,
                             sum(result.nodes for result in results.values()),
                             all(result.exact for result in results.values()), note)
        return pit

    def _book_entry(self, board: Board) -> Optional[book.BookEntry]:
        """The book's entry for board; a book that cannot be used is said once
        (one line, logged) and the player plays on without it."""
        if self._book_failed:
            return None
        try:
            return book.lookup(board)
        except book.BookError as exc:
            self._book_failed = True
            logging.getLogger("mancala.book").warning("mancala: %s; playing without the book", exc)
            return None

    def _perfect(self, board: Board) -> int:
        entry = self._book_entry(board)
        if entry is not None:
            self.last = MoveInfo(entry.value, 0, 0.0, 0, True, "opening book")
            return self._rng.choice(entry.moves)
        result = self.engine.solve(board, time=levels.PERFECT_SOLVE_TIME)
        if result.exact:
            note = f"solved, endgame database of {result.endgame} seeds" if result.endgame else "solved"
            self.last = MoveInfo(result.score, 0, result.elapsed, result.nodes, True, note)
            return result.move
        spent = result.elapsed
        pit = self._searched(board, time=levels.PERFECT_FALLBACK_TIME, note="not solved in time",
                             threads=self.threads)
        self.last = self.last._replace(elapsed=self.last.elapsed + spent)
        return pit


class ExternalPlayer(Player):
    """Any program that speaks the engine protocol (``engine:"COMMAND ARGS"``).

    ``ExternalPlayer("python -m mancala engine", time=0.1)``. The program is
    started on the first move (so building a player, or checking a spelling,
    starts nothing) and asked for each move with ``go movetime``; see
    :class:`mancala.external.EngineProcess`. A program that crashes, hangs
    past its time by a margin or sends an illegal move raises
    :class:`mancala.errors.PlayerFailedError` and is killed. ``close()`` ends
    it; so do garbage collection and the interpreter's exit. Raises
    PlayerSpecError for an empty or unbalanced command or a time outside
    (0, 3600] seconds.
    """

    def __init__(self, command: str, time: float = EXTERNAL_TIME) -> None:
        super().__init__()
        spec = PlayerSpec("engine", command=command, time=time)
        self.command, self.time, self.spec = spec.command, spec.seconds, str(spec)
        self.description = f"the program {self.command!r}, {self.time:g} s per move"
        self._process = None

    def choose(self, board: Board) -> int:
        if self._process is None or not self._process.alive:
            self._process = EngineProcess(self.command)
        start = time.perf_counter()
        pit = self._process.bestmove(board, self.time)
        score, depth, nodes, exact = self._process.said()
        self.last = MoveInfo(score, depth, time.perf_counter() - start, nodes, exact)
        return pit

    def close(self) -> None:
        """End the program (it is started again if asked for another move). Raises nothing."""
        if self._process is not None:
            self._process.close()
            self._process = None


class EloPlayer(Player):
    """``ai:elo=N``: each move played by one of the two table levels around N, the
    stronger with probability :func:`mancala.levels.mixture`'s share, drawn from a
    seeded generator.

    The two levels' players are made on first use (their seeds derived from
    ``seed``) and kept for the game. ``last`` is the move's player's, its note
    naming which level played. PlayerSpecError for an Elo outside the levels' range.
    """

    def __init__(self, elo: int, seed: Optional[int] = None) -> None:
        super().__init__()
        spec = PlayerSpec("ai", elo=elo)
        self.spec = str(spec)
        self.elo = spec.elo
        self.lower, self.upper, self.share = mixture(spec.elo)
        if self.share in (0.0, 1.0):
            self.description = f"plays as {(self.lower, self.upper)[int(self.share)].spec}"
        else:
            self.description = (f"plays {1 - self.share:.0%} of its moves as {self.lower.spec}, "
                                f"{self.share:.0%} as {self.upper.spec}")
        self._rng = random.Random(seed)
        self._seed = seed
        self._players: Dict[str, Player] = {}

    def _player(self, level: Level) -> Player:
        if level.spec not in self._players:
            index = 1 + (level is self.upper)
            seed = None if self._seed is None else self._seed * 3 + index
            self._players[level.spec] = make_player(PlayerSpec.parse(level.spec), seed)
        return self._players[level.spec]

    def choose(self, board: Board) -> int:
        level = self.upper if self._rng.random() < self.share else self.lower
        start = time.perf_counter()
        player = self._player(level)
        pit = player.choose(board)
        info = player.last or MoveInfo(0, 0, time.perf_counter() - start)
        self.last = info._replace(note=f"as {level.spec}" + (f"; {info.note}" if info.note else ""))
        return pit

    def close(self) -> None:
        for player in self._players.values():
            player.close()


def level_elo(spec: str) -> Optional[Level]:
    """A player's place on the levels' scale: the table's entry
    (:func:`mancala.levels.level_table`) for its canonical spelling, or None if it
    has none. ``ai:elo=N`` is at N by definition, its deviation interpolated between
    the two table levels it plays (:func:`mancala.levels.mixture`)."""
    table = levels_by_spec()
    if spec in table:
        return table[spec]
    try:
        parsed = PlayerSpec.parse(spec)
    except ValueError:
        return None
    if parsed.elo is None or str(parsed) != spec:
        return None
    lower, upper, share = mixture(parsed.elo)
    return Level(spec, float(parsed.elo), lower.rd + share * (upper.rd - lower.rd))


# -- making players -----------------------------------------------------------------

def make_player(spec: PlayerSpec, seed: Optional[int] = None, *,
                ask: Optional[Ask] = None, threads: int = 1) -> Player:
    """The player a spec names (see the module docstring).

    ``seed`` seeds the random choices of ``random``, ``ai:easy``/``ai:medium``,
    ``ai:depth=N,temp=T`` and ``ai:elo=N``;
    ``ask`` is given to a ``human``; ``threads`` to ``ai:depth=N`` and ``ai:time=S``
    (the levels play on one thread). PlayerSpecError for an ``ai:time`` still
    waiting for its seconds (:meth:`PlayerSpec.timed`).
    """
    if spec.kind == "human":
        return Human(ask)
    if spec.kind == "random":
        return RandomPlayer(seed)
    if spec.kind == "minimax":
        return MinimaxPlayer(spec.depth)
    if spec.kind == "alphabeta":
        return AlphaBetaPlayer(spec.depth)
    if spec.kind == "engine":
        return ExternalPlayer(spec.command, time=spec.seconds)
    if spec.needs_time:
        raise PlayerSpecError(f"{spec} needs its seconds: ai:time=S")
    if spec.elo is not None:
        return EloPlayer(spec.elo, seed)
    return EnginePlayer(spec.level, depth=spec.depth, time=spec.time,
                        temperature=spec.temperature, seed=seed, threads=threads)


def parse_player(spec: Union[str, PlayerSpec], seed: Optional[int] = None, *,
                 ask: Optional[Ask] = None) -> Player:
    """The player a spelling names: :func:`make_player` of :meth:`PlayerSpec.parse`.
    A bad spelling raises PlayerSpecError (a ValueError) listing the valid forms."""
    return make_player(PlayerSpec.parse(spec), seed, ask=ask)


__all__ = [
    "canonical_spec", "Player", "Human", "RandomPlayer", "MinimaxPlayer", "AlphaBetaPlayer", "EnginePlayer",
    "ExternalPlayer", "EloPlayer", "level_elo",
    "MoveInfo", "Ask", "PlayerSpecError", "make_player", "parse_player",
]
