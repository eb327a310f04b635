"""Game records (mancala.records): the Kalah record in OGN's shape, read and written.

Round trips over random games under every rule (finished, stopped, resigned, from a
set-up), records worked by hand (an extra turn's chain, a capture, a set-up), and bad
records refused in one line naming their line. The commands that read and write them
are tested where those commands are (test_cli_play, test_review, test_history).
"""
import random

import pytest

from mancala import _reference
from mancala.board import CAPTURE_RULES, Board
from mancala.errors import RecordError, SaveFileError
from mancala.records import Record, Setup, dumps, dumps_all, loads, loads_all, setup_of

CAPTURES = ("standard", "empty", "none")


def random_record(seeds, capture, seed):
    """A game of random legal moves under the twin's rules (an independent source), played
    to its end, or stopped or resigned at a random move, or from a set-up reached first."""
    rng = random.Random(seed)
    code = CAPTURES.index(capture)
    slots, to_move, moves = ([seeds] * 6 + [0]) * 2, 0, []
    setup = None
    how = rng.choice(["end", "stop", "resign", "setup"])
    while not _reference.is_game_over(slots):
        if how in ("stop", "resign") and rng.random() < 0.05:
            break
        if how == "setup" and setup is None and rng.random() < 0.2:
            setup, moves = Setup(tuple(slots), to_move), []
        pit = rng.choice(_reference.legal_moves(slots, to_move))
        slots, to_move, _ = _reference.play(slots, to_move, pit, code)
        moves.append(pit)
    resigned = to_move if how == "resign" and not _reference.is_game_over(slots) else None
    return Record(seeds, capture, "human", "ai:medium", moves, setup, resigned,
                  {"Event": "Casual game", "Date": "2026.05.01", "Annotator": "a test"}), slots


@pytest.mark.parametrize("capture", CAPTURE_RULES)
@pytest.mark.parametrize("seeds", [1, 2, 3, 4, 6, 12])
def test_a_record_written_then_read_is_the_same_game(seeds, capture):
    for seed in range(8):
        record, slots = random_record(seeds, capture, seed * 100 + seeds)
        text = dumps(record)
        again = loads(text)
        assert again == record, text
        assert list(again.board().pits) == slots        # the twin's board, move for move
        assert all(len(line) <= 79 for line in text.splitlines())


def test_several_games_in_one_text_read_back_in_order():
    games = [random_record(seeds, capture, seeds)[0] for seeds in (1, 3, 4) for capture in CAPTURES]
    assert loads_all(dumps_all(games)) == games
    with pytest.raises(RecordError, match=r"^line 1[0-9]: a second game starts here"):
        loads(dumps_all(games[:2]))


def test_a_board_s_record_starts_where_its_history_starts():
    board = Board(seeds=3, capture="empty")
    for pit in (2, 5, 0):
        board.push(pit)
    assert setup_of(board, 3) is None
    middle = Board(list(board.pits), board.to_move, capture="empty")
    middle.push(middle.legal_moves[0])
    record = Record.from_board(middle, 3, "human", "random")
    assert record.setup == Setup(tuple(board.pits), board.to_move)
    assert loads(dumps(record)).board() == middle


# -- records worked by hand ----------------------------------------------------------------

TAGS = """[Variant "Kalah"]
[Event "A test"]
[Site "?"]
[Date "2026.05.01"]
[South "human"]
[North "ai:easy"]
[Seeds "4"]
[Capture "standard"]
[Result "*"]
"""


