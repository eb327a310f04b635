"""The engine's speed, measured with pytest-benchmark.

    python -m pytest bench/ --benchmark-only

Not part of the test run (``testpaths`` is tests/) and nothing here asserts a
time: these measure, the tests check. Searches start from a fresh engine every
round, built in the untimed setup with no endgame database (whatever the cache
holds), so every round walks the same tree; node counts and rates land in each
benchmark's ``extra_info`` (see ``--benchmark-json``).
"""
import random

import pytest

import mancala
from mancala import _core, _reference
from mancala.board import Board
from mancala.positions import load_positions

PLAIN_DEPTH = 7          # the pure-Python twin walks this tree in a fraction of a second
PERFT_DEPTH, PERFT_LEAVES = 9, 2763490     # tests/data/perft.txt, Kalah(6,4)
PLAYOUTS = 100           # random games per round
PLAYOUT_SEED = 2026


def per_second(benchmark, count):
    """count / the median round time (steadier than the mean on a shared machine)."""
    return round(count / benchmark.stats.stats.median)


def fresh_engine_search(benchmark, board, rounds, **limit):
    """Time engine.search(board, **limit) on a fresh 64 MB engine each round."""
    def setup():
        return (mancala.Engine(hash_mb=64, endgame=None),), {}

    def search(engine):
        return engine.search(board, **limit)

    result = benchmark.pedantic(search, setup=setup, rounds=rounds, warmup_rounds=1)
    benchmark.extra_info.update(nodes=result.nodes, depth=result.depth, move=result.move,
                                score=result.score,
                                nodes_per_second=per_second(benchmark, result.nodes))
    return result


@pytest.mark.benchmark(group="search")
def test_search_depth_12_from_the_start(benchmark):
    result = fresh_engine_search(benchmark, Board(), rounds=20, depth=12)
    assert result.depth == 12 and result.move in range(6)


@pytest.mark.benchmark(group="search")
def test_search_depth_20_from_the_start(benchmark):
    result = fresh_engine_search(benchmark, Board(), rounds=3, depth=20)
    assert result.depth == 20 and result.move in range(6)


@pytest.mark.benchmark(group="solve")
@pytest.mark.parametrize("threads", [1, 2])
def test_solve_kalah_6_3(benchmark, threads):
    board = Board(seeds=3)

    def setup():
        return (mancala.Engine(hash_mb=64, endgame=None, threads=threads),), {}

    result = benchmark.pedantic(lambda engine: engine.solve(board), setup=setup, rounds=3)
    benchmark.extra_info.update(nodes=result.nodes, score=result.score, move=result.move,
                                nodes_per_second=per_second(benchmark, result.nodes))
    assert result.exact and result.score == 2          # docs/rules.md, Known values: first player wins by 2


@pytest.mark.benchmark(group="endgame database")
@pytest.mark.parametrize("threads", [1, 2])
def test_build_endgame_database_14_seeds(benchmark, threads):
    values = benchmark.pedantic(_core.egdb_build, args=(14, 0), kwargs={"threads": threads},
                                rounds=2)
    benchmark.extra_info.update(positions=len(values),
                                positions_per_second=per_second(benchmark, len(values)))
    assert len(values) == _core.egdb_size(14)


@pytest.fixture(scope="module")
def positions():
    """Every position of the bench list as (slots, side to move, capture code)."""
    return [(list(p.pits), p.to_move, mancala.CAPTURE_RULES.index(p.capture))
            for p in load_positions()]


@pytest.mark.benchmark(group="perft")
def test_perft_depth_9_compiled(benchmark):
    """Move generation and sowing inside the core: leaves of the depth-9 tree per second."""
    leaves = benchmark(_core.perft, Board().pits, 0, PERFT_DEPTH, 0)
    benchmark.extra_info.update(leaves=leaves, leaves_per_second=per_second(benchmark, leaves))
    assert leaves == PERFT_LEAVES


@pytest.mark.benchmark(group="moves")
@pytest.mark.parametrize("twin", [_core, _reference], ids=["compiled", "python"])
def test_generate_and_play_every_move(benchmark, positions, twin):
    """legal_moves and play on lists, per move: the Python-facing calls of each twin."""
    def every_move():
        played = 0
        for slots, to_move, capture in positions:
            for pit in twin.legal_moves(slots, to_move):
                twin.play(slots, to_move, pit, capture)
                played += 1
        return played

    played = benchmark(every_move)
    benchmark.extra_info.update(moves_per_round=played,
                                moves_per_second=per_second(benchmark, played))


@pytest.mark.benchmark(group="moves")
def test_board_push_and_pop(benchmark):
    boards = [p.board() for p in load_positions()]

    def push_pop():
        played = 0
        for board in boards:
            for pit in board.legal_moves:
                board.push(pit)
                board.pop()
                played += 1
        return played

    played = benchmark(push_pop)
    benchmark.extra_info.update(moves_per_round=played,
                                moves_per_second=per_second(benchmark, played))
    assert [b.pits for b in boards] == [list(p.pits) for p in load_positions()]


@pytest.mark.benchmark(group="playouts")
def test_random_playouts(benchmark):
    """Whole random games from the Kalah(6,4) start on a Board (push only)."""
    def playouts():
        rng = random.Random(PLAYOUT_SEED)
        moves = 0
        for _ in range(PLAYOUTS):
            board = Board()
            while not board.is_game_over():
                board.push(rng.choice(board.legal_moves))
            moves += board.ply
        return moves

    moves = benchmark(playouts)
    benchmark.extra_info.update(playouts_per_round=PLAYOUTS, moves_per_round=moves,
                                playouts_per_second=per_second(benchmark, PLAYOUTS))


@pytest.fixture(scope="module")
def plain_tree():
    """The depth-PLAIN_DEPTH plain alpha-beta tree from the start, as the core walks it."""
    return _core.alphabeta(Board().pits, 0, PLAIN_DEPTH, 0)


@pytest.mark.benchmark(group=f"plain alpha-beta depth {PLAIN_DEPTH}")
def test_plain_alphabeta_compiled(benchmark, plain_tree):
    result = benchmark(_core.alphabeta, Board().pits, 0, PLAIN_DEPTH, 0)
    benchmark.extra_info.update(nodes=result[2],
                                nodes_per_second=per_second(benchmark, result[2]))
    assert result == plain_tree


@pytest.mark.benchmark(group=f"plain alpha-beta depth {PLAIN_DEPTH}")
def test_plain_alphabeta_engine(benchmark, plain_tree):
    """The same tree through the public face, Engine(plain=True)."""
    board = Board()
    engine = mancala.Engine(plain=True)
    result = benchmark(engine.search, board, depth=PLAIN_DEPTH)
    benchmark.extra_info.update(nodes=result.nodes,
                                nodes_per_second=per_second(benchmark, result.nodes))
    assert (result.score, result.move, result.nodes) == plain_tree


@pytest.mark.benchmark(group=f"plain alpha-beta depth {PLAIN_DEPTH}")
def test_plain_alphabeta_pure_python(benchmark, plain_tree):
    result = benchmark.pedantic(_reference.alphabeta, args=(Board().pits, 0, PLAIN_DEPTH, 0),
                                rounds=5, warmup_rounds=1)
    benchmark.extra_info.update(nodes=result[2],
                                nodes_per_second=per_second(benchmark, result[2]))
    assert result == plain_tree, "the pure-Python twin and the core walked different trees"
