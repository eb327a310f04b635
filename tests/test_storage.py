"""Save files: round trips, atomic writes, where the autosave lives, and hostile files refused."""
import json
import os
from pathlib import Path

import pytest

import mancala
from mancala import storage
from mancala.players import canonical_spec
from mancala.storage import SavedGame, SaveFileError

# South 1, North 3 (extra turn), North 6, South 2: a short real history
MOVES = [0, 2, 5, 1]


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))


def good_json():
    """The JSON of a real save file, as a dict to spoil."""
    return storage.SavedGame(4, "standard", "human", "ai:hard", list(MOVES), None).to_json()


def write(path, data):
    text = data if isinstance(data, str) else json.dumps(data)
    path.write_text(text, encoding="utf-8")
    return path


def test_round_trip(tmp_path):
    game = SavedGame(5, "empty", "ai:easy", "human", [0, 1, 2], 42)
    path = storage.save(game, tmp_path / "g.json")
    assert storage.load(path) == game


def test_file_is_readable_json_with_format_version_rules_players_moves_position(tmp_path):
    path = storage.save(SavedGame(moves=list(MOVES)), tmp_path / "g.json")
    text = path.read_text()
    data = json.loads(text)
    assert data["format"] == "mancala-save" and data["version"] == 1
    assert data["rules"] == {"seeds": 4, "capture": "standard"}
    assert data["players"] == {"south": "human", "north": "ai:medium"}
    assert data["moves"] == MOVES
    board = mancala.Board()
    for pit in MOVES:
        board.push(pit)
    assert data["position"] == {"slots": board.pits, "to_move": board.to_move}
    assert len(text.splitlines()) < 15          # one field per line, not one number per line


def test_loading_never_changes_the_file(tmp_path):
    path = storage.save(SavedGame(moves=list(MOVES)), tmp_path / "g.json")
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    storage.load(path)
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path):
    path = tmp_path / "g.json"
    storage.save(SavedGame(), path)
    storage.save(SavedGame(moves=[0]), path)
    assert sorted(os.listdir(tmp_path)) == ["g.json"]
    assert storage.load(path).moves == [0]


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = storage.save(SavedGame(moves=[0]), tmp_path / "g.json")
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(storage.os, "replace", broken_replace)
    with pytest.raises(OSError):
        storage.save(SavedGame(moves=[1]), path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["g.json"]


def test_save_will_not_overwrite_a_file_that_is_not_a_save(tmp_path):
    precious = tmp_path / "notes.txt"
    precious.write_text("my notes")
    with pytest.raises(SaveFileError, match="will not overwrite"):
        storage.save(SavedGame(), precious)
    assert precious.read_text() == "my notes"
    storage.save(SavedGame(), precious, replace_any=True)       # the autosave's own path
    assert storage.load(precious) == SavedGame()


def test_save_into_a_missing_folder_is_refused_and_creates_nothing(tmp_path):
    with pytest.raises(SaveFileError, match=r"no folder '.*/a' \(does not exist\): create it first") as info:
        storage.save(SavedGame(), tmp_path / "a" / "b" / "g.json")
    assert "\n" not in str(info.value)
    assert os.listdir(tmp_path) == []


def test_no_pickle_anywhere_in_storage():
    source = Path(storage.__file__).read_text()
    assert "pickle" not in source.replace("No pickle", "")


# -- where the autosaves live -----------------------------------------------------------

def test_autosave_folder_honours_mancala_home(tmp_path, monkeypatch):
    from mancala import autosaves
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "mh"))
    assert autosaves.folder() == tmp_path / "mh" / "autosaves"


