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