def test_an_extra_turn_s_chain_is_one_turn():
    # Kalah(6,4). South's C (4 seeds) sows D, E, F and the store: an extra turn, written
    # with its next sowing in one turn: F (5 seeds) sows the store, G, H, I, J. North's L
    # (4 seeds) sows its store, A, B, C.
    #        L  K  J  I  H  G
    #        0  4  5  5  5  5
    #     1                    2
    #        5  5  1  5  5  0
    #        A  B  C  D  E  F        South to move
    record = loads(TAGS + "\n1. CF 2. L *\n")
    assert record.moves == [2, 5, 5]
    board = record.board()
    assert list(board.pits) == [5, 5, 1, 5, 5, 0, 2, 5, 5, 5, 5, 4, 0, 1] and board.to_move == 0
    assert record.turns() == ["CF", "L"] and record.result == "*"
    # the chain cut in two turns, or a turn that goes on after it ended, is refused
    with pytest.raises(RecordError, match=r"^line 11: turn 1 \(C\): C earns South an extra turn, "
                                          r"so the turn goes on"):
        loads(TAGS + "\n1. C\n2. F 3. L *\n")
    with pytest.raises(RecordError, match=r"^line 11: turn 2 \(LG\): L ends North's turn "
                                          r"\(no extra turn\), so G cannot follow it$"):
        loads(TAGS + "\n1. CF 2. LG *\n")


def test_a_capture_is_written_with_its_seeds():
    # South's E (4 seeds) sows F, the store, G, H. North's G (5 seeds) sows H to L. South's A
    # (4 seeds) ends in the empty E, facing H's 6 seeds: 6 + 1 go to South's store (1 + 7).
    #        L  K  J  I  H  G
    #        5  5  5  5  0  0
    #     0                    8
    #        0  5  5  5  0  5
    #        A  B  C  D  E  F        North to move
    record = loads(TAGS + "\n1. E 2. G 3. A+7 *\n")
    assert record.moves == [4, 0, 0]
    assert list(record.board().pits) == [0, 5, 5, 5, 0, 5, 8, 0, 0, 5, 5, 5, 5, 0]
    assert dumps(record).splitlines()[-1] == "1. E 2. G 3. A+7 *"
    assert loads(TAGS + "\n1. E 2. G 3. A *\n").moves == [4, 0, 0]     # the count may be left out
    with pytest.raises(RecordError, match=r"^line 11: turn 3 \(A\+6\): A captures 7 seeds, not 6$"):
        loads(TAGS + "\n1. E 2. G 3. A+6 *\n")
    with pytest.raises(RecordError, match=r"^line 11: turn 1 \(E\+1\): E captures nothing, not 1$"):
        loads(TAGS + "\n1. E+1 2. G 3. A *\n")


SETUP = """[Variant "Kalah"]
[South "human"]
[North "ai:depth=2"]
[Seeds "2"]
[Capture "standard"]
[Result "12-12"]
[FEN "0-0-0-0-1-1-10-0-0-0-2-0-1-9-S"]

1. FE 2. J
3. F 12-12
"""


def test_a_set_up_game_is_played_from_its_fen():
    # Kalah(6,2) from a set-up, South to move:
    #        L  K  J  I  H  G
    #        1  0  2  0  0  0
    #     9                   10
    #        0  0  0  0  1  1
    #        A  B  C  D  E  F
    # F sows its seed in the store (extra turn); E sows F (empty, facing an empty G: no
    # capture); North's J sows K and L; South's F again fills the store, South's row is
    # empty: the game is over, North keeps its 3 seeds. 12 - 12.
    record = loads(SETUP)
    assert record.setup == Setup((0, 0, 0, 0, 1, 1, 10, 0, 0, 0, 2, 0, 1, 9), 0)
    assert record.moves == [5, 4, 3, 5]
    assert record.board().outcome()[1:] == (12, 12)
    assert record.tags == {}
    assert loads(dumps(record)) == record


# -- bad records: one line, naming the line -----------------------------------------------------

