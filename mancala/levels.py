"""Computer levels on one Elo scale: how a weaker level plays, and ``ai:elo=N``.

**How a weaker level plays.** A level ``ai:depth=N,temp=T`` scores every legal
move with the engine N moves deep (:meth:`mancala.Engine.analyse`, MultiPV)
and picks one by a softmax over the scores, as chess engines' skill levels
do: a move scored ``s`` seeds, when the best is scored ``best``, has weight
``exp((s - best) / T)``. A small T nearly always plays the best move; a large
one plays the plausible moves about equally often. So a weak level misses a
small capture or an extra turn now and then, and a close call more often
than a clear one, but it never plays an absurd move: a move scored more than
:data:`ABSURD_LOSS` seeds below the best (by the level's own search) has
weight 0. T = 0 plays the best move, ties broken at random. Every choice
comes from the player's seeded random generator, so a seed repeats a game.

**The scale.** ``mancala/data/levels.json`` (read by
:func:`mancala.rating.level_table`) gives each measured level its Elo on one
scale, ``random`` anchored at 0, fitted by ``bench/fit_levels.py`` from
matches of game pairs over the opening suite (docs/playing.md says how).
``ai:elo=N`` plays each move as one of the two table levels whose Elo
bracket N, the stronger one with probability ``(N - lower) / (upper - lower)``
(:func:`mixture`); N is a whole number from the weakest engine level's Elo
to perfect play's (:func:`elo_range`).

**Threads.** Every level plays on :data:`LEVEL_THREADS` thread, as the table
measured it (``ai:perfect`` solves on two and searches on one); a level
played on more would be stronger than its Elo says. ``play --threads N``
gives N only to ``ai:time=S`` and ``ai:depth=N``, which the table leaves out.

    >>> weights = softmax_weights({0: 3, 1: 2, 2: -6}, temperature=1.0)
    >>> round(weights[0], 3), round(weights[1], 3), weights[2]
    (0.731, 0.269, 0.0)
"""
from __future__ import annotations

import math
import random
import time
from typing import Dict, List, Mapping, Optional, Tuple

from mancala.board import Board
from mancala.players import MoveInfo, Player, make_player
from mancala.rating import Level, level_table
from mancala.specs import PlayerSpec

#: the threads every level of the table plays on (mancala.players.EnginePlayer)
LEVEL_THREADS = 1

#: a move scored more than this many seeds below the best one (by the level's own
#: search) is absurd: no level above ``random`` ever plays it
ABSURD_LOSS = 4


def softmax_weights(scores: Mapping[int, int], temperature: float) -> Dict[int, float]:
    """Each move's probability under the softmax at ``temperature`` (seeds).

    ``scores`` maps pits to their scores (seeds, the mover's view).
    Temperature 0: the best moves share it equally. A move more than
    :data:`ABSURD_LOSS` below the best gets 0. ValueError without moves.
    """
    if not scores:
        raise ValueError("no moves to choose from")
    best = max(scores.values())
    if temperature <= 0:
        weights = {pit: float(score == best) for pit, score in scores.items()}
    else:
        weights = {pit: math.exp((score - best) / temperature) if best - score <= ABSURD_LOSS else 0.0
                   for pit, score in scores.items()}
    total = sum(weights.values())
    return {pit: weight / total for pit, weight in sorted(weights.items())}


def pick(scores: Mapping[int, int], temperature: float, rng: random.Random) -> int:
    """A move drawn from :func:`softmax_weights` with ``rng`` (one draw, pits in order)."""
    weights = softmax_weights(scores, temperature)
    draw = rng.random()
    for pit, weight in weights.items():
        if weight > 0:
            last = pit
            draw -= weight
            if draw < 0:
                return pit
    return last             # rounding left a sliver: the last move with any weight


# -- the scale -------------------------------------------------------------------------

def ladder() -> List[Level]:
    """The table's engine levels (everything but ``random``), weakest first."""
    return [level for level in level_table() if level.spec != "random"]


def elo_range() -> Tuple[int, int]:
    """The Elo ``ai:elo=N`` takes: from the weakest engine level's to perfect play's,
    rounded inwards to whole numbers."""
    levels = ladder()
    return math.ceil(levels[0].elo), math.floor(levels[-1].elo)


def mixture(elo: float) -> Tuple[Level, Level, float]:
    """The two table levels around ``elo`` and the share of moves the stronger plays.

    At a table level's own Elo that level plays every move (share 0 of the
    one above, or 1 of the top level). ValueError outside :func:`elo_range`'s span.
    """
    levels = ladder()
    if not levels[0].elo - 0.5 <= elo <= levels[-1].elo + 0.5:
        raise ValueError(f"elo {elo!r} is outside the levels' {levels[0].elo:.0f}..{levels[-1].elo:.0f}")
    for lower, upper in zip(levels, levels[1:]):
        if elo < upper.elo:
            share = (elo - lower.elo) / (upper.elo - lower.elo)
            return lower, upper, min(max(share, 0.0), 1.0)
    top = levels[-1]
    return (levels[-2] if len(levels) > 1 else top), top, 1.0


class EloPlayer(Player):
    """``ai:elo=N``: each move played by one of the two table levels around N, the
    stronger with probability :func:`mixture`'s share, drawn from a seeded generator.

    The two levels' players are made on first use (their seeds derived from
    ``seed``) and kept for the game. ``last`` is the move's player's, its note
    naming which level played. PlayerSpecError for an Elo outside :func:`elo_range`.
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
        note = f"as {level.spec}" + (f"; {info.note}" if info.note else "")
        self.last = info._replace(note=note)
        return pit

    def close(self) -> None:
        for player in self._players.values():
            player.close()


__all__ = ["LEVEL_THREADS", "ABSURD_LOSS", "softmax_weights", "pick", "ladder", "elo_range", "mixture", "EloPlayer"]
