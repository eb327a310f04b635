"""The cluster's proof manager without a cluster: its jobs run here, answered in
shuffled orders, on any number of workers. Whatever the order, the budget or the
number of workers, the answer is the single-machine solve's (value, every optimal
move), a bound question's answer follows from it, and the accounting adds up."""
import random

import pytest

from mancala import Board, Engine
from mancala.cluster.manager import ProofManager
from mancala.cluster.solve import run_job
from mancala.cluster.tree import Tree, board_of, child_t, key_of


class ShuffledPool:
    """workers slots; jobs run in-process with the real worker function, one engine
    whose table is cleared before each; answers come back one or several at a time
    in an order the seed fixes; a cancelled job comes back stopped."""

    def __init__(self, workers, capture, seed=0):
        self.size, self.capture = workers, capture
        self.random = random.Random(seed)
        self.engine = Engine(hash_mb=8, endgame=None)
        self.running, self.stopped, self.clock, self.asked = [], [], 0.0, []

    def now(self):
        return self.clock

    def submit(self, job):
        assert len(self.running) < self.size
        self.running.append(job)
        self.asked.append((job.key, job.beta, job.budget, job.speculative))

    def cancel(self, job):
        """As the Ray pool's: the worker is free at once, the stopped answer comes later."""
        if job in self.running:
            self.running.remove(job)
            self.stopped.append(job)

    def wait(self, timeout):
        self.clock += 1.0
        if not self.running and not self.stopped:
            return []
        pending = self.running + self.stopped
        self.random.shuffle(pending)
        count = self.random.randint(1, len(pending))
        done = pending[:count]
        self.running = [job for job in self.running if job not in done]
        self.stopped = [job for job in self.stopped if job not in done]
        answers = []
        for job in done:
            if job.cancelled:
                answers.append((job, {"bound": None, "nodes": 0, "seconds": 0.0, "cpu": 0.0,
                                      "facts": [], "stopped": True}))
                continue
            self.engine.clear()
            answers.append((job, run_job(self.engine, self.capture, job.key, job.beta, job.budget)))
        return answers


def single_machine(board):
    engine = Engine(hash_mb=64, endgame=None)
    value = engine.solve(board).score
    return value, engine.optimal_moves(board, value)


BOARDS = [Board(seeds=3), Board(seeds=3, capture="empty"), Board(seeds=2),
          Board([3, 0, 2, 5, 1, 0, 9, 2, 2, 0, 4, 3, 1, 4], 0),
          Board([0, 4, 4, 0, 5, 1, 6, 2, 0, 3, 3, 1, 0, 7], 1, capture="none")]
IDS = ["6,3", "6,3 empty", "6,2", "midgame", "midgame none"]
SLOW = pytest.mark.slow


@pytest.mark.parametrize("board", BOARDS[:4] + [pytest.param(BOARDS[4], marks=SLOW)], ids=IDS)
@pytest.mark.parametrize("workers, budget, seed", [(1, 50_000, 0), (16, 20_000, 2), (64, 50_000, 3),
                                                   pytest.param(3, 2_000, 1, marks=SLOW)])
def test_the_answer_is_the_single_machine_one(board, workers, budget, seed):
    pool = ShuffledPool(workers, board.capture, seed)
    result = ProofManager(board, pool, job_nodes=budget, all_moves=True).run()
    value, moves = single_machine(board)
    assert (result.value, result.optimal_moves) == (value, moves)
    assert result.move in moves and result.lower == result.upper == value
    assert result.useful_nodes + sum(result.wasted.values()) == result.nodes
    assert 0 < result.useful_nodes <= result.nodes and result.jobs <= len(pool.asked)


@pytest.mark.parametrize("board", BOARDS[:4], ids=IDS[:4])
def test_a_bound_question_answers_what_the_value_says(board):
    value, _ = single_machine(board)
    for t in (value - 2, value - 1, value, value + 1, value + 3):
        pool = ShuffledPool(4, board.capture, seed=t)
        result = ProofManager(board, pool, job_nodes=3_000, at_least=t).run()
        assert result.holds == (value >= t), (t, value)
        lower = -999 if result.lower is None else result.lower
        upper = 999 if result.upper is None else result.upper
        assert result.value is None and lower <= value <= upper
        assert lower >= t if result.holds else upper < t


