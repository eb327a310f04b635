"""Shared fixtures: every rule test runs on both twins, compiled and reference."""
import importlib

import pytest

IMPLEMENTATIONS = ("reference", "core")


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    """The module under test: ``mancala._reference`` or ``mancala._core``.

    The core is imported here, not at collection time, so ``-k reference`` works
    before it is built; without ``-k`` a missing core fails, as it should.
    """
    return importlib.import_module("mancala._" + request.param)


def start_position(seeds=4):
    """The 14 slots of a new game with ``seeds`` in every pit."""
    return [seeds] * 6 + [0] + [seeds] * 6 + [0]


def picture(slots):
    """The board drawn as in the tests' comments, North on top (for messages)."""
    def cells(indices):
        return "".join(f"{slots[i]:3d}" for i in indices)
    return "\n".join([
        "    " + "".join(f"{i:3d}" for i in range(12, 6, -1)),
        "    " + cells(range(12, 6, -1)),
        f"[{slots[13]:2d}]" + " " * 18 + f"  [{slots[6]:2d}]",
        "    " + cells(range(0, 6)),
        "    " + "".join(f"{i:3d}" for i in range(0, 6)),
    ])
