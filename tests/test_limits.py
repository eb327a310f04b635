"""Limits that hold: table sizes within the machine's memory, huge numbers, quoting."""
import subprocess
import sys

import pytest

import mancala
from mancala import _system, endgame, limits
from mancala.cli import main
from mancala.errors import InvalidLimitError, quote


def fake_meminfo(tmp_path, monkeypatch, available_kb):
    monkeypatch.delenv(_system.MEMORY_VARIABLE)      # conftest pins it: here the reading is the test
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:  99999999 kB\nMemFree:  1 kB\nMemAvailable:  {available_kb} kB\n")
    monkeypatch.setattr(_system, "MEMINFO", str(path))


def test_table_larger_than_available_memory_is_refused(tmp_path, monkeypatch):
    fake_meminfo(tmp_path, monkeypatch, 2048 * 1024)      # 2 GB available
    with pytest.raises(InvalidLimitError, match=r"from 0 \(no table\) to 2,048 .*not 4096"):
        mancala.Engine(hash_mb=4096)
    assert mancala.Engine(hash_mb=8).hash_mb == 8


def test_without_meminfo_the_physical_memory_bounds_the_table(tmp_path, monkeypatch):
    monkeypatch.delenv(_system.MEMORY_VARIABLE)
    monkeypatch.setattr(_system, "MEMINFO", str(tmp_path / "missing"))
    import os
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2 ** 20
    assert limits.machine_mb() == physical
    with pytest.raises(InvalidLimitError):
        limits.check_hash_mb(physical + 1)


@pytest.mark.parametrize("size", [2 ** 21, 10 ** 400, float("nan"), float("inf"), -1, "64",
                                  None, True, [64]])
def test_engine_refuses_a_bad_table_size_with_one_project_error(size):
    with pytest.raises(InvalidLimitError) as info:
        mancala.Engine(hash_mb=size)
    message = str(info.value)
    assert "\n" not in message and len(message) < 200
    assert "hash_mb is a table size in megabytes from 0" in message


def test_huge_numbers_are_project_errors_not_overflow():
    with pytest.raises(InvalidLimitError, match="time is a positive number"):
        mancala.SearchLimit(time=10 ** 400)
    with pytest.raises(InvalidLimitError, match="time is a positive number"):
        mancala.Engine(hash_mb=1).search(mancala.Board(), time=10 ** 400)
    board = mancala.Board([0, 0, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 0])
    with pytest.raises(InvalidLimitError, match="value to keep .* -144 to 144, not 100000000000000000000"):
        mancala.Engine(hash_mb=1).optimal_moves(board, 10 ** 20)
    with pytest.raises(InvalidLimitError, match="value to keep"):
        mancala.Engine(hash_mb=1).optimal_moves(board, "2")
    engine = mancala.Engine(hash_mb=1)
    assert engine.optimal_moves(board, engine.solve(board).score) == engine.optimal_moves(board)


def test_quote_cuts_long_input_and_never_raises():
    assert quote("abc") == "'abc'"
    long = quote("x" * 500_000)
    assert len(long) < 100 and "500,002 characters" in long
    sys_limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if sys_limit:
        assert quote(10 ** (sys_limit + 10)).startswith("<int of ")


@pytest.mark.parametrize("argv", [["solve", "--hash-mb", "100000000"],
                                  ["analyze", "--hash-mb", "1e400"],
                                  ["bench", "--hash-mb", "nan"]])
