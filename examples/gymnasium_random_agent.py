"""A random agent against the engine's easy level in Gymnasium (needs: pip install 'kalah[rl]').

    python examples/gymnasium_random_agent.py [EPISODES]
"""
import sys

import gymnasium
import numpy as np

import mancala.env  # registers mancala/Kalah-v0

episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 20
env = gymnasium.make("mancala/Kalah-v0", opponent="ai:easy", side="random", reward="margin")
rng = np.random.default_rng(0)
margins = []
observation, info = env.reset(seed=0)
for episode in range(episodes):
    done = False
    while not done:
        action = rng.choice(np.flatnonzero(info["action_mask"]))     # a random legal pit
        observation, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    margins.append(info["margin"])
    observation, info = env.reset()
env.close()
wins = sum(m > 0 for m in margins)
print(f"{episodes} episodes: the random agent won {wins}, mean margin {np.mean(margins):+.1f} seeds")
