"""The arena's opening suites, game pairs, Elo, SPRT, forfeits and --time.

Expected values come from hand counts (the 2-move openings of Kalah(6,4)),
from the pentanomial worked by hand in test_stats, and from what a player
that always wins must do to an SPRT.
"""
import csv
import dataclasses
import io
import json

import pytest

from mancala.arena import tournament
from mancala.arena import ArenaConfig, run_arena
from mancala.arena.results import GameResult, pair_counts, summarise
from mancala.board import Board
from conftest import played_games
from mancala.cli import main
from mancala.errors import PlayerFailedError
from mancala.openings import opening_lines, opening_suite
from mancala.players import Player, RandomPlayer
from mancala.specs import PlayerSpec

FAILS = "minimax:1"         # the spelling the tests below make stand for a failing player
STOPS = "alphabeta:1"       # ... and for one that is interrupted

pytestmark = pytest.mark.usefixtures("empty_endgame_cache")


def strict_json(text):
    """JSON as the standard says: NaN and Infinity are not numbers."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


# -- the suite
#
# Kalah(6,4), by hand: South's pits 0, 1, 3, 4, 5 end away from its store, so
# North answers with any of its 6 pits: 5 * 6 = 30 lines. Pit 2 (4 seeds, pits
# 3, 4, 5 and the store) earns an extra turn: South moves again with any pit
# but the emptied pit 2: 5 lines. No two of the 35 meet, none ends the game.

def test_the_two_move_openings_of_kalah_6_4_counted_by_hand():
    lines = opening_lines(2)
    assert len(lines) == 35
    assert [line for line in lines if line[0] == 2] == [(2, 0), (2, 1), (2, 3), (2, 4), (2, 5)]
    assert sum(line[0] != 2 for line in lines) == 30
    suite = opening_suite(2)
    assert suite[0] == () and suite[1:] == lines


def test_suite_positions_are_distinct_and_unfinished():
    for seeds in (1, 3, 6):
        positions = []
        for line in opening_lines(2, seeds):
            board = Board(seeds=seeds)
            for pit in line:
                board.push(pit)
            assert not board.is_game_over() and board.ply == 2
            positions.append((tuple(board.pits), board.to_move))
        assert len(set(positions)) == len(positions)
    assert opening_suite(0) == [()]


def test_bad_opening_settings_are_refused():
    with pytest.raises(ValueError, match="opening plies is a whole number from 0 to 4"):
        ArenaConfig("random", "random", games=2, openings=5)
    with pytest.raises(ValueError, match="even number, not 3"):
        ArenaConfig("random", "random", games=3, openings=2)
    with pytest.raises(ValueError, match="pairs with sides swapped"):
        ArenaConfig("random", "random", games=2, openings=2, swap=False)


def test_each_pair_plays_one_opening_with_sides_swapped():
    config = ArenaConfig("random", "ai:depth=2", games=6, openings=2, seed=3)
    report = run_arena(config)
    suite = opening_suite(2)
    for game in report.games:
        opening = "".join(map(str, suite[game.index // 2]))
        assert game.opening == opening and game.line.startswith(opening)
        assert game.a_side == ("South" if game.index % 2 == 0 else "North")
        assert game.a_moves + game.b_moves == game.plies - len(opening)
    assert played_games(run_arena(config, workers=2)) == played_games(report)


def test_more_pairs_than_openings_repeat_the_suite():
    report = run_arena(ArenaConfig("random", "random", games=6, openings=0))
    assert [game.opening for game in report.games] == [""] * 6


# -- pairs and Elo
# the pentanomial worked by hand in test_stats: pairs of 1/2, 1, 3/2 and 2 points,
# counts (0, 1, 1, 1, 1), Elo +88.74 [-106.71, +379.61]

def result(index, outcome):
    return GameResult(index, 0, "South" if index % 2 == 0 else "North", outcome, 0,
                      24, 24, 20, 10, 10, 0.0, 0.0, "0")


def test_pair_counts_and_elo_match_the_hand_computation():
    games = [result(i, r) for i, r in enumerate(
        ["A", "A", "A", "draw", "draw", "B", "B", "A", "A"])]       # the 9th: no partner
    assert pair_counts(games) == (0, 1, 1, 1, 1)
    summary = summarise(games)
    assert summary.elo_model == "pentanomial" and summary.pairs == 4
    assert (summary.elo, summary.elo_low, summary.elo_high) == \
        pytest.approx((88.74, -106.71, 379.61), abs=0.01)
    assert summary.trinomial == (2, 2, 5)


def test_unpaired_games_use_the_trinomial():
    # 6 wins, 2 draws, 2 losses: +147.19 [-33.40, +504.03] (test_stats, by hand)
    games = [result(i, r) for i, r in enumerate("A A A A A A draw draw B B".split())]
    summary = summarise(games, paired=False)
    assert summary.elo_model == "trinomial" and summary.pentanomial is None
    assert (summary.elo, summary.elo_low, summary.elo_high) == \
        pytest.approx((147.19, -33.40, 504.03), abs=0.01)


# -- SPRT

def test_a_clearly_stronger_player_stops_the_sprt_early_with_h1():
    config = ArenaConfig("ai:depth=3", "random", games=72, openings=2, sprt=(0, 100))
    finished = []
    report = run_arena(config, progress=lambda result, done, total: finished.append(done))
    assert len(finished) == len(report.games)         # no game played past the verdict
    sprt = report.summary.sprt
    assert sprt.verdict == "H1" and sprt.llr >= sprt.upper
    assert 2 <= report.summary.games < 72 and report.summary.games % 2 == 0
    # it stopped at the first pair that decided: one pair fewer does not
    shorter = summarise(report.games[:-2], True, (0, 100, 0.05, 0.05))
    assert shorter.sprt.verdict == "inconclusive"
    assert played_games(run_arena(config, workers=2)) == played_games(report)


def test_the_weaker_side_gets_h0_and_the_game_limit_leaves_it_inconclusive():
    weak = run_arena(ArenaConfig("random", "ai:depth=3", games=72, openings=2, sprt=(0, 100)))
    assert weak.summary.sprt.verdict == "H0" and weak.summary.games < 72
    short = run_arena(ArenaConfig("ai:depth=3", "random", games=2, sprt=(0, 100)))
    assert short.summary.sprt.verdict == "inconclusive" and short.summary.games == 2


def test_unpaired_games_run_a_trinomial_sprt():
    config = ArenaConfig("ai:depth=3", "random", games=60, swap=False, sprt=(0, 100))
    report = run_arena(config)
    assert report.summary.pentanomial is None and report.summary.sprt.verdict == "H1"
    assert report.summary.games < 60
    shorter = summarise(report.games[:-1], False, (0, 100, 0.05, 0.05))
    assert shorter.sprt.verdict == "inconclusive"


# -- forfeits

class FailsOnThirdMove(Player):
    """Plays at random, then raises PlayerFailedError on its third move; counts its closes."""

    closed = 0

    def __init__(self, seed=None):
        super().__init__()
        self.spec = "fails-on-third"
        self.moves = 0
        self._random = RandomPlayer(seed)

    def choose(self, board):
        self.moves += 1
        if self.moves == 3:
            raise PlayerFailedError("the engine process exited with status 1", "crash")
        return self._random.choose(board)

    def close(self):
        type(self).closed += 1


@pytest.fixture
def failing_player(monkeypatch):
    real = tournament.make_player
    FailsOnThirdMove.closed = 0

    def make(spec, seed=None, **kwargs):
        return FailsOnThirdMove(seed) if str(spec) == FAILS else real(spec, seed, **kwargs)

    monkeypatch.setattr(tournament, "make_player", make)            # the games' players
    return FailsOnThirdMove


def test_a_player_that_fails_loses_the_game_and_the_arena_goes_on(failing_player):
    report = run_arena(ArenaConfig(FAILS, "random", games=4))
    assert len(report.games) == 4 and not report.interrupted
    for game in report.games:
        assert game.result == "B" and game.a_moves == 3
        assert game.forfeit == {"player": "A", "reason": "crash",
                                "message": "the engine process exited with status 1"}
    assert (report.summary.forfeits_a, report.summary.forfeits_b) == (4, 0)
    assert failing_player.closed == 4


def test_forfeits_in_json_csv_and_text(failing_player, capsys):
    assert main(["arena", "random", FAILS, "--games", "2", "--json"]) == 0
    document = strict_json(capsys.readouterr().out)
    assert [game["forfeit"]["player"] for game in document["games"]] == ["B", "B"]
    assert document["summary"]["forfeits_b"] == 2
    assert main(["arena", "random", FAILS, "--games", "2", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["forfeit"] for row in rows] == ["B:crash", "B:crash"]
    assert main(["arena", "random", FAILS, "--games", "2"]) == 0
    assert "forfeits: A 0, B 2" in capsys.readouterr().out


def test_players_are_closed_on_ctrl_c(monkeypatch):
    closed = []

    class Interrupted(RandomPlayer):
        def choose(self, board):
            raise KeyboardInterrupt

        def close(self):
            closed.append(self)

    real = tournament.make_player

    def make(spec, seed=None, **kw):
        return Interrupted(seed) if str(spec) == STOPS else real(spec, seed, **kw)
    monkeypatch.setattr(tournament, "make_player", make)
    report = run_arena(ArenaConfig("random", STOPS, games=4, swap=False))
    assert report.interrupted and report.games == [] and len(closed) == 1


# -- --time

def timed(spelling, seconds):
    return str(PlayerSpec.parse(spelling, open_time=True).timed(seconds))


def test_time_goes_to_the_players_that_take_one():
    assert timed("ai:time", 0.05) == "ai:time=0.05"
    assert PlayerSpec.parse('engine:"old/bin/python -m mancala engine"').timed(0.25) == \
        PlayerSpec("engine", command="old/bin/python -m mancala engine", time=0.25)
    assert timed('engine:"x"@0.2', 0.1) == 'engine:"x"@0.2'
    for spec in ("random", "ai:depth=3", "ai:time=0.5", "ai:hard"):
        assert timed(spec, 0.1) == spec
    config = ArenaConfig("ai:time", "random", games=2, time=0.01)
    assert tuple(map(str, config.specs)) == ("ai:time=0.01", "random")
    assert config.untimed() == ["random"]
    with pytest.raises(ValueError, match="needs the arena's time"):
        ArenaConfig("ai:time", "random", games=2)
    with pytest.raises(ValueError, match="time is seconds"):
        ArenaConfig("random", "random", time=0)


def test_time_option_in_the_command(capsys):
    assert main(["arena", "ai:time", "random", "--time", "0.01", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "time: 0.01 s per move; random takes no time and plays as given" in out
    with pytest.raises(SystemExit):
        main(["arena", "ai:time", "random", "--games", "2"])
    err = capsys.readouterr().err
    assert "needs --time" in err and len(err.strip().splitlines()) == 1


# -- the command

def test_openings_default_to_one_pair_each_and_json_carries_the_statistics(capsys):
    assert main(["arena", "ai:depth=2", "random", "--openings", "1", "--sprt", "0", "50",
                 "--json"]) == 0
    document = strict_json(capsys.readouterr().out)
    assert document["config"]["games"] == 14 and document["config"]["openings"] == 1
    summary = document["summary"]
    assert sum(summary["pentanomial"]) == summary["pairs"] == summary["games"] // 2
    assert summary["elo_model"] == "pentanomial"
    assert set(summary["sprt"]) >= {"llr", "lower", "upper", "verdict", "elo0", "elo1"}
    assert [game["opening_indices"] for game in document["games"]][:4] == ["", "", "0", "0"]


def test_text_shows_elo_and_sprt(capsys):
    assert main(["arena", "random", "random", "--games", "4", "--sprt", "-10", "10"]) == 0
    out = capsys.readouterr().out
    assert "Elo of A:" in out and "pentanomial over 2 pairs" in out
    assert "SPRT Elo -10 vs 10" in out and "inconclusive" in out
