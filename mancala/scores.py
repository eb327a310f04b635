"""Scores as people read them: how many seeds, for whom, and how they were found.

Every face (the terminal game's hint and the computer's moves, ``analyze``,
``review``, the puzzles, the web page) words a score through :class:`Score`,
so a number always names its side and its kind, and the same word,
**score**, is used everywhere:

- its **side**: ``"South +8"`` (the side ahead, the way a board is read),
  or ``"+8 for you"`` / ``"-3 for you"`` once the reader's side is known;
- its **kind**: ``exact`` (perfect play: the final margin, proven), or
  ``depth d`` (a search ``d`` moves deep: the store difference it
  foresees, which a deeper search may change).

A score is the final margin (or a search's store difference) in seeds, the
side's seeds minus the other's, as :class:`mancala.geometry.PovScore` keeps it.

    >>> score = Score(8, SOUTH, depth=14)
    >>> score.words(), score.words(you=SOUTH), score.words(you=NORTH), score.kind
    ('South +8', '+8 for you', '-8 for you', 'depth 14')
    >>> score.text(), Score(-3, SOUTH, exact=True).text()
    ('South +8 (depth 14)', 'North +3 (exact)')
    >>> Score(-3, SOUTH).pov(NORTH), Score(0, NORTH, exact=True).text(you=SOUTH)
    (3, 'even (exact)')

Searches agree where they search the same thing: ``Engine.search(board,
depth=d)`` scores the position as the best of ``Engine.analyse(board,
depth=d)``'s moves (each searched ``d - 1`` deep after it), which is what the
hint, the analysis and a review's searched moves show at the same depth; an
exact score is what a solve proves, and a search to a depth may differ from it
(the kind says which a number is).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

from mancala.errors import InputError, quote
from mancala.geometry import NORTH, SIDE_KEYS, SIDE_NAMES, SOUTH, PovScore

WORD = "score"          #: the one word for these numbers, in every face


@dataclass(frozen=True)
class Score:
    """A score in seeds from ``side``'s view, with how it was found.

    ``exact``: the perfect-play value (the final margin with best play);
    else ``depth`` is how many moves deep the search looked (None: unknown,
    e.g. a program's own score). Raises InputError for a side other than 0
    or 1, seeds that are not a whole number, or a depth below 0.
    """

    seeds: int                      #: from ``side``'s view: more is better for it
    side: int                       #: 0 South, 1 North
    exact: bool = False             #: proven by a solve (or the game's end)
    depth: Optional[int] = None     #: moves searched ahead, when not exact

    def __post_init__(self) -> None:
        if isinstance(self.side, bool) or self.side not in (SOUTH, NORTH):
            raise InputError(f"a score's side is 0 (South) or 1 (North), not {quote(self.side)}")
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, int):
            raise InputError(f"a score is a whole number of seeds, not {quote(self.seeds)}")
        if self.depth is not None and (isinstance(self.depth, bool)
                                       or not isinstance(self.depth, int) or self.depth < 0):
            raise InputError(f"a score's depth is a whole number from 0, not {quote(self.depth)}")

    @classmethod
    def of(cls, result: Any, side: int) -> "Score":
        """The score of a search's answer (a :class:`mancala.search.SearchResult`,
        a :class:`mancala.players.MoveInfo`: anything with ``score``, ``exact``
        and ``depth``) whose mover is ``side``."""
        exact = bool(result.exact)
        return cls(int(result.score), side, exact, None if exact else (result.depth or None))

    def pov(self, side: int) -> int:
        """The seeds from ``side``'s view."""
        return PovScore(self.seeds, self.side).pov(side)

    @property
    def south(self) -> int:
        """The seeds from South's view (what a board read from South shows)."""
        return self.pov(SOUTH)

    def seen_by(self, side: int) -> "Score":
        """The same score from ``side``'s view."""
        return Score(self.pov(side), side, self.exact, self.depth)

    @property
    def kind(self) -> str:
        """'exact', 'depth 14', or 'searched' when the depth is unknown."""
        if self.exact:
            return "exact"
        return f"depth {self.depth}" if self.depth else "searched"

    def words(self, you: Optional[int] = None) -> str:
        """The number and its side: 'South +8' (the side ahead), '+8 for you' when
        ``you`` is the reader's side, 'even' for 0."""
        if self.seeds == 0:
            return "even"
        if you is not None:
            return f"{self.pov(you):+d} for you"
        ahead = SOUTH if self.south > 0 else NORTH
        return f"{SIDE_NAMES[ahead]} +{abs(self.seeds)}"

    def text(self, you: Optional[int] = None) -> str:
        """:meth:`words` and :attr:`kind`: 'South +8 (depth 14)', '+2 for you (exact)'."""
        return f"{self.words(you)} ({self.kind})"

    def to_json(self) -> Dict[str, Any]:
        """For JSON answers: ``south`` (seeds from South's view), ``exact``, ``depth``,
        ``kind`` and ``text`` ('South +8 (depth 14)')."""
        return {"south": self.south, "exact": self.exact, "depth": self.depth,
                "kind": self.kind, "text": self.text()}


def side_key(side: int) -> str:
    """'south' or 'north': a side as JSON writes it."""
    return SIDE_KEYS[side]


__all__ = ["Score", "WORD", "side_key"]
