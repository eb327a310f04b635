"""One home for each policy: every layer refuses the same values with the same
range, one error taxonomy, one time format, a save replayed once, a storage
module that knows no players, and a command table that matches docs/commands.md."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mancala
from mancala import _reference, errors, limits, storage
from mancala.arena import ArenaConfig
from mancala.board import Board, start_slots
from mancala.cli import COMMANDS, build_parser, main
from mancala.cli.format import duration, ms
from mancala.engine import Engine, SearchLimit
from mancala.game import Game
from mancala.players import EnginePlayer, MinimaxPlayer, canonical_spec, parse_player

COMMANDS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "commands.md"

# the ranges, written out by hand (not read from mancala.limits)
SEEDS_RANGE = "from 1 to 12"
DEPTH_RANGE = "from 1 to 254"
THREADS_RANGE = "from 1 to 64"
NODES_RANGE = "from 1 to 9,223,372,036,854,775,807"
CORE_TABLE_CEILING = "16,777,216"       # 2**24 MB, the compiled core's own limit


def parser_error(capsys, argv):
    """The parser's one error line for argv (exit status 2)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    return lines[-1]


# -- the same value refused everywhere, with its range -------------------------------

@pytest.mark.parametrize("refuse", [
    lambda: Board(seeds=13),
    lambda: Board(seeds=0),
    lambda: start_slots(13),
    lambda: ArenaConfig("random", "random", seeds=13),
    lambda: Game("random", "random", seeds=13),
], ids=["Board", "Board-0", "start_slots", "ArenaConfig", "Game"])
def test_every_layer_refuses_seeds_per_pit_outside_1_to_12_stating_the_range(refuse):
    with pytest.raises(errors.InvalidRuleError, match=f"seeds per pit is a whole number {SEEDS_RANGE}"):
        refuse()


@pytest.mark.parametrize("argv", [["play", "--seeds", "13"], ["arena", "random", "random", "--seeds", "13"]])
def test_cli_refuses_seeds_per_pit_outside_1_to_12_with_the_same_line(capsys, argv):
    line = parser_error(capsys, argv)
    assert f"argument --seeds: seeds per pit is a whole number {SEEDS_RANGE}, not '13'" in line


def test_a_save_file_with_13_seeds_per_pit_is_refused_with_the_range():
    text = storage.dumps(storage.SavedGame()).replace('"seeds": 4', '"seeds": 13')
    with pytest.raises(errors.SaveFileError, match=f"seeds per pit is a whole number {SEEDS_RANGE}, not 13"):
        storage.loads(text)


@pytest.mark.parametrize("refuse", [
    lambda: SearchLimit(depth=255),
    lambda: SearchLimit(depth=0),
    lambda: Engine(hash_mb=1).search(Board(), depth=255),
], ids=["SearchLimit", "SearchLimit-0", "Engine.search"])
def test_engine_layers_refuse_depth_outside_1_to_254(refuse):
    with pytest.raises(errors.InvalidLimitError, match=f"depth is a whole number {DEPTH_RANGE}"):
        refuse()


def test_players_refuse_depth_outside_1_to_254_stating_the_range():
    with pytest.raises(errors.PlayerSpecError, match=f"depth is a whole number {DEPTH_RANGE}, not 255"):
        EnginePlayer(depth=255)
    with pytest.raises(errors.PlayerSpecError, match=r"depth is 1\.\.254"):
        parse_player("ai:depth=255")
    with pytest.raises(errors.PlayerSpecError, match="depth is a whole number from 1 to 30, not 31"):
        MinimaxPlayer(31)
    assert SearchLimit(depth=254).depth == 254 and EnginePlayer(depth=254).depth == 254


@pytest.mark.parametrize("argv", [["analyze", "--depth", "255"], ["bench", "--depth", "255"],
                                  ["bench", "--compare-depth", "0"]])
def test_cli_refuses_depth_outside_1_to_254_with_the_same_line(capsys, argv):
    line = parser_error(capsys, argv)
    assert f"depth is a whole number {DEPTH_RANGE}, not '{argv[-1]}'" in line


@pytest.mark.parametrize("threads", [0, 65, True, "2"])
def test_engine_refuses_threads_outside_1_to_64_with_a_project_error(threads):
    with pytest.raises(errors.InvalidLimitError, match=f"threads is a whole number {THREADS_RANGE}"):
        Engine(hash_mb=1, threads=threads)


