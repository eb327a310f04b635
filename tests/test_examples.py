"""The examples in examples/ run (each in a fresh interpreter), so they cannot rot."""
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def run(name, *args):
    out = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_gymnasium_random_agent_loop():
    pytest.importorskip("gymnasium", reason="needs the rl extra: pip install -e '.[rl]'")
    out = run("gymnasium_random_agent.py", "3")
    assert re.fullmatch(r"3 episodes: the random agent won [0-3], mean margin [+-]\d+\.\d seeds\n", out)


def test_the_pettingzoo_masked_policy_loop():
    pytest.importorskip("pettingzoo", reason="needs the rl extra: pip install -e '.[rl]'")
    out = run("pettingzoo_masked_policy.py", "3")
    found = re.fullmatch(r"3 games, reward totals: player_0 ([+-]\d), player_1 ([+-]\d)\n", out)
    assert found and int(found[1]) == -int(found[2])     # zero-sum, one reward per game


def test_the_openspiel_example():
    pytest.importorskip("pyspiel", reason="needs the openspiel extra: pip install -e '.[openspiel]'")
    out = run("openspiel_engine_vs_mcts.py", "20")
    lines = out.splitlines()
    assert len(lines) == 2
    for seat, line in enumerate(lines):
        assert re.fullmatch(rf"engine as player {seat} vs MCTS \(20 simulations\): "
                            r"engine's return (\+1|0|-1)", line.replace("+0", "0"))
