"""VectorEnv (mancala.vector): n boards stepped at once in C, held move for move
against mancala.Board, with the opponent's searches held against the twin
(mancala._reference)."""
import pathlib
import random
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy", reason="the vectorized environment needs NumPy: pip install -e '.[vector]'")

from mancala import CAPTURE_RULES, Board, _reference, _vector  # noqa: E402
from mancala.errors import (IllegalMoveError, InvalidLimitError, InvalidRuleError,  # noqa: E402
                            PlayerSpecError)
from mancala.vector import VectorEnv  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def view(slots, side):
    """14 slots seen from ``side`` (0 South, 1 North): its pits and store first."""
    slots = list(slots)
    return slots if side == 0 else slots[7:] + slots[:7]


def check_observation(obs, info, i, board):
    assert obs[i].tolist() == view(board.pits, board.to_move), i
    assert info["to_move"][i] == board.to_move, i
    assert np.flatnonzero(info["action_mask"][i]).tolist() == board.legal_moves, i


def check_finished(result, i, board, side, reward="win"):
    """Board i's game ended in this step: final info seen from ``side``, then a fresh start."""
    obs, rewards, terminations, _, info = result
    assert terminations[i], i
    final = view(board.pits, side)
    assert info["final_observation"][i].tolist() == final, i
    outcome = board.outcome()
    margin = outcome.margin if side == 0 else -outcome.margin
    assert final[6] - final[13] == margin
    assert info["final_score"][i] == margin, i
    paid = margin if reward == "margin" else (margin > 0) - (margin < 0)
    assert rewards[i] == paid, i


def check_going_on(result, i, board):
    obs, rewards, terminations, _, info = result
    assert not terminations[i] and rewards[i] == 0, i
    assert info["final_observation"][i].tolist() == [0] * 14 and info["final_score"][i] == 0, i
    check_observation(obs, info, i, board)


def random_steps(env, most_steps):
    """Step env with random pits at most most_steps times: (the step's result, the pits)."""
    for _ in range(most_steps):
        actions = env.sample_actions()
        yield env.step(actions), actions.tolist()


def play_selfplay(env, seeds, capture, games, reward="win", most_steps=3000):
    """Step env and one Board a board together until ``games`` games have
    finished (or most_steps steps); returns the games finished."""
    boards = [Board(seeds=seeds, capture=capture) for _ in range(env.num_envs)]
    finished = 0
    for result, pits in random_steps(env, most_steps):
        assert not result[3].any()      # truncations: never
        for i, pit in enumerate(pits):
            board = boards[i]
            assert pit in board.legal_moves, (i, pit)
            record = board.push(pit)
            if record.game_over:
                check_finished(result, i, board, record.player, reward)
                finished += 1
                boards[i] = Board(seeds=seeds, capture=capture)
                check_observation(result[0], result[4], i, boards[i])
            else:
                check_going_on(result, i, board)
        if finished >= games:
            break
    return finished


@pytest.mark.parametrize("capture", CAPTURE_RULES)
@pytest.mark.parametrize("seeds", range(1, 13))
def test_self_play_agrees_with_board_move_for_move(seeds, capture):
    n = 24
    env = VectorEnv(n, seeds=seeds, capture=capture, seed=seeds)
    obs, info = env.reset()
    for i in range(n):
        check_observation(obs, info, i, Board(seeds=seeds, capture=capture))
    # every game ends (a step ahead of the cap: capture none with 12 seeds takes ~400 moves)
    assert play_selfplay(env, seeds, capture, games=2 * n) >= 2 * n


@pytest.mark.parametrize("capture", CAPTURE_RULES)
@pytest.mark.parametrize("seeds", [1, 4, 6, 12])
def test_self_play_agrees_with_the_pure_python_twin(seeds, capture):
    """The twin sows seed by seed in Python: independent of csrc/kalah.h, which
    both the env and Board play by."""
    n, code = 16, CAPTURE_RULES.index(capture)
    start = [seeds] * 6 + [0] + [seeds] * 6 + [0]
    games = [(start, 0)] * n
    env = VectorEnv(n, seeds=seeds, capture=capture, seed=100 + seeds)
    env.reset()
    finished = 0
    while finished < n:
        actions = env.sample_actions()
        obs, rewards, terminations, _, info = env.step(actions)
        for i, pit in enumerate(actions.tolist()):
            slots, mover = games[i]
            after, next_mover, _ = _reference.play(slots, mover, pit, code)
            if _reference.is_game_over(after):
                margin = _reference.score(after, mover)
                assert terminations[i] and info["final_score"][i] == margin
                assert info["final_observation"][i].tolist() == view(after, mover)
                assert rewards[i] == (margin > 0) - (margin < 0)
                finished += 1
                after, next_mover = start, 0
            else:
                assert not terminations[i] and rewards[i] == 0
            assert obs[i].tolist() == view(after, next_mover) and info["to_move"][i] == next_mover
            games[i] = (after, next_mover)


