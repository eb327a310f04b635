"""Review after a game (mancala.review, ``python -m mancala review``): every
move's loss against a brute force over the twin's rules, the marks' thresholds,
the search's scores where the solves do not finish, and the command as a
subprocess (a save file, --last, --json, bad input in one line, files untouched).

Every test has its own MANCALA_HOME; the real history is never touched.
"""
import json
import os
import pathlib
import random
import subprocess
import sys

import pytest

from conftest import brute_force, depth_limited_values
from mancala import _reference, storage
from mancala.errors import IllegalMoveError
from mancala.history import History
from mancala.review import LINE_PLIES, MARKS, mark, review_game

ROOT = pathlib.Path(__file__).resolve().parents[1]
CAPTURES = ("standard", "empty", "none")
BRUTE_FORCE_SEEDS = 10      # the brute force's reach in the default suite: a game's checks in about a second

# the Kalah(6,1) game of tests/test_history.py, worked by hand there: South wins 9-3
GAME = [5, 4, 4, 3, 3, 2, 5]


def random_game(seeds, capture, seed):
    """A whole game of random legal moves under the twin's rules: its pit indices."""
    rng = random.Random(seed)
    slots, to_move, moves = ([seeds] * 6 + [0]) * 2, 0, []
    while not _reference.is_game_over(slots):
        pit = rng.choice(_reference.legal_moves(slots, to_move))
        slots, to_move, _ = _reference.play(slots, to_move, pit, CAPTURES.index(capture))
        moves.append(pit)
    return moves


def brute_values(slots, to_move, capture):
    """{pit: perfect-play value of the move for the mover}, from the twin's rules alone."""
    code = CAPTURES.index(capture)
    values = {}
    for pit in _reference.legal_moves(slots, to_move):
        child, nxt, _ = _reference.play(slots, to_move, pit, code)
        value = brute_force(child, nxt, code)
        values[pit] = value if nxt == to_move else -value
    return values


def positions(seeds, capture, moves):
    """(slots, to_move) before each move, by the twin's rules."""
    slots, to_move, found = ([seeds] * 6 + [0]) * 2, 0, []
    for pit in moves:
        found.append((list(slots), to_move))
        slots, to_move, _ = _reference.play(slots, to_move, pit, CAPTURES.index(capture))
    return found


def in_pits(slots):
    return sum(slots) - slots[6] - slots[13]


def check_against_brute_force(review, seeds, capture, moves, reach=BRUTE_FORCE_SEEDS):
    """Every move with at most ``reach`` seeds in the pits: its values, loss,
    best moves and line as the brute force has them. The number checked."""
    checked = 0
    for move, (slots, to_move), pit in zip(review.moves, positions(seeds, capture, moves), moves):
        assert (move.side, move.pit_index) == (to_move, pit) and move.loss >= 0
        if in_pits(slots) > reach:
            continue
        assert move.exact and move.depth is None
        values = brute_values(slots, to_move, capture)
        best = max(values.values())
        assert dict(move.values) == values, (slots, to_move)
        assert move.loss == best - values[pit]
        assert (move.value_before, move.value_after) == (best, values[pit])
        assert move.best_indices == tuple(p for p in sorted(values) if values[p] == best)
        assert move.mark == mark(move.loss)
        if move.loss:
            check_line(move.line_indices, slots, to_move, capture)
        else:
            assert move.line_indices == ()
        checked += 1
    return checked


def check_line(line, slots, to_move, capture):
    """Each move of the line keeps its mover's perfect-play value (brute force)."""
    assert 1 <= len(line) <= LINE_PLIES
    code = CAPTURES.index(capture)
    for pit in line:
        values = brute_values(slots, to_move, capture)
        assert values[pit] == max(values.values()), (slots, to_move, pit)
        slots, to_move, _ = _reference.play(slots, to_move, pit, code)
    if len(line) < LINE_PLIES:
        assert _reference.is_game_over(slots), "a line stops short only at the end of the game"


# -- the losses against a brute force ----------------------------------------------------------

