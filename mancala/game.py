"""The game loop, independent of any terminal.

A :class:`Game` holds the rules, the two players, the :class:`mancala.Board`
and its history. It asks the player to move for a pit, plays it, and tells a
:class:`GameObserver` what happened; the terminal game in ``mancala.cli.play``
is one such observer, a test is another. Its operations (:meth:`Game.hint`,
:meth:`~Game.undo`, :meth:`~Game.save`, :meth:`~Game.load`, :meth:`~Game.quit`)
are what a user interface calls when a person asks for them; the game loop
knows nothing of how they were asked (the terminal's words are
:mod:`mancala.cli.entry`). A human player's ``choose`` returns None when the
person did something else instead of moving: the loop asks again.

A game is **rated** or casual, chosen before it starts (``rated=True``; a
face offers rated by default where :func:`can_be_rated`): a rated game is
played unaided, so :meth:`Game.hint`, :meth:`~Game.undo`, :meth:`~Game.load`
and :meth:`~Game.save` refuse, and a face shows no score while it lasts. A person
may :meth:`~Game.resign` any game: it ends, lost for the side that resigned; a rated
game left unfinished counts as lost too, once :data:`LEFT_HOURS` pass (:data:`LEFT_RULE`).

    >>> from mancala.game import Game
    >>> game = Game("random", "ai:depth=2", seed=1)
    >>> outcome = game.run()
    >>> outcome.south + outcome.north
    48
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import List, NamedTuple, Optional, Sequence, Union

from mancala import storage
from mancala.autosaves import cannot_write
from mancala.board import Board, MoveRecord, Outcome
from mancala.engine import Engine
from mancala.geometry import STORES
from mancala.kept import HUMAN
from mancala.errors import GameError, IllegalMoveError, MancalaError, one_line, quote
from mancala.limits import DEFAULT_CAPTURE, DEFAULT_SEEDS, SMALL_HASH_MB
from mancala.analysis import HINT_DEPTH, Hint
from mancala.analysis import hint as _hint
from mancala.players import Ask, MoveInfo, Player, canonical_spec, level_elo, make_player, program_in
from mancala.specs import PlayerSpec

PlayerLike = Union[str, PlayerSpec, Player]


#: the rules the levels' Elos were measured on (``mancala/data/levels.json``, its
#: ``measured`` openings): Kalah(6,4), standard capture. Under other rules a level's
#: Elo says nothing (at 1 seed South has a forced win: one game against ai:perfect took
#: a newcomer to 1750), so a game under them is casual.
RATED_RULES = ((DEFAULT_SEEDS, DEFAULT_CAPTURE),)


def unrated_because(south: str, north: str, seeds: int, capture: str) -> Optional[str]:
    """Why a game cannot count for a person's rating (one line, for the face to say
    where the game starts), or None when it can: one ``human`` against a computer
    level whose Elo the levels' table knows, under :data:`RATED_RULES`. Every face
    (the terminal, the web, the history) asks this, and only this."""
    specs = (south, north)
    if specs.count("human") != 1:
        return ("a rated game is a person (human) against a computer level with an Elo "
                "(python -m mancala levels)")
    level = specs[1 - specs.index("human")]
    if level_elo(level) is None:
        return f"{level} has no Elo in the levels' table (python -m mancala levels)"
    if (seeds, capture) not in RATED_RULES:
        measured = " or ".join(f"Kalah(6,{n}) with capture {rule}" for n, rule in RATED_RULES)
        return (f"the levels' Elos were measured on {measured}, "
                f"not Kalah(6,{seeds}) with capture {capture}")
    return None


def can_be_rated(south: str, north: str, seeds: int, capture: str) -> bool:
    """Whether a game between these spellings under these rules can count for a
    person's rating (:func:`unrated_because` says why not)."""
    return unrated_because(south, north, seeds, capture) is None


#: what every face says of a game between two computers when it ends (:func:`has_person`)
COMPUTERS_NOT_KEPT = "A game between computers: not kept in your history."


def has_person(south: str, north: str) -> bool:
    """Whether a person plays (a side is ``human``). A game between two computers (the
    terminal's demo, or two levels chosen in either face) is nobody's: no face keeps it in
    the history (its games, the rating, ``review --last``), and the terminal does not
    autosave it (:data:`COMPUTERS_NOT_KEPT`). A game between two people is kept, rating nobody."""
    return HUMAN in (south, north)


