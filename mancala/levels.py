"""The computer levels on one Elo scale: the table, its range, and how a weaker level picks.

**The scale.** ``mancala/data/levels.json`` gives each measured level its Elo
on one scale, ``random`` anchored at 0, fitted by ``bench/fit_levels.py`` from
matches of game pairs over the opening suite (docs/playing.md says how), with
the 95% interval of each (:func:`level_table`). ``ai:elo=N`` plays each move
as one of the two table levels whose Elo bracket N, the stronger one with
probability ``(N - lower) / (upper - lower)`` (:func:`mixture`); N is a whole
number from the weakest engine level's Elo to perfect play's
(:func:`elo_range`). A table whose ``provisional`` field is true was guessed,
and ``history`` says so.

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

This module is data and arithmetic: the players that play the levels
(``ai:depth=N,temp=T``, ``ai:elo=N``) and a spelling's place on the scale
(:func:`mancala.players.level_elo`) are :mod:`mancala.players`'.

**Threads.** Every level plays on :data:`LEVEL_THREADS` thread, as the table
measured it (``ai:perfect`` solves on two and searches on one); a level
played on more would be stronger than its Elo says. ``play --threads N``
gives N only to ``ai:time=S`` and ``ai:depth=N``, which the table leaves out.

    >>> weights = softmax_weights({0: 3, 1: 2, 2: -6}, temperature=1.0)
    >>> round(weights[0], 3), round(weights[1], 3), weights[2]
    (0.731, 0.269, 0.0)
"""
from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path
from typing import Dict, List, Mapping, NamedTuple, Optional, Tuple

#: the threads every level of the table plays on (mancala.players.EnginePlayer)
LEVEL_THREADS = 1

#: how the named levels play (mancala.players.EnginePlayer): easy and medium as (depth,
#: softmax temperature in seeds); where each sits on the Elo scale is measured
#: (mancala/data/levels.json, bench/fit_levels.py)
LEVEL_SKILLS = {"easy": (2, 1.0), "medium": (8, 0.0)}
HARD_TIME = 1.0                 #: ai:hard: seconds a move
PERFECT_SOLVE_TIME = 3.0        #: ai:perfect: seconds for the exact solve of a move,
PERFECT_FALLBACK_TIME = 1.0     #: then seconds of search when it did not finish
PERFECT_THREADS = min(2, os.cpu_count() or 1)   #: ai:perfect's solves share each search between cores

#: a move scored more than this many seeds below the best one (by the level's own
#: search) is absurd: no level above ``random`` ever plays it
ABSURD_LOSS = 4

LEVELS_PATH = Path(__file__).parent / "data" / "levels.json"
LEVEL_RD = 0.0                  #: a level's deviation when its table gives none: its Elo is taken as known


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


# -- the table ---------------------------------------------------------------------------

class Level(NamedTuple):
    """A computer player and its strength on the levels' Elo scale (``random`` is 0),
    with the 95% interval of the measurement (None where there is none)."""

    spec: str
    elo: float
    rd: float = LEVEL_RD
    low: Optional[float] = None
    high: Optional[float] = None


_table: Optional[Dict[str, Level]] = None


def _levels_data() -> dict:
    return json.loads(LEVELS_PATH.read_text(encoding="utf-8"))


def _number(value: object) -> Optional[float]:
    return None if value is None else float(value)


def levels_by_spec() -> Dict[str, Level]:
    """The table by each player's canonical spelling (read once; a copy)."""
    global _table
    if _table is None:
        _table = {entry["spec"]: Level(entry["spec"], float(entry["elo"]),
                                       float(entry.get("rd", LEVEL_RD)),
                                       _number(entry.get("low")), _number(entry.get("high")))
                  for entry in _levels_data()["levels"]}
    return dict(_table)


def level_table() -> List[Level]:
    """The levels' Elo table (``mancala/data/levels.json``), weakest first."""
    return sorted(levels_by_spec().values(), key=lambda level: level.elo)


def level_is_provisional() -> bool:
    """True while the shipped table is a guess rather than a measurement."""
    return bool(_levels_data().get("provisional", False))


def levels_measured() -> Dict[str, object]:
    """How the shipped table was measured (command, games, date, ...); empty if it was not."""
    return dict(_levels_data().get("measured") or {})


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


__all__ = ["LEVEL_THREADS", "LEVEL_SKILLS", "HARD_TIME", "PERFECT_SOLVE_TIME", "PERFECT_FALLBACK_TIME",
           "PERFECT_THREADS", "ABSURD_LOSS", "LEVELS_PATH", "LEVEL_RD", "Level", "softmax_weights", "pick",
           "levels_by_spec", "level_table", "level_is_provisional", "levels_measured",
           "ladder", "elo_range", "mixture"]
