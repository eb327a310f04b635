"""mancala.env.pettingzoo (the AEC environment): rules in lockstep with the pure-Python
twin, rewards from the final position, PettingZoo's own tests, illegal moves, rgb_array
frames, bad arguments."""
import random

import pytest

pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")
np = pytest.importorskip("numpy", reason="needs the rl extra: pip install -e '.[rl]'")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import mancala  # noqa: E402
from mancala import _reference  # noqa: E402
from mancala.env import pettingzoo as kalah  # noqa: E402
from mancala.errors import IllegalMoveError, InputError  # noqa: E402

AGENTS = ["player_0", "player_1"]


def seen_by(slots, player):
    return list(slots) if player == 0 else list(slots[7:14]) + list(slots[0:7])


def expected_rewards(slots, reward):
    margin = sum(slots[0:7]) - sum(slots[7:14])
    south = float(margin) if reward == "margin" else float(np.sign(margin))
    return {"player_0": south, "player_1": -south}


def play_in_lockstep(game, rng, capture_index):
    """A random game through agent_iter, checked against mancala._reference move by move.
    Returns how many times an agent moved twice running (extra turns)."""
    game.reset(seed=rng.randrange(100))
    slots, to_move = [game.unwrapped.seeds] * 6 + [0] + [game.unwrapped.seeds] * 6 + [0], 0
    repeats, last_mover, finished = 0, None, set()
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        assert truncated is False
        player = AGENTS.index(agent)
        assert obs["observation"].tolist() == seen_by(slots, player)
        other = game.observe(AGENTS[1 - player])
        assert other["observation"].tolist() == seen_by(slots, 1 - player)
        assert other["action_mask"].tolist() == [0] * 6
        if terminated:
            assert _reference.is_game_over(slots)
            assert reward == expected_rewards(slots, game.unwrapped.reward_kind)[agent]
            assert obs["action_mask"].tolist() == [0] * 6
            finished.add(agent)
            game.step(None)
            continue
        assert not _reference.is_game_over(slots) and reward == 0
        assert player == to_move, "the agent to move is not the rules' side to move"
        legal = _reference.legal_moves(slots, to_move)
        assert [pit for pit in range(6) if obs["action_mask"][pit]] == legal
        repeats += last_mover == agent
        last_mover = agent
        pit = rng.choice(legal)
        slots, to_move, _ = _reference.play(slots, to_move, pit, capture_index)
        game.step(pit)
    assert finished == set(AGENTS) and game.agents == []
    return repeats


@pytest.mark.parametrize("capture", ["standard", "empty", "none"])
@pytest.mark.parametrize("seeds", range(1, 13))
def test_random_games_follow_the_rules(seeds, capture):
    rng = random.Random(seeds * 7 + len(capture))
    game = kalah.env(seeds=seeds, capture=capture, reward=("win", "margin")[seeds % 2])
    repeats = sum(play_in_lockstep(game, rng, _reference.CAPTURE_RULES.index(capture))
                  for _ in range(6))
    assert repeats > 0, "no extra turn in six games: the test saw too little"


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")  # a dict, as in connect_four
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
def test_pettingzoos_own_tests_pass():
    # what PettingZoo runs on its classic games: str(env) is the name, api_test,
    # seed_test and render_test (max_cycles_test and the parallel tests are not for classic)
    game = kalah.env(render_mode="human")
    assert str(game) == "kalah_v0"
    api_test(game, num_cycles=1000)
    api_test(kalah.env(seeds=3, capture="empty", reward="margin"), num_cycles=1000)
    seed_test(kalah.env, 50)
    render_test(kalah.env, custom_tests={"ansi": lambda text: "to move" in text or "game over" in text})


def test_an_extra_turn_keeps_the_agent():
    # South's pit 2 holds 4: pits 3, 4, 5, then the store (worked by hand)
    game = kalah.env()
    game.reset()
    game.step(2)
    assert game.agent_selection == "player_0"
    assert game.observe("player_0")["observation"].tolist() == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert game.observe("player_1")["observation"].tolist() == [4, 4, 4, 4, 4, 4, 0, 4, 4, 0, 5, 5, 5, 1]
    game.step(0)                 # pit 0's 4 seeds end in pit 4: North's turn
    assert game.agent_selection == "player_1"


def test_an_illegal_move_loses_as_in_the_classic_games(caplog):
    game = kalah.env()
    game.reset()
    game.step(2)
    game.step(2)                 # now empty
    assert "Illegal move" in caplog.text
    assert game.rewards == {"player_0": -1, "player_1": 0}
    assert all(game.terminations.values())


def test_the_raw_env_raises_on_an_illegal_move():
    game = kalah.raw_env()
    game.reset()
    game.step(2)
    with pytest.raises(IllegalMoveError) as caught:
        game.step(2)
    assert "\n" not in str(caught.value)
    with pytest.raises(IllegalMoveError, match="a pit is 0..5, not 6"):
        game.step(6)


@pytest.mark.parametrize("kwargs, words", [
    ({"seeds": 0}, "seeds per pit is a whole number from 1 to 12"),
    ({"seeds": 2.5}, "seeds per pit is a whole number from 1 to 12"),
    ({"capture": "steal"}, "unknown capture rule 'steal'"),
    ({"reward": "score"}, "unknown reward 'score'; choose one of win, margin"),
    ({"render_mode": "rgb"}, "unknown render_mode 'rgb'; choose one of human, ansi, rgb_array"),
])
def test_bad_arguments_are_refused_in_one_line(kwargs, words):
    with pytest.raises(InputError) as caught:
        kalah.env(**kwargs)
    assert words in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.skipif(__import__("importlib.util").util.find_spec("PIL") is None,
                    reason="needs Pillow: the rl extra (pip install -e '.[rl]')")
def test_rgb_array_frames_show_each_position_in_one_shape():
    from mancala.env.frames import frame
    game = kalah.env(render_mode="rgb_array")
    game.reset()
    shown = []
    rng = random.Random(4)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        picture = game.render()
        # the picture of the position the agent sees, drawn again from its own board
        assert np.array_equal(picture, frame(mancala.Board(game.unwrapped.board.pits,
                                                            game.unwrapped.board.to_move)))
        shown.append(picture)
        game.step(None if terminated else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert {(f.shape, f.dtype) for f in shown} == {((240, 640, 3), np.dtype(np.uint8))}
    assert not np.array_equal(shown[0], shown[1])