def test_margin_rewards_pay_the_final_store_difference():
    env = VectorEnv(16, seeds=2, capture="empty", seed=5, reward="margin")
    env.reset()
    assert play_selfplay(env, 2, "empty", games=32, reward="margin") >= 32


def opponent_chains(board, allowed):
    """Every way North's replies can go from ``board`` (North to move) until South
    is to move or the game ends: (pits, board after them). ``allowed(board)``
    gives the pits North may choose in a position."""
    if board.to_move == 0 or board.is_game_over():
        return [((), board)]
    chains = []
    for pit in allowed(board):
        child = board.copy(stack=False)
        child.push(pit)
        chains += [((pit,) + rest, end) for rest, end in opponent_chains(child, allowed)]
    return chains


def twin_best_pits(depth, capture):
    """The pits whose value at ``depth`` equals the twin's alpha-beta value there."""
    def allowed(board):
        slots, mover = board.pits, board.to_move
        best = _reference.alphabeta(slots, mover, depth, capture)[0]
        return [pit for pit in board.legal_moves
                if twin_move_value(slots, mover, pit, depth, capture) == best]
    return allowed


def twin_move_value(slots, mover, pit, depth, capture):
    """The value for ``mover`` of playing ``pit``, then searching depth - 1 (the twin's minimax)."""
    child, after, _ = _reference.play(slots, mover, pit, capture)
    if depth == 1 or _reference.is_game_over(child):
        value = _reference.evaluate(child, after, capture, _reference.STORE)
    else:
        value = _reference.minimax(child, after, depth - 1, capture)[0]
    return value if after == mover else -value


def play_against(env, seeds, capture, allowed, games, most_steps=1000):
    """Step env (agent South) with random pits until ``games`` games have finished
    (or most_steps steps); every board's opponent replies must be one of the
    chains ``allowed`` permits. Returns the games finished."""
    boards = [Board(seeds=seeds, capture=capture) for _ in range(env.num_envs)]
    finished = 0
    for result, pits in random_steps(env, most_steps):
        obs, info = result[0], result[4]
        for i, pit in enumerate(pits):
            board = boards[i]
            assert board.to_move == 0 and pit in board.legal_moves
            board.push(pit)
            chains = opponent_chains(board, allowed)
            if result[2][i]:
                ends = [end for _, end in chains if end.is_game_over()
                        and view(end.pits, 0) == info["final_observation"][i].tolist()]
                assert ends, f"board {i}: no allowed replies end the game as the env did"
                check_finished(result, i, ends[0], 0)
                boards[i] = Board(seeds=seeds, capture=capture)
                check_observation(obs, info, i, boards[i])
                finished += 1
            else:
                ends = [end for _, end in chains if not end.is_game_over()
                        and end.pits == obs[i].tolist()]
                assert ends, f"board {i}: no allowed replies reach the env's position"
                assert info["to_move"][i] == 0
                boards[i] = ends[0]
                check_going_on(result, i, boards[i])
        if finished >= games:
            break
    return finished


@pytest.mark.parametrize("seeds,capture", [(1, "standard"), (3, "empty"), (4, "standard"), (6, "none")])
def test_random_opponent_plays_legal_replies_for_north(seeds, capture):
    env = VectorEnv(16, seeds=seeds, capture=capture, opponent="random", seed=11)
    env.reset()
    assert play_against(env, seeds, capture, lambda board: board.legal_moves, games=32) >= 32


@pytest.mark.parametrize("depth,seeds,capture", [(1, 3, "standard"), (2, 2, "empty"), (3, 4, "standard"),
                                                 (4, 2, "none")])
def test_ai_opponent_replies_are_optimal_at_its_depth(depth, seeds, capture):
    env = VectorEnv(6, seeds=seeds, capture=capture, opponent=f"ai:depth={depth}", seed=3)
    env.reset()
    allowed = twin_best_pits(depth, CAPTURE_RULES.index(capture))
    assert play_against(env, seeds, capture, allowed, games=6) >= 6