def test_endgame_build_refuses_threads_outside_1_to_64_before_the_core():
    from mancala import endgame
    with pytest.raises(errors.InvalidLimitError, match=f"threads is a whole number {THREADS_RANGE}, not 65"):
        endgame.build("standard", 2, threads=65)


def test_cli_refuses_threads_outside_1_to_64_with_the_same_line(capsys):
    line = parser_error(capsys, ["solve", "--threads", "65"])
    assert f"argument --threads: threads is a whole number {THREADS_RANGE}, not '65'" in line


@pytest.mark.parametrize("nodes", [0, 2 ** 63])
def test_nodes_outside_the_core_counter_are_refused_stating_the_range(nodes):
    with pytest.raises(errors.InvalidLimitError, match=f"nodes is a whole number {NODES_RANGE}"):
        SearchLimit(nodes=nodes)
    assert SearchLimit(nodes=2 ** 63 - 1).nodes == 2 ** 63 - 1


# conftest pins the memory every test counts on ($MANCALA_MEMORY_MB): 8,192 MB
MEMORY_LINE = "hash_mb is a table size in megabytes from 0 (no table) to 8,192 " \
              "(the memory this machine can give now), not "


def test_a_table_of_2_to_the_21_mb_is_refused_before_the_core_runs_out_of_memory():
    # 2 TB, more than the memory counted on: refused, not a MemoryError
    with pytest.raises(errors.InvalidLimitError) as info:
        Engine(hash_mb=2 ** 21)
    assert str(info.value) == MEMORY_LINE + "2097152"


def test_without_a_memory_figure_the_core_ceiling_bounds_the_table(monkeypatch):
    monkeypatch.setattr(limits, "machine_mb", lambda: None)
    with pytest.raises(errors.InvalidLimitError, match=f"to {CORE_TABLE_CEILING} .*not 16777217"):
        Engine(hash_mb=2 ** 24 + 1)
    assert limits.check_hash_mb(2 ** 24) == 2.0 ** 24     # checked only: nothing allocated


