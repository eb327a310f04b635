"""The computer levels on one Elo scale (mancala.levels): how a weak level plays, judged
against the twin's full-width search and exact solves; ai:elo=N; the shipped table's
shape; ``python -m mancala levels --json`` as a subprocess.

"Absurd", defined here and in mancala.levels: a move scored more than 4 seeds below
the best move, both scored by the level's own search (N moves deep, the move itself
counted, leaves by store difference). No level above random ever plays one.
"""
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

import mancala
from mancala import _reference
from mancala.levels import EloPlayer, elo_range, mixture, softmax_weights
from mancala.players import parse_player
from mancala.rating import level_elo, level_table
from mancala.specs import PlayerSpec

from conftest import depth_limited_values

ABSURD = 4          # seeds: the definition above, written out (not read from the code)
ROOT = Path(__file__).resolve().parent.parent


def midgames(count, seed, most_seeds=48):
    """Kalah(6,4) positions met along random play-outs, at most ``most_seeds`` in the
    pits, with a choice to make (two legal moves or more)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board = mancala.Board()
        for _ in range(rng.randint(0, 40)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        in_pits = sum(board.pits) - board.pits[6] - board.pits[13]
        if not board.is_game_over() and len(board.legal_moves) >= 2 and in_pits <= most_seeds:
            found.append(board)
    return found


def tactical(board, pit):
    """The move captures or earns an extra turn (the twin's rules)."""
    _, to_move, captured = _reference.play(board.pits, board.to_move, pit, 0)
    return captured > 0 or to_move == board.to_move


# -- the softmax, by hand ----------------------------------------------------------------

def test_the_softmax_weighs_moves_by_their_scores_and_never_an_absurd_one():
    # scores 3, 2 and -6 at temperature 1: e**0 and e**-1 share it; -6 is 9 below: absurd
    weights = softmax_weights({0: 3, 1: 2, 2: -6}, 1.0)
    assert weights[0] == pytest.approx(1 / (1 + math.exp(-1)))
    assert weights[1] == pytest.approx(math.exp(-1) / (1 + math.exp(-1)))
    assert weights[2] == 0
    # exactly 4 below is allowed, 5 below is not, however hot
    weights = softmax_weights({0: 5, 3: 1, 4: 0}, 100.0)
    assert weights[3] == pytest.approx(math.exp(-0.04) / (1 + math.exp(-0.04)))
    assert weights[4] == 0
    # temperature 0: the best moves share it
    assert softmax_weights({0: 1, 2: 1, 5: 0}, 0.0) == {0: 0.5, 2: 0.5, 5: 0.0}


# -- a weak level plays like a weaker player --------------------------------------------

WEAK = ["ai:depth=1,temp=2", "ai:easy"]         # the weakest level of the table, and easy


def level_depth(spec):
    player = parse_player(spec)
    return player.depth, player.temperature


@pytest.mark.parametrize("spec", WEAK)
def test_a_weak_level_prefers_good_moves_and_never_plays_an_absurd_one(spec):
    depth, temperature = level_depth(spec)
    assert temperature > 0
    player = parse_player(spec, seed=5)
    boards = midgames(120, seed=2)
    best = tactics = 0
    chance_best = chance_tactics = spread = 0.0
    absurd_possible = 0
    for board in boards:
        values = depth_limited_values(board.pits, board.to_move, depth, 0)   # the twin, full width
        top = max(values.values())
        absurd_possible += min(values.values()) < top - ABSURD
        for _ in range(3):
            pit = player.choose(board)
            assert player.last.score == values[pit]                  # the engine scored it as the twin
            assert values[pit] >= top - ABSURD, (board.pits, values, pit)   # never absurd
            best += values[pit] == top
            tactics += tactical(board, pit)
        # what a uniformly random player would do, three times
        p_best = sum(value == top for value in values.values()) / len(values)
        p_tactic = sum(tactical(board, pit) for pit in values) / len(values)
        chance_best += 3 * p_best
        chance_tactics += 3 * p_tactic
        spread += 3 * (p_best * (1 - p_best) + p_tactic * (1 - p_tactic))
    assert absurd_possible >= 5             # the positions offered absurd moves to refuse
    margin = 3 * math.sqrt(spread)          # three standard deviations of chance
    assert best > chance_best + margin, (best, chance_best)
    assert tactics > chance_tactics + margin, (tactics, chance_tactics)


def test_a_weak_level_still_misses_good_moves_sometimes():
    """Not a strong engine with random blunders: the easy level plays the best move
    most of the time, a lesser one (never absurd) now and then."""
    player = parse_player("ai:easy", seed=9)
    boards = midgames(120, seed=4)
    lesser = 0
    for board in boards:
        values = depth_limited_values(board.pits, board.to_move, 2, 0)
        pit = player.choose(board)
        lesser += values[pit] < max(values.values())
    assert 0.1 * len(boards) < lesser < 0.5 * len(boards)


def test_stronger_levels_play_the_perfect_move_more_often():
    """Over positions whose perfect moves are known (exact solves), each level up the
    table plays one more often than the level below it."""
    specs = ["random", "ai:depth=1,temp=2", "ai:depth=1,temp=0", "ai:easy", "ai:depth=4,temp=0",
             "ai:medium"]
    elos = [level_elo(spec).elo for spec in specs]
    assert elos == sorted(elos)             # weakest first, by the shipped table
    engine = mancala.Engine(hash_mb=16)
    boards = midgames(150, seed=3, most_seeds=30)
    perfect = [set(engine.optimal_moves(board)) for board in boards]
    rates = []
    for spec in specs:
        player = parse_player(spec, seed=1)
        draws = 4 if spec != "ai:medium" else 1     # medium only breaks ties at random
        hits = sum(player.choose(board) in moves
                   for board, moves in zip(boards, perfect) for _ in range(draws))
        rates.append(hits / (draws * len(boards)))
    assert rates == sorted(rates) and rates[0] < rates[-1] - 0.25, list(zip(specs, rates))


def test_a_seed_repeats_a_levels_choices():
    boards = midgames(30, seed=6)
    for spec in ("ai:depth=1,temp=2", "ai:easy", f"ai:elo={sum(elo_range()) // 2}"):
        picks = [[parse_player(spec, seed=4).choose(board) for board in boards] for _ in range(2)]
        assert picks[0] == picks[1]


# -- ai:elo=N ----------------------------------------------------------------------------------

def test_an_elo_between_two_levels_plays_each_in_proportion():
    table = [level for level in level_table() if level.spec != "random"]
    lower, upper = table[2], table[3]
    elo = round(lower.elo + 0.25 * (upper.elo - lower.elo))
    assert mixture(elo)[:2] == (lower, upper)
    player = EloPlayer(elo, seed=2)
    board = midgames(1, seed=1)[0]
    plays = [player.choose(board) is not None and player.last.note.split(";")[0]
             for _ in range(400)]
    share = plays.count(f"as {upper.spec}") / len(plays)
    expected = (elo - lower.elo) / (upper.elo - lower.elo)
    assert plays.count(f"as {lower.spec}") + plays.count(f"as {upper.spec}") == len(plays)
    assert abs(share - expected) < 3 * math.sqrt(expected * (1 - expected) / len(plays))


def test_at_a_tables_own_elo_ai_elo_plays_that_level_alone():
    ladder = level_table()[1:]
    for lower, upper in zip(ladder, ladder[1:]):
        assert mixture(lower.elo) == (lower, upper, 0.0)
        whole = round(lower.elo)                    # what ai:elo=N can ask: nearly all of it
        assert mixture(whole)[2] <= 0.5 / (upper.elo - lower.elo) + 1e-9 or whole < lower.elo
    assert mixture(ladder[-1].elo) == (ladder[-2], ladder[-1], 1.0)
    lowest, highest = elo_range()
    assert mixture(highest)[1].spec == "ai:perfect"
    with pytest.raises(ValueError):
        mixture(ladder[-1].elo + 1)
    assert level_elo(f"ai:elo={lowest}").elo == lowest
    assert level_elo("ai:elo=01000") is None            # not a canonical spelling
    assert level_elo("ai:elo=nonsense") is None
    assert parse_player(f"ai:elo={highest}").spec == f"ai:elo={highest}"


# -- the shipped table ------------------------------------------------------------------------

def shipped():
    return json.loads((ROOT / "mancala" / "data" / "levels.json").read_text())


def test_the_shipped_table_is_measured_monotone_and_anchored_at_random():
    data = shipped()
    assert data["provisional"] is False
    levels = data["levels"]
    specs = [level["spec"] for level in levels]
    elos = [level["elo"] for level in levels]
    assert specs[0] == "random" and elos[0] == 0 and specs[-1] == "ai:perfect"
    assert elos == sorted(elos)                         # in the ladder's order, weakest first
    assert len(set(elos)) == len(elos)
    assert len(levels) - 2 >= 6                         # six levels or more between random and perfect
    gaps = [b - a for a, b in zip(elos, elos[1:])]
    assert max(gaps) <= 300, list(zip(specs[1:], gaps))
    for name in ("ai:easy", "ai:medium", "ai:hard"):
        assert name in specs
    assert specs.index("ai:easy") < specs.index("ai:medium") < specs.index("ai:hard")
    for level in levels:
        assert str(PlayerSpec.parse(level["spec"])) == level["spec"]
        assert level["low"] <= level["elo"] <= level["high"]
    assert data["measured"]["games"] >= 1000


def test_the_table_holds_the_ladder_the_fit_plays():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import fit_levels
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert [level["spec"] for level in shipped()["levels"]] == fit_levels.LADDER


def test_levels_json_prints_the_table():
    done = subprocess.run([sys.executable, "-m", "mancala", "levels", "--json"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == ""
    rows = json.loads(done.stdout)
    assert [(row["spec"], row["elo"]) for row in rows] == \
        [(level["spec"], level["elo"]) for level in shipped()["levels"]]
    assert all(set(row) == {"spec", "elo", "low", "high"} for row in rows)
    text = subprocess.run([sys.executable, "-m", "mancala", "levels"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    lowest, highest = elo_range()
    assert text.returncode == 0 and f"ai:elo=N plays at any N from {lowest} to {highest}" in text.stdout


# -- the faces show the Elo --------------------------------------------------------------------

def test_the_terminal_menu_shows_each_levels_elo_and_takes_any_elo():
    from mancala.cli.menus import ask_player
    from mancala.cli.play import Terminal
    from mancala.cli.render import Style
    lowest, highest = elo_range()
    shown = []
    answers = iter(["2", "5", "abc", str(highest + 1), str(lowest + 1)])
    spec = ask_player(Terminal(Style(False), out=shown.append, read=lambda prompt: next(answers)),
                      "North", 2)
    assert spec == f"ai:elo={lowest + 1}"
    text = "\n".join(shown)
    for name in ("easy", "medium", "hard", "perfect"):
        assert f"{name:<9}Elo {level_elo('ai:' + name).elo:4.0f}" in text
    assert f"another strength: ai:elo=N, any N from {lowest} to {highest}" in text
    assert text.count(f"is not a whole number from {lowest} to {highest}") == 2


def test_play_help_and_the_web_apps_info_give_the_levels_elo():
    from mancala.cli.play import levels_help
    help_text = subprocess.run([sys.executable, "-m", "mancala", "play", "--help"], capture_output=True,
                               text=True, timeout=60, cwd=ROOT).stdout
    assert " ".join(levels_help().split()) in " ".join(help_text.split())
    assert f"ai:medium {level_elo('ai:medium').elo:.0f}" in levels_help()
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient
    from mancala.web.app import create_app
    info = TestClient(create_app()).get("/api/info").json()
    assert info["level_elo"] == {spec: level_elo(spec).elo
                                 for spec in ("random", "ai:easy", "ai:medium", "ai:hard", "ai:perfect")}
