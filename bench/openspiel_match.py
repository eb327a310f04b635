"""Our engine against OpenSpiel's MCTS bot, on OpenSpiel's own mancala (Kalah(6,4)).

    python bench/openspiel_match.py [--level L ...] [--sims N ...] [--pairs P] [--plies K]

Each level (a computer player spelling: ai:easy, ai:medium, ai:time=0.01...,
played through mancala.env.openspiel.EngineBot) meets OpenSpiel's C++
``pyspiel.MCTSBot`` (UCT c = 2, one random rollout per leaf, MCTS-Solver on,
as OpenSpiel's mcts example plays) at each simulation count. The games start
from the opening suite of mancala.openings (the start and every K-move
opening, default K = 2: 36 positions), each played twice with sides swapped
(a game pair); --pairs P takes the first P. Every game has its own seeds for
both bots. Prints, from our engine's side: wins, draws, losses, the pair
results and the Elo difference with its 95% interval (pentanomial, mancala.stats),
with the seconds per move of each side. Needs the openspiel extra.
"""
import argparse
import time

import pyspiel

from mancala.env.openspiel import EngineBot, openspiel_action
from mancala.openings import opening_suite
from mancala.stats import elo_estimate

UCT_C = 2.0
ROLLOUTS = 1
MCTS_MEMORY_MB = 1000


def play(game, opening, engine_seat, level, sims, seed, clock):
    """Our engine's result in one game: 1 won, 0.5 drawn, 0 lost."""
    state = game.new_initial_state()
    for pit in opening:
        state.apply_action(openspiel_action(pit, state.current_player()))
    evaluator = pyspiel.RandomRolloutEvaluator(ROLLOUTS, seed)
    bots = [None, None]
    bots[engine_seat] = EngineBot(game, engine_seat, level, seed=seed)
    bots[1 - engine_seat] = pyspiel.MCTSBot(game, evaluator, UCT_C, sims, MCTS_MEMORY_MB,
                                            True, seed, False)
    while not state.is_terminal():
        player = state.current_player()
        began = time.perf_counter()
        action = bots[player].step(state)
        side = "engine" if player == engine_seat else "mcts"
        clock[side][0] += time.perf_counter() - began
        clock[side][1] += 1
        state.apply_action(action)
    return (state.returns()[engine_seat] + 1) / 2


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", action="append", help="our player (repeatable; default ai:easy, ai:medium)")
    p.add_argument("--sims", type=int, action="append", help="MCTS simulations (repeatable; default 1000, 10000)")
    p.add_argument("--pairs", type=int, default=20, help="game pairs per setting (default 20; 0: the whole suite)")
    p.add_argument("--plies", type=int, default=2, help="opening length in moves (default 2)")
    p.add_argument("--seed", type=int, default=1, help="first game's seed")
    args = p.parse_args()
    game = pyspiel.load_game("mancala")
    suite = opening_suite(args.plies)[:args.pairs or None]
    print(f"| engine | MCTS simulations | games | W / D / L | Elo [95%] | s/move engine, MCTS |")
    print(f"|---|---|---|---|---|---|")
    for level in args.level or ["ai:easy", "ai:medium"]:
        for sims in args.sims or [1000, 10000]:
            pentanomial = [0] * 5
            results = []
            clock = {"engine": [0.0, 0], "mcts": [0.0, 0]}
            seed = args.seed
            for opening in suite:
                pair = []
                for engine_seat in (0, 1):
                    pair.append(play(game, opening, engine_seat, level, sims, seed, clock))
                    seed += 1
                results += pair
                pentanomial[int(2 * sum(pair))] += 1
            elo = elo_estimate(pentanomial)
            wins, draws = results.count(1.0), results.count(0.5)
            per_move = {side: spent / max(moves, 1) for side, (spent, moves) in clock.items()}
            print(f"| {level} | {sims:,} | {len(results)} | {wins} / {draws} / {len(results) - wins - draws} "
                  f"| {elo.elo:+.0f} [{elo.elo_low:+.0f}, {elo.elo_high:+.0f}] "
                  f"| {per_move['engine']:.4f}, {per_move['mcts']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
