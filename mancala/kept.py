"""A finished game as the history keeps it (:class:`GameRecord`), and a game checked before it
is kept or read back: its players' spellings, its replay (finished, or resigned while not
over), the seeds each side keeps, what it scores for the rating, and a row of the history's
table read back (:func:`from_row`: None for one that does not add up). The file is
:mod:`mancala.history`'s.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

from mancala.board import CAPTURE_RULES, Board
from mancala.errors import GameError, InputError, quote
from mancala.geometry import NORTH, SOUTH, store_slot
from mancala.limits import check_seeds
from mancala.rating import Rating

HUMAN = "human"                  #: the spelling of a person; every other player is a computer
MAX_SPEC_CHARS = 200             #: longer spellings are refused (an engine:"..." command fits)
MAX_MOVES = 10_000               #: no finished game comes near this


@dataclass(frozen=True)
class GameRecord:
    """One finished game as the history keeps it."""

    id: int                       #: its place in the history (1 first)
    finished: str                 #: when it ended, ISO 8601 in UTC
    south: str                    #: South's player spelling
    north: str                    #: North's player spelling
    seeds: int                    #: seeds per pit at the start
    capture: str                  #: capture rule
    pit_indices: Tuple[int, ...]  #: the moves, pits 0..5 from each mover's left
    south_store: int              #: South's final seeds
    north_store: int              #: North's final seeds
    human: Optional[int]          #: the side of the one person playing, if one did
    opponent_elo: Optional[float]  #: the computer's Elo, when the game is rated
    before: Optional[Rating]      #: the person's rating before the game (None: unrated)
    after: Optional[Rating]       #: ... and after it
    resigned: Optional[int] = None  #: the side that resigned (its stores then), None if played out
    opponent_rd: Optional[float] = None     #: the computer's deviation, when the game is rated

    @property
    def result(self) -> str:
        """'south', 'north' or 'draw' (a resigned game is the other side's)."""
        if self.resigned is not None:
            return "north" if self.resigned == 0 else "south"
        if self.south_store == self.north_store:
            return "draw"
        return "south" if self.south_store > self.north_store else "north"

    def result_for(self, side: int) -> str:
        """'won', 'lost' or 'drew': the result for ``side`` (0 South, 1 North)."""
        return "drew" if self.result == "draw" else \
            "won" if self.result == ("south", "north")[side] else "lost"

    @property
    def rated(self) -> bool:
        """The game counted for the person's rating (casual games and others did not)."""
        return self.after is not None

    @property
    def players(self) -> Tuple[str, str]:
        return self.south, self.north

    def to_json(self) -> Dict[str, Any]:
        """The game as ``history --json`` prints it."""
        def rating(r: Optional[Rating]) -> Optional[Dict[str, float]]:
            return None if r is None else {"rating": round(r.rating, 2), "rd": round(r.rd, 2),
                                           "volatility": round(r.volatility, 6)}
        return {
            "id": self.id,
            "finished": self.finished,
            "players": {"south": self.south, "north": self.north},
            "seeds": self.seeds,
            "capture": self.capture,
            "pit_indices": list(self.pit_indices),
            "result": self.result,
            "score": {"south": self.south_store, "north": self.north_store},
            "human": self.human,
            "rated": self.rated,
            "resigned": None if self.resigned is None else ("south", "north")[self.resigned],
            "opponent_elo": self.opponent_elo,
            "rating_before": rating(self.before),
            "rating_after": rating(self.after),
        }



def check_spec(spec: object, side: str) -> str:
    if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC_CHARS:
        raise InputError(f"the {side} player is a spelling of at most {MAX_SPEC_CHARS} "
                         f"characters, not {quote(spec)}")
    return spec


def replay(seeds: object, capture: object, moves: Sequence[int],
            resigned: Optional[int] = None) -> Board:
    """The finished (or resigned) game's board, or InputError saying why the game is not one."""
    check_seeds(seeds)
    if capture not in CAPTURE_RULES:
        raise InputError(f"unknown capture rule {quote(capture)}; choose one of "
                         f"{', '.join(CAPTURE_RULES)}")
    try:
        moves = list(moves)
    except TypeError:
        raise InputError(f"moves are a list of pit indices, not {quote(moves)}") from None
    if len(moves) > MAX_MOVES:
        raise InputError(f"{len(moves)} moves are more than a game has")
    board = Board(seeds=seeds, capture=capture)
    for number, pit in enumerate(moves, 1):
        if isinstance(pit, bool) or not isinstance(pit, int) or pit not in board.legal_moves:
            raise InputError(f"move {number} ({quote(pit)}) is not legal in that game")
        board.push(pit)
    if resigned is None and not board.is_game_over():
        raise GameError(f"the game is not over after its {len(moves)} moves; "
                        "only finished games are kept")
    if resigned is not None and board.is_game_over():
        raise GameError(f"the game is over after its {len(moves)} moves: nobody can resign it")
    return board


def stores_of(board: Board, resigned: Optional[int]) -> Tuple[int, int]:
    """The seeds kept for each side: the final count, or the stores when one side resigned."""
    if resigned is not None:
        return board.pits[store_slot(SOUTH)], board.pits[store_slot(NORTH)]
    outcome = board.outcome()
    return outcome.south, outcome.north


def points(stores: Tuple[int, int], resigned: Optional[int], side: int) -> float:
    """What the game scores for ``side`` in the rating: 1 a win, 0.5 a draw, 0 a loss."""
    if resigned is not None:
        return float(resigned != side)
    return 1.0 if stores[side] > stores[1 - side] else 0.5 if stores[side] == stores[1 - side] else 0.0


def rating_columns(before: Optional[Rating], after: Optional[Rating]) -> Dict[str, Optional[float]]:
    return {f"{name}{suffix}": None if r is None else getattr(r, name)
            for suffix, r in (("_before", before), ("", after)) for name in ("rating", "rd", "volatility")}


def from_row(values: Dict[str, Any]) -> Optional[GameRecord]:
    """A row of the history's games table (its columns by name) as a GameRecord, or None if it
    does not add up (types, a replay that fails, a rating out of bounds, the rated flag)."""
    try:
        moves = json.loads(values["moves"]) if isinstance(values["moves"], str) else None
        if not isinstance(moves, list) or not all(isinstance(v, str) for v in
                                                  (values["finished"], values["south"], values["north"])):
            return None
        resigned = values["resigned"]
        if resigned not in (None, 0, 1) or isinstance(resigned, bool):
            return None
        board = replay(values["seeds"], values["capture"], moves, resigned)
    except (InputError, ValueError, RecursionError):
        return None
    stores = stores_of(board, resigned)
    if (values["south_store"], values["north_store"]) != stores:
        return None
    if values["human"] not in (None, 0, 1):
        return None
    ratings = []
    for suffix in ("_before", ""):
        numbers = [values[f"{name}{suffix}"] for name in ("rating", "rd", "volatility")]
        if all(number is None for number in numbers):
            ratings.append(None)
        elif Rating(*numbers).is_valid():
            ratings.append(Rating(*numbers))
        else:
            return None
    if (ratings[0] is None) != (ratings[1] is None) or (ratings[1] is not None and values["human"] is None):
        return None
    elo = values["opponent_elo"]
    if elo is not None and not Rating(elo).is_valid():
        return None
    if values["rated"] != int(ratings[1] is not None):
        return None
    return GameRecord(values["id"], values["finished"], values["south"], values["north"],
                      values["seeds"], values["capture"], tuple(moves), stores[0],
                      stores[1], values["human"], elo, ratings[0], ratings[1], resigned,
                      values["opponent_rd"])


__all__ = ["GameRecord", "HUMAN", "MAX_SPEC_CHARS", "MAX_MOVES", "check_spec", "replay", "stores_of",
           "points", "rating_columns", "from_row"]
