"""Shared fixtures and helpers.

Every rule test runs on both twins, compiled and reference (the ``impl``
fixture). The plain functions below are shared by several test modules; import
them with ``from conftest import ...`` (pytest puts this directory on the path),
never from another test module. The web tests' part is at the end: a real server
in a subprocess, the browser tests' fixtures (their Selenium helpers are in
tests/webtools.py), and what the API tests repeat.
"""
import contextlib
import functools
import importlib
import json
import lzma
import os
import random
import re
import signal
import subprocess
import sys
import time
from importlib import resources

import pytest

import mancala
from mancala import _reference

IMPLEMENTATIONS = ("reference", "core")


def pytest_configure(config):
    """Ctrl-C as a terminal gives it. A suite started in the background by a shell
    without job control (``nohup ... &``) inherits SIGINT ignored, and Python then
    installs no handler: the interrupt tests' Ctrl-C would do nothing, here and in
    every process they start. Put Python's handler back (exec resets it to the
    default in children); a suite run from a terminal or CI is unchanged."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def extras_of_the_package():
    """{extra: the names of what it installs}, read from pyproject.toml's text
    (tomllib is 3.11 on); empty where the file is not beside the tests."""
    try:
        with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml"),
                  encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return {}
    extras, name = {}, None
    for line in text.partition("[project.optional-dependencies]")[2].split("\n[")[0].splitlines():
        line = line.split("#")[0]
        start = re.match(r"([\w-]+) = \[", line)
        if start:
            name = start[1]
            extras[name] = set()
        if name:
            extras[name] |= {re.match(r"[\w.-]+", req)[0].lower() for req in re.findall(r'"([^"]+)"', line)}
    return extras


def extra_wanted(reason, extras):
    """The extra a skip's reason names (``.[web]``, ``the rl extra``), or the one
    extra that installs what it could not import or needs; None for any other skip."""
    for named in re.findall(r"\.\[([\w,-]+)\]", reason) + re.findall(r"\b([\w-]+) extra\b", reason):
        if named.split(",")[0] in extras:
            return named.split(",")[0]
    missing = re.search(r"(?:could not import '|needs )([\w.-]+)", reason)
    holders = [extra for extra, needs in extras.items() if missing and missing[1].lower() in needs]
    return holders[0] if len(holders) == 1 else None


def pytest_terminal_summary(terminalreporter):
    """One line per extra that is not installed and how many skips it made:
    pytest shows no skip reasons by default, so a run without the web extra
    would pass over every web-app test without a word."""
    extras = extras_of_the_package()
    counts = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        extra = extra_wanted(reason, extras)
        if extra:
            counts[extra] = counts.get(extra, 0) + 1
    if counts:
        terminalreporter.write_sep("-", "skipped for want of an extra")
        for extra, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            terminalreporter.write_line(f"{extra}: {count} skipped, not installed (pip install -e '.[{extra}]')")


@pytest.fixture(params=IMPLEMENTATIONS)
def impl(request):
    """The module under test: ``mancala._reference`` or ``mancala._core``.

    The core is imported here, not at collection time, so ``-k reference`` works
    before it is built; without ``-k`` a missing core fails, as it should.
    """
    return importlib.import_module("mancala._" + request.param)


def board_of(slots, to_move, capture):
    """A mancala.Board from 14 slots, the side to move and a capture rule index."""
    return mancala.Board(list(slots), to_move, capture=mancala.CAPTURE_RULES[capture])


def sample_positions(count, seed, max_seeds=6):
    """(slots, to_move, capture) reached by random play, finished games excluded."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        capture = rng.randrange(len(mancala.CAPTURE_RULES))
        slots, to_move = ([rng.randint(1, max_seeds)] * 6 + [0]) * 2, 0
        for _ in range(rng.randint(0, 30)):
            if _reference.is_game_over(slots):
                break
            slots, to_move, _ = _reference.play(
                slots, to_move, rng.choice(_reference.legal_moves(slots, to_move)), capture)
        if not _reference.is_game_over(slots):
            found.append((slots, to_move, capture))
    return found