#: a rated game left unfinished this long after the person's first move counts as their loss
#: (their resignation), in both faces: the terminal's autosaved game (``quit``) and the web's
#: game left in its tab alike (:mod:`mancala.unfinished` keeps it so)
LEFT_HOURS = 6
LEFT_SECONDS = LEFT_HOURS * 3600.0
#: the rule in the words every face says where a rated game starts
LEFT_RULE = f"a rated game left unfinished {LEFT_HOURS} hours after your first move counts as your loss"


def left_for_good(person_moved: bool, over: bool, since: float, now: float) -> bool:
    """Whether a rated game counts as its person's loss under :data:`LEFT_RULE`: not over,
    the person has moved in it, and nothing was played or asked of it from ``since`` to
    ``now`` (seconds since the epoch) for more than :data:`LEFT_SECONDS`. A game left
    before the person's first move counts for nothing (and is forgotten)."""
    return person_moved and not over and now - since > LEFT_SECONDS


class Turn(NamedTuple):
    """One player's consecutive moves (more than one after extra turns)."""

    player: int
    moves: List[MoveRecord]


class GameObserver:
    """What a game reports; every method does nothing unless overridden."""

    def on_start(self, game: "Game") -> None:
        """A game starts or a loaded one resumes."""

    def on_move(self, game: "Game", record: MoveRecord, info: Optional[MoveInfo]) -> None:
        """A move was played (``info`` is the computer's search, None for a human)."""

    def on_undo(self, game: "Game", undone: List[MoveRecord]) -> None:
        """Moves were taken back, latest first."""

    def on_hint(self, game: "Game", hint: Hint) -> None:
        """The engine's suggestion was asked for (:meth:`Game.hint`)."""

    def on_saved(self, game: "Game", path: str) -> None:
        """The game was saved (:meth:`Game.save`; ``path`` is absolute)."""

    def on_loaded(self, game: "Game", path: str) -> None:
        """Another game was loaded in place of this one (:meth:`Game.load`)."""

    def on_error(self, game: "Game", message: str) -> None:
        """Something a person asked for failed, or autosaving did (one line); the game goes on."""

    def on_end(self, game: "Game", outcome: Outcome) -> None:
        """The game is over."""


