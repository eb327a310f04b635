"""``python -m mancala arena`` and mancala.arena: small tournaments between fast players.

Serial and parallel runs must give the same games, the same command the same
table, and the win-rate interval the numbers worked out by hand. In-process
through ``mancala.cli.main(argv)``, plus one real ``python -m mancala arena``.
"""
import csv
import dataclasses
import io
import json
import multiprocessing
import os
import pathlib
import subprocess
import sys

import pytest

from mancala.arena import tournament
from mancala.arena import ArenaConfig, game_seed, run_arena
from mancala.arena.results import OUTPUT_NAMES, GameResult, summarise
from mancala.stats import wilson_interval
from conftest import played_games
from mancala.cli import main
from mancala.game import Game
from mancala.players import PlayerSpecError

ROOT = pathlib.Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("empty_endgame_cache")
TIMES = ("a_time", "b_time")


def arena_json(capsys, *args):
    code = main(["arena", "--json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def result(index, outcome, margin, a_moves=10, b_moves=10, a_time=0.0, b_time=0.0):
    a_seeds = (48 + margin) // 2
    return GameResult(index, 0, "South" if index % 2 == 0 else "North", outcome, margin,
                      a_seeds, 48 - a_seeds, a_moves + b_moves, a_moves, b_moves,
                      a_time, b_time, str(index))


# -- the confidence interval, by hand
#
# Wilson: with z = 1.959964, z^2 = 3.841459, n = 10, p = score / n and
# d = 1 + z^2/n = 1.3841459:
#   centre = (p + z^2/(2n)) / d        half = z * sqrt(p(1-p)/n + z^2/(4n^2)) / d
# 0 of 10:  centre = 0.1920729 / d = 0.1387664; half = 1.959964 * sqrt(0.0096036) / d
#           = 0.1920729 / d = 0.1387664                         -> [0, 0.2775328]
# 5 of 10:  centre = 0.5; half = 1.959964 * sqrt(0.025 + 0.0096036) / d
#           = 1.959964 * 0.1860204 / d = 0.2634069              -> [0.2365931, 0.7634069]
# 10 of 10: the mirror of 0 of 10                                -> [0.7224672, 1]

@pytest.mark.parametrize("score, low, high", [
    (0, 0.0, 0.2775328),
    (5, 0.2365931, 0.7634069),
    (10, 0.7224672, 1.0),
])
def test_wilson_interval_of_ten_games_matches_the_hand_computation(score, low, high):
    found = wilson_interval(score, 10)
    assert found == pytest.approx((low, high), abs=1e-6)


def test_wilson_interval_ends_are_exact_and_no_games_means_anything():
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_a_draw_counts_as_half_a_win():
    games = [result(0, "A", 10), result(1, "draw", 0), result(2, "B", -4), result(3, "draw", 0)]
    summary = summarise(games)
    assert (summary.games, summary.wins, summary.draws, summary.losses) == (4, 1, 2, 1)
    assert summary.score == 2.0 and summary.win_rate == 0.5
    assert (summary.ci_low, summary.ci_high) == wilson_interval(2.0, 4)
    assert summary.mean_margin == pytest.approx(1.5)


def test_time_per_move_is_over_all_moves_not_an_average_of_games():
    games = [result(0, "A", 2, a_moves=1, a_time=1.0, b_moves=4, b_time=4.0),
             result(1, "A", 2, a_moves=3, a_time=0.0, b_moves=4, b_time=0.0)]
    summary = summarise(games)
    assert summary.a_time_per_move == pytest.approx(0.25)
    assert summary.b_time_per_move == pytest.approx(0.5)


def test_no_games_summarise_to_nothing():
    summary = summarise([])
    assert summary.games == 0 and summary.win_rate is None and summary.a_time_per_move is None


# -- playing

def test_parallel_run_plays_exactly_the_serial_games():
    config = ArenaConfig("random", "ai:easy", games=6, seed=7)
    serial, parallel = run_arena(config, workers=1), run_arena(config, workers=2)
    assert parallel.workers == 2
    assert played_games(serial) == played_games(parallel)
    assert dataclasses.replace(serial.summary, a_time_per_move=0, b_time_per_move=0) == \
        dataclasses.replace(parallel.summary, a_time_per_move=0, b_time_per_move=0)
    assert len({game["line"] for game in played_games(serial)}) == 6       # random players differ


def test_each_game_seed_comes_from_the_base_seed_and_index_alone():
    config = ArenaConfig("random", "random", games=4, seed=3)
    report = run_arena(config)
    assert [game.seed for game in report.games] == [game_seed(3, i) for i in range(4)]
    assert game_seed(3, 0) != game_seed(4, 0) and game_seed(3, 0) != game_seed(3, 1)
    other = run_arena(dataclasses.replace(config, seed=4))
    assert played_games(other) != played_games(report)


def test_a_game_replays_alone_from_its_seed_as_the_play_command_would():
    config = ArenaConfig("random", "ai:medium", games=2, seed=11)
    for game in run_arena(config).games:
        specs = ("random", "ai:medium") if game.a_side == "South" else ("ai:medium", "random")
        replay = Game(*specs, seed=game.seed)
        replay.run()
        assert "".join(map(str, replay.moves)) == game.line


def test_sides_alternate_so_each_player_starts_half_the_games():
    report = run_arena(ArenaConfig("ai:depth=2", "alphabeta:2", games=4))
    assert [game.a_side for game in report.games] == ["South", "North", "South", "North"]
    # deterministic players: the same game each time A has the same side
    assert report.games[0].line == report.games[2].line != report.games[1].line
    assert report.summary.distinct == 2
    fixed = run_arena(ArenaConfig("ai:depth=2", "alphabeta:2", games=2, swap=False))
    assert [game.a_side for game in fixed.games] == ["South", "South"]


def test_game_results_add_up():
    report = run_arena(ArenaConfig("random", "minimax:2", games=4, seeds=3, capture="empty"))
    for game in report.games:
        assert game.a_seeds + game.b_seeds == 36
        assert game.margin == game.a_seeds - game.b_seeds
        assert game.result == ("A" if game.margin > 0 else "B" if game.margin < 0 else "draw")
        assert game.plies == game.a_moves + game.b_moves == len(game.line)
        assert game.a_time >= 0 and game.b_time >= 0


def test_ctrl_c_returns_the_games_finished():
    def stop_after_two(result, done, total):
        if done == 2:
            raise KeyboardInterrupt
    for workers in (1, 2):
        report = run_arena(ArenaConfig("random", "random", games=50), workers, stop_after_two)
        assert report.interrupted
        assert report.summary.games == len(report.games) == 2


def _dies_at_game_3(config, index):
    if index == 3:
        os._exit(9)             # as a worker killed by the OOM killer or a crashing engine would
    return real_play_game(config, index)


def _fails_at_game_3(config, index):
    if index == 3:
        raise ValueError("game 3 went wrong")
    return real_play_game(config, index)


real_play_game = tournament.play_game


@pytest.mark.timeout(60)
def test_a_worker_that_dies_is_one_error_and_stops_the_others(monkeypatch):
    # multiprocessing.Pool waited forever here (it restarts the worker; the game is lost)
    monkeypatch.setattr(tournament, "play_game", _dies_at_game_3)       # the workers are forked
    with pytest.raises(RuntimeError, match=r"^an arena worker stopped .*\(exit code 9\)$"):
        run_arena(ArenaConfig("random", "random", games=20), workers=2)
    assert multiprocessing.active_children() == []


@pytest.mark.timeout(60)
def test_an_error_in_a_worker_is_raised_here_and_stops_the_others(monkeypatch):
    monkeypatch.setattr(tournament, "play_game", _fails_at_game_3)
    with pytest.raises(ValueError, match="^game 3 went wrong$"):
        run_arena(ArenaConfig("random", "random", games=20), workers=2)
    assert multiprocessing.active_children() == []


@pytest.mark.timeout(120)
def test_stopping_early_never_waits_for_a_worker_halfway_through_sending():
    # Pool.terminate() hung on the result queue's lock held by a worker it had stopped
    # (CI, and 1 run in ~150 of this loop); every worker now has a pipe of its own
    config = ArenaConfig("ai:depth=3", "random", games=72, openings=2, sprt=(0, 100))
    for _ in range(60):
        report = run_arena(config, workers=2)
        assert report.summary.sprt.verdict == "H1" and not report.interrupted
        assert multiprocessing.active_children() == []


@pytest.mark.parametrize("kwargs", [
    {"player_a": "human"}, {"player_b": "minimax"}, {"games": 0}, {"seeds": 13},
    {"capture": "sometimes"}, {"seed": -1},
])
def test_bad_settings_are_refused(kwargs):
    settings = {"player_a": "random", "player_b": "random", **kwargs}
    with pytest.raises(ValueError):
        ArenaConfig(**settings)


def test_an_unknown_spec_lists_only_the_forms_the_arena_plays():
    with pytest.raises(PlayerSpecError) as caught:
        tournament.check_player("rnadom")
    message = str(caught.value)
    assert "'rnadom'" in message and "minimax:N" in message and "ai:time=S" in message
    assert "human" not in message


# -- the command

def test_the_same_command_twice_gives_the_same_table(capsys):
    args = ["random", "alphabeta:2", "--games", "4", "--seed", "5"]
    code, first, _ = arena_json(capsys, *args)
    _, second, _ = arena_json(capsys, *args)
    assert code == 0
    strip = lambda games: [{k: v for k, v in g.items() if k not in TIMES} for g in games]
    assert strip(first["games"]) == strip(second["games"])
    assert first["summary"]["wins"] == second["summary"]["wins"]


def test_json_report(capsys):
    code, report, err = arena_json(capsys, "random", "ai:depth=2", "--games", "4",
                                   "--workers", "2", "--seeds", "3", "--capture", "none")
    assert code == 0
    assert report["command"] == "arena" and report["workers"] == 2
    assert report["config"] == {"player_a": "random", "player_b": "ai:depth=2", "games": 4,
                                "seeds": 3, "capture": "none", "seed": 0, "swap": True,
                                "openings": None, "time": None, "sprt": None,
                                "sprt_alpha": 0.05, "sprt_beta": 0.05}
    summary = report["summary"]
    assert summary["games"] == summary["wins"] + summary["draws"] + summary["losses"] == 4
    assert 0 <= summary["ci_low"] <= summary["win_rate"] <= summary["ci_high"] <= 1
    assert [game["index"] for game in report["games"]] == [0, 1, 2, 3]
    assert "4/4 games" in err          # progress goes to stderr, plain lines off a terminal


def test_csv_has_one_row_per_game(capsys):
    code = main(["arena", "random", "random", "--games", "3", "--csv", "--no-swap"])
    out, _ = capsys.readouterr()
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [row["index"] for row in rows] == ["0", "1", "2"]
    assert {row["a_side"] for row in rows} == {"South"}
    assert set(rows[0]) == {OUTPUT_NAMES.get(field.name, field.name)
                            for field in dataclasses.fields(GameResult)}
    assert all(set(row["pit_indices"]) <= set("012345") for row in rows)


def test_json_games_name_their_moves_as_pit_indices(capsys):
    assert main(["arena", "random", "random", "--games", "2", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert all("line" not in game and set(game["pit_indices"]) <= set("012345") for game in games)


def test_table_names_the_players_and_the_interval(capsys):
    code = main(["arena", "ai", "ai:easy", "--games", "2"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "A = ai:medium, B = ai:easy" in out        # specs as parse_player spells them
    assert "95% CI" in out and "2 games in" in out


def test_ctrl_c_prints_the_finished_games_and_exits_130(capsys, monkeypatch):
    real = tournament.play_game

    def interrupted_at_three(config, index):
        if index == 3:
            raise KeyboardInterrupt
        return real(config, index)

    monkeypatch.setattr(tournament, "play_game", interrupted_at_three)
    code = main(["arena", "random", "random", "--games", "6"])
    out, err = capsys.readouterr()
    assert code == 130
    assert "3 of 6 games" in out and "interrupted: 3 of 6 games finished" in err


@pytest.mark.parametrize("spec", ["foo", "minimax:0", "ai:depth=x", "human"])
def test_bad_player_spec_is_one_line_error_listing_the_forms(capsys, spec):
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "random", spec])
    assert exit_.value.code != 0
    _, err = capsys.readouterr()
    error = [line for line in err.splitlines() if "error:" in line]
    assert len(error) == 1 and "Traceback" not in err
    assert repr(spec) in error[0] and "alphabeta:N" in error[0] and "ai:depth=N" in error[0]


@pytest.mark.parametrize("args", [["--games", "0"], ["--workers", "x"], ["--seed", "-1"],
                                  ["--seeds", "0"], ["--json", "--csv"],
                                  ["--sprt", "0"], ["--sprt", "0", "x"], ["--sprt-alpha", "1"],
                                  ["--openings", "-1"], ["--time", "0"]])
def test_bad_options_are_argument_errors(capsys, args):
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "random", "random", *args])
    assert exit_.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_real_subprocess():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-m", "mancala", "arena", "random", "alphabeta:2", "--games", "4",
         "--workers", "2"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "random" in done.stdout and "alphabeta:2" in done.stdout and "95% CI" in done.stdout
    assert "4 games in" in done.stdout


def test_progress_is_a_bar_on_a_terminal_and_a_line_per_tenth_otherwise():
    from mancala.cli.arena import _Bar, _Lines
    stream = io.StringIO()
    bar = _Bar(stream)
    for done, outcome in enumerate(["A", "draw", "B"], 1):
        bar(result(done - 1, outcome, 0), done, 3)
    bar.close()
    text = stream.getvalue()
    assert "\r[" + "#" * 30 + "] 3/3 games  A 1-1-1" in text and text.endswith("\r\033[K")
    stream = io.StringIO()
    lines = _Lines(stream)
    for done in range(1, 101):
        lines(result(done - 1, "A", 2), done, 100)
    assert len(stream.getvalue().splitlines()) == 10
