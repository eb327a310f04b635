"""Board-steps per second of random play, one core, side by side in one run.

    python bench/vector_speed.py [--n 4096] [--seconds 1.0] [--repeat 3]

A board-step is one move played on one board (a finished game restarts and
counts on). Rows, each timed for about ``--seconds`` wall time, best of
``--repeat`` runs (the least disturbed by other processes):

- ``VectorEnv``: mancala.vector, n boards, ``env.step(env.sample_actions())``
  (random legal pits drawn in C), self-play; also with ``copy=True`` (new
  arrays every step) and against the ``random`` and ``ai:depth=2`` / ``4``
  opponents in C (a board-step is then the agent's move and the opponent's
  replies to it);
- ``Board loop``: a Python loop over one mancala.Board, ``random.choice(board.legal_moves)``
  and ``board.push``;
- ``pyspiel mancala``: OpenSpiel's own game, ``state.apply_action`` of a
  ``random.choice(state.legal_actions())`` (skipped without ``open_spiel``);
- ``PettingZoo AEC``: ``mancala.env.pettingzoo`` (issue 14 section 2),
  ``env.step`` of a random legal action from the mask (skipped where it does not exist).

Rates are per wall second and per CPU second of the benchmark's thread
(``time.thread_time``: on a shared machine, time other processes take is not
counted); the last column is each row's CPU rate over the Board loop's,
measured in this run.
"""
import argparse
import random
import time


def timed(step, seconds, repeat, per_call):
    """Best rates (board-steps per wall second, per CPU second of this thread) of
    calling ``step`` for about ``seconds``, over ``repeat`` runs."""
    best_wall = best_cpu = 0.0
    for _ in range(repeat):
        calls = 0
        began, began_cpu = time.perf_counter(), time.thread_time()
        deadline = began + seconds
        while True:
            for _ in range(16):
                step()
            calls += 16
            now = time.perf_counter()
            if now >= deadline:
                break
        cpu = time.thread_time() - began_cpu
        best_wall = max(best_wall, calls * per_call / (now - began))
        best_cpu = max(best_cpu, calls * per_call / cpu)
    return best_wall, best_cpu


def vector_row(n, opponent=None, copy=False):
    from mancala.vector import VectorEnv
    env = VectorEnv(n, opponent=opponent, seed=1, copy=copy)
    env.reset()

    def step():
        env.step(env.sample_actions())
    return step, n


def board_row():
    from mancala import Board
    rng = random.Random(1)
    board = Board()

    def step():
        nonlocal board
        board.push(rng.choice(board.legal_moves))
        if board.is_game_over():
            board = Board()
    return step, 1


def pyspiel_row():
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("mancala")
    rng = random.Random(1)
    state = game.new_initial_state()

    def step():
        nonlocal state
        state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            state = game.new_initial_state()
    return step, 1


def pettingzoo_row():
    try:
        from mancala.env import pettingzoo
    except ImportError:
        return None
    import numpy as np
    env = pettingzoo.env()
    env.reset(seed=1)
    rng = np.random.default_rng(1)

    def step():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            observation = env.last()[0]
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return step, 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4096, help="boards of the VectorEnv (default 4096)")
    parser.add_argument("--seconds", type=float, default=1.0, help="wall time a run (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs a row, the best kept (default 3)")
    args = parser.parse_args(argv)
    rows = [
        (f"VectorEnv n={args.n}, self-play", vector_row(args.n)),
        (f"VectorEnv n={args.n}, copy=True", vector_row(args.n, copy=True)),
        (f"VectorEnv n={args.n}, vs random", vector_row(args.n, opponent="random")),
        (f"VectorEnv n={args.n}, vs ai:depth=2", vector_row(args.n, opponent="ai:depth=2")),
        (f"VectorEnv n={args.n}, vs ai:depth=4", vector_row(args.n, opponent="ai:depth=4")),
        ("Board loop (Python)", board_row()),
        ("pyspiel mancala state loop", pyspiel_row()),
        ("PettingZoo AEC (mancala.env)", pettingzoo_row()),
    ]
    rates = {}
    for name, row in rows:
        if row is not None:
            step, per_call = row
            rates[name] = timed(step, args.seconds, args.repeat, per_call)
    base = rates["Board loop (Python)"][1]
    print(f"{'random play, one core':32} {'steps/wall s':>13} {'steps/CPU s':>13} {'x Board loop':>13}")
    for name, _ in rows:
        if name in rates:
            wall, cpu = rates[name]
            print(f"{name:32} {wall:13,.0f} {cpu:13,.0f} {cpu / base:13,.1f}")
        else:
            print(f"{name:32} {'skipped: not installed':>27}")

if __name__ == "__main__":
    main()