def small_endgames(count, seed, max_pit_seeds=8):
    """Random positions with few seeds left in the pits and some in the stores."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        slots = [0] * 14
        for _ in range(rng.randint(2, max_pit_seeds)):
            slots[rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12])] += 1
        slots[6], slots[13] = rng.randint(0, 20), rng.randint(0, 20)
        if not _reference.is_game_over(slots):
            found.append((tuple(slots), rng.randint(0, 1), rng.randrange(3)))
    return found


def final_margin(slots, to_move):
    """The margin for to_move once both rows are swept into their owners' stores."""
    south = slots[6] + sum(slots[0:6])
    north = slots[13] + sum(slots[7:13])
    return south - north if to_move == 0 else north - south


def brute_force(slots, to_move, capture):
    """Perfect-play final margin for to_move: every line to the end, no pruning.

    Uses only the twin's rules (``play``, ``legal_moves``), which the rule tests
    pin with hand-worked boards; none of its search code. What the stores hold
    changes no line of play, so the store difference is added to the best gain
    of the pits alone, memoised.
    """
    own, other = (6, 13) if to_move == 0 else (13, 6)
    pits = list(slots)
    pits[6] = pits[13] = 0
    return slots[own] - slots[other] + _best_gain(tuple(pits), to_move, capture)


@functools.lru_cache(maxsize=None)
def _best_gain(slots, to_move, capture):
    """brute_force of a board whose stores are empty."""
    if _reference.is_game_over(slots):
        return final_margin(slots, to_move)
    best = -1000
    for pit in _reference.legal_moves(slots, to_move):
        child, nxt, _ = _reference.play(slots, to_move, pit, capture)
        value = brute_force(child, nxt, capture)
        best = max(best, value if nxt == to_move else -value)
    return best


def depth_limited_values(slots, to_move, depth, capture):
    """{pit: value} of every legal move searched full width ``depth`` moves deep
    (the move itself counted), leaves scored by store difference, finished games
    by their final margin; from to_move's view. Only the twin's rules are used."""
    def value(slots, to_move, depth):
        if _reference.is_game_over(slots):
            return final_margin(slots, to_move)
        if depth == 0:
            return slots[6] - slots[13] if to_move == 0 else slots[13] - slots[6]
        return max(child_value(slots, to_move, pit, depth)
                   for pit in _reference.legal_moves(slots, to_move))

    def child_value(slots, to_move, pit, depth):
        child, nxt, _ = _reference.play(slots, to_move, pit, capture)
        v = value(child, nxt, depth - 1)
        return v if nxt == to_move else -v

    return {pit: child_value(list(slots), to_move, pit, depth)
            for pit in _reference.legal_moves(slots, to_move)}


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


@pytest.fixture(autouse=True, scope="session")
def private_home(tmp_path_factory):
    """The data folder (history, saves, this installation's seal key) is a private
    one: the tests neither read the user's nor leave files in it. A test that
    needs its own sets MANCALA_HOME again."""
    old = os.environ.get("MANCALA_HOME")
    os.environ["MANCALA_HOME"] = str(tmp_path_factory.mktemp("home"))
    yield
    if old is None:
        del os.environ["MANCALA_HOME"]
    else:
        os.environ["MANCALA_HOME"] = old


@pytest.fixture(autouse=True, scope="session")
def pinned_memory():
    """Every test, and every process it starts, counts on the same memory
    (``$MANCALA_MEMORY_MB``), not on what the machine has free at that moment:
    a refused table's message, a default table's size, a build's check are the
    same on a busy machine and a quiet one. test_limits reads the machine's own."""
    import os

    old = os.environ.get("MANCALA_MEMORY_MB")
    os.environ["MANCALA_MEMORY_MB"] = PINNED_MEMORY_MB
    yield
    if old is None:
        del os.environ["MANCALA_MEMORY_MB"]
    else:
        os.environ["MANCALA_MEMORY_MB"] = old


PINNED_MEMORY_MB = "8192"


@pytest.fixture
def empty_endgame_cache(monkeypatch, tmp_path):
    """Engines find no cached endgame database: the same games (and speed) on any machine."""
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path))


def played_games(report):
    """An arena report's games without their clock readings: what must repeat exactly."""
    import dataclasses
    return [{k: v for k, v in dataclasses.asdict(game).items() if k not in ("a_time", "b_time")}
            for game in report.games]


