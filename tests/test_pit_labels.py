"""People see pits 1..6; machine output names its 0..5 fields as indices. Never both unlabelled."""
import json
import subprocess
import sys

from mancala.cli import main

BOARD = "0,0,0,0,1,1,0,2,0,0,0,0,0,0"     # South: pits 5 and 6 (indices 4 and 5)


def test_analyze_json_names_pit_indices(capsys):
    assert main(["analyze", "--board", BOARD, "--exact", "--json", "--hash-mb", "1"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["pit_index"] for m in moves] == [4, 5]
    assert all("pit" not in m and "pv" not in m and m["pv_indices"][0] == m["pit_index"]
               for m in moves)


def test_solve_json_names_move_indices(capsys):
    assert main(["solve", "--board", BOARD, "--all", "--json", "--endgame", "0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not {"move", "optimal_moves", "pv"} & set(report)
    assert report["move_index"] in report["optimal_move_indices"]
    assert report["pv_indices"][0] == report["move_index"]


def test_solve_text_shows_the_same_moves_as_pits_1_to_6(capsys):
    assert main(["solve", "--board", BOARD, "--all", "--json", "--endgame", "0"]) == 0
    indices = json.loads(capsys.readouterr().out)["optimal_move_indices"]
    assert main(["solve", "--board", BOARD, "--all", "--endgame", "0"]) == 0
    out = capsys.readouterr().out
    assert "optimal moves: " + ", ".join(f"pit {i + 1}" for i in indices) in out


def test_bench_text_shows_pits_1_to_6_and_json_move_index():
    text = subprocess.run([sys.executable, "-m", "mancala", "bench", "--depth", "3"],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    report = json.loads(subprocess.run(
        [sys.executable, "-m", "mancala", "bench", "--depth", "3", "--json"],
        capture_output=True, text=True, timeout=60, check=True).stdout)
    header = text.splitlines()[1].split()
    assert "pit" in header and "move" not in header
    rows = {line.split()[0]: line.split() for line in text.splitlines()[2:]}
    column = header.index("pit")
    for row in report["positions"]:
        assert "move" not in row
        assert rows[row["name"]][column] == str(row["move_index"] + 1)
    assert "pit: the best move, 1..6 from the mover's left" in text
