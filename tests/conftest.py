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



@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory):
    """Endgame databases built by tests go to a private cache, and none the user
    built changes what the tests see."""
    import os

    old = os.environ.get("MANCALA_CACHE")
    os.environ["MANCALA_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        del os.environ["MANCALA_CACHE"]
    else:
        os.environ["MANCALA_CACHE"] = old