@pytest.mark.parametrize("capture", CAPTURES)
def test_the_moves_of_one_seed_games_lose_what_the_brute_force_says(capture):
    checked = 0
    for seed in (1, 2, 3, 4):
        moves = random_game(1, capture, seed)
        review = review_game(1, capture, moves)
        assert len(review.moves) == len(moves)
        # the moves with 10 seeds or fewer in the pits (every move: under -m slow)
        checked += check_against_brute_force(review, 1, capture, moves)
    assert checked >= 20


@pytest.mark.slow
@pytest.mark.parametrize("capture", CAPTURES)
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_every_move_of_a_one_seed_game_loses_what_the_brute_force_says(capture, seed):
    moves = random_game(1, capture, seed)
    review = review_game(1, capture, moves)
    assert check_against_brute_force(review, 1, capture, moves, reach=12) == len(moves)


@pytest.mark.parametrize("capture", CAPTURES)
def test_the_moves_of_two_seed_games_lose_what_the_brute_force_says(capture):
    checked = 0
    for seed in (7, 8, 9):
        moves = random_game(2, capture, seed)
        # a small budget: the early positions (no captures: long games) need not be exact
        review = review_game(2, capture, moves, nodes=200_000)
        checked += check_against_brute_force(review, 2, capture, moves)
    assert checked >= 5         # random games may end with more than 10 seeds in a row


def test_random_play_loses_seeds_and_the_summary_adds_them_up():
    moves = random_game(2, "standard", 11)
    review = review_game(2, "standard", moves)
    assert any(move.loss for move in review.moves)
    for side in (0, 1):
        mine = [move for move in review.moves if move.side == side]
        summary = review.summary(side)
        assert summary["moves"] == len(mine)
        assert summary["seeds_lost"] == sum(move.loss for move in mine)
        assert sum(summary[name] for name, _ in MARKS) == sum(1 for move in mine if move.loss)


def test_north_s_first_move_in_the_hand_worked_game_is_a_mistake():
    # after South 6, South 5 (captures 2): 1 1 1 1 0 0 [3] / North 0 1 1 1 1 1 [0], North to move.
    # North 5 (index 4) captures 2 but then South captures twice more: 6-2 South in the end
    # (-6 for North); North's other moves keep the start's +2 for South (-2 for North)
    third = review_game(1, "standard", GAME).moves[2]
    assert (third.side, third.pit_index, third.loss, third.mark) == (1, 4, 4, "mistake")
    assert third.exact and third.value_before == -2 and third.value_after == -6


# -- marks ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss, expected", [
    (0, None), (1, "inaccuracy"), (2, "inaccuracy"), (3, "mistake"), (4, "mistake"),
    (5, "mistake"), (6, "blunder"), (14, "blunder"), (96, "blunder")])
def test_marks_by_seeds_lost(loss, expected):
    assert mark(loss) == expected


# -- where the solves do not finish -----------------------------------------------------------

def test_without_a_budget_for_solves_the_values_are_a_depth_limited_search(empty_endgame_cache):
    moves = random_game(4, "standard", 3)[:6]
    review = review_game(4, "standard", moves, nodes=1, depth=3)
    for move, (slots, to_move) in zip(review.moves, positions(4, "standard", moves)):
        values = depth_limited_values(slots, to_move, 3, 0)
        assert dict(move.values) == values
        assert not move.exact and move.depth == 3
        assert move.loss == max(values.values()) - values[move.pit_index]
        if move.loss:
            best = move.line_indices[0]
            assert values[best] == max(values.values())


def test_an_illegal_move_is_refused_quoting_it():
    # South 1 sows into South's 2nd pit, North 1 likewise: South's 1st pit is empty
    with pytest.raises(IllegalMoveError, match=r"move 3 \(0\) is not legal"):
        review_game(1, "standard", [0, 0, 0])


# -- the command ---------------------------------------------------------------------------------

@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def mancala(home, *args, timeout=120):
    env = dict(os.environ, MANCALA_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "mancala", *args], capture_output=True,
                          text=True, env=env, cwd=home.parent, timeout=timeout)


def save_game(path, seeds, capture, moves):
    storage.save(storage.SavedGame(seeds, capture, "human", "ai:easy", list(moves)), path)
    return path


