"""Ratings: Glicko-2, and the computer levels' Elo it rates people against.

Glicko-2 is Mark Glickman's rating system ("Example of the Glicko-2 system",
Boston University, 2013 revision), implemented here from the steps of that
paper. A rating is three numbers: the rating ``r`` (on the Elo scale), its
deviation ``RD`` (how uncertain it is: about 95% of the time the true
strength is within ``r +- 2 RD``) and the volatility ``sigma`` (how much the
strength itself moves). :func:`update` is one rating period. A player's
history (:mod:`mancala.history`) makes every game its own period, as
online game servers do.

    >>> me = Rating(1500, 200, 0.06)                    # the paper's worked example
    >>> after = update(me, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    >>> round(after.rating, 1), round(after.rd, 1), round(after.volatility, 4)
    (1464.1, 151.5, 0.06)

(The paper rounds as it goes and prints 1464.06, 151.52 and 0.05999; unrounded
the steps give 1464.0507, 151.5165 and 0.059996.)

The computer levels' strengths on one Elo scale (``random`` anchored at 0)
live in one place, ``mancala/data/levels.json``; :func:`level_table` reads it
and :func:`level_elo` looks one player up. The table is measured (fitted by
``bench/fit_levels.py`` from matches between the levels); a table whose
``provisional`` field is true was guessed, and ``history`` says so.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple

SCALE = 173.7178            #: Glicko-2's ratio between the Elo scale and its own (400 / ln 10)
BASE = 1500.0               #: the Elo-scale rating that is 0 on Glicko-2's scale
INITIAL_RATING = 1500.0     #: a new player's rating: the middle of the scale, as Glickman advises
INITIAL_RD = 350.0          #: a new player's deviation: nothing is known yet
INITIAL_VOLATILITY = 0.06   #: the paper's suggested starting volatility
TAU = 0.5                   #: how fast the volatility may change (Glickman: 0.3..1.2); the paper's example uses 0.5
EPSILON = 1e-6              #: the volatility iteration's tolerance (the paper's)
MAX_RD = INITIAL_RD         #: a deviation never grows past a newcomer's
MIN_RATING, MAX_RATING = -10_000.0, 10_000.0    #: a rating is kept in here (100,000 straight wins over
                                                #: ai:perfect reach 3,868; the maths is exact to here)
MIN_VOLATILITY, MAX_VOLATILITY = 0.001, 0.1     #: ... and a volatility in here (lichess caps it at 0.1 too)
LEVEL_RD = 0.0              #: a level's deviation when its table gives none: its Elo is taken as known

Result = Tuple[float, float, float]     # (opponent's rating, opponent's RD, score: 1 win, 0.5 draw, 0 loss)


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Elo scale: rating, deviation (RD), volatility."""

    rating: float = INITIAL_RATING
    rd: float = INITIAL_RD
    volatility: float = INITIAL_VOLATILITY

    def interval(self) -> Tuple[float, float]:
        """About 95% sure the strength is in here: ``rating -+ 2 RD``."""
        return self.rating - 2 * self.rd, self.rating + 2 * self.rd

    def is_valid(self) -> bool:
        """Whether each number is a real number (not a bool, NaN or infinity) within its
        range: the rating within :data:`MIN_RATING`..:data:`MAX_RATING`, the deviation
        within 0..:data:`MAX_RD`, the volatility within
        :data:`MIN_VOLATILITY`..:data:`MAX_VOLATILITY`. :func:`update` takes only
        these and gives only these; a rating read back from a file is checked here."""
        return (_within(self.rating, MIN_RATING, MAX_RATING) and _within(self.rd, 0.0, MAX_RD)
                and _within(self.volatility, MIN_VOLATILITY, MAX_VOLATILITY))


def _within(value: object, low: float, high: float) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and low <= value <= high)          # False for NaN; infinities are out of range


def _g(phi: float) -> float:
    """How much a result counts, given the opponent's deviation (Glicko-2's g)."""
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> Tuple[float, float]:
    """The expected score against an opponent (Glicko-2's E) and 1 - E, on the
    Glicko-2 scale; each from the smaller exponential, so that E(1 - E) is never
    rounded to 0 (a rating 6,400 above another would make 1 - E exactly 0)."""
    z = _g(phi_j) * (mu - mu_j)
    t = math.exp(-abs(z))
    high, low = 1 / (1 + t), t / (1 + t)
    return (high, low) if z >= 0 else (low, high)


def expected_score(player: Rating, opponent_rating: float, opponent_rd: float = 0.0) -> float:
    """The score ``player`` is expected to make against an opponent (0..1)."""
    return _expected((player.rating - BASE) / SCALE, (opponent_rating - BASE) / SCALE,
                     opponent_rd / SCALE)[0]


