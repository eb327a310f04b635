"""Collect a million board-steps of random play against a random opponent into
a rollout buffer, with mancala.vector.VectorEnv (pip install 'kalah[vector]')."""
import time

import numpy as np

from mancala.vector import VectorEnv

N, STEPS = 4096, 245                     # 245 x 4096 = 1,003,520 board-steps
env = VectorEnv(N, opponent="random", seed=0)
observations = np.empty((STEPS, N, 14), np.uint8)    # at most 144 seeds in a slot
actions = np.empty((STEPS, N), np.int8)
rewards = np.empty((STEPS, N), np.float32)
dones = np.empty((STEPS, N), bool)

start = time.perf_counter()
obs, info = env.reset()
for t in range(STEPS):
    observations[t] = obs
    actions[t] = env.sample_actions()    # a policy would choose among info["action_mask"]
    obs, rewards[t], dones[t], _, info = env.step(actions[t])
elapsed = time.perf_counter() - start

games = int(dones.sum())
wins = int((rewards[dones] > 0).sum())
print(f"collected {STEPS * N:,} board-steps in {elapsed:.2f} s "
      f"({STEPS * N / elapsed / 1e6:.1f} million a second)")
print(f"{games:,} games finished; the random agent (South) won {wins / games:.1%} of them")
