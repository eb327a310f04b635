"""Strength statistics of a match: Elo with its 95% interval, and the SPRT (and the
Wilson interval of a plain win rate, :func:`wilson_interval`).

Two ways to count a match between A and B, both from A's point of view:

- **trinomial**: each game scores 1 (A won), 1/2 (draw) or 0; the counts are
  ``(losses, draws, wins)``, in the order of the scores 0, 1/2, 1.
- **pentanomial**: games are played in pairs (the same opening twice, sides
  swapped); a pair scores 0, 1/2, 1, 3/2 or 2 points, and the counts are the
  number of pairs with each, lowest first. Pairs cancel the first-move
  advantage and the opening's own bias, and the variance of pair scores is
  the honest one when the two games of a pair are related (as chess
  testing frameworks such as Fishtest report).

Either way the counts become one sample of per-unit scores in [0, 1] (a
pair's points are divided by 2): :func:`score_stats` gives their mean ``s``
and variance. Then

- Elo: ``elo = -400 * log10(1/s - 1)`` (:func:`elo_from_score`; a 60% score
  is +70.4 Elo, 76% is +200);
- the 95% interval: ``s +- 1.959964 * sqrt(var / N)`` (N games or pairs),
  each end converted to Elo, as Fishtest converts its score interval;
- SPRT (:func:`sprt_llr`): the generalised SPRT as Fishtest computes it
  for the logistic Elo model (M. Van den Bergh's GSPRT): with ``s0, s1``
  the expected scores of ELO0 and ELO1, the LLR is the log of the ratio of
  the largest likelihoods of the counts among the distributions on the same
  outcomes whose expected score is ``s1``, and among those with ``s0``
  (:func:`constrained_mle`). The bounds are ``log(beta / (1 - alpha))``
  (accept H0 at or below) and ``log((1 - beta) / alpha)`` (accept H1 at or
  above). Elo here is the logistic Elo of the formula above (not Fishtest's
  "normalised" Elo). Before the LLR the counts are regularised: a count of 0
  becomes 0.001, so a result never seen keeps a little probability.
  For many games the LLR is close to its normal approximation
  (:func:`sprt_llr_normal`), ``N * (s1 - s0) * (2*s - s0 - s1) / (2 * var)``,
  the log-likelihood ratio of a normal mean ``s`` with variance ``var / N``;
  after a handful of games the approximation is far too eager (one pair of
  two wins would already "prove" +100 Elo), which is why the run uses the
  exact form.

Everything here is plain arithmetic on counts: nothing of games or players.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from mancala.errors import InvalidLimitError, quote

Z_95 = 1.959963984540054        # the standard normal quantile for a two-sided 95% interval
TRINOMIAL_SCORES = (0.0, 0.5, 1.0)                  # loss, draw, win
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)    # pair points 0..2, divided by 2
REGULARISE = 1e-3               # what a count of 0 becomes in the SPRT
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05


def _check_counts(counts: Sequence[float], size: int) -> None:
    if len(counts) != size or any(isinstance(c, bool) or not isinstance(c, (int, float))
                                  or not math.isfinite(c) or c < 0 for c in counts):
        raise InvalidLimitError(f"counts are {size} numbers, each 0 or more, not {quote(counts)}")


def _scores_for(counts: Sequence[float]) -> Sequence[float]:
    if len(counts) == 3:
        return TRINOMIAL_SCORES
    if len(counts) == 5:
        return PENTANOMIAL_SCORES
    raise InvalidLimitError(f"counts are 3 (trinomial) or 5 (pentanomial) numbers, not {quote(counts)}")


def score_stats(counts: Sequence[float]) -> Tuple[float, float, float]:
    """``(N, mean, variance)`` of the per-unit scores given by trinomial or pentanomial counts.

    The variance is the sample's own (divided by N, not N - 1), as Fishtest
    computes it. No games: ``(0, nan, nan)``. InvalidLimitError for counts
    that are not 3 or 5 numbers, each 0 or more.
    """
    values = _scores_for(counts)
    _check_counts(counts, len(values))
    n = float(sum(counts))
    if n == 0:
        return 0.0, math.nan, math.nan
    mean = sum(c * v for c, v in zip(counts, values)) / n
    variance = sum(c * (v - mean) ** 2 for c, v in zip(counts, values)) / n
    return n, mean, variance


def elo_from_score(score: float) -> float:
    """The logistic Elo difference of an expected score in [0, 1]: ``-400 * log10(1/s - 1)``.

    0 gives -inf and 1 gives +inf. InvalidLimitError outside [0, 1].
    """
    if not (isinstance(score, (int, float)) and 0 <= score <= 1):
        raise InvalidLimitError(f"a score is from 0 to 1, not {quote(score)}")
    if score == 0:
        return -math.inf
    if score == 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference: ``1 / (1 + 10 ** (-elo / 400))``."""
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class EloEstimate:
    """Elo from counts, with its 95% interval (ends may be infinite; None without games)."""

    model: str                      #: "pentanomial" or "trinomial"
    n: int                          #: pairs or games counted
    score: Optional[float]          #: mean per-unit score
    elo: Optional[float]
    elo_low: Optional[float]
    elo_high: Optional[float]


