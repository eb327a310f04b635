"""One voice for numbers (mancala.scores): a score names its side and its kind, and the
hint, the analysis and a review's searched moves give the same number for the same
position and depth, each checked against the twin's full-width search."""
import random

import pytest

import mancala
from mancala.analysis import hint
from mancala.errors import InputError
from mancala.review import review_move
from mancala.scores import Score

from conftest import depth_limited_values

CAPTURES = ("standard", "empty", "none")


@pytest.mark.parametrize("score, you, words, text", [
    (Score(8, 0, depth=14), None, "South +8", "South +8 (depth 14)"),
    (Score(8, 0, depth=14), 0, "+8 for you", "+8 for you (depth 14)"),
    (Score(8, 0, depth=14), 1, "-8 for you", "-8 for you (depth 14)"),
    (Score(-3, 0, exact=True), None, "North +3", "North +3 (exact)"),
    (Score(5, 1, exact=True), None, "North +5", "North +5 (exact)"),
    (Score(5, 1, exact=True), 0, "-5 for you", "-5 for you (exact)"),
    (Score(0, 1, depth=2), 0, "even", "even (depth 2)"),
    (Score(2, 1), None, "North +2", "North +2 (searched)"),
])
def test_a_score_names_its_side_and_its_kind(score, you, words, text):
    assert score.words(you) == words and score.text(you) == text


def test_a_score_turns_to_either_side_and_to_json():
    score = Score(-3, 1, depth=6)
    assert (score.pov(0), score.pov(1), score.south) == (3, -3, 3)
    assert score.seen_by(0) == Score(3, 0, depth=6)
    assert score.to_json() == {"south": 3, "exact": False, "depth": 6, "kind": "depth 6",
                               "text": "South +3 (depth 6)"}


@pytest.mark.parametrize("bad", [dict(seeds=1, side=2), dict(seeds=1.5, side=0),
                                 dict(seeds=True, side=0), dict(seeds=1, side=0, depth=-1)])
def test_a_score_that_is_not_one_is_refused(bad):
    with pytest.raises(InputError):
        Score(**bad)


def positions(count, seed):
    """Boards reached by random play (not over), over the three rules and 2..6 seeds."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board = mancala.Board(seeds=rng.randint(2, 6), capture=rng.choice(CAPTURES))
        for _ in range(rng.randrange(0, 25)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            found.append(board)
    return found


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_the_hint_and_the_analysis_give_the_twins_number_at_the_same_depth(depth):
    for board in positions(12, depth):
        twin = depth_limited_values(board.pits, board.to_move, depth,
                                    CAPTURES.index(board.capture))
        given = hint(mancala.Engine(hash_mb=1), board, depth)
        analysed = mancala.Engine(hash_mb=1).analyse(board, depth=depth)
        assert {pit: result.score for pit, result in analysed.items()} == twin
        assert given.score.seeds == max(twin.values()) == twin[given.pit]
        assert given.score.side == board.to_move


@pytest.mark.parametrize("depth", [8, 14])
def test_the_hint_the_analysis_and_a_review_agree_deeper(depth):
    for board in positions(8, 100 + depth):
        given = hint(mancala.Engine(hash_mb=16), board, depth)
        analysed = mancala.Engine(hash_mb=16).analyse(board, depth=depth)
        best = max(result.score for result in analysed.values())
        assert given.score.seeds == best == analysed[given.pit].score
        if given.score.exact:
            continue                    # the search reached every end: no depth to compare
        reviewed = review_move(mancala.Engine(hash_mb=16), board, given.pit, nodes=1, depth=depth)
        assert not reviewed.exact
        assert reviewed.before == Score(best, board.to_move, depth=depth) == given.score