FINISHED = SETUP


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('[Capture "standard"]\n', ""),
     "lines 1-6: the tags have no Capture tag (a record has Variant, South, North, Seeds, "
     "Capture, Result)"),
    (lambda t: t.replace("2. J", "2. K"), "line 9: turn 2 (K): K (North's pit 5) is empty"),
    (lambda t: t.replace("2. J", "2. B"), "line 9: turn 2 (B): B is South's pit, and it is "
                                          "North's turn"),
    (lambda t: t.replace("3. F 12-12", "3. F 4. A 12-12"),
     "line 10: turn 4 (A) comes after the game is over (it ended after turn 3)"),
    (lambda t: t.replace("12-12", "14-10"),
     "line 6: Result 14-10 is wrong: the moves end South 12 - 12 North"),
    (lambda t: t.replace("3. F 12-12", "3. F 14-10"),
     "line 10: the moves end with 14-10 but the Result tag (line 6) says 12-12"),
    (lambda t: t.replace('[Result "12-12"]', '[Result "*"]'),
     "line 10: the moves end with 12-12 but the Result tag (line 6) says *"),
    (lambda t: t.replace("\n3. F 12-12", " *").replace('"12-12"', '"*"'), None),
    (lambda t: t.replace("\n3. F 12-12", " 12-12"),
     "line 6: Result 12-12, but the game is not over after its 2 turns (a game going on has "
     "Result *)"),
    (lambda t: t.replace("3. F 12-12", "3. F"),
     "line 10: the moves end without a result (the stores, as 26-22, or * for a game going on)"),
    (lambda t: t.replace("3. F", "4. F"), "line 10: turn number 4. where 3. was expected"),
    (lambda t: t.replace('"Kalah"', '"Oware"'), "line 1: Variant 'Oware' is not Kalah"),
    (lambda t: t.replace('[Seeds "2"]', '[Seeds "13"]'),
     "line 4: Seeds is the seeds per pit at the start, 1..12, not '13'"),
    (lambda t: t.replace("-10-0-", "-11-0-"),
     "line 7: the FEN holds 25 seeds, not 24 (Seeds 2 in each of 12 pits, stores counted)"),
    (lambda t: t.replace("-9-S", "-9"), "line 7: FEN '0-0-0-0-1-1-10-0-0-0-2-0-1-9' is not 14 counts"),
    (lambda t: t.replace('[Seeds "2"]', '[Seeds "2"]\n[Seeds "3"]'),
     "line 5: a second Seeds tag (the first is on line 4)"),
    (lambda t: t.replace('[Capture "standard"]', "[Capture standard]"),
     "line 5: '[Capture standard]' is not a tag"),
    (lambda t: t.replace("2. J", "2. J {a comment never closed"),
     "line 9: a comment opened with { is never closed with }"),
    (lambda t: t.replace("2. J", "2. J x7"), "line 9: 'x7' is not a turn (pits A-L)"),
    (lambda t: t + "5. A\n", "line 11: '5.' comes after the game's result (12-12)"),
    (lambda t: "1. FE\n" + t, "line 1: a game starts with its tags"),
    (lambda t: t.replace('[Result "12-12"]', '[Result "12-12"]\n[Resigned "South"]'),
     "line 7: South cannot have resigned: the game is over"),
])
def test_a_bad_record_is_refused_in_one_line_naming_its_line(edit, message):
    text = edit(FINISHED)
    if message is None:                 # the edit makes a record that holds: a game going on
        assert loads(text).result == "*"
        return
    with pytest.raises(RecordError) as caught:
        loads(text)
    said = str(caught.value)
    assert said.startswith(message) and "\n" not in said, said
    assert isinstance(caught.value, SaveFileError) and isinstance(caught.value, ValueError)


def test_comments_and_a_pgn_style_number_glued_to_its_turn_are_read():
    text = FINISHED.replace("1. FE 2. J", "{from a puzzle} 1.FE ; South's chain\n2. J {North}")
    assert loads(text).moves == [5, 4, 3, 5]


def test_a_resigned_game_keeps_its_stores_as_they_stood():
    text = (TAGS.replace('"*"', '"1-0"') + '[Resigned "North"]\n\n1. E 1-0\n')
    record = loads(text)
    assert record.resigned == 1 and record.result == "1-0"
    with pytest.raises(RecordError, match=r"^line 9: Result 1-0 is wrong: the stores stand "
                                          r"South 0 - 0 North$"):
        loads(text.replace("1. E 1-0", "1. A 1-0"))


# -- a record as a save: mancala.storage reads and writes one --------------------------------------