def test_data_dir_uses_xdg_data_home_then_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("MANCALA_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert storage.data_dir() == tmp_path / "xdg" / "mancala"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert storage.data_dir() == tmp_path / "h" / ".local" / "share" / "mancala"


def test_paths_under_home_are_shown_from_a_tilde(monkeypatch):
    monkeypatch.setenv("HOME", "/home/me/")
    assert storage.shown_path("/home/me/.local/share/mancala/history.sqlite3") == \
        "~/.local/share/mancala/history.sqlite3"
    assert storage.shown_path("/home/me") == "~"
    assert storage.shown_path("/home/meg/history.sqlite3") == "/home/meg/history.sqlite3"  # not under it
    assert storage.shown_path("/srv/data/history.sqlite3") == "/srv/data/history.sqlite3"
    monkeypatch.setenv("HOME", "/")            # a home of / would make every path ~/...
    assert storage.shown_path("/srv/x") == "/srv/x"


# -- hostile files ----------------------------------------------------------------------------

def spoil(**changes):
    data = good_json()
    for dotted, value in changes.items():
        target = data
        *parents, key = dotted.split("__")
        for parent in parents:
            target = target[parent]
        if value is DELETE:
            del target[key]
        else:
            target[key] = value
    return data


DELETE = object()
START = [4] * 6 + [0] + [4] * 6 + [0]


def after(moves):
    board = mancala.Board()
    for pit in moves:
        board.push(pit)
    return board.pits


HOSTILE = {
    "truncated": (lambda: json.dumps(good_json())[:-30], "not JSON"),
    "empty": (lambda: "", "empty, so not JSON"),
    "not json": (lambda: "South 1, North 3, North 6", "not JSON"),
    "a json list": (lambda: [1, 2, 3], "not a mancala save file"),
    "another format": (lambda: spoil(format="chess-pgn"), "not a mancala save file"),
    "no format": (lambda: spoil(format=DELETE), "not a mancala save file"),
    "newer version": (lambda: spoil(version=2), "version 2 is not supported"),
    "version zero": (lambda: spoil(version=0), "version 0 is not supported"),
    "version as text": (lambda: spoil(version="1"), "version is not a whole number"),
    "version true": (lambda: spoil(version=True), "version is not a whole number"),
    "unknown field": (lambda: spoil(cheat=True), "unknown field 'cheat'"),
    "missing moves": (lambda: spoil(moves=DELETE), "no 'moves' field"),
    "seeds 13": (lambda: spoil(rules__seeds=13), "seeds per pit"),
    "seeds as text": (lambda: spoil(rules__seeds="4"), "seeds per pit"),
    "unknown capture": (lambda: spoil(rules__capture="always"), "unknown capture rule"),
    "unknown player": (lambda: spoil(players__north="skynet"), "unknown north player"),
    "player not text": (lambda: spoil(players__south=1), "unknown south player"),
    "negative seeds": (lambda: spoil(position__slots=[-4] + after(MOVES)[1:]),
                       "not a count of seeds"),
    "fractional seeds": (lambda: spoil(position__slots=[1.5] + after(MOVES)[1:]),
                         "not a count of seeds"),
    "13 slots": (lambda: spoil(position__slots=after(MOVES)[:13]), "13 slots, not 14"),
    "15 slots": (lambda: spoil(position__slots=after(MOVES) + [0]), "15 slots, not 14"),
    "slots not a list": (lambda: spoil(position__slots="4444"), "no slots, not 14"),
    "seeds created": (lambda: spoil(position__slots=[9] + after(MOVES)[1:]), "seeds, not 48"),
    "to_move 2": (lambda: spoil(position__to_move=2), "to_move is 0"),
    "to_move true": (lambda: spoil(position__to_move=True), "to_move is 0"),
    "move out of range": (lambda: spoil(moves=[0, 7]), "move 2 is 7"),
    "move as text": (lambda: spoil(moves=["1"]), "move 1 is '1'"),
    "moves not a list": (lambda: spoil(moves="0,2"), "moves is not a list"),
    "history does not replay": (lambda: spoil(moves=[0, 2, 5, 1, 1, 1]),
                                "move 6 (pit 1) is not legal"),
    "empty pit played": (lambda: spoil(moves=[0, 1, 0]), "move 3 (pit 0) is not legal"),
    "board does not match history": (
        lambda: spoil(position__slots=[after(MOVES)[0] + 1] + after(MOVES)[1:6]
                      + [after(MOVES)[6] - 1] + after(MOVES)[7:]),
        "does not match the move history"),
    "wrong side to move": (lambda: spoil(position__to_move=1 - good_json()["position"]["to_move"]), "does not match the move history"),
    "board of a different game": (lambda: spoil(moves=[0, 2, 5, 2]),
                                  "does not match the move history"),
    "NaN": (lambda: json.dumps(good_json()).replace('"seed": null', '"seed": NaN'),
            "NaN is not a number"),
    "duplicate key": (lambda: json.dumps(good_json())[:-1] + ', "moves": []}',
                      "'moves' appears twice"),
    "deeply nested": (lambda: '{"format": "mancala-save", "x": ' + "[" * 100000 + "]" * 100000 + "}",
                      "nested too deeply"),
    "seed negative": (lambda: spoil(seed=-1), "seed is a whole number"),
    # Python refuses to turn more than 4,300 digits into an int with a ValueError
    "number of 5000 digits": (lambda: json.dumps(good_json()).replace('"seed": null',
                                                                    '"seed": ' + "7" * 5000),
                              "number with 5000 digits"),
    "move of 5000 digits": (lambda: json.dumps(good_json()).replace("[0, 2, 5, 1]",
                                                                  "[0, " + "1" * 5000 + "]"),
                            "number with 5000 digits"),
    "version of 4000 digits": (lambda: json.dumps(spoil(version=int("9" * 4000))),
                               "number with 4000 digits"),
    "player name of 500 KB": (lambda: spoil(players__north="x" * 500_000), "unknown north player"),
    "BOM then not json": (lambda: "\ufeff" + "South 1, North 3", "not JSON"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_is_refused_with_one_line_and_left_unchanged(tmp_path, name):
    make, reason = HOSTILE[name]
    path = write(tmp_path / "hostile.json", make())
    before = path.read_bytes(), os.stat(path).st_mtime_ns
    with pytest.raises(SaveFileError) as info:
        # storage knows no players: the layer that does passes its check
        storage.load(path, players=canonical_spec)
    message = str(info.value)
    assert reason in message
    assert "\n" not in message and len(message) < 300
    assert "hostile.json" in message
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before
    assert os.listdir(tmp_path) == ["hostile.json"]


def test_huge_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.write(b'{"format": "mancala-save", "moves": [' + b"0, " * 600_000 + b"0]}")
    before = path.read_bytes()
    monkeypatch.setattr(storage.json, "loads", lambda *a, **k: pytest.fail("parsed a huge file"))
    with pytest.raises(SaveFileError, match="larger than 1024 KB"):
        storage.load(path)
    assert path.read_bytes() == before


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "notepad.json"
    path.write_bytes(b"\xef\xbb\xbf" + storage.dumps(SavedGame(moves=list(MOVES))).encode())
    assert storage.load(path).moves == MOVES
    assert storage.loads("\ufeff" + storage.dumps(SavedGame(moves=[0]))).moves == [0]


def test_save_over_a_file_with_a_huge_number_refuses_in_one_line(tmp_path):
    path = write(tmp_path / "g.json", json.dumps(good_json()).replace('"seed": null',
                                                                      '"seed": ' + "7" * 5000))
    before = path.read_bytes()
    with pytest.raises(SaveFileError, match="will not overwrite"):
        storage.save(SavedGame(), path)
    assert path.read_bytes() == before


def test_not_utf8_is_refused(tmp_path):
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"format": "mancala-save \xe9"}')
    with pytest.raises(SaveFileError, match="not UTF-8"):
        storage.load(path)


def test_missing_file_and_directory_are_refused_in_one_line(tmp_path):
    with pytest.raises(SaveFileError, match="no such file"):
        storage.load(tmp_path / "nope.json")
    with pytest.raises(SaveFileError, match="not a regular file"):
        storage.load(tmp_path)


def test_a_finished_game_loads_and_moves_after_the_end_are_refused(tmp_path):
    board = mancala.Board(seeds=1)
    moves = []
    while not board.is_game_over():
        moves.append(board.legal_moves[0])
        board.push(moves[-1])
    saved = SavedGame(1, "standard", "random", "random", moves)
    path = storage.save(saved, tmp_path / "done.json")
    assert storage.load(path).board().is_game_over()
    data = json.loads(path.read_text())
    data["moves"].append(0)
    write(path, data)
    with pytest.raises(SaveFileError, match="after the game is over"):
        storage.load(path)


def test_loads_checks_text_the_same_way():
    assert storage.loads(storage.dumps(SavedGame(moves=[0]))).moves == [0]
    with pytest.raises(SaveFileError, match="version 9"):
        storage.loads(json.dumps(spoil(version=9)))


def test_a_save_without_a_name_goes_to_the_data_folder_and_a_name_is_the_user_s(tmp_path, monkeypatch):
    """Issue 41: a save nobody named went into the current folder (a clone's root)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    target = storage.save_path("")
    assert target == tmp_path / "home" / "saves" / "mancala-save.json"
    assert target.parent.is_dir()                  # made, so the save can go there
    assert storage.shown_path(target) == "~/home/saves/mancala-save.json"
    assert storage.load(storage.save(SavedGame(moves=[0]), target)).moves == [0]
    assert list(tmp_path.glob("*.json")) == []
    assert storage.save_path("mine.json") == Path("mine.json")            # the current folder's
    assert storage.save_path("~/g.json") == tmp_path / "g.json"