def update(player: Rating, results: Iterable[Result], tau: float = TAU) -> Rating:
    """The player's rating after one rating period of ``results``.

    Each result is (opponent's rating, opponent's RD, score). With no results the
    deviation grows as the paper says for a period without games. Raises
    ValueError for a player's rating that is not valid (:meth:`Rating.is_valid`),
    an opponent's rating or RD outside the same ranges, or a score outside 0..1.
    The new volatility is kept within :data:`MIN_VOLATILITY`..:data:`MAX_VOLATILITY`
    and the rating within :data:`MIN_RATING`..:data:`MAX_RATING` (the paper has no
    bounds: with a game a period, results that surprise again and again grow the
    volatility without end, and after some thousand games the rating overflows).
    """
    if not isinstance(player, Rating) or not player.is_valid():
        raise ValueError(f"not a rating update can start from: {player!r}")
    results = list(results)
    for result in results:
        rating_j, rd_j, score = result
        if not (_within(rating_j, MIN_RATING, MAX_RATING) and _within(rd_j, 0.0, MAX_RD)
                and _within(score, 0.0, 1.0)):
            raise ValueError(f"a result is (rating, RD 0..{MAX_RD:g}, score 0..1), not {result!r}")
    # step 2: to the Glicko-2 scale
    mu = (player.rating - BASE) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        # a period without games: only the deviation changes
        return Rating(player.rating, min(math.sqrt(phi * phi + sigma * sigma) * SCALE, MAX_RD), sigma)
    # step 3: the estimated variance v of the rating from the games alone
    # step 4: the estimated improvement delta
    inverse_v = 0.0
    gained = 0.0
    for rating_j, rd_j, score in results:
        mu_j, phi_j = (rating_j - BASE) / SCALE, rd_j / SCALE
        g, (e, not_e) = _g(phi_j), _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * not_e
        gained += g * (score * not_e - (1 - score) * e)     # score - E, without cancelling
    v = 1 / inverse_v
    delta = v * gained
    # step 5: the new volatility (kept within its bounds)
    sigma = min(max(_new_volatility(delta, phi, v, sigma, tau), MIN_VOLATILITY), MAX_VOLATILITY)
    # step 6: the deviation grows by the volatility before the games count
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    # step 7: new deviation and rating
    phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu = mu + phi * phi * gained
    # step 8: back to the Elo scale
    return Rating(min(max(mu * SCALE + BASE, MIN_RATING), MAX_RATING), min(phi * SCALE, MAX_RD), sigma)


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: the root of f by the Illinois variant of regula falsi."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


# -- the computer levels' Elo -------------------------------------------------------------

LEVELS_FILE = "levels.json"


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
    text = resources.files("mancala.data").joinpath(LEVELS_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def level_table() -> List[Level]:
    """The levels' Elo table (``mancala/data/levels.json``), weakest first."""
    global _table
    if _table is None:
        data = _levels_data()
        _table = {entry["spec"]: Level(entry["spec"], float(entry["elo"]),
                                       float(entry.get("rd", LEVEL_RD)),
                                       _number(entry.get("low")), _number(entry.get("high")))
                  for entry in data["levels"]}
    return sorted(_table.values(), key=lambda level: level.elo)


def level_is_provisional() -> bool:
    """True while the shipped table is a guess rather than a measurement."""
    return bool(_levels_data().get("provisional", False))


def levels_measured() -> Dict[str, object]:
    """How the shipped table was measured (command, games, date, ...); empty if it was not."""
    return dict(_levels_data().get("measured") or {})


def _number(value: object) -> Optional[float]:
    return None if value is None else float(value)


def level_elo(spec: str) -> Optional[Level]:
    """The table's entry for a computer player's canonical spelling, or None if it has none.

    ``ai:elo=N`` is at N by definition (its deviation the one of the two
    table levels it plays between, interpolated: :func:`mancala.levels.mixture`).
    """
    level_table()
    assert _table is not None
    if spec in _table:
        return _table[spec]
    from mancala.levels import mixture
    from mancala.specs import PlayerSpec
    try:
        parsed = PlayerSpec.parse(spec)
    except ValueError:
        return None
    if parsed.elo is None or str(parsed) != spec:
        return None
    lower, upper, share = mixture(parsed.elo)
    return Level(spec, float(parsed.elo), lower.rd + share * (upper.rd - lower.rd))


__all__ = ["Rating", "Level", "update", "expected_score", "level_table", "level_elo",
           "level_is_provisional", "levels_measured", "INITIAL_RATING", "INITIAL_RD",
           "INITIAL_VOLATILITY", "TAU", "MIN_RATING", "MAX_RATING", "MAX_RD",
           "MIN_VOLATILITY", "MAX_VOLATILITY"]
