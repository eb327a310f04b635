"""python -m mancala analyze: every legal move scored, in-process and as a subprocess."""
import json
import subprocess
import sys

import pytest

import mancala
from mancala.cli import main

from conftest import depth_limited_values


def analyze_json(capsys, *argv):
    assert main(["analyze", "--json", "--hash-mb", "4", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_start_position_scores_every_pit_and_marks_the_best(capsys):
    # against a full-width search on the twin's rules (conftest), not the engine
    report = analyze_json(capsys, "--depth", "5")
    assert [m["pit_index"] for m in report["moves"]] == [0, 1, 2, 3, 4, 5]
    values = depth_limited_values(mancala.Board().pits, 0, 5, 0)
    assert {m["pit_index"]: m["score"] for m in report["moves"]} == values
    best = max(values.values())
    assert {m["pit_index"] for m in report["moves"] if m["best"]} == \
        {pit for pit, value in values.items() if value == best}


def test_exact_scores_of_a_small_endgame(capsys):
    #        12 11 10  9  8  7
    #   [ 0]  0  0  0  0  0  2  [ 0]
    #         0  0  0  0  1  1
    # pit 6: extra turn, then pit 5 captures North's 2 (+4); pit 5 first ends 1-3 (-2)
    report = analyze_json(capsys, "--board", "0,0,0,0,1,1,0,2,0,0,0,0,0,0", "--exact")
    assert {m["pit_index"]: m["score"] for m in report["moves"]} == {4: -2, 5: 4}
    assert all(m["exact"] for m in report["moves"])


def test_moves_are_played_first_and_north_can_be_to_move(capsys):
    report = analyze_json(capsys, "--moves", "1", "--depth", "3")
    assert report["to_move"] == 1
    assert report["board"] == [0, 5, 5, 5, 5, 4, 0, 4, 4, 4, 4, 4, 4, 0]


def test_text_report_names_the_side_and_pits_from_one(capsys):
    assert main(["analyze", "--depth", "2", "--hash-mb", "1"]) == 0
    out = capsys.readouterr().out
    assert "South to move" in out and "pit 1:" in out and "pit 6:" in out and "<- best" in out


@pytest.mark.parametrize("argv,fragment", [
    (["--board", "1,2"], "14 slots, not 2"),
    (["--moves", "1 1 1"], "move 3 of --moves, pit 1, is not legal; legal pits: 2 3 4 5 6"),
    (["--capture", "empty", "--seeds", "13"], "not 13"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    with pytest.raises(SystemExit) as info:
        main(["analyze", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and len(err.splitlines()) == 1


def test_real_subprocess():
    out = subprocess.run([sys.executable, "-m", "mancala", "analyze", "--depth", "4", "--json",
                          "--hash-mb", "1"], capture_output=True, text=True, timeout=60, check=True)
    assert len(json.loads(out.stdout)["moves"]) == 6
