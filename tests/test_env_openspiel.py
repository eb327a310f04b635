"""mancala.env.openspiel: the python_kalah game move for move against OpenSpiel's own
mancala and against the pure-Python twin, observations, OpenSpiel's checks, EngineBot."""
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the openspiel extra: pip install -e '.[openspiel]'")
np = pytest.importorskip("numpy", reason="needs the openspiel extra: pip install -e '.[openspiel]'")

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

import mancala  # noqa: E402
from mancala import _reference  # noqa: E402
from mancala.env import openspiel as kalah  # noqa: E402
from mancala.errors import InputError  # noqa: E402


def seen_by(slots, player):
    return list(slots) if player == 0 else list(slots[7:14]) + list(slots[0:7])


def test_random_games_agree_move_for_move_with_openspiels_mancala():
    # the mapping, found by playing OpenSpiel's mancala: its board index is (our slot + 1) % 14
    # (index 0 is North's store, 7 South's), its actions are board indices, and its
    # observation tensor is those 14 counts, then the player to move and the move number
    theirs_game = pyspiel.load_game("mancala")
    ours_game = pyspiel.load_game("python_kalah")
    rng = random.Random(14)
    extra_turns = 0
    for _ in range(200):
        theirs, ours = theirs_game.new_initial_state(), ours_game.new_initial_state()
        while not theirs.is_terminal():
            assert not ours.is_terminal()
            player = theirs.current_player()
            assert ours.current_player() == player
            slots = ours.board.pits
            assert [int(x) for x in theirs.observation_tensor(0)[:14]] == \
                [slots[(index - 1) % 14] for index in range(14)]
            assert theirs.legal_actions() == [pit + 1 + 7 * player for pit in ours.legal_actions()]
            pit = rng.choice(ours.legal_actions())
            theirs.apply_action(pit + 1 + 7 * player)
            ours.apply_action(pit)
            extra_turns += ours.current_player() == player
        assert ours.is_terminal()
        assert theirs.returns() == ours.returns()
    assert extra_turns > 100


@pytest.mark.parametrize("capture", ["standard", "empty", "none"])
@pytest.mark.parametrize("seeds", [1, 2, 3, 5, 6, 9, 12])
def test_every_variant_follows_the_rules(seeds, capture):
    game = pyspiel.load_game(f"python_kalah(seeds={seeds},capture={capture})")
    capture_index = _reference.CAPTURE_RULES.index(capture)
    observation = make_observation(game)
    rng = random.Random(seeds)
    for _ in range(5):
        state = game.new_initial_state()
        slots, to_move = [seeds] * 6 + [0] + [seeds] * 6 + [0], 0
        while not _reference.is_game_over(slots):
            assert state.current_player() == to_move
            assert state.legal_actions() == _reference.legal_moves(slots, to_move)
            for player in (0, 1):
                expected = seen_by(slots, player) + [float(player == to_move)]
                assert state.observation_tensor(player) == expected
                observation.set_from(state, player)
                assert observation.tensor.tolist() == expected
            pit = rng.choice(_reference.legal_moves(slots, to_move))
            state.apply_action(pit)
            slots, to_move, _ = _reference.play(slots, to_move, pit, capture_index)
        assert state.is_terminal()
        margin = sum(slots[0:7]) - sum(slots[7:14])
        assert state.returns() == [float(np.sign(margin)), -float(np.sign(margin))]


def test_openspiels_random_simulation_check_passes():
    for spec in ("python_kalah", "python_kalah(seeds=3,capture=none)"):
        pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=20, serialize=False, verbose=False)


def test_openspiels_python_mcts_plays_it():
    game = pyspiel.load_game("python_kalah(seeds=2)")
    rng = np.random.RandomState(0)
    bots = [mcts.MCTSBot(game, 2, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
            kalah.EngineBot(game, 1, "random", seed=0)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert returns[0] in (-1.0, 0.0, 1.0) and sum(returns) == 0


def test_openspiels_alpha_beta_solves_a_small_variant_as_our_solver_does():
    from open_spiel.python.algorithms import minimax
    game = pyspiel.load_game("python_kalah(seeds=1,capture=empty)")
    value, _ = minimax.alpha_beta_search(game, maximum_depth=game.max_game_length(),
                                         maximizing_player_id=0)
    exact = mancala.Engine(hash_mb=1).solve(mancala.Board(seeds=1, capture="empty")).score
    assert value == float(np.sign(exact)) != 0


def test_the_game_knows_its_parameters_and_sizes():
    game = pyspiel.load_game("python_kalah(seeds=5,capture=empty)")
    assert game.get_parameters() == {"seeds": 5, "capture": "empty"}
    assert game.num_distinct_actions() == 6
    assert game.observation_tensor_shape() == [15]
    # 60 seeds: at most 60 store-filling moves and 6 * 60 row moves between two of them
    assert game.max_game_length() == 60 + 61 * 360


@pytest.mark.parametrize("spec, words", [
    ("python_kalah(seeds=0)", "seeds per pit is a whole number from 1 to 12, not 0"),
    ("python_kalah(seeds=13)", "seeds per pit is a whole number from 1 to 12, not 13"),
    ("python_kalah(capture=steal)", "unknown capture rule 'steal'"),
])
def test_bad_parameters_are_refused_in_one_line(spec, words):
    with pytest.raises(InputError) as caught:
        pyspiel.load_game(spec)
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("depth", [1, 4, 7])
def test_engine_bot_plays_the_engines_move_on_both_games(depth):
    ours, theirs = pyspiel.load_game("python_kalah"), pyspiel.load_game("mancala")
    rng = random.Random(depth)
    for _ in range(10):
        board = mancala.Board()
        state_ours, state_theirs = ours.new_initial_state(), theirs.new_initial_state()
        for _ in range(rng.randrange(1, 15)):
            if board.is_game_over():
                break
            pit, player = rng.choice(board.legal_moves), board.to_move
            board.push(pit)
            state_ours.apply_action(pit)
            state_theirs.apply_action(pit + 1 + 7 * player)
        if board.is_game_over():
            continue
        player = board.to_move
        expected = mancala.Engine(hash_mb=1).search(board, depth=depth).move
        assert kalah.EngineBot(ours, player, f"ai:depth={depth}").step(state_ours) == expected
        assert kalah.EngineBot(theirs, player, f"ai:depth={depth}").step(state_theirs) == \
            expected + 1 + 7 * player


def test_engine_bot_beats_a_random_bot():
    game = pyspiel.load_game("mancala")
    wins = 0
    for seat in (0, 1):
        for seed in range(3):
            bots = [None, None]
            bots[seat] = kalah.EngineBot(game, seat, "ai:depth=4")
            bots[1 - seat] = kalah.EngineBot(game, 1 - seat, "random", seed=seed)
            wins += evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random)[seat] == 1
    assert wins >= 5


@pytest.mark.parametrize("args, words", [
    (("tic_tac_toe", 0, "ai:easy"), "EngineBot plays python_kalah or mancala, not 'tic_tac_toe'"),
    (("mancala", 2, "ai:easy"), "player_id is 0 (South) or 1 (North), not 2"),
    (("mancala", 0, "ai:best"), "unknown player 'ai:best'"),
    (("mancala", 0, "human"), "the environment plays computer players"),
])
def test_engine_bot_refuses_bad_arguments_in_one_line(args, words):
    name, player, level = args
    with pytest.raises(InputError) as caught:
        kalah.EngineBot(pyspiel.load_game(name), player, level)
    assert words in str(caught.value) and "\n" not in str(caught.value)
