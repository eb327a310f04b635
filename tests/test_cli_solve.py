"""python -m mancala solve: exact values with progress, databases, the opening book."""
import json
import subprocess
import sys

import pytest

from mancala import book, endgame
from mancala.cli import main


def solve_json(capsys, *argv):
    assert main(["solve", "--json", "--hash-mb", "16", *argv]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_kalah_6_3_solves_to_plus_2_with_progress(capsys):
    report, err = solve_json(capsys, "--seeds", "3", "--endgame", "0")
    assert (report["value"], report["exact"], report["from_book"]) == (2, True, False)
    assert report["nodes"] > 0 and report["endgame_seeds"] is None
    assert "value in [" in err and "nodes" in err


def test_all_optimal_moves_of_a_small_endgame(capsys):
    #        12 11 10  9  8  7
    #   [ 0]  0  0  0  0  0  2  [ 0]
    #         0  0  0  0  1  1
    report, _ = solve_json(capsys, "--board", "0,0,0,0,1,1,0,2,0,0,0,0,0,0", "--all")
    assert report["value"] == 4 and report["optimal_move_indices"] == [5]


def test_endgame_option_builds_and_reuses_a_database(capsys):
    report, err = solve_json(capsys, "--seeds", "1", "--endgame", "8")
    assert report["endgame_seeds"] == 8 and "endgame database" in err
    assert endgame.load("standard", 8).max_seeds == 8
    again, err = solve_json(capsys, "--seeds", "1", "--endgame", "8")
    assert again["value"] == report["value"] and "endgame database (" not in err


def test_book_answers_without_searching(capsys, tmp_path, monkeypatch):
    path = tmp_path / "openings.json"
    book.save([book.BookEntry(3, "standard", 2, (4,), 123, 0.5)], path)
    monkeypatch.setattr(book, "BOOK_PATH", path)
    report, _ = solve_json(capsys, "--seeds", "3", "--book")
    assert (report["value"], report["optimal_move_indices"], report["from_book"], report["nodes"]) == \
        (2, [4], True, 0)
    with pytest.raises(SystemExit):
        main(["solve", "--seeds", "5", "--book"])
    assert "opening book" in capsys.readouterr().err


PUBLISHED = {(3, "standard"): 2, (4, "standard"): 8, (4, "empty"): 10,
             (5, "standard"): 10, (5, "empty"): 12, (6, "empty"): 2}     # docs/rules.md, Known values


def test_shipped_book_matches_published_values():
    """The packaged book, loaded strictly: a missing or broken file raises
    BookError here, and a book that holds none of the published starts fails."""
    raw = book.BOOK_PATH.read_text(encoding="utf-8")      # the file itself, not a fallback
    entries = book.load(book.BOOK_PATH)
    assert len(entries) == len(json.loads(raw)["openings"])
    checked = 0
    for key, value in PUBLISHED.items():
        if key in entries:
            assert entries[key].value == value, key
            checked += 1
    assert checked >= 4, f"only {checked} published values in the book: {sorted(entries)}"
    assert entries[3, "empty"].value == 2    # no published value; solved again by --update-book


def test_a_broken_book_is_an_error_not_an_empty_book(tmp_path):
    for text in ("", "{", '{"format": "mancala-openings", "version": 2, "openings": []}'):
        path = tmp_path / "openings.json"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(book.BookError):
            book.load(path)
    with pytest.raises(book.BookError):
        book.load(tmp_path / "missing.json")


@pytest.mark.parametrize("argv,fragment", [
    (["--board", "0,0,0,0,0,0,5,1,0,0,0,0,0,0"], "game is over"),
    (["--seeds", "3", "--moves", "1 1 1"], "pit 1, is not legal"),
    (["--seeds", "3", "--endgame", "99"], "0 to 36"),
])
def test_bad_input_is_one_line(capsys, argv, fragment):
    with pytest.raises(SystemExit) as info:
        main(["solve", *argv])
    assert info.value.code == 2
    assert fragment in capsys.readouterr().err


def test_real_subprocess_text_report():
    out = subprocess.run([sys.executable, "-m", "mancala", "solve", "--seeds", "2", "--hash-mb", "8"],
                         capture_output=True, text=True, timeout=120, check=True)
    assert "Perfect play: South wins by" in out.stdout and "value in [" in out.stderr


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("capture,value", [("standard", 8), ("empty", 10)])
def test_kalah_6_4_opening_through_the_command(capsys, capture, value):
    report, _ = solve_json(capsys, "--seeds", "4", "--capture", capture, "--endgame", "16",
                           "--hash-mb", "1024")
    assert (report["value"], report["exact"]) == (value, True)


def test_update_book_for_one_start_keeps_the_other_entries(tmp_path, monkeypatch, capsys):
    path = tmp_path / "openings.json"
    path.write_text(book.BOOK_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(book, "BOOK_PATH", path)
    shipped = book.load(path)
    assert main(["solve", "--update-book", "--seeds", "1", "--capture", "empty",
                 "--endgame", "0", "--hash-mb", "16"]) == 0
    capsys.readouterr()
    entries = book.load(path)
    assert set(entries) == set(shipped) | {(1, "empty")}
    assert all(entries[key] == entry for key, entry in shipped.items())
    # Kalah(6,1) with the empty-pit capture, solved by brute force over every line
    # (conftest.brute_force of each child of the start): pits 0..5 are worth
    # 0, 0, 0, -2, -2, +2; only pit 5 wins, by 2.
    assert (entries[1, "empty"].value, entries[1, "empty"].moves) == (2, (5,))
