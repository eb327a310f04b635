"""Players: the spellings parse_player accepts, legal moves from every kind, a human's ask."""
import random

import pytest

import mancala
from mancala import _reference, levels, players
from mancala.players import (
    AlphaBetaPlayer, EnginePlayer, Human, MinimaxPlayer, PlayerSpecError, RandomPlayer, parse_player)

from conftest import depth_limited_values


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))


def positions(count=12, seed=7):
    """Boards met along random play-outs of Kalah(6,4) and (6,3), game-over ones left out."""
    rng = random.Random(seed)
    found = []
    for seeds in (4, 3):
        board = mancala.Board(seeds=seeds)
        while len(found) < count * (1 if seeds == 4 else 2) and not board.is_game_over():
            found.append(board.copy(stack=False))
            board.push(rng.choice(board.legal_moves))
    return found


# -- parse_player ------------------------------------------------------------------

@pytest.mark.parametrize("spec, cls, canonical", [
    ("human", Human, "human"),
    ("random", RandomPlayer, "random"),
    ("minimax:3", MinimaxPlayer, "minimax:3"),
    ("alphabeta:5", AlphaBetaPlayer, "alphabeta:5"),
    ("ai", EnginePlayer, "ai:medium"),
    ("ai:easy", EnginePlayer, "ai:easy"),
    ("ai:medium", EnginePlayer, "ai:medium"),
    ("ai:hard", EnginePlayer, "ai:hard"),
    ("ai:perfect", EnginePlayer, "ai:perfect"),
    ("ai:depth=10", EnginePlayer, "ai:depth=10"),
    ("ai:time=0.5", EnginePlayer, "ai:time=0.5"),
    ("  AI:Hard ", EnginePlayer, "ai:hard"),
])
def test_parse_player_accepts_every_documented_form(spec, cls, canonical):
    player = parse_player(spec)
    assert isinstance(player, cls)
    assert player.spec == canonical
    assert player.description
    assert parse_player(player.spec).spec == canonical     # the spec round-trips


@pytest.mark.parametrize("spec", [
    "", "robot", "ai:", "ai:impossible", "ai:depth=0", "ai:depth=255", "ai:depth=x",
    "ai:time=0", "ai:time=-1", "ai:time=nan", "ai:time=inf", "ai:time=99999",
    "minimax", "minimax:0", "minimax:x", "alphabeta:-2", "human:1", 42, None,
])
def test_bad_spec_is_a_value_error_listing_the_valid_forms(spec):
    with pytest.raises(PlayerSpecError) as info:
        parse_player(spec)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "\n" not in message
    assert repr(spec) in message
    for form in ("human", "random", "minimax:N", "alphabeta:N", "ai:easy", "ai:perfect",
                 "ai:depth=N", "ai:time=S"):
        assert form in message


def test_parse_player_does_not_touch_the_terminal(monkeypatch):
    prompts = []
    monkeypatch.setattr("builtins.input", lambda prompt="": prompts.append(prompt) or "1")
    made = {spec: parse_player(spec) for spec in ("human", "random", "ai:hard", "minimax:2")}
    assert prompts == []
    assert {spec: (player.spec, player.is_human) for spec, player in made.items()} == {
        "human": ("human", True), "random": ("random", False),
        "ai:hard": ("ai:hard", False), "minimax:2": ("minimax:2", False)}


# -- every computer player plays legal moves -----------------------------------------

@pytest.mark.parametrize("spec", [
    "random", "minimax:2", "alphabeta:3", "ai:easy", "ai:medium", "ai:depth=4", "ai:time=0.02",
])
def test_computer_players_choose_legal_moves(spec):
    player = parse_player(spec, seed=1)
    for board in positions():
        before = board.pits
        pit = player.choose(board)
        assert pit in board.legal_moves
        assert board.pits == before          # the board is left as it was
        assert player.last is not None


def test_random_player_is_repeatable_with_a_seed():
    boards = positions()
    first = [RandomPlayer(seed=5).choose(b) for b in boards]
    again = [RandomPlayer(seed=5).choose(b) for b in boards]
    assert first == again


def full_tree_size(slots, to_move, depth, capture):
    """Positions a full-width search ``depth`` moves deep visits, root included."""
    if depth == 0 or _reference.is_game_over(slots):
        return 1
    return 1 + sum(full_tree_size(*_reference.play(slots, to_move, pit, capture)[:2], depth - 1, capture)
                   for pit in _reference.legal_moves(slots, to_move))


def test_minimax_and_alphabeta_players_find_the_brute_force_value():
    """Against a full-width search written out in conftest on the twin's rules
    (not the players' own _reference searches): the best value, the first pit
    that reaches it, and for minimax the size of the whole tree."""
    for board in positions(6):
        slots, to_move = board.pits, board.to_move
        values = depth_limited_values(slots, to_move, 3, 0)
        best = max(values.values())
        first_best = min(pit for pit, value in values.items() if value == best)
        mm = MinimaxPlayer(3)
        ab = AlphaBetaPlayer(3)
        assert (mm.choose(board), mm.last.score) == (first_best, best), (slots, to_move, values)
        assert (ab.choose(board), ab.last.score) == (first_best, best), (slots, to_move, values)
        assert mm.last.nodes == full_tree_size(slots, to_move, 3, 0)
        assert ab.last.nodes <= mm.last.nodes