def test_cli_refuses_a_table_beyond_memory_through_the_parser(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --hash-mb: hash_mb is a table size in megabytes from 0" in err
    assert f"not {argv[2]!r}" in err


def test_hash_mb_100000_is_one_line_not_a_memory_error_traceback(tmp_path):
    size = str((limits.machine_mb() or 10 ** 6) * 4)
    run = subprocess.run([sys.executable, "-m", "mancala", "solve", "--seeds", "1",
                          "--hash-mb", size], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and "MemoryError" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].endswith(f"not {size!r}")


def test_solve_default_table_grows_with_the_seeds(tmp_path, monkeypatch):
    fake_meminfo(tmp_path, monkeypatch, 64 * 2 ** 20)      # 64 GB available
    assert limits.solve_table_mb(36) == 16        # Kalah(6,3)
    assert limits.solve_table_mb(12) == 16
    assert limits.solve_table_mb(40) == 64
    assert limits.solve_table_mb(46) == 256
    assert limits.solve_table_mb(48) == 256       # Kalah(6,4): at most 256 MB
    assert limits.solve_table_mb(49) == 1024
    assert limits.solve_table_mb(60) == 1024      # Kalah(6,5)
    assert limits.solve_table_mb(72) == 1024
    assert limits.solve_table_mb() == 1024


def test_solve_default_table_shrinks_with_the_seeds_a_database_answers(tmp_path, monkeypatch):
    # a board searches as one of (seeds - database + 18) seeds, when fewer (worked by hand)
    fake_meminfo(tmp_path, monkeypatch, 64 * 2 ** 20)
    assert limits.solve_table_mb(48, 30) == 16     # Kalah(6,4), the 30-seed database: as 36 seeds
    assert limits.solve_table_mb(48, 28) == 32     # as 38
    assert limits.solve_table_mb(48, 22) == 256    # as 44
    assert limits.solve_table_mb(48, 18) == 256    # as 48: no change
    assert limits.solve_table_mb(60, 30) == 1024   # Kalah(6,5): as 48, but more than 48 seeds
    assert limits.solve_table_mb(60, 40) == 32     # as 38
    assert limits.solve_table_mb(36, 30) == 16
    assert limits.solve_table_mb(40, 0) == limits.solve_table_mb(40) == 64


def test_solve_sizes_its_table_by_the_database_cached(monkeypatch, capsys):
    # 40 seeds in the pits, South's one seed reaches its store and ends the game
    board = "0,0,0,0,0,1,0,39,0,0,0,0,0,0"
    monkeypatch.setattr(endgame, "cached_seeds", lambda capture, root=None: 30)
    assert main(["solve", "--board", board, "--threads", "1"]) == 0
    assert "table 16 MB" in capsys.readouterr().err
    assert main(["solve", "--board", board, "--threads", "1", "--endgame", "0"]) == 0
    assert "table 64 MB" in capsys.readouterr().err


def test_solve_default_table_never_exceeds_half_the_memory(tmp_path, monkeypatch):
    fake_meminfo(tmp_path, monkeypatch, 300 * 1024)
    assert limits.solve_table_mb(48) == 128


def test_solve_seeds_3_uses_a_small_table_by_default(capsys):
    assert main(["solve", "--seeds", "3", "--endgame", "0", "--threads", "1"]) == 0
    assert "table 16 MB" in capsys.readouterr().err


# -- the command line's edges

def test_to_move_without_board_is_refused(capsys):
    for command in (["solve", "--seeds", "2"], ["analyze", "--depth", "2"]):
        with pytest.raises(SystemExit) as info:
            main(command + ["--to-move", "north"])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--to-move sets who moves in a --board position" in err


def test_to_move_with_board_still_works(capsys):
    board = "0,0,0,0,1,1,0,2,0,0,0,0,0,0"
    assert main(["analyze", "--board", board, "--to-move", "north", "--depth", "2",
                 "--hash-mb", "1"]) == 0
    assert "North to move" in capsys.readouterr().out


def test_to_move_without_board_is_refused_by_the_real_command():
    run = subprocess.run([sys.executable, "-m", "mancala", "solve", "--seeds", "2",
                          "--to-move", "north"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("mancala: --to-move sets who moves")


class ClosedPipe:
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_stdout_ends_a_command_quietly_in_process(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["analyze", "--json", "--depth", "2", "--hash-mb", "1"]) == 1
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", [["analyze", "--json", "--depth", "2", "--hash-mb", "1"],
                                     ["solve", "--seeds", "1", "--json"],
                                     ["bench", "--depth", "2"]])
def test_a_reader_that_went_away_gives_no_broken_pipe_message(command):
    import os
    read, write = os.pipe()
    os.close(read)      # the reader is gone before the first line: every write fails
    try:
        run = subprocess.run([sys.executable, "-m", "mancala", *command], stdout=write,
                             stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write)
    assert run.returncode == 1


def test_the_terminal_game_ends_quietly_too_when_its_reader_went_away(tmp_path):
    """play, as every command: status 1, no message (one handler, in mancala.cli.main)."""
    import os
    read, write = os.pipe()
    os.close(read)
    try:
        run = subprocess.run([sys.executable, "-m", "mancala", "play", "--south", "random",
                              "--north", "random", "--seed", "1"], stdout=write,
                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=60,
                             env={**os.environ, "MANCALA_HOME": str(tmp_path)})
    finally:
        os.close(write)
    assert (run.returncode, run.stderr) == (1, "")
    assert "Broken pipe" not in run.stderr and "Traceback" not in run.stderr
    assert "Exception ignored" not in run.stderr


def test_players_default_tables_fit_a_small_machine(tmp_path, monkeypatch):
    from mancala.players import parse_player
    fake_meminfo(tmp_path, monkeypatch, 100 * 1024)         # 100 MB available
    assert parse_player("ai:perfect").engine.hash_mb == 32  # 256 MB halved to fit
    assert parse_player("ai:hard").engine.hash_mb == 16


def test_index_integers_are_table_sizes():
    class Integer:
        def __index__(self):
            return 2

    assert mancala.Engine(hash_mb=Integer()).hash_mb == 2