def test_storage_reads_a_record_by_its_name_or_its_text_and_writes_one_to_a_kalah_name(tmp_path):
    from mancala import storage
    from mancala.records import looks_like
    assert looks_like("game.kalah", "{") and looks_like("x.txt", '\ufeff [Variant "Kalah"]')
    assert not looks_like("x.json", '[Variant "Kalah"]') and not looks_like(None, "[]")
    saved = storage.SavedGame(1, "standard", "human", "random", [5, 4, 4, 3, 3, 2, 5])
    storage.save(saved, tmp_path / "game.kalah")
    text = (tmp_path / "game.kalah").read_text()
    assert text.endswith("\n1. FE+2 2. K 3. D+2 4. J+2 5. C+2 6. L 9-3\n")
    again = storage.load(tmp_path / "game.kalah")
    assert (again.seeds, again.south, again.north, again.moves, again.rated) == \
        (1, "human", "random", saved.moves, False)
    (tmp_path / "pasted.txt").write_text(text)
    assert storage.load(tmp_path / "pasted.txt").moves == saved.moves
    storage.save(saved, tmp_path / "game.kalah")           # a record is a save: replaced
    (tmp_path / "notes.kalah").write_text("my notes\n")
    with pytest.raises(SaveFileError, match="it is not a mancala save file"):
        storage.save(saved, tmp_path / "notes.kalah")
    assert (tmp_path / "notes.kalah").read_text() == "my notes\n"
    (tmp_path / "bad.kalah").write_text("1. FE\n")
    with pytest.raises(RecordError, match=r"^'[^']*bad.kalah': line 1: a game starts with its tags"):
        storage.load(tmp_path / "bad.kalah")


def test_a_set_up_game_keeps_its_start_in_a_json_save_and_loads_only_where_asked(tmp_path):
    """A game played on from a record's set-up autosaves as JSON with its "setup"; the text
    reader the web app uses (storage.loads) replays only rules and moves, so it refuses one."""
    from mancala import storage
    record = loads(SETUP)
    saved = storage.from_record(record)
    json_text = storage.dumps(saved)
    assert '"setup": {"slots": [0, 0, 0, 0, 1, 1, 10, 0, 0, 0, 2, 0, 1, 9], "to_move": 0}' in json_text
    again = storage.loads(json_text, setup=True)
    assert again.setup == record.setup and again.board() == record.board()
    for text in (json_text, SETUP):
        with pytest.raises(SaveFileError, match="starts from a set-up position"):
            storage.loads(text)
    assert storage.loads(dumps(Record(1, "none", "human", "random", [0]))).moves == [0]
    # a Board played on from the set-up saves its start with it
    board = record.start()
    board.push(5)
    assert storage.SavedGame.from_board(board, 2, "human", "random").setup == record.setup


def test_a_history_game_is_recorded_with_its_kind_number_and_time(tmp_path):
    """Record.from_history: the one record of a kept game both faces export (the terminal's
    history --export, the web's export), its tags worked by hand from the history's row."""
    from mancala.history import History
    history = History(tmp_path / "history.sqlite3")
    moves = [5, 4, 4, 3, 3, 2, 5]           # docs/records.md's Kalah(6,1) game: 9-3
    rated = history.record("human", "random", 1, "standard", moves, 1777636800.0, rated=True)
    casual = history.record("human", "random", 1, "standard", moves[:3], 1777640461.0, rated=False,
                            resigned=0)
    demo = history.record("random", "ai:easy", 1, "standard", moves, 1777640462.0)
    record = Record.from_history(rated)
    assert (record.seeds, record.capture, record.south, record.north, record.moves) == \
        (1, "standard", "human", "random", moves)
    assert record.tags == {"Event": "Rated game", "Site": "mancala history, game 1",
                           "Date": "2026.05.01", "UTCTime": "12:00:00"}
    assert dumps(record).splitlines()[:4] == ['[Variant "Kalah"]', '[Event "Rated game"]',
                                              '[Site "mancala history, game 1"]', '[Date "2026.05.01"]']
    second = Record.from_history(casual)
    assert second.tags["Event"] == "Casual game" and second.tags["UTCTime"] == "13:01:01"
    assert second.resigned == 0 and second.result == "3-0"
    assert Record.from_history(demo).tags["Event"] == "?"
