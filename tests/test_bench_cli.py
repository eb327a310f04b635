"""``python -m mancala bench``: the pinned signature, the JSON report, --compare, bad files.

In-process through ``mancala.cli.main(argv)``, plus one real ``python -m mancala``.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from mancala import MAX_SEEDS, _reference
from mancala.board import capture_code, start_slots
from mancala.cli import bench, main
from mancala.positions import BENCH_POSITIONS, load_positions, parse_line, random_playout

ROOT = pathlib.Path(__file__).resolve().parent.parent
SIGNATURE = pathlib.Path(__file__).parent / "data" / "bench_signature.txt"
SIGNATURE_LINE = re.compile(r"depth=(\d+) nodes=(\d+)$")
RECIPE = re.compile(r"#\s*(\d+) random moves from the Kalah\(6,(\d+)\) start, seed (\d+)")

POSITION_FIELDS = {"name", "pits", "to_move", "capture", "depth", "nodes", "time", "nps",
                   "move_index", "score", "exact", "tt_hits", "hashfull"}
TOTAL_FIELDS = {"positions", "nodes", "time", "nps"}


def pinned_signature():
    lines = [line for line in SIGNATURE.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert len(lines) == 1, f"{SIGNATURE}: expected one 'depth=N nodes=N' line, got {lines!r}"
    match = SIGNATURE_LINE.match(lines[0])
    assert match, f"{SIGNATURE}: not a 'depth=N nodes=N' line: {lines[0]!r}"
    return int(match.group(1)), int(match.group(2))


def bench_json(capsys, *args):
    """Run the bench in-process with --json: (exit code, report, stderr)."""
    code = main(["bench", "--json", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_signature_is_pinned(capsys):
    depth, nodes = pinned_signature()
    code, report, _ = bench_json(capsys, "--depth", str(depth))
    assert code == 0
    found = report["signature"]
    assert found == nodes, (
        f"bench signature at depth {depth} is {found}, tests/data/bench_signature.txt pins "
        f"{nodes}. If search behaviour changed on purpose, write 'depth={depth} nodes={found}' "
        f"there in a commit that says so; if not, the change is a bug.")


def test_signature_is_the_same_run_after_run(capsys):
    _, first, _ = bench_json(capsys, "--depth", "6")
    _, second, _ = bench_json(capsys, "--depth", "6")
    assert [row["nodes"] for row in first["positions"]] == \
           [row["nodes"] for row in second["positions"]]
    assert first["signature"] == second["signature"] == first["totals"]["nodes"]


def test_json_report_holds_every_field(capsys):
    code, report, err = bench_json(capsys, "--depth", "5", "--hash-mb", "8")
    assert code == 0
    assert report["limit"] == {"depth": 5, "time": None}
    assert report["hash_mb"] == 8
    positions = load_positions()
    names = [p.name for p in positions]
    assert [row["name"] for row in report["positions"]] == names
    for position, row in zip(positions, report["positions"]):
        # the table search's value is plain alpha-beta's, computed here by the twin
        plain = _reference.alphabeta(position.pits, position.to_move, 5,
                                     capture_code(position.capture))
        assert (row["pits"], row["to_move"], row["capture"]) == \
            (list(position.pits), position.to_move, position.capture)
        assert row["score"] == plain[0], row["name"]
        assert row["move_index"] in _reference.legal_moves(position.pits, position.to_move)
        assert POSITION_FIELDS <= set(row), row
        assert row["depth"] == 5
        assert row["nodes"] > 0 and row["time"] >= 0 and row["nps"] >= 0
        assert row["move_index"] in range(6)
        assert 0 <= row["tt_hits"] <= row["nodes"]
        assert 0 <= row["hashfull"] <= 1000
    totals = report["totals"]
    assert TOTAL_FIELDS <= set(totals)
    assert totals["positions"] == len(names)
    assert totals["nodes"] == sum(row["nodes"] for row in report["positions"])
    assert totals["time"] == pytest.approx(sum(row["time"] for row in report["positions"]))
    assert "compare" not in report
    # progress went to stderr, one line per position, so stdout held only the JSON
    assert len(err.splitlines()) == len(names)


def test_time_limit_reports_depth_reached_and_no_signature(capsys, tmp_path):
    listing = tmp_path / "two.txt"
    listing.write_text("start 4,4,4,4,4,4,0,4,4,4,4,4,4,0 south standard\n"
                       "start-north 3,3,3,3,3,3,0,3,3,3,3,3,3,0 north none  # a comment\n")
    code, report, _ = bench_json(capsys, "--time", "0.02", "--positions", str(listing))
    assert code == 0
    assert report["signature"] is None
    assert report["limit"] == {"depth": None, "time": 0.02}
    assert [row["name"] for row in report["positions"]] == ["start", "start-north"]
    assert report["positions"][1]["to_move"] == 1
    assert all(row["depth"] >= 1 for row in report["positions"])


def test_compare_reports_equal_node_counts(capsys):
    code, report, _ = bench_json(capsys, "--depth", "2", "--compare", "--compare-depth", "4")
    assert code == 0
    compare = report["compare"]
    assert compare["depth"] == 4
    positions = load_positions()
    assert len(compare["positions"]) == len(report["positions"]) == len(positions)
    expected_total = 0
    for position, row in zip(positions, compare["positions"]):
        # what the report must say, computed here from the twin, not read off the report
        score, move, nodes = _reference.alphabeta(position.pits, position.to_move, 4,
                                                  capture_code(position.capture))
        assert row["match"] is True, row
        assert row["nodes_python"] == row["nodes_compiled"] == nodes > 0, row
        assert (row["score_compiled"], row["move_index_compiled"]) == (score, move), row
        assert row["time_python"] > 0 and row["time_compiled"] > 0
        expected_total += nodes
    assert compare["totals"]["match"] is True
    assert compare["totals"]["nodes_python"] == compare["totals"]["nodes_compiled"] == expected_total


def test_compare_mismatch_is_loud_and_fails(capsys, monkeypatch):
    honest = _reference.alphabeta

    def one_node_too_many(*args):
        score, move, nodes = honest(*args)
        return score, move, nodes + 1

    monkeypatch.setattr(_reference, "alphabeta", one_node_too_many)
    code = main(["bench", "--depth", "2", "--compare", "--compare-depth", "3"])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.count("MISMATCH") == len(load_positions())
    assert "MISMATCH" in out


def test_compare_skips_trees_too_big_for_pure_python(capsys, monkeypatch):
    monkeypatch.setattr(bench, "TWIN_NODE_BUDGET", 60)
    code, report, _ = bench_json(capsys, "--depth", "2", "--compare", "--compare-depth", "3")
    assert code == 0
    rows = report["compare"]["positions"]
    skipped = [row for row in rows if row["nodes_compiled"] > 60]
    assert skipped and all(row["match"] is None and row["nodes_python"] is None
                           for row in skipped)
    assert report["compare"]["totals"]["skipped"] == len(skipped)
    assert report["compare"]["totals"]["positions"] == len(rows) - len(skipped)


def test_text_report_has_a_row_per_position_and_the_signature(capsys):
    assert main(["bench", "--depth", "3", "--compare", "--compare-depth", "3"]) == 0
    out, _ = capsys.readouterr()
    for position in load_positions():
        assert re.search(rf"^{re.escape(position.name)} ", out, re.M), position.name
    assert re.search(r"^signature: \d+ nodes$", out, re.M)
    assert re.search(r"^total .* \d+x  yes$", out, re.M)


def test_real_subprocess_gives_the_same_signature(capsys):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "mancala", "bench", "--depth", "4", "--json"],
                          cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    _, in_process, _ = bench_json(capsys, "--depth", "4")
    assert report["signature"] == in_process["signature"] == report["totals"]["nodes"]


GOOD = "4,4,4,4,4,4,0,4,4,4,4,4,4,0"


@pytest.mark.parametrize("line", [
    "start 4,4,4,4,4,4,0,4,4,4,4,4,4 south standard",           # 13 slots
    "start 4,4,4,4,4,4,0,4,4,4,4,4,4,x south standard",         # not a number
    f"start {GOOD} south",                                      # a field missing
    f"start {GOOD} east standard",                              # no such side
    f"start {GOOD} south stealing",                             # no such rule
    "start 4,4,4,4,4,4,0,4,4,4,4,4,-4,0 south standard",        # negative seeds
    "start 12,12,12,12,12,12,1,12,12,12,12,12,12,0 south standard",  # 145 seeds
    "over 0,0,0,0,0,0,30,1,0,0,0,0,0,17 north standard",        # the game is over
    f"st@rt {GOOD} south standard",                             # bad name
])
def test_bad_positions_line_is_one_line_error_quoting_it(capsys, tmp_path, line):
    listing = tmp_path / "bad.txt"
    listing.write_text(f"# a comment\nfine {GOOD} south standard\n{line}\n")
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--depth", "2", "--positions", str(listing)])
    assert exc.value.code != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "line 3" in err and repr(line) in err


def test_duplicate_names_and_empty_binary_and_missing_files_are_refused(capsys, tmp_path):
    twice = tmp_path / "twice.txt"
    twice.write_text(f"a {GOOD} south standard\na {GOOD} north standard\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing here\n\n")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"start \xff\xfe south standard\n")
    for path, words in ((twice, "used twice"), (empty, "no positions"), (binary, "not UTF-8"),
                        (tmp_path / "missing.txt", "missing.txt")):
        with pytest.raises(SystemExit) as exc:
            main(["bench", "--depth", "2", "--positions", str(path)])
        assert exc.value.code != 0
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and words in err, err


@pytest.mark.parametrize("args", [["--depth", "0"], ["--depth", "x"], ["--time", "-1"],
                                  ["--hash-mb", "-5"], ["--depth", "3", "--time", "1"]])
def test_bad_options_are_usage_errors(capsys, args):
    with pytest.raises(SystemExit) as exc:
        main(["bench", *args])
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_packaged_positions_are_legal_varied_and_reproducible():
    positions = load_positions()
    starts = {(p.pits, p.to_move, p.capture) for p in positions}
    for seeds, capture in ((4, "standard"), (3, "standard"), (5, "standard"), (4, "empty")):
        assert (tuple(start_slots(seeds)), 0, capture) in starts
    assert len(positions) >= 4 + 12
    assert {p.capture for p in positions} == {"standard", "empty", "none"}
    assert {p.to_move for p in positions} == {0, 1}
    for position in positions:
        board = position.board()
        assert sum(position.pits) <= MAX_SEEDS and not board.is_game_over()
        assert parse_line(position.line()) == position

    replayed = 0
    for line in BENCH_POSITIONS.read_text().splitlines():
        recipe = RECIPE.search(line)
        if not recipe or line.startswith("#"):
            continue
        name, _, _, capture = line.split("#")[0].split()
        moves, seeds, seed = map(int, recipe.groups())
        expected = random_playout(seeds, capture, moves, seed, name)
        assert next(p for p in positions if p.name == name) == expected, line
        replayed += 1
    assert replayed == len(positions) - 4


@pytest.mark.timeout(60)
def test_compare_at_depth_30_stops_at_the_budget_and_says_so(capsys, monkeypatch):
    # before: the compiled plain tree itself was searched to depth 30 first (hours)
    monkeypatch.setattr(bench, "TWIN_NODE_BUDGET", 20_000)
    code, report, err = bench_json(capsys, "--depth", "2", "--compare", "--compare-depth", "30")
    assert code == 0
    rows = report["compare"]["positions"]
    stopped = [row for row in rows if not row["compiled_complete"]]
    assert stopped, "depth-30 plain trees are far beyond 20,000 nodes"
    assert all(row["match"] is None and row["nodes_python"] is None and row["move_index_compiled"] is None
               for row in stopped)
    assert all(row["time_compiled"] < 5 for row in rows)
    first = rows[0]["name"]
    assert (f"compare {first}: pure Python skipped: the tree has more than 20,000 nodes" in err
            or rows[0]["match"] is not None)


def test_compare_at_depth_30_finishes_in_a_real_run(tmp_path):
    start = tmp_path / "start.txt"
    start.write_text("kalah-6-4  4,4,4,4,4,4,0,4,4,4,4,4,4,0  south  standard\n")
    run = subprocess.run([sys.executable, "-m", "mancala", "bench", "--depth", "1", "--compare",
                          "--compare-depth", "30", "--positions", str(start)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0
    assert "pure Python skipped: the tree has more than 3,000,000 nodes" in run.stderr
    assert ">3,000,000" in run.stdout