class Game:
    """A game of Kalah between two players.

    ``south``/``north`` are players, their specs or their spellings (``"human"``,
    ``"ai:hard"``, ...; see :mod:`mancala.specs`). ``moves``
    replays a history first. With ``autosave`` (a path) the game is saved
    there after every move and undo. ``ask`` is handed to the human players
    made from spellings: ``ask(board)`` is the person's pit, or None when they
    did something else (see :class:`mancala.players.Human`). ``threads``: the
    threads of ``ai:depth=N`` and ``ai:time=S`` players made from spellings.

    Raises PlayerSpecError for an unknown spelling, InvalidRuleError for
    unknown rules or seeds per pit outside 1..12, IllegalMoveError if
    ``moves`` is not a legal history.
    """

    def __init__(self, south: PlayerLike = "human", north: PlayerLike = "ai:medium", *,
                 seeds: int = DEFAULT_SEEDS, capture: str = DEFAULT_CAPTURE, moves: Sequence[int] = (),
                 seed: Optional[int] = None, observer: Optional[GameObserver] = None,
                 autosave: Optional[Union[str, os.PathLike]] = None,
                 ask: Optional[Ask] = None, hint_depth: int = HINT_DEPTH,
                 rated: bool = False, threads: int = 1) -> None:
        self.observer = observer or GameObserver()
        self.threads = threads          # ai:depth=N and ai:time=S players' (make_player)
        self.autosave = autosave
        self.hint_depth = hint_depth
        self.rated = bool(rated)        #: played unaided: no hint, undo or load; kept rated
        self.resigned: Optional[int] = None     #: the side that resigned, once one has
        self._ask = ask
        self._hint_engine = None
        self.quit_requested = False
        board = Board(seeds=seeds, capture=capture)
        for pit in moves:
            board.push(pit)
        self._setup(seeds, capture, south, north, board, seed)

    @classmethod
    def from_saved(cls, saved: storage.SavedGame, **options) -> "Game":
        """A game continuing where a save file left it (its board was replayed
        when the file was read: nothing is replayed again). PlayerSpecError if
        ``saved`` names a player this version does not know."""
        options.setdefault("rated", saved.rated)
        game = cls(saved.south, saved.north, seeds=saved.seeds, capture=saved.capture,
                   seed=saved.seed, **options)
        game.board = saved.board()
        return game

    def _setup(self, seeds: int, capture: str, south: PlayerLike, north: PlayerLike,
               board: Board, seed: Optional[int]) -> None:
        self.seeds, self.capture, self.seed = seeds, capture, seed
        self.players = [self._player(south, 0), self._player(north, 1)]
        self.board = board

    def _player(self, who: PlayerLike, side: int) -> Player:
        if isinstance(who, Player):
            return who
        seed = None if self.seed is None else self.seed + side
        return make_player(PlayerSpec.parse(who), seed, ask=self._ask, threads=self.threads)

    # -- state

    @property
    def specs(self) -> tuple:
        """The players' spellings, South first."""
        return tuple(player.spec for player in self.players)

    @property
    def moves(self) -> List[int]:
        """Every pit played so far, in order (0..5 from each mover's left)."""
        return [record.pit for record in self.board.move_stack]

    @property
    def to_move(self) -> int:
        return self.board.to_move

    @property
    def current_player(self) -> Player:
        return self.players[self.board.to_move]

    def is_over(self) -> bool:
        """The game is over: played out, or resigned."""
        return self.resigned is not None or self.board.is_game_over()

    def outcome(self) -> Optional[Outcome]:
        """The result once over (None before): the final stores, or, when a side
        resigned, the other side as winner and the stores as they stood."""
        if self.resigned is not None:
            return Outcome(1 - self.resigned, self.board.pits[STORES[0]], self.board.pits[STORES[1]])
        return self.board.outcome()

    def turns(self) -> List[Turn]:
        """The game record: each player's consecutive moves grouped into a turn."""
        turns: List[Turn] = []
        for record in self.board.move_stack:
            if turns and turns[-1].player == record.player:
                turns[-1].moves.append(record)
            else:
                turns.append(Turn(record.player, [record]))
        return turns

    def to_saved(self) -> storage.SavedGame:
        """The game as a save file holds it (its board copied, not replayed). Raises nothing."""
        saved = storage.SavedGame.from_board(self.board, self.seeds, self.specs[0],
                                             self.specs[1], self.seed)
        saved.rated = self.rated
        return saved

    # -- playing

    def run(self) -> Optional[Outcome]:
        """Play to the end; the outcome, or None if a player quit.

        Raises what :meth:`step` raises.
        """
        self.quit_requested = False
        self.observer.on_start(self)
        self._autosave()
        while not self.is_over():
            self.step()
            if self.quit_requested:
                return None
        outcome = self.outcome()
        self.observer.on_end(self, outcome)
        return outcome

    def step(self) -> Optional[MoveRecord]:
        """Ask the side to move for a move and play it; None if the player (a person)
        did something else instead (took moves back, loaded a game, quit).

        Raises GameError if the game is over, IllegalMoveError if the player
        chose a pit that is not legal.
        """
        if self.is_over():
            raise GameError("the game is over")
        player = self.current_player
        pit = player.choose(self.board.copy(stack=False))
        if pit is None and player.is_human:
            return None
        if pit not in self.board.legal_moves:
            raise IllegalMoveError(f"{player.spec} chose pit {quote(pit)}, which is not legal here")
        info = None if player.is_human else player.last
        return self.play(pit, info)

    def play(self, pit: int, info: Optional[MoveInfo] = None) -> MoveRecord:
        """Play a pit for the side to move, autosave, tell the observer.

        Saved before it is shown: whatever a person saw is what resumes.
        Raises IllegalMoveError if the pit is not legal (an autosave that
        fails turns autosaving off and is reported to the observer).
        """
        record = self.board.push(pit)
        self._autosave()
        self.observer.on_move(self, record, info)
        return record

    def quit(self) -> None:
        """Stop :meth:`run` after the step under way (it returns None). Raises nothing."""
        self.quit_requested = True

    def hint(self) -> Hint:
        """The engine's best move for the side to move, with its score
        (:func:`mancala.analysis.hint`; told to the observer too); GameError if
        the game is over or rated."""
        if self.is_over():
            raise GameError("the game is over")
        if self.rated:
            raise GameError("no hints in a rated game: it is played unaided")
        if self._hint_engine is None:
            self._hint_engine = Engine(hash_mb=SMALL_HASH_MB)
        hint = _hint(self._hint_engine, self.board, self.hint_depth)
        self.observer.on_hint(self, hint)
        return hint

    def resign(self, side: Optional[int] = None) -> int:
        """``side`` gives up (default: the person to move, else the one person
        playing): the game is over, lost for that side, rated when the game is.
        Returns the side; GameError if the game is over or no person plays."""
        if self.is_over():
            raise GameError("the game is over")
        if side is None:
            humans = [s for s, player in enumerate(self.players) if player.is_human]
            if not humans:
                raise GameError("only a person can resign, and none plays this game")
            side = self.to_move if self.to_move in humans else humans[0]
        if side not in (0, 1) or isinstance(side, bool):
            raise GameError(f"a side is 0 (South) or 1 (North), not {quote(side)}")
        self.resigned = side
        return side

    def undo(self) -> List[MoveRecord]:
        """Take back the last move a human made and every computer move after it.

        Through extra turns: the computer's whole reply goes, then the human's
        last move, so the human is to move again. With two humans this takes
        back the last move. Returns the moves taken back, latest first (and
        tells the observer). GameError if no human has moved, or the game is rated.
        """
        if self.rated:
            raise GameError("no takebacks in a rated game: it is played unaided")
        humans = [player.is_human for player in self.players]
        stack = self.board.move_stack
        last_human = max((i for i, record in enumerate(stack) if humans[record.player]),
                         default=None)
        if last_human is None:
            raise GameError("there is no move of a human player to take back")
        undone = []
        while self.board.ply > last_human:
            undone.append(self.board.pop())
        self._autosave()
        self.observer.on_undo(self, undone)
        return undone

    def save(self, path: Union[str, os.PathLike]) -> os.PathLike:
        """Save to a file, and tell the observer (SaveFileError or OSError if it cannot);
        GameError in a rated game: a copy could be loaded and played on differently, so a
        rated game is only autosaved, to resume, as the web keeps it on its server."""
        if self.rated:
            raise GameError("no saving in a rated game: a copy could be played again "
                            "differently (it is autosaved as it goes, to resume)")
        saved = storage.save(self.to_saved(), path)
        self.observer.on_saved(self, os.path.abspath(saved))
        return saved

    def load(self, path: Union[str, os.PathLike]) -> None:
        """Replace this game with the one saved in a file (its rules, players and moves).

        The observer is told (``on_loaded``, then ``on_start``: the game starts
        again). Raises SaveFileError if the file does not fit, GameError in a
        rated game (it is finished or resigned, not swapped for another); the
        game is unchanged then.
        """
        if self.rated:
            raise GameError("a rated game is not swapped for another: resign it, or quit "
                            "(it is saved to resume)")
        saved = storage.load(path, players=canonical_spec)
        refused = program_in(saved)
        if refused:
            raise storage.SaveFileError(f"{os.fspath(path)!r}: {refused}")
        self.rated = saved.rated
        self._setup(saved.seeds, saved.capture, saved.south, saved.north, saved.board(), saved.seed)
        self._autosave()
        self.observer.on_loaded(self, os.fspath(path))
        self.observer.on_start(self)

    def _autosave(self) -> None:
        if self.autosave is None:
            return
        try:
            storage.save(self.to_saved(), self.autosave, replace_any=True)
        except OSError as exc:
            where = os.path.dirname(os.path.abspath(self.autosave))
            self.observer.on_error(self, f"autosave is off: {cannot_write(exc, Path(where))}")
            self.autosave = None
        except MancalaError as exc:
            self.observer.on_error(self, f"autosave is off: {one_line(exc)}")
            self.autosave = None


__all__ = ["Game", "GameObserver", "GameError", "Hint", "Turn", "can_be_rated", "unrated_because",
           "RATED_RULES", "HINT_DEPTH", "LEFT_HOURS", "LEFT_SECONDS", "LEFT_RULE", "left_for_good",
           "has_person", "COMPUTERS_NOT_KEPT"]
