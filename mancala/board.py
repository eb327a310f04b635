"""Board: the Python face of a Kalah position, in the style of python-chess."""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from mancala._core import CAPTURE_RULES, MAX_SEEDS, BoardBase
from mancala.errors import InvalidBoardError, InvalidRuleError, quote
from mancala.geometry import (NORTH, PITS, SIDE_NAMES, SLOTS, SOUTH, PovScore, pit_letter, pit_slot,
                              pit_slots, row, side_seeds, store_slot)
from mancala.limits import DEFAULT_SEEDS, check_seeds
from mancala.svg import board as svg_board

#: each capture rule in a few words, by name, in the order of :data:`CAPTURE_RULES`
#: (the rules are csrc/kalah.h's; docs/rules.md says each in full): the terminal's
#: menu and ``--capture`` help, the web app's ``/api/info`` and the bench scripts say them from here
CAPTURE_WORDS: Dict[str, str] = {
    "standard": "captures the pit facing",
    "empty": "captures, even facing an empty pit",
    "none": "no captures",
}
#: each capture rule as a game's rules name it (:func:`rules_words`): never "none capture"
CAPTURE_NAMES: Dict[str, str] = {"standard": "standard capture", "empty": "empty-pit capture",
                                 "none": "no captures"}


def rules_words(seeds: Optional[int], capture: str) -> str:
    """A game's rules as every face names them: '4 seeds per pit, standard capture',
    '1 seed per pit, no captures'; the capture rule alone when ``seeds`` is None."""
    if seeds is None:
        return CAPTURE_NAMES[capture]
    return f"{seeds} seed{'' if seeds == 1 else 's'} per pit, {CAPTURE_NAMES[capture]}"


class MoveRecord(NamedTuple):
    """What one pushed move did."""

    player: int         #: 0 (South) or 1 (North)
    pit: int            #: 0..5 from the mover's left
    extra_turn: bool    #: the last seed landed in the mover's store and the game goes on
    captured: int       #: seeds a capture put in the store (0 if none)
    game_over: bool     #: the move ended the game
    swept: Tuple[int, int] = (0, 0)     #: seeds the end's sweep put in South's and North's store

    def effects(self) -> List[str]:
        """What the move did, in words, the one home of them for every face: ['captures 4
        seeds', 'extra turn'], ['the game is over', 'South keeps the 11 seeds left in its row']."""
        effects = []
        if self.captured:
            effects.append(f"captures {self.captured} seed{'' if self.captured == 1 else 's'}")
        if self.extra_turn:
            effects.append("extra turn")
        if self.game_over:
            effects.append("the game is over")
        for side, seeds in enumerate(self.swept):
            if seeds:
                effects.append(f"{SIDE_NAMES[side]} keeps the {seeds} seed{'' if seeds == 1 else 's'} "
                               "left in its row")
        return effects

    def words(self, who: Optional[str] = None) -> str:
        """The move as every face says it, the one home of a move's words: the pit (1..6
        from the mover's left, and its letter) and :meth:`effects`: '3 (C), extra turn',
        '5 (K), captures 4 seeds'; with ``who`` (a side's name, or one with its player),
        a sentence: 'South (you) plays 3 (C), extra turn.'."""
        text = ", ".join([f"{self.pit + 1} ({pit_letter(self.player, self.pit)})"] + self.effects())
        return text if who is None else f"{who} plays {text}."


class Outcome(NamedTuple):
    """The result of a finished game: final stores after the sweep."""

    winner: Optional[int]   #: 0, 1, or None for a draw
    south: int              #: South's final seeds
    north: int              #: North's final seeds

    @property
    def margin(self) -> int:
        """South's final seeds minus North's."""
        return self.south - self.north

    @property
    def score(self) -> PovScore:
        """The final margin as a score from South's view: ``outcome.score.pov(side)``
        is ``side``'s final seeds minus the other's."""
        return PovScore(self.margin, SOUTH)


def capture_code(capture: str) -> int:
    """The index of a capture rule name, or InvalidRuleError quoting it."""
    try:
        return CAPTURE_RULES.index(capture)
    except ValueError:
        raise InvalidRuleError(
            f"unknown capture rule {quote(capture)}; choose one of {', '.join(CAPTURE_RULES)}"
        ) from None


def start_slots(seeds: int) -> List[int]:
    """The 14 slots of a new game with `seeds` per pit (1..12; else InvalidRuleError)."""
    check_seeds(seeds)
    return ([seeds] * PITS + [0]) * 2