def test_every_worker_is_kept_busy_from_the_start():
    """64 workers and one position: the first round asks 64 questions (the tree
    split for the idle ones), not one."""
    board = Board(seeds=4)
    pool = ShuffledPool(64, "standard")
    manager = ProofManager(board, pool, job_nodes=10 ** 9)
    manager._plan()
    manager._dispatch()
    assert len(pool.running) == 64
    assert len({(key, beta) for key, beta, _, _ in pool.asked}) == 64


def test_an_exhausted_question_is_split_when_workers_would_wait_and_grown_when_not():
    board = Board(seeds=3)
    root = key_of(board)
    for workers, split in ((1, False), (8, True)):
        pool = ShuffledPool(workers, "standard")
        manager = ProofManager(board, pool, job_nodes=1_000)
        manager._plan()
        manager._dispatch()
        root_job = next(job for job in pool.running if job.key == root)
        pool.running.remove(root_job)
        answer = run_job(pool.engine, "standard", root, root_job.beta, 1_000)
        assert answer["bound"] is None                  # Kalah(6,3) takes more than 1,000 nodes
        manager._receive([(root_job, answer)])
        manager._plan()
        manager._dispatch()
        node = manager.tree.nodes[root]
        assert (node.edges is not None) == split
        if not split:
            assert pool.running[-1].key == root and pool.running[-1].budget == 4_000


def test_the_tree_selects_around_questions_in_flight():
    """Kalah(6,3) split once, every child estimated 0 (an even game from there):
    a move is predicted to reach t when its store gain (offset) is at least t.
    Testing 'at least 1', the first move asked is predicted to prove it, so the
    others wait; asked speculatively, they go. Testing 'at least 9' (no move is
    predicted to reach it), every move is needed at once."""
    board = Board(seeds=3)
    root = key_of(board)
    for t, needed in ((1, 1), (9, 6)):
        tree = Tree("standard", estimate=lambda key: 0)
        tree.node(root).estimate = 0
        tree.split(root)
        edges = tree.nodes[root].edges
        assert sorted(e.offset for e in edges) == [0, 0, 0, 1, 1, 1] and all(e.child for e in edges)
        picked = tree.select(root, t, 100)
        assert len(picked) == needed
        assert picked[0] == (edges[0].child, child_t(edges[0], t))
        assert tree.select(root, t, 100) == []                 # everything needed is in flight
        hedges = tree.select(root, t, 100, speculative=True)
        assert len(hedges) == 6 - needed and not set(hedges) & set(picked)


def test_the_first_guess_from_a_deeper_search_costs_at_most_one_job():
    """Policy.root_depth: MTD(f)'s first guess is a deeper search at the root,
    stopped at one job's nodes, so a small proof never waits on a search larger
    than its jobs. Kalah(6,4), jobs of 20,000 nodes: a plain depth-20 search
    there is about 2 M nodes (counted here by the engine itself)."""
    from mancala.cluster.manager import estimator
    from mancala.cluster.policy import Policy
    board, searched = Board(seeds=4), []
    plain = estimator(board.capture)

    def estimate(key, depth=8, nodes=None):
        engine = Engine(hash_mb=16, endgame=None)
        found = engine.search(board_of(key, "standard"), depth=depth, nodes=nodes)
        searched.append((depth, found.nodes))
        assert found.score == plain(key, depth, nodes)      # the manager's own estimator
        return found.score

    ProofManager(board, ShuffledPool(2, "standard"), job_nodes=20_000, estimate=estimate,
                 policy=Policy(root_depth=20))
    assert searched[0][0] == 8 and searched[1][0] == 20
    assert searched[1][1] <= 20_001 < Engine(hash_mb=16, endgame=None).search(board, depth=20).nodes
