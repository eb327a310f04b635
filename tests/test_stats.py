"""mancala.stats: Elo, its interval and the SPRT against numbers worked by hand,
an independent normal log-likelihood and a simulation."""
import collections
import math
import random
import statistics

import pytest

from mancala.errors import InvalidLimitError
from mancala.stats import (constrained_mle, elo_estimate, elo_from_score, score_from_elo,
                           score_stats, sprt_bounds, sprt_llr, sprt_llr_normal, sprt_state)

Z = 1.959963984540054


# -- Elo of a score, by hand
# 60%: -400 * log10(1/0.6 - 1) = -400 * log10(2/3) = 400 * 0.1760913 = 70.437
# 76%: 1/0.76 - 1 = 0.3157895; log10 = -0.5006; * -400 = +200.2 (the textbook "200 Elo is 76%")
# 50%: 0; 25%: -400 * log10(3) = -190.85

@pytest.mark.parametrize("score, elo", [(0.6, 70.437), (0.76, 200.24), (0.5, 0.0), (0.25, -190.848)])
def test_elo_of_a_score_matches_the_hand_computation(score, elo):
    assert elo_from_score(score) == pytest.approx(elo, abs=1e-2)


def test_elo_of_all_or_nothing_is_infinite_and_outside_zero_one_is_refused():
    assert elo_from_score(1) == math.inf and elo_from_score(0) == -math.inf
    with pytest.raises(InvalidLimitError, match="from 0 to 1"):
        elo_from_score(1.5)


def test_score_from_elo_is_the_logistic_curve():
    # 400 Elo: 1 / (1 + 10**-1) = 10/11
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert score_from_elo(-400) == pytest.approx(1 / 11)


# -- trinomial: 6 wins, 2 draws, 2 losses (counts lowest score first: 2, 2, 6)
# s = (6 + 1) / 10 = 0.7; var = (6 * 0.3^2 + 2 * 0.2^2 + 2 * 0.7^2) / 10 = (0.54 + 0.08 + 0.98) / 10 = 0.16
# se = sqrt(0.16 / 10) = 0.1264911; s +- 1.959964 * se = [0.4520839, 0.9479161]
# Elo: -400 log10(3/7) = 147.19; ends: -400 log10(0.5479161/0.4520839) = -33.40,
#      -400 log10(0.0520839/0.9479161) = +504.03

def test_trinomial_elo_and_interval_match_the_hand_computation():
    n, mean, var = score_stats((2, 2, 6))
    assert (n, mean, var) == pytest.approx((10, 0.7, 0.16))
    e = elo_estimate((2, 2, 6))
    assert e.model == "trinomial" and e.n == 10
    assert (e.elo, e.elo_low, e.elo_high) == pytest.approx((147.19, -33.40, 504.03), abs=0.01)


# -- pentanomial: one pair each of 1/2, 1, 3/2 and 2 points, none of 0 -> counts (0, 1, 1, 1, 1)
# per-pair scores 0.25, 0.5, 0.75, 1: s = 2.5 / 4 = 0.625
# var = (0.375^2 + 0.125^2 + 0.125^2 + 0.375^2) / 4 = 0.3125 / 4 = 0.078125
# se = sqrt(0.078125 / 4) = 0.1397542; s +- 1.959964 * se = [0.3510867, 0.8989133]
# Elo: -400 log10(0.6) = 88.74; ends -106.71 and +379.61

def test_pentanomial_elo_and_interval_match_the_hand_computation():
    n, mean, var = score_stats((0, 1, 1, 1, 1))
    assert (n, mean, var) == pytest.approx((4, 0.625, 0.078125))
    e = elo_estimate((0, 1, 1, 1, 1))
    assert e.model == "pentanomial" and e.n == 4
    assert (e.elo, e.elo_low, e.elo_high) == pytest.approx((88.74, -106.71, 379.61), abs=0.01)


def test_no_games_have_no_estimate_and_bad_counts_are_refused():
    e = elo_estimate((0, 0, 0))
    assert (e.n, e.elo, e.elo_low, e.elo_high) == (0, None, None, None)
    with pytest.raises(InvalidLimitError, match="3 .* or 5"):
        score_stats((1, 2, 3, 4))
    with pytest.raises(InvalidLimitError, match="each 0 or more"):
        score_stats((1, -2, 3))


def test_all_wins_give_an_infinite_upper_end():
    e = elo_estimate((0, 0, 0, 0, 7))
    assert e.elo == math.inf and e.elo_high == math.inf


def test_pentanomial_interval_covers_the_true_elo_about_95_percent_of_the_time():
    """Simulated matches of 200 pairs from a known pair-score distribution: the
    interval must hold the true Elo in roughly 95% of them (not 80%, not 100%)."""
    weights = (0.05, 0.15, 0.4, 0.25, 0.15)
    true_score = sum(w * v for w, v in zip(weights, (0, 0.25, 0.5, 0.75, 1)))
    true_elo = -400 * math.log10(1 / true_score - 1)
    rng = random.Random(12)
    runs, covered = 1000, 0
    for _ in range(runs):
        drawn = collections.Counter(rng.choices(range(5), weights, k=200))
        e = elo_estimate([drawn[i] for i in range(5)])
        covered += e.elo_low <= true_elo <= e.elo_high
    assert 0.92 <= covered / runs <= 0.975