def elo_estimate(counts: Sequence[float], z: float = Z_95) -> EloEstimate:
    """Elo and its interval (95% by default) from trinomial or pentanomial counts.

    The score interval ``s +- z * sqrt(var / N)``, clipped to [0, 1], is
    converted end by end to Elo (an end at 0 or 1 is infinite).
    """
    n, mean, variance = score_stats(counts)
    model = "trinomial" if len(counts) == 3 else "pentanomial"
    if n == 0:
        return EloEstimate(model, 0, None, None, None, None)
    half = z * math.sqrt(variance / n)
    low, high = max(0.0, mean - half), min(1.0, mean + half)
    return EloEstimate(model, int(n), mean, elo_from_score(mean),
                       elo_from_score(low), elo_from_score(high))


def sprt_bounds(alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> Tuple[float, float]:
    """The SPRT's (lower, upper) LLR bounds: ``log(beta/(1-alpha))``, ``log((1-beta)/alpha)``.

    InvalidLimitError unless 0 < alpha < 1, 0 < beta < 1 and alpha + beta < 1.
    """
    check_error_rate(alpha, "alpha")
    check_error_rate(beta, "beta")
    if alpha + beta >= 1:
        raise InvalidLimitError(f"alpha + beta must be below 1, not {quote(alpha + beta)}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def check_error_rate(value: float, name: str) -> float:
    """``value`` if it is a probability strictly between 0 and 1, else InvalidLimitError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise InvalidLimitError(f"{name} is more than 0 and less than 1, not {quote(value)}")
    return value


def _regularised(counts: Sequence[float]) -> Sequence[float]:
    values = _scores_for(counts)
    _check_counts(counts, len(values))
    return [c if c > 0 else REGULARISE for c in counts]


def sprt_llr_normal(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The normal approximation of the LLR of H1 (Elo ``elo1``) against H0 (``elo0``).

    ``N * (s1 - s0) * (2*s - s0 - s1) / (2 * var)`` over the regularised
    counts; see the module docstring. No games: 0.
    """
    regular = _regularised(counts)
    if sum(counts) == 0:
        return 0.0
    n, mean, variance = score_stats(regular)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def constrained_mle(probabilities: Sequence[float], values: Sequence[float],
                    score: float) -> List[float]:
    """The distribution on ``values`` with expected score ``score`` closest in likelihood
    to the observed ``probabilities`` (all above 0, summing to 1).

    It is ``p_i / (1 + lam * (v_i - score))`` for the ``lam`` that makes the
    mean ``score`` (the Lagrange condition); found by bisection, since the
    mean falls as ``lam`` grows. ``score`` must lie strictly between the
    lowest and highest value.
    """
    def mean_gap(lam: float) -> float:
        return sum(p * (v - score) / (1 + lam * (v - score)) for p, v in zip(probabilities, values))

    low = -1 / (max(values) - score)        # 1 + lam * (v - score) stays above 0 inside
    high = 1 / (score - min(values))
    low, high = low + 1e-12 * abs(low), high - 1e-12 * abs(high)
    for _ in range(200):
        mid = (low + high) / 2
        if mean_gap(mid) > 0:
            low = mid
        else:
            high = mid
    lam = (low + high) / 2
    return [p / (1 + lam * (v - score)) for p, v in zip(probabilities, values)]


def sprt_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``).

    ``sum n_i * log(q1_i / q0_i)`` over the regularised counts ``n_i``, where
    ``q0``, ``q1`` are the most likely distributions with expected scores
    ``s0``, ``s1`` (:func:`constrained_mle`). No games: 0.
    """
    values = _scores_for(counts)
    regular = _regularised(counts)
    if sum(counts) == 0:
        return 0.0
    total = sum(regular)
    observed = [c / total for c in regular]
    q0 = constrained_mle(observed, values, score_from_elo(elo0))
    q1 = constrained_mle(observed, values, score_from_elo(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(regular, q0, q1))


@dataclass(frozen=True)
class SprtState:
    """Where an SPRT stands: its hypotheses, bounds, LLR and verdict."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    lower: float        #: accept H0 at or below
    upper: float        #: accept H1 at or above
    llr: float
    verdict: str        #: "H0", "H1" or "inconclusive"


def sprt_state(counts: Sequence[float], elo0: float, elo1: float,
               alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> SprtState:
    """The SPRT's state after ``counts``. InvalidLimitError unless elo0 < elo1 (finite)."""
    if not all(isinstance(e, (int, float)) and math.isfinite(e) for e in (elo0, elo1)) \
            or not elo0 < elo1:
        raise InvalidLimitError(f"the SPRT needs ELO0 < ELO1, finite, not {quote(elo0)} "
                                f"and {quote(elo1)}")
    lower, upper = sprt_bounds(alpha, beta)
    llr = sprt_llr(counts, elo0, elo1)
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else "inconclusive"
    return SprtState(elo0, elo1, alpha, beta, lower, upper, llr, verdict)


ELO_SLOPE = math.log(10) / 400      # the expected score's slope in Elo is ELO_SLOPE * p * (1 - p)


def fit_elo(results: Sequence[Tuple[str, str, float, float]], anchor: str,
            prior_draws: float = 1.0, iterations: int = 100) -> dict:
    """One Elo per player from many matches: the maximum-likelihood logistic
    (Bradley-Terry) model, ``anchor`` held at 0.

    ``results`` are ``(a, b, games, score)`` rows: ``a`` scored ``score``
    (a draw is half) in ``games`` games against ``b``; rows between the same
    two players add up. The likelihood is each game's ``p ** s * (1 - p) **
    (1 - s)`` with ``p = 1 / (1 + 10 ** (-(Ea - Eb) / 400))`` (draws as half
    a win, as Ordo fits chess engines). ``prior_draws`` adds that many drawn
    games to every pair of players that met, so a player who won every game
    still has a finite Elo (BayesElo's virtual draws); 0 adds none. At the
    maximum each player's expected score over its games equals its actual
    score. Solved by Newton's method. Returns ``{player: elo}``;
    InvalidLimitError if ``anchor`` played no games or the players do not all
    connect to it.
    """
    games: dict = {}
    scores: dict = {}
    for a, b, n, score in results:
        if a == b or n < 0 or not 0 <= score <= n:
            raise InvalidLimitError(f"a result is (a, b != a, games >= 0, score 0..games), "
                                    f"not {quote((a, b, n, score))}")
        key = (a, b) if a < b else (b, a)
        games[key] = games.get(key, 0.0) + n
        scores[key] = scores.get(key, 0.0) + (score if key[0] == a else n - score)
    for key in games:
        games[key] += prior_draws
        scores[key] += prior_draws / 2
    players = sorted({name for key in games for name in key})
    if anchor not in players:
        raise InvalidLimitError(f"the anchor {quote(anchor)} played no games")
    free = [name for name in players if name != anchor]
    _check_connected(players, games, anchor)
    elo = {name: 0.0 for name in players}
    for _ in range(iterations):
        gradient = {name: 0.0 for name in free}
        hessian = {(x, y): 0.0 for x in free for y in free}
        for (a, b), n in games.items():
            p = score_from_elo(elo[a] - elo[b])
            residual = scores[(a, b)] - n * p              # a's score above what it expects
            weight = n * p * (1 - p)
            for x, sign in ((a, 1), (b, -1)):
                if x in gradient:
                    gradient[x] += sign * residual
                    hessian[(x, x)] += weight
            if a in gradient and b in gradient:
                hessian[(a, b)] -= weight
                hessian[(b, a)] -= weight
        # the log-likelihood's gradient is ELO_SLOPE * gradient, its Hessian
        # -ELO_SLOPE**2 * hessian: Newton's step is hessian^-1 gradient / ELO_SLOPE
        step = [delta / ELO_SLOPE for delta in _solve([[hessian[(x, y)] for y in free] for x in free],
                                                      [gradient[x] for x in free])]
        for name, delta in zip(free, step):
            elo[name] += max(-400.0, min(400.0, delta))     # far from the answer: no wild jumps
        if max((abs(delta) for delta in step), default=0.0) < 1e-7:
            break
    return elo


def _check_connected(players: Sequence[str], games: dict, anchor: str) -> None:
    reached, frontier = {anchor}, [anchor]
    while frontier:
        here = frontier.pop()
        for a, b in games:
            for x, y in ((a, b), (b, a)):
                if x == here and y not in reached:
                    reached.add(y)
                    frontier.append(y)
    if len(reached) < len(players):
        apart = sorted(set(players) - reached)
        raise InvalidLimitError(f"{quote(apart[0])} never meets the anchor's players; "
                                f"every player must connect to {quote(anchor)}")


def _solve(matrix: List[List[float]], vector: List[float]) -> List[float]:
    """x with ``matrix @ x = vector`` (Gaussian elimination with partial pivoting)."""
    size = len(vector)
    rows = [row[:] + [value] for row, value in zip(matrix, vector)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, size + 1):
                rows[r][c] -= factor * rows[col][c]
    x = [0.0] * size
    for r in reversed(range(size)):
        x[r] = (rows[r][size] - sum(rows[r][c] * x[c] for c in range(r + 1, size))) / rows[r][r]
    return x


def wilson_interval(score: float, games: int, z: float = Z_95) -> Tuple[float, float]:
    """The Wilson score interval of a win rate ``score / games`` (95% by default).

    Unlike the textbook p +- z*sqrt(p(1-p)/n) it stays inside [0, 1] and does
    not shrink to nothing at 0 or ``games`` wins. ``score`` may hold halves
    (a draw is half a win). No games: the whole range, (0, 1).
    InvalidLimitError if ``score`` is outside 0..``games``.
    """
    if games <= 0:
        return 0.0, 1.0
    if not 0 <= score <= games:
        raise InvalidLimitError(f"score is from 0 to games ({games}), not {quote(score)}")
    p = score / games
    z2 = z * z
    denominator = 1 + z2 / games
    centre = (p + z2 / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / denominator
    # at 0 or all wins one end is exactly 0 or 1; rounding would leave 1e-17 off it
    low = 0.0 if score == 0 else centre - half
    high = 1.0 if score == games else centre + half
    return low, high


__all__ = ["score_stats", "elo_from_score", "score_from_elo", "EloEstimate", "elo_estimate",
           "sprt_bounds", "sprt_llr", "sprt_llr_normal", "constrained_mle", "SprtState", "sprt_state", "check_error_rate",
           "TRINOMIAL_SCORES", "PENTANOMIAL_SCORES", "Z_95", "wilson_interval", "fit_elo"]
