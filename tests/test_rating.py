"""Glicko-2 (mancala.rating) against Glickman's published example and the formulas
worked by hand; the levels' Elo table's shape."""
import math

import pytest

from mancala.players import canonical_spec
from mancala.rating import (Rating, expected_score, level_elo, level_is_provisional,
                            level_table, update)


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
    assert update(me, [(0, 0, 1)]).rating - me.rating < 1            # beating the weakest
    assert update(me, [(2500, 0, 1)]).rating - me.rating > 200       # beating the strongest


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
