"""mancala.env.KalahEnv (Gymnasium): the rules in lockstep with the pure-Python twin,
rewards from the final position, seeding, Gymnasium's own check_env, rgb_array frames
(Gymnasium's wrappers that collect them, seeds seen in the pits), bad arguments."""
import random
import subprocess
import sys

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="needs the rl extra: pip install -e '.[rl]'")
np = pytest.importorskip("numpy", reason="needs the rl extra: pip install -e '.[rl]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import mancala.env  # noqa: E402
from mancala import _reference  # noqa: E402
from mancala.env import KalahEnv  # noqa: E402
from mancala.errors import GameError, IllegalMoveError, InputError  # noqa: E402


def seen_by(slots, player):
    """The 14 slots from player's side, written out here, not taken from the env."""
    return list(slots) if player == 0 else list(slots[7:14]) + list(slots[0:7])


def final_margin(slots, player):
    south = sum(slots[0:7])
    north = sum(slots[7:14])
    return south - north if player == 0 else north - south


def play_in_lockstep(env, rng, seed, capture_index, most_moves=2000):
    """One episode: random legal agent moves; every observation, mask, reply and
    reward checked against mancala._reference playing the same moves. Returns
    the agent's final margin, or None if the episode had not ended after
    most_moves of the agent's moves."""
    obs, info = env.reset(seed=seed)
    agent = env.agent
    slots, to_move = [env.seeds] * 6 + [0] + [env.seeds] * 6 + [0], 0
    replies = info["opponent_moves"]
    reward, terminated = 0.0, False
    for _ in range(most_moves + 1):
        for pit in replies:
            assert to_move != agent, "the opponent moved on the agent's turn"
            assert pit in _reference.legal_moves(slots, to_move)
            slots, to_move, _ = _reference.play(slots, to_move, pit, capture_index)
        assert terminated == _reference.is_game_over(slots)
        assert obs.tolist() == seen_by(slots, agent)
        assert info["action_mask"].dtype == np.int8
        if terminated:
            margin = final_margin(slots, agent)
            expected = float(margin) if env.reward_kind == "margin" else float(np.sign(margin))
            assert reward == expected and info["margin"] == margin
            return margin
        assert reward == 0.0
        assert to_move == agent
        legal = _reference.legal_moves(slots, to_move)
        assert [pit for pit in range(6) if info["action_mask"][pit]] == legal
        pit = rng.choice(legal)
        slots, to_move, _ = _reference.play(slots, to_move, pit, capture_index)
        obs, reward, terminated, truncated, info = env.step(pit)
        assert truncated is False
        replies = info["opponent_moves"]
    return None


@pytest.mark.parametrize("capture", ["standard", "empty", "none"])
@pytest.mark.parametrize("seeds", range(1, 13))
def test_random_games_follow_the_rules(seeds, capture):
    rng = random.Random(seeds * 10 + len(capture))
    env = KalahEnv(opponent="random", seeds=seeds, capture=capture, side="random",
                   reward=("win", "margin")[seeds % 2])
    margins = [play_in_lockstep(env, rng, seed=game, capture_index=_reference.CAPTURE_RULES.index(capture))
               for game in range(6)]
    assert None not in margins, "an episode did not end"


@pytest.mark.parametrize("opponent", ["ai:easy", "ai:depth=3", "ai:time=0.001", "alphabeta:2",
                                      f'engine:"{sys.executable} -m mancala engine"@0.01'])
def test_engine_opponents_follow_the_rules(opponent):
    env = KalahEnv(opponent=opponent, side="random", reward="margin")
    rng = random.Random(5)
    margins = [play_in_lockstep(env, rng, seed=game, capture_index=0) for game in range(3)]
    env.close()
    assert None not in margins, "an episode did not end"


def test_human_rendering_prints_the_board_at_each_step(capsys):
    env = KalahEnv(opponent="random", render_mode="human")
    env.reset(seed=0)
    env.step(2)
    shown = capsys.readouterr().out
    assert shown.count("agent: South, opponent: random") == 2
    assert "South to move" in shown and "[  1]" in shown      # the store after pit 2's extra turn
    assert env.render() is None


def test_an_extra_turn_returns_to_the_agent_at_once():
    # South's pit 2 (third from the left) holds 4: they land in pits 3, 4, 5 and the store
    #   4 4 4 4 4 4               4 4 4 4 4 4
    # 0             0    ->     0             1
    #   4 4 4 4 4 4               4 4 0 5 5 5
    env = KalahEnv(opponent="random")
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(2)
    assert obs.tolist() == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert info["opponent_moves"] == [] and not terminated
    assert info["action_mask"].tolist() == [1, 1, 0, 1, 1, 1]


def test_the_agent_as_north_sees_its_own_pits_first():
    env = KalahEnv(opponent="random", side="north")
    obs, info = env.reset(seed=7)
    slots = [4] * 6 + [0] + [4] * 6 + [0]
    to_move = 0
    for pit in info["opponent_moves"]:
        slots, to_move, _ = _reference.play(slots, to_move, pit, 0)
    assert info["opponent_moves"] and to_move == 1
    assert obs.tolist() == slots[7:] + slots[:7]
    assert info["side"] == "north"


@pytest.mark.parametrize("opponent", ["ai:easy", "random", "ai:medium"])
def test_the_same_seed_replays_the_same_episodes(opponent):
    def episodes(env, seed):
        trace = []
        actions = random.Random(seed)
        for episode in range(3):
            obs, info = env.reset(seed=seed if episode == 0 else None)
            trace.append(("side", env.agent, tuple(info["opponent_moves"])))
            done = False
            while not done:
                pit = actions.choice(np.flatnonzero(info["action_mask"]).tolist())
                obs, reward, done, _, info = env.step(pit)
                trace.append((pit, tuple(info["opponent_moves"]), reward))
        return trace

    make = lambda: KalahEnv(opponent=opponent, side="random", seeds=3)  # noqa: E731
    first = episodes(make(), 11)
    assert episodes(make(), 11) == first
    env = make()
    episodes(env, 99)
    assert episodes(env, 11) == first        # a seeded reset starts over, whatever came before
    assert any(episodes(make(), seed) != first for seed in (12, 13, 14))


@pytest.mark.parametrize("kwargs", [
    {}, {"side": "north"}, {"side": "random", "opponent": "random"},
    {"reward": "margin", "seeds": 6, "capture": "empty"}, {"seeds": 1, "capture": "none"},
    {"illegal": "penalty", "render_mode": "ansi"},
])
def test_gymnasiums_check_env_passes(kwargs):
    check_env(KalahEnv(**kwargs), skip_render_check=True)


def test_the_module_prefixed_id_imports_the_package_itself():
    code = ("import gymnasium\n"
            "env = gymnasium.make('mancala.env:mancala/Kalah-v0', opponent='random')\n"
            "print(env.reset(seed=0)[0].tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str([4] * 6 + [0] + [4] * 6 + [0])


def test_the_registered_id_makes_the_env():
    env = gymnasium.make(mancala.env.ENV_ID, opponent="random", seeds=5, render_mode="ansi")
    obs, info = env.reset(seed=0)
    assert obs.tolist() == [5] * 6 + [0] + [5] * 6 + [0]
    text = env.render()
    assert "South to move" in text and "agent: South" in text
    check_env(env.unwrapped)
    env.close()


def test_an_empty_pit_raises_or_ends_the_episode_with_the_penalty():
    env = KalahEnv(opponent="random")
    env.reset(seed=0)
    env.step(2)                                   # extra turn: pit 2 is now empty
    with pytest.raises(IllegalMoveError, match="pit 2 is empty"):
        env.step(2)
    env = KalahEnv(opponent="random", illegal="penalty")
    env.reset(seed=0)
    env.step(2)
    obs, reward, terminated, truncated, info = env.step(2)
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, True, False, True)
    with pytest.raises(GameError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("action", [6, -1, 2.0, "2", None, True, np.array([1, 2])])
def test_an_action_outside_the_pits_raises_one_line(action):
    env = KalahEnv(opponent="random", illegal="penalty")
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="an action is a pit 0..5") as caught:
        env.step(action)
    assert "\n" not in str(caught.value)


def test_before_reset_there_is_no_game():
    env = KalahEnv(opponent="random")
    for call in (lambda: env.step(0), env.action_masks):
        with pytest.raises(GameError, match="reset"):
            call()


def test_numpy_integers_are_actions():
    plain, numpy = KalahEnv(opponent="random"), KalahEnv(opponent="random")
    plain.reset(seed=0)
    numpy.reset(seed=0)
    for action, same in ((2, np.int64(2)), (0, np.array(0))):
        assert plain.step(action)[0].tolist() == numpy.step(same)[0].tolist()


@pytest.mark.parametrize("kwargs, words", [
    ({"seeds": 0}, "seeds per pit is a whole number from 1 to 12"),
    ({"seeds": 13}, "seeds per pit is a whole number from 1 to 12"),
    ({"seeds": "4"}, "seeds per pit is a whole number"),
    ({"capture": "steal"}, "unknown capture rule 'steal'"),
    ({"reward": "score"}, "unknown reward 'score'; choose one of win, margin"),
    ({"side": "east"}, "unknown side 'east'; choose one of south, north, random"),
    ({"illegal": "ignore"}, "unknown illegal 'ignore'; choose one of raise, penalty"),
    ({"render_mode": "rgb"}, "unknown render_mode 'rgb'; choose one of ansi, human, rgb_array"),
    ({"opponent": "ai:impossible"}, "unknown player 'ai:impossible'"),
    ({"opponent": "human"}, "the environment plays computer players"),
    ({"opponent": 3}, "unknown player 3"),
])
def test_bad_arguments_are_refused_in_one_line(kwargs, words):
    with pytest.raises(InputError) as caught:
        KalahEnv(**kwargs)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_import_mancala_imports_no_rl_library():
    code = ("import sys, mancala; mancala.Board(); "
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'pyspiel', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_gymnasium_the_package_imports_and_kalahenv_says_what_to_install():
    code = ("import sys; sys.modules['gymnasium'] = None\n"
            "import mancala.env\n"
            "try:\n    mancala.env.KalahEnv\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "mancala.env.KalahEnv needs Gymnasium: pip install 'kalah[rl]'"


# -- render_mode="rgb_array": the board's picture as an array (Pillow, in the rl extra)

needs_pillow = pytest.mark.skipif(__import__("importlib.util").util.find_spec("PIL") is None,
                                  reason="needs Pillow: the rl extra (pip install -e '.[rl]')")
#: the seeds' six colours (mancala/web/static/board.js's palette), written out here
SEED_COLOURS = np.array([[0x2f, 0x6f, 0xa8], [0x3b, 0x8a, 0x5a], [0xb0, 0x41, 0x3b],
                         [0xc0, 0x8a, 0x1f], [0x76, 0x56, 0xa6], [0x2e, 0x8c, 0x8c]])


def seed_pixels(frame, centre, radius):
    """How many pixels within ``radius`` of ``centre`` are (nearly) a seed's colour."""
    height, width, _ = frame.shape
    ys, xs = np.mgrid[0:height, 0:width]
    disc = (xs - centre[0]) ** 2 + (ys - centre[1]) ** 2 <= radius ** 2
    pixels = frame[disc].astype(int)
    distance = np.abs(pixels[:, None, :] - SEED_COLOURS[None, :, :]).sum(axis=2).min(axis=1)
    return int((distance < 30).sum())


@needs_pillow
def test_rgb_array_frames_are_one_shape_all_game_long():
    env = KalahEnv(opponent="random", render_mode="rgb_array")
    first = env.render()                          # before reset: the start, same shape
    obs, info = env.reset(seed=3)
    frames = [first, env.render()]
    rng = random.Random(3)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
        frames.append(env.render())
    assert {(f.shape, f.dtype) for f in frames} == {((240, 640, 3), np.dtype(np.uint8))}
    assert np.array_equal(frames[0], frames[1])                    # both the start, South to move
    assert not np.array_equal(frames[1], frames[2])                # a move changes the picture


@needs_pillow
def test_the_same_game_gives_the_same_frames():
    def frames(seed):
        env = KalahEnv(opponent="ai:easy", render_mode="rgb_array", seeds=3)
        obs, info = env.reset(seed=seed)
        shown = [env.render()]
        for _ in range(4):
            obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
            shown.append(env.render())
            if done:
                break
        return shown

    one, two = frames(8), frames(8)
    assert len(one) == len(two) and all(np.array_equal(a, b) for a, b in zip(one, two))


@needs_pillow
def test_the_seeds_are_painted_in_their_pits():
    from mancala.env.frames import frame
    from mancala.picture import slot_centre
    # South's pits hold 0, 1, 0, 3, 0, 12 (slots 0..5), North's pit 0 (slot 7) 2, the rest empty:
    #        0  0  0  0  0  2
    #   [0]                   [5]
    #        0  1  0  3  0 12
    slots = [0, 1, 0, 3, 0, 12, 5, 2, 0, 0, 0, 0, 0, 0]
    picture = frame(mancala.Board(slots, 0))
    painted = {slot: seed_pixels(picture, slot_centre(slot), 24) for slot in (0, 1, 2, 3, 4, 5, 7, 8, 12)}
    assert painted[0] == painted[2] == painted[4] == painted[8] == painted[12] == 0
    assert 0 < painted[1] < painted[7] < painted[3] < painted[5]
    assert seed_pixels(frame(mancala.Board([0] * 6 + [36] + [0] * 7, 1)), slot_centre(6), 30) > 0


@needs_pillow
def test_gymnasiums_check_env_and_frame_wrappers_take_rgb_array():
    made = gymnasium.make(mancala.env.ENV_ID, opponent="random", render_mode="rgb_array")
    check_env(made.unwrapped)         # made: its spec lets check_env try every render mode
    env = gymnasium.wrappers.RenderCollection(gymnasium.make(mancala.env.ENV_ID, opponent="random",
                                                             render_mode="rgb_array"))
    obs, info = env.reset(seed=0)
    for _ in range(3):
        obs, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    collected = env.render()
    assert len(collected) == 4 and {f.shape for f in collected} == {(240, 640, 3)}
    pixels = gymnasium.wrappers.AddRenderObservation(
        KalahEnv(render_mode="rgb_array", opponent="random"), render_only=True)
    obs, _ = pixels.reset(seed=0)
    assert obs.shape == pixels.observation_space.shape == (240, 640, 3)


def test_without_pillow_rgb_array_says_what_to_install():
    code = ("import sys; sys.modules['PIL'] = None\n"
            "from mancala.env import KalahEnv\n"
            "KalahEnv(render_mode='ansi')\n"
            "try:\n    KalahEnv(render_mode='rgb_array')\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "render_mode='rgb_array' needs Pillow: pip install 'kalah[rl]'"


@needs_pillow
def test_the_docs_frame_is_what_the_environment_renders():
    import importlib.util
    import pathlib
    from PIL import Image
    folder = pathlib.Path(__file__).resolve().parents[1] / "docs" / "pictures" / "library"
    spec = importlib.util.spec_from_file_location("draw_library", folder / "draw.py")
    draw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(draw)
    committed = np.asarray(Image.open(folder / "rgb-array.png").convert("RGB"))
    drawn = draw.rgb_array_frame()
    assert committed.shape == drawn.shape == (240, 640, 3)
    # another Pillow's text may differ by a pixel's shade: the picture, not every byte
    assert np.abs(committed.astype(int) - drawn).mean() < 1.0, \
        "rgb-array.png is stale: python docs/pictures/library/draw.py"
