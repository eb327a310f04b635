"""Random play through each environment face: moves per second, measured in one run.

    python bench/env_speed.py [SECONDS]

Each face plays random legal moves from the Kalah(6,4) start, restarting
finished games, for SECONDS (default 2) of wall time: mancala.Board itself,
the Gymnasium KalahEnv (opponent "random"; its replies count as moves),
the PettingZoo AEC env, OpenSpiel's python_kalah and OpenSpiel's own C++
mancala (its state loop from Python). Needs the rl and openspiel extras;
faces whose extra is missing are left out.
"""
import random
import sys
import time

import mancala

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0


def board_loop(rng):
    board, moves = mancala.Board(), 0
    while True:
        if board.is_game_over():
            board = mancala.Board()
        board.push(rng.choice(board.legal_moves))
        moves += 1
        yield moves


def gymnasium_loop(rng):
    import numpy as np
    from mancala.env import KalahEnv
    env, moves = KalahEnv(opponent="random"), 0
    obs, info = env.reset(seed=0)
    while True:
        obs, reward, done, _, info = env.step(rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
        moves += 1 + len(info["opponent_moves"])
        if done:
            obs, info = env.reset()
        yield moves


def pettingzoo_loop(rng):
    import numpy as np
    from mancala.env.pettingzoo import env
    game, moves = env(), 0
    while True:
        game.reset()
        for agent in game.agent_iter():
            obs, reward, done, _, info = game.last()
            game.step(None if done else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            if not done:
                moves += 1
                yield moves


def openspiel_loop(name):
    def loop(rng):
        import pyspiel
        import mancala.env.openspiel  # noqa: F401  (registers python_kalah)
        game, moves = pyspiel.load_game(name), 0
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
                yield moves
    return loop


def rate(loop):
    rng = random.Random(0)
    count, began = 0, time.perf_counter()
    for count in loop(rng):
        if count % 256 == 0 and time.perf_counter() - began >= SECONDS:
            break
    return count / (time.perf_counter() - began)


def main():
    faces = [("mancala.Board push", board_loop), ("Gymnasium KalahEnv", gymnasium_loop),
             ("PettingZoo AEC env", pettingzoo_loop), ("OpenSpiel python_kalah", openspiel_loop("python_kalah")),
             ("OpenSpiel mancala (C++)", openspiel_loop("mancala"))]
    base = None
    for name, loop in faces:
        try:
            speed = rate(loop)
        except ImportError as exc:
            print(f"{name:26s} skipped: {exc}")
            continue
        base = base or speed
        print(f"{name:26s} {speed:12,.0f} moves/s  {speed / base:6.3f}x Board")


if __name__ == "__main__":
    main()
