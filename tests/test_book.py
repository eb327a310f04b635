"""The opening book is untrusted input: every entry is checked on load, a broken
book is one line (BookError), and the players and commands that use it go on."""
import functools
import json
import logging

import pytest

import mancala
from mancala import _core, _reference, book
from mancala.cli import main
from mancala.players import parse_player

# Kalah(6,2) standard: +6, pit index 4 the only optimal first move (solved in tests below)
GOOD = {"seeds": 2, "capture": "standard", "value": 6, "moves": [4], "nodes": 10, "seconds": 0.0}


def book_text(*entries, **top):
    data = {"format": "mancala-openings", "version": 1, "openings": list(entries)}
    data.update(top)
    return json.dumps(data)


def with_(**changes):
    return {**GOOD, **changes}


HOSTILE = {
    "empty moves": (book_text(with_(moves=[])), "moves"),
    "move 7": (book_text(with_(moves=[7])), "moves"),
    "move -1": (book_text(with_(moves=[-1])), "moves"),
    "repeated move": (book_text(with_(moves=[4, 4])), "moves"),
    "move not a number": (book_text(with_(moves=["4"])), "moves"),
    "value 99": (book_text(with_(value=99)), "value 99"),
    "odd value": (book_text(with_(value=5)), "value 5"),
    "value a float": (book_text(with_(value=6.0)), "value 6.0"),
    "value true": (book_text(with_(value=True)), "value True"),
    "seeds 0": (book_text(with_(seeds=0)), "seeds"),
    "unknown capture": (book_text(with_(capture="steal")), "capture"),
    "duplicate entries": (book_text(GOOD, with_(value=4)), "twice"),
    "negative nodes": (book_text(with_(nodes=-1)), "nodes"),
    "no value": (book_text({k: v for k, v in GOOD.items() if k != "value"}), "no value"),
    "entry not an object": (book_text([2, "standard"]), "not an object"),
    "deep nesting": ("[" * 200000 + "]" * 200000, "nested too deeply"),
    "not JSON": ("{\"format\": ", "not JSON"),
    "not UTF-8": ("\udcff", "not JSON"),
    "another format": (json.dumps({"format": "chess-book", "openings": []}), "not a mancala-openings"),
    "newer version": (book_text(GOOD, version=2), "version 2"),
    "huge number": (book_text(GOOD).replace('"value": 6', '"value": ' + "9" * 5000), "too long"),
    "missing file": (None, "No such file"),
}


def move_value(board, pit):
    """The perfect-play margin after ``pit``, from the mover's view: textbook
    alpha-beta to the end of the game (no table, no null windows, no endgame
    database: none of what the perfect player's solve uses; its tree is the
    twin's node for node, test_twin.py)."""
    return _move_value(tuple(board.pits), board.to_move, pit)


@functools.lru_cache(maxsize=None)
def _move_value(slots, to_move, pit):
    child, next_to_move, _ = _reference.play(slots, to_move, pit, 0)
    value = _core.alphabeta(child, next_to_move, mancala.MAX_DEPTH, 0)[0]
    return value if next_to_move == to_move else -value


@pytest.fixture
def hostile(request, tmp_path, monkeypatch):
    """The shipped book replaced by a hostile one (or by nothing)."""
    text, fragment = HOSTILE[request.param]
    path = tmp_path / "openings.json"
    if text is not None:
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    monkeypatch.setattr(book, "BOOK_PATH", path)
    return path, fragment


def test_a_sound_book_loads(tmp_path):
    path = tmp_path / "openings.json"
    path.write_text(book_text(GOOD, with_(seeds=3, value=2)), encoding="utf-8")
    assert book.load(path) == {(2, "standard"): book.BookEntry(2, "standard", 6, (4,), 10, 0.0),
                               (3, "standard"): book.BookEntry(3, "standard", 2, (4,), 10, 0.0)}