class Board(BoardBase):
    """A Kalah position with its move history.

    ``Board()`` is Kalah(6,4) with standard capture; ``Board(seeds=5,
    capture="empty")`` another start; ``Board([...14 ints...], to_move=1)`` any
    position (slots in the index order of the rules: South pits 0..5, South
    store 6, North pits 7..12, North store 13).

    Moves are pits 0..5 counted from the mover's left.

    Raises InvalidBoardError for slots that are not a Kalah position (14
    counts of seeds, at most 144 in all) or a side to move other than 0 or
    1, InvalidRuleError for an unknown capture rule or seeds per pit outside
    1..12 (:func:`mancala.limits.check_seeds`).
    """

    def __init__(self, pits: Optional[Sequence[int]] = None, to_move: int = 0, *,
                 seeds: Optional[int] = None, capture: str = "standard") -> None:
        if pits is not None and seeds is not None:
            raise InvalidBoardError(f"give pits or seeds, not both (seeds={quote(seeds)})")
        if pits is None:
            pits = start_slots(DEFAULT_SEEDS if seeds is None else seeds)
        self._load(pits, to_move, capture_code(capture))

    # -- moves

    def push(self, pit: int) -> MoveRecord:
        """Play pit (0..5 from the mover's left); IllegalMoveError if it is not legal."""
        return self._swept(MoveRecord(*self._push(pit)))

    def pop(self) -> MoveRecord:
        """Take back the last move (extra-turn chains come back one move at a time);
        IndexError if no move was pushed."""
        record = MoveRecord(*self._pop())
        return self.copy(stack=False).push(record.pit) if record.game_over else record

    def peek(self) -> MoveRecord:
        """The last move pushed; IndexError if none was."""
        if self.ply == 0:
            raise IndexError("peek at a board with no moves")
        return self._swept(MoveRecord(*self._record(self.ply - 1)))

    @property
    def move_stack(self) -> List[MoveRecord]:
        """Every move pushed since the position was set, oldest first."""
        return [self._swept(MoveRecord(*self._record(i))) for i in range(self.ply)]

    def _swept(self, record: MoveRecord) -> MoveRecord:
        """``record``, when it is the last move and ended the game, with what the sweep
        put in each store: a store's gain, less, for the mover's, what its sowing
        dropped there (once, then once a lap of 13 slots) and what it captured."""
        if not record.game_over:
            return record
        before = self.copy()
        before._pop()
        gained = [self.pits[store_slot(side)] - before.pits[store_slot(side)] for side in (SOUTH, NORTH)]
        sown, to_store = before.pits[pit_slot(record.player, record.pit)], PITS - record.pit
        laps = 0 if sown < to_store else (sown - to_store) // (SLOTS - 1) + 1     # seeds it dropped there
        gained[record.player] -= record.captured + laps
        return record._replace(swept=(gained[SOUTH], gained[NORTH]))

    # -- the result

    def outcome(self) -> Optional[Outcome]:
        """The final result if the game is over, else None."""
        if not self.is_game_over():
            return None
        slots = self.pits
        south, north = side_seeds(slots, SOUTH), side_seeds(slots, NORTH)
        winner = None if south == north else (0 if south > north else 1)
        return Outcome(winner, south, north)

    def score(self) -> int:
        """Store difference from the side to move's view."""
        slots = self.pits
        return slots[store_slot(self.to_move)] - slots[store_slot(1 - self.to_move)]

    @property
    def seeds(self) -> int:
        """All seeds on the board, stores included."""
        return sum(self.pits)

    def search_key(self) -> Tuple[int, ...]:
        """The position as a search sees it: the mover's six pits, then the other
        side's, each from its owner's left; stores left out. Boards with the same key
        and capture rule have the same moves and the same value relative to their
        stores, however the stores hold or whichever side is to move (a rated game's
        position is recognised by it: :meth:`mancala.web.server.Server.unaided`)."""
        slots = self.pits
        return tuple(row(slots, self.to_move) + row(slots, 1 - self.to_move))

    # -- copies and comparisons

    def copy(self, *, stack: bool = True) -> "Board":
        """An independent copy (with the move history unless stack=False)."""
        other = type(self).__new__(type(self))
        self._copy_into(other, stack)
        return other

    def __copy__(self) -> "Board":
        return self.copy()

    def __deepcopy__(self, memo: dict) -> "Board":
        return self.copy()

    def __reduce__(self):
        """Pickle the position (not the history): boards travel to worker processes."""
        return (_rebuild, (type(self), self.pits, self.to_move, self.capture))

    def __eq__(self, other: object) -> bool:
        """Same slots, side to move and capture rule (the history does not count)."""
        if not isinstance(other, BoardBase):
            return NotImplemented
        return self._same_position(other)

    __hash__ = None  # mutable, like python-chess boards

    def __repr__(self) -> str:
        args = f"{self.pits!r}, to_move={self.to_move}"
        if self.capture != "standard":
            args += f", capture={self.capture!r}"
        return f"{type(self).__name__}({args})"

    def _repr_svg_(self) -> str:
        """The board as a picture (:func:`mancala.svg.board`): Jupyter shows a board so."""
        return svg_board(self, size=480)

    def __str__(self) -> str:
        """The board as a player sees it, North on top, with slot numbers."""
        s = self.pits
        top = " ".join(f"{s[i]:3d}" for i in reversed(pit_slots(NORTH)))
        bottom = " ".join(f"{s[i]:3d}" for i in pit_slots(SOUTH))
        if self.is_game_over():
            status = "game over"
        else:
            status = f"{SIDE_NAMES[self.to_move]} to move"
        return "\n".join([
            f"       {top}        North",
            f"  [{s[store_slot(NORTH)]:3d}]{' ' * 24}[{s[store_slot(SOUTH)]:3d}]",
            f"       {bottom}        South",
            f"  {status}, capture {self.capture}",
        ])


def _rebuild(cls: type, pits: List[int], to_move: int, capture: str) -> Board:
    return cls(pits, to_move, capture=capture)


__all__ = ["Board", "MoveRecord", "Outcome", "capture_code", "start_slots", "rules_words", "MAX_SEEDS",
           "CAPTURE_RULES", "CAPTURE_WORDS", "CAPTURE_NAMES"]
