"""Shared fixtures and helpers.

Every rule test runs on both twins, compiled and reference (the ``impl``
fixture). The plain functions below are shared by several test modules; import
them with ``from conftest import ...`` (pytest puts this directory on the path),
never from another test module.
"""
import functools
import importlib
import random

import pytest

import mancala
from mancala import _reference

IMPLEMENTATIONS = ("reference", "core")


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    """The module under test: ``mancala._reference`` or ``mancala._core``.

    The core is imported here, not at collection time, so ``-k reference`` works
    before it is built; without ``-k`` a missing core fails, as it should.
    """
    return importlib.import_module("mancala._" + request.param)


def board_of(slots, to_move, capture):
    """A mancala.Board from 14 slots, the side to move and a capture rule index."""
    return mancala.Board(list(slots), to_move, capture=mancala.CAPTURE_RULES[capture])


def sample_positions(count, seed, max_seeds=6):
    """(slots, to_move, capture) reached by random play, finished games excluded."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        capture = rng.randrange(3)
        slots, to_move = ([rng.randint(1, max_seeds)] * 6 + [0]) * 2, 0
        for _ in range(rng.randint(0, 30)):
            if _reference.is_game_over(slots):
                break
            slots, to_move, _ = _reference.play(
                slots, to_move, rng.choice(_reference.legal_moves(slots, to_move)), capture)
        if not _reference.is_game_over(slots):
            found.append((slots, to_move, capture))
    return found


def small_endgames(count, seed, max_pit_seeds=8):
    """Random positions with few seeds left in the pits and some in the stores."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        slots = [0] * 14
        for _ in range(rng.randint(2, max_pit_seeds)):
            slots[rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12])] += 1
        slots[6], slots[13] = rng.randint(0, 20), rng.randint(0, 20)
        if not _reference.is_game_over(slots):
            found.append((tuple(slots), rng.randint(0, 1), rng.randrange(3)))
    return found


def final_margin(slots, to_move):
    """The margin for to_move once both rows are swept into their owners' stores."""
    south = slots[6] + sum(slots[0:6])
    north = slots[13] + sum(slots[7:13])
    return south - north if to_move == 0 else north - south


def brute_force(slots, to_move, capture):
    """Perfect-play final margin for to_move: every line to the end, no pruning.

    Uses only the twin's rules (``play``, ``legal_moves``), which the rule tests
    pin with hand-worked boards; none of its search code. What the stores hold
    changes no line of play, so the store difference is added to the best gain
    of the pits alone, memoised.
    """
    own, other = (6, 13) if to_move == 0 else (13, 6)
    pits = list(slots)
    pits[6] = pits[13] = 0
    return slots[own] - slots[other] + _best_gain(tuple(pits), to_move, capture)


@functools.lru_cache(maxsize=None)
def _best_gain(slots, to_move, capture):
    """brute_force of a board whose stores are empty."""
    if _reference.is_game_over(slots):
        return final_margin(slots, to_move)
    best = -1000
    for pit in _reference.legal_moves(slots, to_move):
        child, nxt, _ = _reference.play(slots, to_move, pit, capture)
        value = brute_force(child, nxt, capture)
        best = max(best, value if nxt == to_move else -value)
    return best


def depth_limited_values(slots, to_move, depth, capture):
    """{pit: value} of every legal move searched full width ``depth`` moves deep
    (the move itself counted), leaves scored by store difference, finished games
    by their final margin; from to_move's view. Only the twin's rules are used."""
    def value(slots, to_move, depth):
        if _reference.is_game_over(slots):
            return final_margin(slots, to_move)
        if depth == 0:
            return slots[6] - slots[13] if to_move == 0 else slots[13] - slots[6]
        return max(child_value(slots, to_move, pit, depth)
                   for pit in _reference.legal_moves(slots, to_move))

    def child_value(slots, to_move, pit, depth):
        child, nxt, _ = _reference.play(slots, to_move, pit, capture)
        v = value(child, nxt, depth - 1)
        return v if nxt == to_move else -v

    return {pit: child_value(list(slots), to_move, pit, depth)
            for pit in _reference.legal_moves(slots, to_move)}


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory):
    """Endgame databases built by tests go to a private cache, and none the user
    built changes what the tests see."""
    import os

    old = os.environ.get("MANCALA_CACHE")
    os.environ["MANCALA_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        del os.environ["MANCALA_CACHE"]
    else:
        os.environ["MANCALA_CACHE"] = old


@pytest.fixture
def empty_endgame_cache(monkeypatch, tmp_path):
    """Engines find no cached endgame database: the same games (and speed) on any machine."""
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))


def played_games(report):
    """An arena report's games without their clock readings: what must repeat exactly."""
    import dataclasses
    return [{k: v for k, v in dataclasses.asdict(game).items() if k not in ("a_time", "b_time")}
            for game in report.games]


def assert_refused(response, status=400, *words):
    """A web answer refused as the API promises: ``status``, a body that is only
    ``{"error": "one line"}`` holding each of ``words``; the message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert "\n" not in body["error"] and "Traceback" not in body["error"]
    for word in words:
        assert word in body["error"], body["error"]
    return body["error"]
