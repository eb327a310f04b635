"""Ratings: Glicko-2.

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

The computer levels a person is rated against have their Elo on the same
scale: :mod:`mancala.levels` reads their table, :func:`mancala.players.level_elo`
looks one player up. A newcomer starts at :data:`INITIAL_RATING`, between the
two levels newcomers play (``ai:easy`` and ``ai:medium``: docs/history.md says
how it was chosen), and a rating is **provisional** while its deviation is
:data:`PROVISIONAL_RD` or more, as on lichess: every face shows it as
:meth:`Rating.shown` words it.

    >>> Rating().shown(), Rating(1612.4, 80).shown()
    ('940? ±600', '1612')

A history or a puzzle log rated from an older version's start (1500) is
rated again from this one's when it is first opened (:func:`sequence`): the
results stay, the numbers are this version's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

SCALE = 173.7178            #: Glicko-2's ratio between the Elo scale and its own (400 / ln 10)
BASE = 1500.0               #: the Elo-scale rating that is 0 on Glicko-2's scale
INITIAL_RATING = 940.0      #: a newcomer's rating: between ai:easy (648) and ai:medium (1235) (docs/history.md)
INITIAL_RD = 300.0          #: a newcomer's deviation: 940 -+ 600 spans the levels people play
PROVISIONAL_RD = 110.0      #: provisional while the RD is this or more: an interval of +-220 or wider (lichess's)
INITIAL_VOLATILITY = 0.06   #: the paper's suggested starting volatility
TAU = 0.5                   #: how fast the volatility may change (Glickman: 0.3..1.2); the paper's example uses 0.5
EPSILON = 1e-6              #: the volatility iteration's tolerance (the paper's)
MAX_RD = 350.0              #: a deviation never grows past this (Glickman's for a player nothing is known of)
MIN_RATING, MAX_RATING = -10_000.0, 10_000.0    #: a rating is kept in here (100,000 straight wins over
                                                #: ai:perfect reach 3,868; the maths is exact to here)
MIN_VOLATILITY, MAX_VOLATILITY = 0.001, 0.1     #: ... and a volatility in here (lichess caps it at 0.1 too)

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

    @property
    def provisional(self) -> bool:
        """Too uncertain to be read as a number alone: the deviation is at least
        :data:`PROVISIONAL_RD` (the 95% interval is +-220 or wider)."""
        return self.rd >= PROVISIONAL_RD

    def shown(self) -> str:
        """The rating as every face shows it: '1612' once it has settled, '1180? ±310'
        (the rating, a question mark and half the 95% interval) while provisional."""
        if self.provisional:
            return f"{self.rating:.0f}? ±{2 * self.rd:.0f}"
        return f"{self.rating:.0f}"

    def to_json(self) -> Dict[str, Any]:
        """For JSON answers: ``rating``, ``rd``, the 95% interval (``low``, ``high``),
        one decimal each, ``provisional`` and ``shown`` (:meth:`shown`)."""
        low, high = self.interval()
        return {"rating": round(self.rating, 1), "rd": round(self.rd, 1), "low": round(low, 1),
                "high": round(high, 1), "provisional": self.provisional, "shown": self.shown()}

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


def sequence(results: Iterable[Result], start: Optional[Rating] = None
             ) -> List[Tuple[Rating, Rating]]:
    """A player's ratings over ``results``, each its own rating period, oldest first:
    each period's (before, after), from ``start`` (default a newcomer's). A result
    :func:`update` refuses leaves the rating as it was and the sequence goes on.
    What a history rated from an older version's start is rated again by: the same
    results against the same opponents, from this version's start."""
    now, periods = start if start is not None else Rating(), []
    for result in results:
        try:
            after = update(now, [result])
        except (ValueError, ArithmeticError):
            after = now
        periods.append((now, after))
        now = after
    return periods


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


__all__ = ["Rating", "update", "expected_score", "sequence", "INITIAL_RATING", "INITIAL_RD",
           "PROVISIONAL_RD",
           "INITIAL_VOLATILITY", "TAU", "MIN_RATING", "MAX_RATING", "MAX_RD",
           "MIN_VOLATILITY", "MAX_VOLATILITY"]