# -- SPRT
# bounds at alpha = beta = 0.05: log(0.05 / 0.95) = -2.944439, log(0.95 / 0.05) = +2.944439
# normal-approximation LLR for the trinomial (2, 2, 6) (no zero counts: no regularisation),
# H0: 0 Elo, H1: 10 Elo:
#   s0 = 0.5, s1 = 1 / (1 + 10**(-10/400)) = 0.5143872
#   LLR = 10 * (s1 - s0) * (2 * 0.7 - s0 - s1) / (2 * 0.16)
#       = 10 * 0.0143872 * 0.3856128 / 0.32 = 0.173371

def test_sprt_bounds_match_the_hand_computation():
    assert sprt_bounds() == pytest.approx((-2.944439, 2.944439))
    assert sprt_bounds(0.1, 0.2) == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))


def test_normal_llr_matches_the_hand_computation():
    assert sprt_llr_normal((2, 2, 6), 0, 10) == pytest.approx(0.173371, abs=1e-6)


def brute_force_log_likelihood(counts, score, steps=50_000):
    """The largest log-likelihood of trinomial counts over a fine grid of (p0, p1, p2)
    with p1/2 + p2 = score: p2 runs over the grid, p1 = 2 (score - p2), p0 = 1 - p1 - p2."""
    best = -math.inf
    lo, hi = max(0.0, 2 * score - 1), score          # p0 >= 0 and p1 >= 0
    for i in range(1, steps):
        p2 = lo + (hi - lo) * i / steps
        p1 = 2 * (score - p2)
        p0 = 1 - p1 - p2
        if min(p0, p1, p2) <= 0:
            continue
        best = max(best, sum(c * math.log(p) for c, p in zip(counts, (p0, p1, p2))))
    return best


@pytest.mark.parametrize("counts, elo0, elo1", [((2, 2, 6), 0, 10), ((30, 12, 25), -5, 20)])
def test_llr_is_the_ratio_of_the_best_likelihoods_found_by_brute_force(counts, elo0, elo1):
    expected = (brute_force_log_likelihood(counts, score_from_elo(elo1))
                - brute_force_log_likelihood(counts, score_from_elo(elo0)))
    assert sprt_llr(counts, elo0, elo1) == pytest.approx(expected, abs=1e-4)


def test_constrained_mle_is_a_distribution_with_the_asked_score():
    q = constrained_mle([0.1, 0.2, 0.3, 0.25, 0.15], (0, 0.25, 0.5, 0.75, 1), 0.4)
    assert sum(q) == pytest.approx(1) and min(q) > 0
    assert sum(p * v for p, v in zip(q, (0, 0.25, 0.5, 0.75, 1))) == pytest.approx(0.4)


def test_llr_is_close_to_its_normal_approximation_over_many_pairs():
    counts = (300, 900, 2000, 1100, 400)
    assert sprt_llr(counts, 0, 10) == pytest.approx(sprt_llr_normal(counts, 0, 10), rel=0.05)


def test_one_perfect_pair_is_not_yet_proof():
    """The exact LLR of a single pair of two wins is small (about log(s1 / s0)); the normal
    approximation would already cross the bound."""
    assert sprt_llr((0, 0, 0, 0, 1), 0, 100) < 0.5
    assert sprt_llr_normal((0, 0, 0, 0, 1), 0, 100) > 2.95


@pytest.mark.parametrize("counts", [(3, 5, 9, 4, 2), (1, 2, 8, 10, 6), (12, 4, 30)])
def test_normal_llr_is_the_log_likelihood_ratio_of_two_normal_means(counts):
    """Independently: log N(s | s1, var/N) - log N(s | s0, var/N) with statistics.NormalDist."""
    values = (0, 0.5, 1) if len(counts) == 3 else (0, 0.25, 0.5, 0.75, 1)
    sample = [v for c, v in zip(counts, values) for _ in range(c)]
    s, var = statistics.fmean(sample), statistics.pvariance(sample)
    sigma = math.sqrt(var / len(sample))
    s0, s1 = 1 / (1 + 10 ** (2 / 400)), 1 / (1 + 10 ** (-5 / 400))      # -2 and +5 Elo

    def log_pdf(mu):
        return math.log(statistics.NormalDist(mu, sigma).pdf(s))

    assert sprt_llr_normal(counts, -2, 5) == pytest.approx(log_pdf(s1) - log_pdf(s0), rel=1e-9)


def test_sprt_verdicts_and_a_perfect_record_is_finite():
    assert sprt_state((0, 0, 0, 0, 30), 0, 50).verdict == "H1"
    assert sprt_state((30, 0, 0, 0, 0), 0, 50).verdict == "H0"
    assert sprt_state((1, 1, 1, 1, 1), 0, 50).verdict == "inconclusive"
    assert math.isfinite(sprt_state((0, 0, 0, 0, 10), 0, 50).llr)
    with pytest.raises(InvalidLimitError, match="ELO0 < ELO1"):
        sprt_state((1, 1, 1), 10, 0)
    with pytest.raises(InvalidLimitError, match="alpha is more than 0 and less than 1"):
        sprt_state((1, 1, 1), 0, 10, alpha=0)

