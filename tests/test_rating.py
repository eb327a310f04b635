"""Glicko-2 (mancala.rating) against Glickman's published example and the formulas
worked by hand; the levels' Elo table's shape."""
import itertools
import math
import random

import pytest

from mancala.players import canonical_spec
from mancala.levels import level_is_provisional, level_table
from mancala.players import level_elo
from mancala.rating import Rating, _new_volatility, expected_score, sequence, update


def test_the_papers_worked_example():
    # Glickman, "Example of the Glicko-2 system" (2013): a player rated 1500, RD 200,
    # volatility 0.06, tau 0.5, beats a 1400 (RD 30) and loses to a 1550 (RD 100) and
    # a 1700 (RD 300); the paper gets 1464.06, RD 151.52, volatility 0.05999 (it rounds
    # every step to four places, so the last digit may differ from an unrounded run)
    after = update(Rating(1500, 200, 0.06), [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)],
                   tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.015)
    assert after.rd == pytest.approx(151.52, abs=0.005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation():
    # step 6 alone: phi' = sqrt(phi^2 + sigma^2) on the Glicko-2 scale (173.7178 to one):
    # (200 / 173.7178)^2 = 1.325462, + 0.06^2 = 1.329062, sqrt = 1.152849, * 173.7178 = 200.27
    after = update(Rating(1500, 200, 0.06), [])
    assert (after.rating, after.volatility) == (1500, 0.06)
    assert after.rd == pytest.approx(200.27, abs=0.01)


def test_expected_score_is_the_elo_curve():
    # the scale is Elo's: 400 points apart with no uncertainty is 10 to 1
    assert expected_score(Rating(1900, 0), 1500) == pytest.approx(10 / 11)
    assert expected_score(Rating(1500, 0), 1500) == 0.5
    # an uncertain opponent pulls the expectation towards a half (g < 1)
    assert 0.5 < expected_score(Rating(1900, 0), 1500, 300) < 10 / 11


def test_a_win_and_a_loss_against_an_equal_are_mirror_images():
    me = Rating(1500, 120, 0.06)
    win, loss = update(me, [(1500, 50, 1)]), update(me, [(1500, 50, 0)])
    draw = update(me, [(1500, 50, 0.5)])
    assert win.rating - 1500 == pytest.approx(1500 - loss.rating)
    assert win.rating > 1500 and draw.rating == pytest.approx(1500)
    assert win.rd == pytest.approx(loss.rd) and win.rd < 120


def test_an_expected_result_teaches_little_and_a_surprise_much():
    me = Rating()
    assert update(me, [(0, 0, 1)]).rating - me.rating < 5            # beating the weakest
    assert update(me, [(2500, 0, 1)]).rating - me.rating > 200       # beating the strongest


# -- a newcomer, and a rating that has not settled (issue 40) ------------------------------------

def test_a_newcomer_starts_between_the_two_levels_newcomers_play():
    # docs/history.md: the middle of ai:easy (648) and ai:medium (1235) is 941.5, rounded to 940
    easy, medium = level_elo("ai:easy").elo, level_elo("ai:medium").elo
    assert Rating() == Rating(940, 300, 0.06)
    assert abs(Rating().rating - (easy + medium) / 2) < 10


@pytest.mark.parametrize("numbers, shown, provisional", [
    ((1180, 155), "1180? ±310", True),          # the example: 1180 +- 2 x 155
    ((940, 300), "940? ±600", True),            # a newcomer
    ((1500.4, 110), "1500? ±220", True),        # lichess's 110: still provisional
    ((1612.6, 109.9), "1613", False),           # settled: the number alone
    ((-12.5, 30), "-12", False),
])
def test_a_rating_is_shown_provisional_until_its_interval_is_under_220(numbers, shown, provisional):
    rating = Rating(*numbers)
    assert rating.shown() == shown and rating.provisional is provisional
    low, high = numbers[0] - 2 * numbers[1], numbers[0] + 2 * numbers[1]
    assert rating.to_json() == {"rating": round(numbers[0], 1), "rd": round(numbers[1], 1),
                                "low": round(low, 1), "high": round(high, 1),
                                "provisional": provisional, "shown": shown}


def test_a_sequence_is_one_period_a_result_and_goes_on_past_a_refused_one():
    results = [(648, 28, 1), (float("nan"), 0, 1), (1235, 37, 0)]
    (b1, a1), (b2, a2), (b3, a3) = sequence(results)
    assert b1 == Rating() and a1 == update(Rating(), [results[0]])
    assert b2 == a2 == a1                   # refused: the rating stays
    assert b3 == a1 and a3 == update(a1, [results[2]])
    assert sequence([], Rating(1500)) == []


def test_bad_results_are_refused():
    for bad in ([(1500, 0, 2)], [(1500, -1, 1)], [(1500, 0, -0.5)]):
        with pytest.raises(ValueError):
            update(Rating(), bad)


def test_the_levels_table_is_one_scale_from_random():
    table = level_table()
    assert table[0].spec == "random" and table[0].elo == 0
    assert [level.elo for level in table] == sorted(level.elo for level in table)
    assert len({level.spec for level in table}) == len(table)
    for level in table:
        assert canonical_spec(level.spec) == level.spec != "human"
        assert math.isfinite(level.elo) and level.rd >= 0
        assert level_elo(level.spec) == level
    assert level_elo("ai:no-such-level") is None
    assert level_is_provisional() in (True, False)


# -- what a rating may be (issue 31: planted ratings) ------------------------------------------

@pytest.mark.parametrize("numbers", [
    (math.inf, 200, 0.06), (1e308, 200, 0.06), (math.nan, 200, 0.06), (-math.inf, 200, 0.06),
    (10_000.5, 200, 0.06), (-10_000.5, 200, 0.06),
    (1500, 0, 0), (1500, -1e300, 0.06), (1500, 350.5, 0.06), (1500, math.nan, 0.06),
    (1500, 200, 0.0009), (1500, 200, 0.11), (1500, 200, math.inf),
    ("1500", 200, 0.06), (True, 200, 0.06), (None, 200, 0.06), (1500, 200, b"0.06"),
])
def test_a_rating_outside_its_ranges_is_not_valid_and_not_updated(numbers):
    planted = Rating(*numbers)
    assert not planted.is_valid()
    with pytest.raises(ValueError, match="not a rating update can start from"):
        update(planted, [(1000, 0, 1)])


def test_the_edges_of_the_ranges_are_valid():
    for numbers in [(-10_000, 0, 0.001), (10_000, 350, 0.1), (1500, 350, 0.06), (0, 1e-300, 0.05)]:
        assert Rating(*numbers).is_valid(), numbers
    assert Rating().is_valid()


@pytest.mark.parametrize("result", [(math.inf, 0, 1), (1e308, 0, 1), (1000, -1, 1), (1000, math.nan, 1),
                                    (1000, 0, math.nan), (1000, 0, 1.5), ("1000", 0, 1)])
def test_a_result_outside_the_ranges_is_refused(result):
    with pytest.raises(ValueError, match="a result is"):
        update(Rating(), [result])


# the corners of the box every valid rating lives in, and opponents anywhere in it
CORNERS = list(itertools.product(
    [-10_000, -6_500, 0, 1500, 6_500, 10_000], [0, 1e-300, 30, 350], [0.001, 0.06, 0.1]))


@pytest.mark.parametrize("player", CORNERS)
def test_update_takes_every_valid_rating_to_a_valid_one(player):
    # before: a rating 6,400 above its opponent made 1 - E round to 0: ZeroDivisionError
    for opponent, opponent_rd, score in itertools.product([-10_000, 0, 1627, 10_000], [0, 47, 350],
                                                          [0, 0.5, 1]):
        after = update(Rating(*player), [(opponent, opponent_rd, score)])
        assert after.is_valid(), (player, opponent, opponent_rd, score, after)


def test_results_that_surprise_again_and_again_keep_the_volatility_bounded():
    # one game a period, wins and losses at random against random (0) and ai:perfect (1627):
    # the paper's step 5 grows the volatility to 2.0 by game 5,100 and to 14,091 a game later,
    # the rating to -29 million, and game 5,117 raised OverflowError
    rng = random.Random(1)
    now = Rating()
    for game in range(6000):
        now = update(now, [(1627 if game % 2 == 0 else 0, 0, rng.choice([0, 1]))])
        assert now.is_valid(), (game, now)
    assert now.volatility <= 0.1 and -1000 < now.rating < 2700


def test_the_volatility_stops_at_its_bound_where_the_paper_would_go_past_it():
    # at the bound already, a loss to a player 1,500 below: the paper's step 5 alone
    # (E and v worked from the formulas, g = 1 for an opponent known exactly) gives 0.10006
    phi, mu, mu_j = 30 / 173.7178, 0.0, -1500 / 173.7178
    e = 1 / (1 + math.exp(-(mu - mu_j)))
    v = 1 / (e * (1 - e))
    assert _new_volatility(v * (0 - e), phi, v, 0.1, 0.5) == pytest.approx(0.10006, abs=1e-5)
    assert update(Rating(1500, 30, 0.1), [(0, 0, 0)]).volatility == 0.1