@pytest.mark.parametrize("command", ["analyze", "bench", "solve"])
def test_cli_refuses_the_same_table_with_the_same_line(capsys, command):
    # before, the expected line was the library's own, read a moment later: "the memory this
    # machine can give now" moved between the two (23,178 against 23,074 MB on a busy machine)
    line = parser_error(capsys, [command, "--hash-mb", str(2 ** 21)])
    assert line.endswith("argument --hash-mb: " + MEMORY_LINE + "'2097152'")
    run = subprocess.run([sys.executable, "-m", "mancala", command, "--hash-mb", str(2 ** 21)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].endswith("argument --hash-mb: " + MEMORY_LINE + "'2097152'")


def test_arena_and_storage_refuse_a_seed_outside_0_to_2_to_the_63():
    with pytest.raises(errors.InvalidLimitError, match="the seed is a whole number from 0 to 9,223,"):
        ArenaConfig("random", "random", seed=-1)
    text = storage.dumps(storage.SavedGame(seed=5)).replace('"seed": 5', f'"seed": {2 ** 63}')
    with pytest.raises(errors.SaveFileError, match="seed is a whole number from 0 to 9,223,"):
        storage.loads(text)


# -- one taxonomy --------------------------------------------------------------------

def test_old_homes_of_the_error_classes_name_the_same_classes():
    from mancala import arena, autosaves, book, endgame, game, players, positions
    from mancala import cli
    assert storage.SaveFileError is errors.SaveFileError
    assert autosaves.InUseError is errors.InUseError and autosaves.AutosaveError is errors.AutosaveError
    assert book.BookError is errors.BookError
    assert endgame.EndgameFileError is errors.EndgameFileError
    assert endgame.EndgameMissingError is errors.EndgameMissingError
    assert game.GameError is errors.GameError
    assert players.PlayerSpecError is errors.PlayerSpecError
    assert positions.PositionFileError is errors.PositionFileError
    assert cli.CommandError is errors.CommandError
    assert arena.PlayerSpecError is errors.PlayerSpecError


def test_every_error_class_has_the_root_and_input_errors_are_value_errors():
    classes = [value for value in vars(errors).values()
               if isinstance(value, type) and issubclass(value, BaseException)]
    assert len(classes) >= 18
    assert all(issubclass(cls, errors.MancalaError) for cls in classes)
    for cls in (errors.InvalidBoardError, errors.InvalidLimitError, errors.SaveFileError,
                errors.BookError, errors.PlayerSpecError, errors.GameError, errors.EntryError):
        assert issubclass(cls, ValueError)
    assert issubclass(errors.SearchStoppedError, RuntimeError)
    assert not issubclass(errors.SearchStoppedError, ValueError)
    assert issubclass(errors.AutosaveError, OSError)


@pytest.mark.parametrize("make", [
    lambda: Engine(hash_mb=1, threads=0),
    lambda: Engine(hash_mb=1, endgame="sometimes"),
    lambda: Engine(hash_mb=1, evaluation="x" * 500),
    lambda: ArenaConfig("random", "random", games=0),
])
def test_engine_and_arena_raise_project_errors_quoting_briefly(make):
    with pytest.raises(errors.InputError) as info:
        make()
    assert type(info.value) is not ValueError
    assert len(str(info.value)) < 200 and "\n" not in str(info.value)


def test_a_typed_line_that_is_not_a_pit_is_an_entry_error():
    from mancala.cli.entry import parse_entry
    with pytest.raises(errors.EntryError, match="there is no pit 9"):
        parse_entry("9", Board())


# -- one format ----------------------------------------------------------------------

@pytest.mark.parametrize("seconds, text", [
    (None, "-"), (0.00042, "0.42"), (0.00725, "7.25"), (0.0125, "12.5"), (0.5, "500"),
    (1.5, "1,500"), (61.0, "61,000"),
])
def test_milliseconds_have_about_three_digits_and_no_exponent(seconds, text):
    assert ms(seconds) == text


@pytest.mark.parametrize("seconds, text", [
    (0.0, "0 ms"), (0.34, "340 ms"), (0.9994, "999 ms"), (1.0, "1.0 s"), (12.5, "12.5 s"),
    (119.9, "119.9 s"), (120.0, "2.0 min"), (192.0, "3.2 min"),
])
def test_durations_carry_their_unit(seconds, text):
    assert duration(seconds) == text


# -- save and load -------------------------------------------------------------------

MOVES = [2, 0, 5, 1, 3, 4, 0]


def reference_position(moves, seeds=4):
    """The position after moves, by the pure-Python twin (not by Board)."""
    slots, to_move = ([seeds] * 6 + [0]) * 2, 0
    for pit in moves:
        slots, to_move, _ = _reference.play(slots, to_move, pit, _reference.STANDARD)
    return list(slots), to_move


def save_text(moves):
    slots, to_move = reference_position(moves)
    return json.dumps({
        "format": "mancala-save", "version": 1, "rules": {"seeds": 4, "capture": "standard"},
        "players": {"south": "random", "north": "ai:easy"}, "moves": moves,
        "position": {"slots": slots, "to_move": to_move}, "seed": 3})


@pytest.fixture
def pushes(monkeypatch):
    """Counts Board.push calls: each replayed move is one."""
    count = [0]
    original = Board.push

    def push(self, pit):
        count[0] += 1
        return original(self, pit)
    monkeypatch.setattr(Board, "push", push)
    return count


def test_a_loaded_game_is_replayed_once_through_resume_and_autosaves(tmp_path, pushes):
    path = tmp_path / "game.json"
    path.write_text(save_text(MOVES))
    saved = storage.load(path, players=canonical_spec)
    game = Game.from_saved(saved, autosave=tmp_path / "auto.json")
    game._autosave()
    game._autosave()
    storage.dumps(saved)
    assert pushes[0] == len(MOVES)
    written = json.loads((tmp_path / "auto.json").read_text())
    assert written["position"] == json.loads(save_text(MOVES))["position"]
    assert game.board.pits == reference_position(MOVES)[0] and game.moves == MOVES


def test_game_load_replays_the_file_once(tmp_path, pushes):
    path = tmp_path / "game.json"
    path.write_text(save_text(MOVES))
    game = Game("random", "random", seed=1)
    game.load(path)
    assert pushes[0] == len(MOVES)
    assert (list(game.board.pits), game.board.to_move) == reference_position(MOVES)


def test_a_saved_game_whose_moves_change_is_replayed_again(pushes):
    saved = storage.loads(save_text(MOVES))
    saved.moves.append(saved.board().legal_moves[0])
    before = pushes[0]
    board = saved.board()
    assert pushes[0] - before == len(MOVES) + 1
    assert list(board.pits) == reference_position(saved.moves)[0]


def test_storage_checks_players_only_through_the_check_it_is_given():
    text = save_text(MOVES).replace('"ai:easy"', '" AI:Easy "')
    assert storage.loads(text, players=canonical_spec).north == "ai:easy"
    assert storage.loads(text).north == " AI:Easy "
    robot = save_text(MOVES).replace('"ai:easy"', '"robot"')
    with pytest.raises(errors.SaveFileError, match="unknown north player 'robot'"):
        storage.loads(robot, players=canonical_spec)
    with pytest.raises(errors.SaveFileError, match="unknown north player"):
        storage.loads(save_text(MOVES).replace('"ai:easy"', '"' + "x" * 500 + '"'))


def test_the_file_format_module_does_not_import_the_players():
    code = ("import sys, mancala.storage, mancala.board\n"
            "assert 'mancala.players' not in sys.modules, 'players imported'\n"
            "mancala.storage.loads(mancala.storage.dumps(mancala.storage.SavedGame(moves=[2])))\n"
            "assert 'mancala.players' not in sys.modules, 'players imported by loads'\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


# -- the command table ---------------------------------------------------------------

def test_the_command_table_lists_exactly_the_commands_the_docs_document():
    text = COMMANDS_PAGE.read_text(encoding="utf-8")
    section = text[text.index("# Commands"):]
    section = section[:section.index("\n## ", 1)]
    documented = set(re.findall(r"^\| `python -m mancala (\w+)", section, flags=re.M))
    assert documented == {"play", "analyze", "solve", "endgame", "bench", "arena", "engine", "serve",
                          "history", "levels", "explain", "review", "puzzle"}
    assert set(COMMANDS) == documented
    choices = next(action.choices for action in build_parser()._actions
                   if getattr(action, "choices", None))
    assert list(choices) == list(COMMANDS)


def test_a_missing_command_module_is_an_error_not_a_missing_command():
    code = ("import sys\nsys.modules['mancala.cli.arena'] = None\n"
            "try:\n    import mancala.cli\nexcept ImportError:\n    sys.exit(0)\nsys.exit(1)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, "mancala.cli imported without its arena command"


# -- the compiled core's own checks (it takes raw lists and sizes) are project errors too --

@pytest.mark.parametrize("refuse, error, text", [
    (lambda: mancala._core.Searcher(hash_mb=2 ** 25), errors.InvalidLimitError,
     "hash_mb is 0 (no table) to 16777216 MB, not 33554432"),
    (lambda: mancala._core.egdb_build(2, 0, threads=65), errors.InvalidLimitError, "threads is 1 to 64, not 65"),
    (lambda: mancala._core.egdb_size(37), errors.InvalidLimitError, "covers 0 to 36 seeds, not 37"),
    (lambda: mancala._core.perft(start_slots(4), 0, -1, 0), errors.InvalidLimitError,
     "depth is a whole number from 0 to 254, not -1"),
    (lambda: mancala._core.perft(start_slots(4), 0, 1, 3), errors.InvalidRuleError,
     "capture is an index into"),
], ids=["table", "threads", "database", "depth", "rule"])
def test_the_core_refuses_with_project_errors_stating_the_range(refuse, error, text):
    with pytest.raises(error) as info:
        refuse()
    assert text in str(info.value)
    assert "\n" not in str(info.value)


def test_the_memory_counted_on_is_mancala_memory_mb_when_it_is_a_whole_number(tmp_path, monkeypatch):
    from mancala import _system
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:  99999999 kB\nMemAvailable:  3145728 kB\n")      # 3,072 MB
    monkeypatch.setattr(_system, "MEMINFO", str(meminfo))
    for pinned, counted in [("100", 100), (" 40000 ", 40000), ("0", 0), ("", 3072), ("1e3", 3072),
                            ("-5", 3072), ("lots", 3072), ("٣", 3072)]:
        monkeypatch.setenv("MANCALA_MEMORY_MB", pinned)
        assert limits.machine_mb() == counted, pinned
    monkeypatch.setenv("MANCALA_MEMORY_MB", "100")
    with pytest.raises(errors.InvalidLimitError, match=r"to 100 \(the memory this machine can give now\)"):
        Engine(hash_mb=101)