def assert_refused(response, status=400, *words):
    """A web answer refused as the API promises: ``status``, a body that is only
    ``{"error": "one line"}`` holding each of ``words``; the message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert "\n" not in body["error"] and "Traceback" not in body["error"]
    for word in words:
        assert word in body["error"], body["error"]
    return body["error"]


def shipped_puzzles():
    """The shipped puzzles as the data file holds them (read here with lzma and json,
    not through mancala.puzzles)."""
    raw = resources.files("mancala.data").joinpath("puzzles.jsonl.xz").read_bytes()
    return [json.loads(line) for line in lzma.decompress(raw).decode().splitlines() if line.strip()]


# -- the web app: a real server, the browser tests' fixtures, the API tests' helpers ----------

class Served:
    """A running ``python -m mancala serve``: its process, its url (no slash at the end),
    host and port; once it is stopped, what it wrote to stderr."""

    def __init__(self, process, url):
        self.process, self.url = process, url
        self.host, port = url.split("://", 1)[1].split(":")
        self.port = int(port)
        self.stderr = None


@contextlib.contextmanager
def serving(cache, home, **more):
    """``python -m mancala serve --port 0`` with its own endgame cache and data folder
    (MANCALA_CACHE, MANCALA_HOME) and any more environment variables: a Served. On
    leaving, Ctrl-C, then a kill if it has not ended in 20 s."""
    env = dict(os.environ, MANCALA_CACHE=str(cache), MANCALA_HOME=str(home), **more)
    process = subprocess.Popen([sys.executable, "-m", "mancala", "serve", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    served = None
    try:
        line = process.stdout.readline()
        assert " on http://" in line, line + process.stderr.read()
        served = Served(process, line.split(" on ", 1)[1].split()[0].rstrip("/"))
        yield served
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        err = process.stderr.read()
        process.stdout.close()
        process.stderr.close()
        if served is not None:
            served.stderr = err


@pytest.fixture(scope="module")
def server_home(tmp_path_factory):
    """The MANCALA_HOME of a browser test module's server: the games and puzzles its
    pages finish are kept there, never in the real history."""
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def server(tmp_path_factory, server_home):
    """The url of a real server for a browser test module (no slash at the end),
    keeping what it keeps in ``server_home``. (tests/test_hostile_web.py has its own:
    a server for every test.)"""
    # an empty cache: no endgame database another test built turns analysis into a lookup
    with serving(tmp_path_factory.mktemp("empty-cache"), server_home) as served:
        yield served.url


@pytest.fixture(scope="session")
def downloads(tmp_path_factory):
    """Where the browser saves the files it downloads."""
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="session")
def browser(downloads):
    """One headless Chromium for every browser test of the session (tests/webtools.py's
    chromium: skipped, with the reason, where there is none). A test that resizes its
    window or opens a tab puts it back."""
    pytest.importorskip("selenium.webdriver",
                        reason="selenium is not installed: pip install -e '.[web-test]'")
    from webtools import chromium
    with chromium(downloads) as driver:
        yield driver


def kept_games(home):
    """The games in a data folder's history file, read as the terminal's ``history`` reads them."""
    from mancala.history import History
    return History(home / "history.sqlite3").games()


def fuzzed_requests(rng, base, values, position_fields, most, seconds=None, field_share=0.4,
                    keep=0.5, extra=("extra",)):
    """(path, body) pairs of a bounded fuzz, at most ``most`` of them and none after
    ``seconds``: a path of ``base`` (path -> a body it answers) and its body with one
    field (or one of ``extra``) swapped for one of ``values`` (``field_share`` of the
    time), else, where the body holds a position, the position cut to some of
    ``position_fields`` (each kept with chance ``keep``) with one of them swapped (up to
    0.8), else the whole body swapped."""
    deadline = None if seconds is None else time.monotonic() + seconds
    for _ in range(most):
        if deadline is not None and time.monotonic() > deadline:
            return
        path = rng.choice(sorted(base))
        body = json.loads(json.dumps(base[path]))
        roll = rng.random()
        if roll < field_share:                                  # a field of the request
            body[rng.choice(sorted(body) + list(extra))] = rng.choice(values)
        elif roll < 0.8 and "position" in body:                 # a field of its position
            position = {k: v for k, v in position_fields.items() if rng.random() < keep}
            position[rng.choice(sorted(position_fields))] = rng.choice(values)
            body["position"] = position
        else:                                                   # the whole body
            body = rng.choice(values)
        yield path, body