def test_reference_players_use_the_boards_capture_rule():
    # South's pit 0 (1 seed) ends in empty pit 1 facing an empty pit 11: only "empty" captures
    board = mancala.Board([1, 0, 0, 0, 0, 3, 0, 2, 2, 2, 2, 0, 0, 0], capture="empty")
    player = AlphaBetaPlayer(1)
    assert player.choose(board) == 0
    assert player.last.score == 1


def test_engine_player_at_a_depth_plays_the_engines_move():
    engine = mancala.Engine(hash_mb=1)
    for board in positions(6):
        engine.clear()
        player = EnginePlayer(depth=6)
        assert player.choose(board) == engine.search(board, depth=6).move
        assert player.last.depth == 6


def test_easy_plays_lesser_moves_at_times_and_a_seed_repeats_them():
    boards = positions()
    picks = [[EnginePlayer("easy", seed=1).choose(b) for b in boards] for _ in range(2)]
    assert picks[0] == picks[1]
    player = EnginePlayer("easy", seed=3)
    lesser = 0
    for board in boards * 3:
        player.choose(board)
        lesser += player.last.note.endswith("below its best move")
    assert 0 < lesser < len(boards) * 3


def test_medium_beats_easy():
    wins = 0
    for seed in range(4):
        south, north = EnginePlayer("medium", seed=seed), EnginePlayer("easy", seed=seed)
        board = mancala.Board()
        while not board.is_game_over():
            mover = south if board.to_move == 0 else north
            board.push(mover.choose(board))
        wins += board.outcome().winner == 0
    assert wins >= 3


def test_perfect_solves_an_endgame_exactly():
    board = mancala.Board([0, 0, 1, 0, 2, 1, 20, 1, 0, 2, 0, 0, 1, 20])
    player = EnginePlayer("perfect")
    pit = player.choose(board)
    result = mancala.Engine(hash_mb=1).solve(board)
    assert player.last.exact and player.last.note.startswith("solved")
    assert player.last.score == result.score
    assert pit in board.legal_moves


def test_perfect_falls_back_to_a_search_when_the_solve_runs_out_of_time(monkeypatch):
    monkeypatch.setattr(levels, "PERFECT_SOLVE_TIME", 0.05)
    monkeypatch.setattr(levels, "PERFECT_FALLBACK_TIME", 0.05)
    player = EnginePlayer("perfect")
    board = mancala.Board()
    board.push(0)  # past the opening book
    pit = player.choose(board)
    assert pit in range(6)
    assert not player.last.exact
    assert player.last.note == "not solved in time"
    assert player.last.depth > 0


@pytest.mark.slow
def test_perfect_from_the_opening_gives_a_move_within_its_time_budget():
    player = EnginePlayer("perfect")
    assert player.choose(mancala.Board()) in range(6)
    assert player.last.elapsed < levels.PERFECT_SOLVE_TIME + levels.PERFECT_FALLBACK_TIME + 1


# -- people ---------------------------------------------------------------------------

def test_a_human_is_asked_through_its_ask_and_a_none_passes_through():
    asked = []
    human = Human(lambda board: asked.append(board.pits) or None)
    assert human.choose(mancala.Board()) is None and asked == [mancala.Board().pits]
    assert Human(lambda board: 3).choose(mancala.Board()) == 3 and human.is_human


def test_a_human_nobody_can_ask_says_so():
    with pytest.raises(mancala.errors.GameError, match="ask="):
        parse_player("human").choose(mancala.Board())


def test_perfect_plays_the_opening_from_the_book(tmp_path, monkeypatch):
    from mancala import book
    path = tmp_path / "openings.json"
    book.save([book.BookEntry(4, "standard", 8, (2, 5), 1, 1.0)], path)
    monkeypatch.setattr(book, "BOOK_PATH", path)
    player = parse_player("ai:perfect", seed=1)
    assert player.choose(mancala.Board()) in (2, 5)
    assert player.last.note == "opening book" and player.last.exact and player.last.score == 8


# -- the levels' evaluations: timed ones learned, depth ones the store difference --------


@pytest.mark.parametrize("spec", [dict(time=0.05), dict(level="hard"), dict(level="perfect"),
                                  dict(depth=4), dict(level="medium"), dict(level="easy")])
def test_the_levels_play_with_the_librarys_evaluations(spec):
    # the engine's default: learned in its timed searches, the store difference at a depth
    # (tests/test_timed.py holds the engine to it against the twin)
    assert EnginePlayer(**spec).engine.evaluation is None


def test_a_timed_players_score_is_the_learned_value_when_the_search_is_shallow():
    # a position where the learned and the store values at depth 2 differ (the
    # twin's alpha-beta): a short timed search reports depth and score, and at
    # depth 2 its engine answers the learned one
    board = mancala.Board()
    for pit in (2, 5, 1):
        board.push(pit)
    learned = _reference.alphabeta(board.pits, board.to_move, 2, 0, _reference.LEARNED)[0]
    store = _reference.alphabeta(board.pits, board.to_move, 2, 0, _reference.STORE)[0]
    assert learned != store
    player = EnginePlayer(time=0.05)
    assert player.engine.search(board, depth=2, time=600).score == learned    # a timed search