def test_review_json_of_a_save_file_matches_the_brute_force(home, tmp_path):
    moves = random_game(2, "empty", 5)
    path = save_game(tmp_path / "game.json", 2, "empty", moves)
    result = mancala(home, "review", str(path), "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert [entry["pit_index"] for entry in listed] == moves
    for entry, (slots, to_move) in zip(listed, positions(2, "empty", moves)):
        assert entry["side"] == to_move and entry["exact"] is True
        assert entry["mark"] == mark(entry["loss"])
        if in_pits(slots) <= BRUTE_FORCE_SEEDS:
            values = brute_values(slots, to_move, "empty")
            best = max(values.values())
            assert entry["loss"] == best - values[entry["pit_index"]]
            assert entry["best_indices"] == [p for p in sorted(values) if values[p] == best]
            assert {v["pit_index"]: v["value"] for v in entry["values"]} == values


def test_review_text_names_the_mistake_and_the_better_moves_in_pits_1_to_6(home, tmp_path):
    path = save_game(tmp_path / "game.json", 1, "standard", GAME)
    result = mancala(home, "review", str(path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("South human vs North ai:easy, 1 seed a pit, capture standard, 7 moves")
    (third,) = [line for line in lines if line.split()[:3] == ["3", "North", "5"]]
    assert "mistake: better 2 or 3 or 4 or 6 (-2; line 2" in third
    assert "exact" in third and third.split()[3:5] == ["-6", "4"]
    assert lines[-2] == "South: 0 seeds lost in 4 moves: 0 inaccuracies, 0 mistakes, 0 blunders."
    assert lines[-1] == "North: 4 seeds lost in 3 moves: 0 inaccuracies, 1 mistake, 0 blunders."


def test_review_last_reads_the_last_game_of_the_history(home):
    History(home / "history.sqlite3").record("human", "random", 1, "none", random_game(1, "none", 1))
    History(home / "history.sqlite3").record("human", "ai:easy", 1, "standard", GAME)
    result = mancala(home, "review", "--last", "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert [entry["pit_index"] for entry in listed] == GAME
    assert listed[2]["loss"] == 4 and listed[2]["mark"] == "mistake"


def test_review_last_takes_a_newer_autosaved_game(home):
    History(home / "history.sqlite3").record("human", "ai:easy", 1, "standard", GAME,
                                             finished=1_000_000_000)       # in 2001
    (home / "autosaves").mkdir(parents=True)
    save_game(home / "autosaves" / "20260101T000000Z-1-abc.json", 1, "standard", [0, 5])
    result = mancala(home, "review", "--last")
    assert result.returncode == 0, result.stderr
    assert "2 moves (the game autosaved in" in result.stdout.splitlines()[0]


@pytest.mark.parametrize("content, reason", [
    (None, "no such file"),
    ("{", "not JSON"),
    ('{"format": "mancala-save", "version": 9}', "version 9 is not supported"),
    ("tampered", "does not match the move history"),
    ("illegal", "is not legal"),
])
def test_review_refuses_a_bad_file_in_one_line_and_leaves_it_untouched(home, tmp_path, content, reason):
    path = tmp_path / "bad.json"
    if content in ("tampered", "illegal"):
        save_game(path, 1, "standard", GAME)
        data = json.loads(path.read_text())
        if content == "tampered":
            data["position"]["to_move"] = 1 - data["position"]["to_move"]
        else:
            data["moves"][1] = 5        # South's 6th pit, emptied by the first move
        path.write_text(json.dumps(data))
    elif content is not None:
        path.write_text(content)
    before = (path.read_bytes(), os.stat(path).st_mtime_ns) if path.exists() else None
    result = mancala(home, "review", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mancala: ") and reason in lines[0], result.stderr
    after = (path.read_bytes(), os.stat(path).st_mtime_ns) if path.exists() else None
    assert after == before


def test_review_last_with_no_game_is_one_line(home):
    result = mancala(home, "review", "--last")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (f"mancala: no game to review: none kept in {home / 'history.sqlite3'} "
                                     "and none autosaved; give a save file")
    assert not (home / "history.sqlite3").exists()


def test_review_needs_a_file_or_last(home):
    result = mancala(home, "review")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].endswith(
        "error: one of the arguments FILE --last is required")
