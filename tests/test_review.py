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
from mancala import review as _review
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
        assert dict(move.scores) == values, (slots, to_move)
        assert move.loss == best - values[pit]
        assert (move.score_before, move.score_after) == (best, values[pit])
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
    # North 5 (index 4) sows into its 6th pit; then South captures twice more: 6-2 South in the end
    # (-6 for North); North's other moves keep the start's +2 for South (-2 for North)
    third = review_game(1, "standard", GAME).moves[2]
    assert (third.side, third.pit_index, third.loss, third.mark) == (1, 4, 4, "mistake")
    assert third.exact and third.score_before == -2 and third.score_after == -6


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
        assert dict(move.scores) == values
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
            assert {v["pit_index"]: v["score"] for v in entry["scores"]} == values


def test_review_text_names_the_mistake_and_the_better_moves_in_pits_1_to_6(home, tmp_path):
    path = save_game(tmp_path / "game.json", 1, "standard", GAME)
    result = mancala(home, "review", str(path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("South human vs North ai:easy, 1 seed per pit, standard capture, 7 moves")
    # North's 5th pit (K) leaves South +6 in the end instead of +2 (worked in the test above)
    at = [number for number, line in enumerate(lines) if line.split()[:3] == ["3", "North", "5"]]
    third, better = lines[at[0]], lines[at[0] + 1]
    assert third.split() == ["3", "North", "5", "(K)", "South", "+6", "4", "exact", "mistake"]
    (second,) = [line for line in lines if line.split()[:2] == ["2", "South"]]
    assert "5 (E), captures 2 seeds" in second      # the capture named in the move's text
    # one pair of brackets (issue 40: "Better: pit 6 (South +7 (depth 14))"), the kind said
    assert better.strip().startswith("better: 2, 3, 4 or 6, South +2 (exact); line 2 ")
    # the game's end under the rows, its sweep said: North's 6th pit (L) empties North's row
    # and South keeps the 2 seeds left in its own (worked by hand in test_history's GAME)
    assert lines[-3] == "After move 7, the game is over, South keeps the 2 seeds left in its row."
    assert lines[-2] == "You: 0 seeds lost in 4 moves: 0 inaccuracies, 0 mistakes, 0 blunders."
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
        "error: one of the arguments FILE --last --game is required")


# -- a review as it comes, and kept with its game -----------------------------------------------

def test_the_last_move_is_reviewed_first_and_the_whole_is_the_same_in_the_game_s_order():
    from mancala.review import review_moves
    moves = random_game(2, "standard", 11)
    streamed = list(review_moves(2, "standard", moves))
    assert [move.number for move in streamed] == list(range(len(moves), 0, -1))
    whole = review_game(2, "standard", moves)
    assert whole.moves == tuple(reversed(streamed))


def test_a_review_reads_back_from_its_json_as_it_was():
    from mancala.review import Review
    review = review_game(2, "empty", random_game(2, "empty", 5))
    again = Review.from_json(json.loads(json.dumps(review.to_json())))
    assert again == review
    broken = review.to_json()
    broken["moves"][0]["loss"] += 1                 # the mark no longer fits the loss
    with pytest.raises(ValueError, match="does not add up"):
        Review.from_json(broken)


class NoSearch:
    """An engine that must not be made: a review opened again searches nothing."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("the kept review was searched again")


def review_here(monkeypatch, capsys, *args):
    from mancala.cli import main
    code = main(["review", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_a_review_of_the_history_is_kept_and_opening_it_again_does_no_search(home, monkeypatch, capsys):
    monkeypatch.setenv("MANCALA_HOME", str(home))
    history = History(home / "history.sqlite3")
    game = history.record("human", "ai:easy", 2, "standard", random_game(2, "standard", 11))
    first = review_here(monkeypatch, capsys, "--last", "--json")
    assert set(history.reviews()) == {game.id}
    monkeypatch.setattr(_review, "Engine", NoSearch)     # the review's engine
    assert review_here(monkeypatch, capsys, "--last", "--json") == first
    assert review_here(monkeypatch, capsys, "--game", str(game.id), "--json") == first
    text = review_here(monkeypatch, capsys, "--game", str(game.id))
    assert "4 seeds lost" in text or "lost in" in text
    # another budget is another review: searched again
    with pytest.raises(AssertionError, match="searched again"):
        review_here(monkeypatch, capsys, "--last", "--depth", "6")


def test_a_save_file_of_a_kept_game_opens_its_kept_review(home, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MANCALA_HOME", str(home))
    moves = random_game(2, "none", 4)
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "none", moves)
    path = save_game(tmp_path / "game.json", 2, "none", moves)
    first = review_here(monkeypatch, capsys, str(path), "--json")
    monkeypatch.setattr(_review, "Engine", NoSearch)     # the review's engine
    assert review_here(monkeypatch, capsys, str(path), "--json") == first


def test_the_person_s_mistakes_become_puzzles_kept_with_the_review(home, monkeypatch, capsys):
    from mancala.puzzles import mine
    monkeypatch.setenv("MANCALA_HOME", str(home))
    moves = random_game(1, "standard", 30)          # South, the person, errs at moves 1, 7, 12, 14
    history = History(home / "history.sqlite3")
    game = history.record("human", "ai:easy", 1, "standard", moves)
    text = review_here(monkeypatch, capsys, "--last")
    # made when first asked for, not by the review (it kept the person waiting once shown)
    assert mine.waiting(history) == {game.id: 0}
    puzzles = mine.kept(history)
    assert puzzles and f"{len(puzzles)} of your mistakes make puzzles of your own: " \
        "python -m mancala puzzle --mine" in text
    assert mine.waiting(history) == {}
    import mancala.puzzles.mine as made_here
    monkeypatch.setattr(made_here, "find", lambda *args, **kwargs: pytest.fail("made again"))
    assert mine.kept(history) == puzzles                # kept: read back, not made again
    befores = positions(1, "standard", moves)
    checked = 0
    for puzzle in puzzles:
        number = int(puzzle.source.split("move ")[1].split(":")[0])
        assert puzzle.source.startswith(f"game {game.id}, move {number}: you played")
        slots, to_move = befores[number - 1]
        assert (list(puzzle.board), puzzle.to_move) == (slots, to_move) and to_move == 0
        assert moves[number - 1] != puzzle.solution[0]           # what the person missed
        if in_pits(slots) > BRUTE_FORCE_SEEDS:
            continue
        checked += 1
        values = brute_values(slots, to_move, "standard")       # the twin's perfect play
        best = max(values.values())
        assert [p for p in values if values[p] == best] == [puzzle.solution[0]]
        assert puzzle.value == best
    assert checked >= 2


def test_a_review_on_a_terminal_shows_its_progress_then_the_moves(home):
    pexpect = pytest.importorskip("pexpect")
    moves = random_game(2, "standard", 11)
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "standard", moves)
    env = dict(os.environ, MANCALA_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "review", "--last"], env=env,
                          encoding="utf-8", timeout=120, dimensions=(40, 200))
    child.expect(f"Reviewing {len(moves)} moves, the last first: 1 done, [0-9]+ marked")
    # each mark as it is found, before the review is shown
    child.expect(r"[1-9][0-9]* marked \(the latest: move [0-9]+, (South|North)'s "
                 r"(inaccuracy|mistake|blunder)\)")
    child.expect(f"Reviewing {len(moves)} moves, the last first: {len(moves)} done")
    child.expect("South human vs North ai:easy")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# -- issue 41: the curve in the terminal, and game records ---------------------------------------

def test_the_curve_s_block_heights_are_the_scores_worked_by_hand():
    from mancala.cli.curve import level, plot, sample
    # the largest lead (12) fills three rows of two half blocks: 6 half blocks; 6 seeds fill 3
    # (one row and a half), 3 seeds 1.5 rounded to 2, 1 seed at least 1, 0 none; North's
    # leads hang below the middle
    assert [level(v, 12) for v in (12, 6, -3, 0, 1, -12)] == [6, 3, -2, 0, 1, -6]
    assert plot([12, 6, -3, 0, 1, -12], 40) == [
        "Score after each move:",
        "South +12 █",
        "          █▄",
        "          ██  ▄",
        "            █  █",
        "               █",
        "North +12      █",
        "     move 1    6"]
    # a hundred moves in ten columns: each column the last move of its ten
    assert sample(list(range(1, 101)), 10) == [(n, n) for n in range(10, 101, 10)]


def test_the_curve_of_a_reviewed_game_is_its_perfect_play_scores(home):
    """GAME's scores after each move, from South's view, by the brute force alone: +2 after
    South's first two moves, +6 from North's mistake on (worked in the tests above)."""
    from mancala.cli.curve import plot
    scores = []
    for (slots, to_move), pit in zip(positions(1, "standard", GAME), GAME):
        value = brute_values(slots, to_move, "standard")[pit]
        scores.append(value if to_move == 0 else -value)
    assert scores == [2, 2, 6, 6, 6, 6, 6]
    review = review_game(1, "standard", GAME)
    assert [move.after.south for move in review.moves] == scores
    assert plot(scores, 60)[1:4] == ["South +6   █████", "           █████", "         ███████"]


def test_the_curve_goes_beside_the_table_where_it_fits_and_under_it_where_not():
    from mancala.cli.curve import GAP, beside
    table = ["x" * 50] * 3
    placed = beside(table, [3, -3, 6], 90)
    assert placed[0] == "x" * 50 + " " * GAP + "Score after each move:"
    assert placed[1] == "x" * 50 + " " * GAP + "South +6   █"        # only 6 reaches the top row
    assert placed[2] == "x" * 50 + " " * GAP + "         ▄ █"         # 3 fills a row and a half
    assert placed[3] == " " * (50 + GAP) + "         █ █"         # past the table's last line
    assert len(placed) == 8 and placed[7].strip() == "move 1 3"      # the plot is longer than the table
    assert beside(table, [3, -3, 6], 70) is None                     # 17 columns: not the title's 22
    assert beside(table, list(range(40)), 80) is None                # not 20 moves' columns


def review_on_a_terminal(home, columns, *args):
    pexpect = pytest.importorskip("pexpect")
    import re
    env = dict(os.environ, MANCALA_HOME=str(home), NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    child = pexpect.spawn(sys.executable, ["-m", "mancala", "review", *args], env=env,
                          encoding="utf-8", timeout=120, dimensions=(40, columns))
    child.expect(pexpect.EOF)
    child.close()
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", child.before.replace("\r\n", "\n"))
    return [line.split("\r")[-1].rstrip() for line in text.split("\n")]


@pytest.mark.parametrize("columns", [60, 80])
def test_on_a_narrow_terminal_the_curve_is_under_the_table_and_fits(home, columns):
    """At 60 and 80 columns the table leaves no room beside it: the curve follows the
    game's end, one column a move, within the terminal's width."""
    from mancala.cli.curve import plot
    moves = random_game(2, "standard", 11)
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "standard", moves)
    lines = review_on_a_terminal(home, columns, "--last")
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    end = next(i for i, line in enumerate(lines) if line.startswith(f"After move {len(moves)},"))
    title = lines.index("Score after each move:")
    assert end < title < end + 3          # after the game's end (its line may be broken in two)
    listed = json.loads(mancala(home, "review", "--last", "--json").stdout)
    curve = plot([move["south_after"] for move in listed], columns)
    assert lines[title:title + len(curve)] == curve and len(curve) == 8
    assert lines[title + len(curve)].startswith("You: ")
    assert curve[-1].endswith(f" 1{' ' * (len(moves) - 1 - len(str(len(moves))))}{len(moves)}")


def test_on_a_wide_terminal_the_curve_is_beside_the_table(home):
    moves = random_game(2, "standard", 11)
    History(home / "history.sqlite3").record("human", "ai:easy", 2, "standard", moves)
    lines = review_on_a_terminal(home, 140, "--last")
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("move"))
    header = lines[at]
    assert header.split()[-5:] == ["mark", "Score", "after", "each", "move:"], header
    end = next(i for i, line in enumerate(lines) if line.startswith("After move"))
    column = header.index("Score after")        # the table's widest row, and a gap, to its left
    assert column == max(len(line[:column].rstrip()) for line in lines[at:end]) + 3
    assert lines[at + 1][column:].startswith("South +")
    assert lines[at + 7][column:].split() == ["move", "1", str(len(moves))]
    assert all(len(line) <= 140 for line in lines)
    assert not any(line == "Score after each move:" for line in lines)     # not under it too


RECORD = """[Variant "Kalah"]
[Event "?"]
[Site "?"]
[Date "2026.05.01"]
[South "human"]
[North "ai:easy"]
[Seeds "1"]
[Capture "standard"]
[Result "9-3"]

1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3
"""


def test_review_of_a_game_record_is_the_review_of_its_save(home, tmp_path):
    """GAME written as a record by hand (F's seed in the store, E's capture of 2, ...)."""
    path = tmp_path / "game.kalah"
    path.write_text(RECORD)
    from_record = mancala(home, "review", str(path), "--json")
    assert from_record.returncode == 0, from_record.stderr
    from_save = mancala(home, "review", str(save_game(tmp_path / "game.json", 1, "standard", GAME)),
                        "--json")
    assert json.loads(from_record.stdout) == json.loads(from_save.stdout)
    assert [move["pit_index"] for move in json.loads(from_record.stdout)] == GAME


@pytest.mark.parametrize("edit, reason", [
    (lambda t: t.replace("3. D+2", "3. D+3"), "line 11: turn 3 (D+3): D captures 2 seeds, not 3"),
    (lambda t: t.replace('"9-3"', '"8-4"'), "line 11: the moves end with 9-3 but the Result tag "
                                            "(line 9) says 8-4"),
    (lambda t: t.replace('[Result "9-3"]', '[Result "9-3"]\n[FEN "1-1-1-1-1-1-0-1-1-1-1-1-1-0-N"]')
     .replace("1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3", "*").replace('"9-3"', '"*"'),
     "starts from a set-up position (its FEN tag): a review goes through a game from the "
     "rules' start"),
])
def test_review_refuses_a_bad_record_in_one_line(home, tmp_path, edit, reason):
    path = tmp_path / "bad.kalah"
    path.write_text(edit(RECORD))
    result = mancala(home, "review", str(path))
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"mancala: {str(path)!r}") and line.endswith(reason), line
