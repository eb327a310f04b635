"""Two masked policies play each other in PettingZoo (needs: pip install 'kalah[rl]').

player_0 picks the legal pit with the most seeds, player_1 a random legal pit;
both read only their observation and its action mask.

    python examples/pettingzoo_masked_policy.py [GAMES]
"""
import sys

import numpy as np

from mancala.env.pettingzoo import env

games = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rng = np.random.default_rng(0)


def greedy(observation, mask):
    seeds = np.where(mask == 1, observation[:6], -1)     # own pits come first
    return int(np.argmax(seeds))


def random_legal(observation, mask):
    return int(rng.choice(np.flatnonzero(mask)))


policies = {"player_0": greedy, "player_1": random_legal}
totals = {"player_0": 0.0, "player_1": 0.0}
kalah = env(seeds=4, capture="standard", reward="win")
for game in range(games):
    kalah.reset(seed=game)
    for agent in kalah.agent_iter():
        obs, reward, terminated, truncated, info = kalah.last()
        if terminated or truncated:
            totals[agent] += reward
            action = None
        else:
            action = policies[agent](obs["observation"], obs["action_mask"])
        kalah.step(action)
kalah.close()
print(f"{games} games, reward totals: " + ", ".join(f"{agent} {total:+.0f}" for agent, total in totals.items()))