def test_the_deepest_ai_opponent_plays_legal_replies():
    env = VectorEnv(4, seeds=3, opponent="ai:depth=8", seed=1)
    env.reset()
    assert play_against(env, 3, "standard", lambda board: board.legal_moves, games=4) >= 4


def test_a_numpy_integer_is_a_board_count():
    assert VectorEnv(np.int64(3)).num_envs == 3


def random_positions(count, rng):
    """Positions from random play-outs of random starts (the game still on), from the mover's view."""
    out = []
    while len(out) < count:
        board = Board(seeds=rng.randint(1, 6), capture=rng.choice(CAPTURE_RULES))
        for _ in range(rng.randint(0, 30)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            out.append((view(board.pits, board.to_move), CAPTURE_RULES.index(board.capture)))
    return out


@pytest.mark.parametrize("depth", range(1, 7))
def test_c_alphabeta_matches_the_twin(depth):
    rng = random.Random(depth)
    for slots, capture in random_positions(12 if depth < 6 else 4, rng):
        value = _reference.alphabeta(slots, 0, depth, capture)[0]
        pit, c_value = _vector.best_pit(slots, depth, capture)
        assert c_value == value, slots
        assert twin_move_value(slots, 0, pit, depth, capture) == value, (slots, pit)


def test_the_same_seed_gives_the_same_games_and_another_seed_others():
    def run(env, steps=30):
        out = [env.reset()[0].copy()]
        for _ in range(steps):
            out.append(env.step(env.sample_actions())[0].copy())
        return np.stack(out)
    first = run(VectorEnv(32, opponent="random", seed=42))
    assert np.array_equal(first, run(VectorEnv(32, opponent="random", seed=42)))
    other = VectorEnv(32, opponent="random", seed=7)
    assert not np.array_equal(first, run(other))
    other.reset(seed=42)        # reseeding: the same games again
    assert np.array_equal(first[1:], np.stack([other.step(other.sample_actions())[0].copy()
                                               for _ in range(30)]))


def test_the_arrays_returned_are_read_only_and_copy_true_gives_new_ones():
    env = VectorEnv(4, seed=3)
    obs, info = env.reset()
    with pytest.raises(ValueError, match="read-only"):
        obs[0, 0] = 99
    with pytest.raises(ValueError, match="read-only"):
        info["action_mask"][:] = False
    before = obs.copy()
    stepped = env.step(env.sample_actions())[0]
    assert stepped is obs and not np.array_equal(before, obs)   # the env's own array, rewritten
    env = VectorEnv(4, seed=3, copy=True)
    obs, info = env.reset()
    kept = obs.copy()
    obs[0, 0] = 99                                              # the caller's own copy
    result = env.step(env.sample_actions())
    assert result[0] is not obs and obs[0, 0] == 99 and np.array_equal(obs[1:], kept[1:])
    assert all(a.flags.writeable for a in result[:4])


def test_reset_restarts_every_board():
    env = VectorEnv(8, seeds=5, seed=1)
    for _ in range(7):
        env.step(env.sample_actions())
    obs, info = env.reset()
    assert obs.tolist() == [[5] * 6 + [0] + [5] * 6 + [0]] * 8
    assert info["to_move"].tolist() == [0] * 8 and info["action_mask"].all()


def pit_counts(pits):
    return np.bincount(pits, minlength=6).tolist()


def test_sample_actions_and_the_random_opponent_are_uniform_over_legal_pits():
    n = 6000
    env = VectorEnv(n, opponent="random", seed=9)
    env.reset()
    first = env.sample_actions()
    # 6000 draws of 6 pits: 1000 each, standard deviation about 29
    assert all(850 < c < 1150 for c in pit_counts(first)), pit_counts(first)
    # South's pit 0 (4 seeds) ends in its pit 4; then North's pit 2 ends in its
    # store (an extra turn: a chain), each of the other five is a single reply
    obs = env.step(np.zeros(n, np.int64))[0]
    start = Board()
    start.push(0)
    replies = {}
    for pit in start.legal_moves:
        after = start.copy(stack=False)
        after.push(pit)
        if after.to_move == 0:
            replies[tuple(after.pits)] = pit
    seen = [replies.get(tuple(row)) for row in obs.tolist()]
    chose = [s for s in seen if s is not None]
    assert len(chose) > 4000       # all but the extra-turn chains of pit 2
    counts = pit_counts(np.array(chose))
    assert counts[2] == 0 and all(850 < c < 1150 for i, c in enumerate(counts) if i != 2), counts


def test_an_illegal_pit_names_the_board_and_changes_nothing():
    env = VectorEnv(4, seeds=1, seed=2)
    env.reset()
    env.step([5, 5, 5, 0])          # boards 0..2: the extra turn's pit 5; board 3: pit 0 sows into pit 1
    with pytest.raises(IllegalMoveError, match=r"^board 0: pit 5 is empty; legal pits: 0, 1, 2, 3, 4$"):
        env.step([5, 0, 0, 0])
    with pytest.raises(IllegalMoveError, match=r"^board 3: pit 9 is not a pit 0\.\.5; legal pits: 0, 1, 2"):
        env.step(np.array([0, 0, 0, 9], np.uint8))
    with pytest.raises(IllegalMoveError, match=r"^board 1: pit -1 is not a pit 0\.\.5"):
        env.step([0, -1, 0, 0])
    boards = [Board(seeds=1) for _ in range(4)]
    for board, pit in zip(boards, [5, 5, 5, 0]):
        board.push(pit)
    result = env.step([0, 0, 0, 1])     # nothing was played by the refused steps
    for i, (board, pit) in enumerate(zip(boards, [0, 0, 0, 1])):
        board.push(pit)
        check_going_on(result, i, board)


@pytest.mark.parametrize("actions,message", [
    ([0, 0, 0], r"shape \(4,\), not \(3,\)"),
    ([[0, 0, 0, 0]], r"shape \(4,\), not \(1, 4\)"),
    ([0.0, 1.0, 2.0, 3.0], "whole pit numbers 0..5, not float64 values"),
    ([True, False, True, True], "whole pit numbers 0..5, not bool values"),
    (["0", "1", "2", "3"], "whole pit numbers 0..5, not <U1 values"),
    ([2 ** 70, 0, 0, 0], "whole pit numbers 0..5, not object values"),
])
def test_bad_actions_are_refused_in_one_line(actions, message):
    env = VectorEnv(4, seed=1)
    with pytest.raises(IllegalMoveError, match=message) as caught:
        env.step(actions)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("kwargs,error,message", [
    ({"n": 0}, InvalidLimitError, "n \\(boards\\) is a whole number from 1 to 1,048,576, not 0"),
    ({"n": 2 ** 20 + 1}, InvalidLimitError, "from 1 to 1,048,576, not 1048577"),
    ({"n": True}, InvalidLimitError, "not True"),
    ({"n": "8"}, InvalidLimitError, "not '8'"),
    ({"n": 4, "seeds": 13}, InvalidRuleError, "seeds per pit is a whole number from 1 to 12, not 13"),
    ({"n": 4, "seeds": 0}, InvalidRuleError, "from 1 to 12, not 0"),
    ({"n": 4, "capture": "steal"}, InvalidRuleError, "unknown capture rule 'steal'; choose one of standard"),
    ({"n": 4, "opponent": "ai:depth=9"}, InvalidLimitError, "depth is a whole number from 1 to 8, not 9"),
    ({"n": 4, "opponent": "ai:depth=0"}, PlayerSpecError, "\\(K 1..8\\), not 'ai:depth=0'"),
    ({"n": 4, "opponent": "ai:depth=two"}, PlayerSpecError, "not 'ai:depth=two'"),
    ({"n": 4, "opponent": "ai:hard"}, PlayerSpecError, "opponent is None, 'random' or 'ai:depth=K' "
                                                       "\\(K 1..8\\), not 'ai:hard'"),
    ({"n": 4, "opponent": 3}, PlayerSpecError, "not 3"),
    ({"n": 4, "seed": -1}, InvalidLimitError, "the seed is a whole number from 0 to"),
    ({"n": 4, "seed": 2 ** 63}, InvalidLimitError, "the seed is a whole number"),
    ({"n": 4, "reward": "points"}, InvalidRuleError, "reward is one of win, margin, not 'points'"),
])
def test_bad_arguments_are_refused_in_one_line(kwargs, error, message):
    with pytest.raises(error, match=message) as caught:
        VectorEnv(**kwargs)
    assert "\n" not in str(caught.value)


def test_a_bad_reset_seed_is_refused():
    env = VectorEnv(2)
    with pytest.raises(InvalidLimitError, match="the seed is a whole number from 0 to"):
        env.reset(seed=-5)


def test_the_million_step_example_runs():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "vector_million.py")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # it reports its own count of games; every step of 4096 boards is counted
    assert "1,003,520 board-steps" in done.stdout, done.stdout
