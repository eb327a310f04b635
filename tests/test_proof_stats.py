"""Where a proof's nodes go: bench/proof_nodes.py, and the counters of a counting build
(``MANCALA_STATS=1``, csrc/proof_stats.h), which must add up to the search's own count."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mancala import Board, Engine, _core

ROOT = Path(__file__).resolve().parent.parent
counting = pytest.mark.skipif(_core.proof_stats() is None,
                              reason="the core was built without the counters (MANCALA_STATS=1)")


def test_proof_nodes_prints_the_solves_own_nodes_and_each_test():
    # Kalah(6,2), no database: the same solve the script makes, in this process
    alone = Engine(64, threads=1, endgame=None).solve(Board(seeds=2))
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "proof_nodes.py"), "--seeds", "2",
                           "--endgame", "0"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[0]
    found = re.match(r"Kalah\(6,2\): ([+-]\d+) in ([\d,]+) nodes .*, (\d+) tests: (.*)\)$", line)
    assert found, line
    assert int(found.group(1)) == alone.score and int(found.group(2).replace(",", "")) == alone.nodes
    tests = re.findall(r"\[(-?\d+),(-?\d+)\] ([\d,]+)", found.group(4))
    assert len(tests) == int(found.group(3)) >= 1
    # the tests' nodes add up to the solve's, and the last closes the window on the value
    assert sum(int(n.replace(",", "")) for _, _, n in tests) == alone.nodes
    assert int(tests[-1][0]) == int(tests[-1][1]) == alone.score


@counting
def test_the_counters_add_up_to_the_nodes():
    _core.reset_proof_stats()
    result = Engine(16, threads=1, endgame=None).solve(Board(seeds=3))
    stats = _core.proof_stats()
    assert result.score == 2        # the published value of Kalah(6,3)
    assert sum(stats["visits_by_ply"]) == sum(stats["visits_by_seeds"]) == result.nodes
    assert stats["visits_by_seeds"][36] >= 1 and not any(stats["visits_by_seeds"][37:])
    searched = sum(stats["searched_by_seeds"])
    ends = stats["end"]
    # every searched node ends cut, failing low or inside; every other call before the search
    assert ends[6] + ends[7] + ends[8] == searched
    assert sum(stats["cut_at"]) == ends[6]
    assert stats["waste_once"] <= stats["cut_waste"] and stats["waste_once"] < result.nodes
    _core.reset_proof_stats()
    assert not any(sum(v) if isinstance(v, list) else v for v in _core.proof_stats().values())