def test_the_good_entry_is_true():
    board = mancala.Board(seeds=2)
    engine = mancala.Engine(hash_mb=4, endgame=None)
    assert engine.solve(board).score == GOOD["value"]
    assert list(engine.optimal_moves(board, GOOD["value"])) == GOOD["moves"]


@pytest.mark.parametrize("hostile", list(HOSTILE), indirect=True)
def test_a_hostile_book_is_refused_with_one_line(hostile):
    path, fragment = hostile
    with pytest.raises(book.BookError) as info:
        book.load()
    message = str(info.value)
    assert fragment in message and str(path) in message and "\n" not in message
    assert len(message) < 300
    with pytest.raises(book.BookError):
        book.lookup(mancala.Board(seeds=2))


@pytest.mark.parametrize("hostile", list(HOSTILE), indirect=True)
def test_solve_book_with_a_hostile_book_exits_2_with_one_line(hostile, capsys):
    path, fragment = hostile
    with pytest.raises(SystemExit) as info:
        main(["solve", "--seeds", "2", "--book"])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and fragment in captured.err


@pytest.mark.parametrize("hostile", ["empty moves", "move 7", "value 99", "deep nesting", "missing file"],
                         indirect=True)
def test_perfect_player_says_once_and_plays_on_without_a_hostile_book(hostile, caplog):
    # Kalah(6,1), small enough that every move of South's is checked by a plain search
    board = mancala.Board(seeds=1)
    player = parse_player("ai:perfect", seed=1)
    with caplog.at_level(logging.WARNING):
        while not board.is_game_over():
            pit = player.choose(board) if board.to_move == 0 else board.legal_moves[0]
            if board.to_move == 0:
                assert player.last.note != "opening book"
                values = {move: move_value(board, move) for move in board.legal_moves}
                assert values[pit] == max(values.values()), (board.pits, values)
            board.push(pit)
    warned = [r for r in caplog.records if "opening book" in r.getMessage()]
    assert len(warned) == 1 and "playing without the book" in warned[0].getMessage()
    assert "\n" not in warned[0].getMessage()


def test_solve_book_lists_what_the_book_holds(capsys):
    with pytest.raises(SystemExit) as info:
        main(["solve", "--seeds", "2", "--book"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "holds Kalah(6,3) standard/empty, (6,4) standard/empty, (6,5) standard; " \
           "not Kalah(6,2) standard" in err
    with pytest.raises(SystemExit):
        main(["solve", "--seeds", "3", "--moves", "1", "--book"])
    assert "this position is not a start" in capsys.readouterr().err


@pytest.mark.parametrize("argv,flag", [
    (["--board", "0,0,0,0,1,1,0,2,0,0,0,0,0,0"], "--board"),
    (["--seeds", "2", "--moves", "1"], "--moves"),
    (["--seeds", "2", "--to-move", "north"], "--to-move"),
])
def test_update_book_refuses_a_position(argv, flag, tmp_path, monkeypatch, capsys):
    path = tmp_path / "openings.json"
    path.write_text(book_text(GOOD), encoding="utf-8")
    monkeypatch.setattr(book, "BOOK_PATH", path)
    before = path.read_bytes()
    with pytest.raises(SystemExit) as info:
        main(["solve", "--update-book", "--endgame", "0", "--hash-mb", "4", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "--update-book" in err
    assert path.read_bytes() == before


def test_a_fifo_named_like_the_book_is_refused_at_once(tmp_path):
    import os
    import threading

    fifo = tmp_path / "openings.json"
    os.mkfifo(fifo)
    outcome = []

    def read():
        try:
            book.load(fifo)
        except book.BookError as exc:
            outcome.append(str(exc))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():           # blocked in open(): let it go, then fail
        with open(fifo, "w"):
            pass
        pytest.fail("book.load blocked on a FIFO")
    assert len(outcome) == 1 and "not a regular file" in outcome[0] and "\n" not in outcome[0]
