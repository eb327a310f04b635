"""The house's shape (issue 35): the map names every module, no module is too long,
and every import the pages document keeps working.

- ``docs/layout.md`` names every tracked module (``git ls-files``: the package's
  Python and Cython files, the C headers, the bench scripts) as a path in
  backquotes, so the newcomer's map cannot fall behind the code.
- No module of the package, Python or Cython, is over :data:`MAX_LINES` lines.
- Every import a page, the README or an example shows, and every module the
  reference generates a page from (``::: mancala...``), names something that is
  there; the old homes of the grouped families (``mancala.arena``,
  ``mancala.protocol``) hand on the names they always had.

Each checker is also tried on a case made here that it must refuse.
"""
from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = ROOT / "docs" / "layout.md"
MAX_LINES = 450
#: what the map must name: (folder, the endings of its modules' file names)
MAPPED = (("mancala", (".py", ".pyx", ".pxi", ".pxd")), ("csrc", (".h",)), ("bench", (".py",)))
CYTHON_AND_PYTHON = (".py", ".pyx", ".pxi", ".pxd")


def tracked(root: Path) -> List[str]:
    """The repository's files, as git tracks them (the files on disk in an unpacked
    sdist, which has no git)."""
    if (root / ".git").exists() and shutil.which("git"):
        done = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                              check=True, timeout=60)
        return [line for line in done.stdout.splitlines() if (root / line).exists()]
    return [str(path.relative_to(root)) for path in root.rglob("*") if path.is_file()]


def modules(files: Iterable[str]) -> List[str]:
    """The files the map names: under MAPPED's folders, with its endings."""
    return sorted(name for name in files for folder, endings in MAPPED
                  if name.startswith(folder + "/") and name.endswith(endings))


def unnamed(text: str, files: Iterable[str]) -> List[str]:
    """The files the map's text does not name as a path in backquotes."""
    named = set(re.findall(r"`([^`\s]+)`", text))
    return [name for name in files if name not in named]


def too_long(root: Path, files: Iterable[str], limit: int = MAX_LINES) -> List[Tuple[str, int]]:
    """The package's Python and Cython files over ``limit`` lines, with their lines."""
    found = []
    for name in files:
        if name.startswith("mancala/") and name.endswith(CYTHON_AND_PYTHON):
            with open(root / name, encoding="utf-8") as handle:
                lines = sum(1 for _ in handle)
            if lines > limit:
                found.append((name, lines))
    return found


def test_the_layout_names_every_tracked_module():
    files = modules(tracked(ROOT))
    assert len(files) > 140 and "mancala/_core.pyx" in files and "csrc/kalah.h" in files
    missing = unnamed(LAYOUT.read_text(encoding="utf-8"), files)
    assert not missing, "docs/layout.md does not name: " + ", ".join(missing)


def test_the_map_checker_refuses_a_module_left_out_or_named_in_passing():
    text = "| `mancala/board.py` | the board |\n| `csrc/kalah.h` | rules |\nsee mancala/engine.py\n"
    files = ["mancala/board.py", "mancala/engine.py", "csrc/kalah.h"]
    assert unnamed(text, files) == ["mancala/engine.py"]
    assert modules(["mancala/a.py", "mancala/_core.c", "mancala/web/static/app.js", "bench/b.py",
                    "tests/test_a.py", "csrc/k.h", "docs/x.md"]) == \
        ["bench/b.py", "csrc/k.h", "mancala/a.py"]


def test_no_module_of_the_package_is_over_the_line_limit():
    files = tracked(ROOT)
    assert any(name.endswith(".pxi") for name in files)
    over = too_long(ROOT, files)
    assert not over, ", ".join(f"{name}: {lines} lines" for name, lines in over) + \
        f" (the limit is {MAX_LINES}: move a cohesive part out)"


def test_the_line_checker_counts_python_and_cython_files(tmp_path):
    (tmp_path / "mancala").mkdir()
    for name, lines in (("long.py", 451), ("long.pxi", 451), ("right.pyx", 450), ("long.c", 900)):
        (tmp_path / "mancala" / name).write_text("x = 1\n" * lines, encoding="utf-8")
    names = ["mancala/long.py", "mancala/long.pxi", "mancala/right.pyx", "mancala/long.c"]
    assert too_long(tmp_path, names) == [("mancala/long.py", 451), ("mancala/long.pxi", 451)]


# -- the documented imports ---------------------------------------------------------------

#: every import the pages, the README and the examples show, and the old homes of the
#: families grouped under mancala/arena/ and mancala/protocol/ (issue 35): module -> names.
#: A page that shows another import fails the test below until it is listed here.
DOCUMENTED = {
    "mancala": ["Board", "MoveRecord", "Outcome", "Engine", "SearchLimit", "SearchResult",
                "SearchProgress", "AnalysisProgress", "CAPTURE_RULES", "EVALUATIONS", "MAX_DEPTH",
                "MAX_SEEDS", "MancalaError", "InvalidBoardError", "InvalidRuleError",
                "IllegalMoveError", "InvalidLimitError", "__version__", "endgame", "explain", "puzzles"],
    "mancala.arena": ["ArenaConfig", "ArenaReport", "run_arena", "play_game", "game_seed",
                      "check_player", "GameResult", "Summary", "summarise", "OUTPUT_NAMES",
                      "PlayerSpecError"],
    "mancala.protocol": ["Session", "serve"],
    "mancala.stats": ["fit_elo", "wilson_interval", "sprt_state", "elo_estimate"],
    "mancala.openings": ["opening_suite", "MAX_OPENING_PLIES"],
    "mancala.history": ["History"],
    "mancala.review": ["review_game", "review_moves"],
    "mancala.limits": [], "mancala.errors": [], "mancala.sqlitefile": [], "mancala.rating": [],
    "mancala.puzzles": [], "mancala.explain": [], "mancala.endgame": [],
    "mancala.vector": ["VectorEnv"], "mancala.env": ["KalahEnv"], "mancala.env.kalah": ["KalahEnv"],
    "mancala.env.pettingzoo": ["env"], "mancala.env.openspiel": ["EngineBot"],
    "mancala.svg": ["board", "Arrow", "COLORS"],
    "mancala.endgame.export": ["export"],
}
#: the optional extra's library a module needs first (absent: the check is skipped)
EXTRA_LIBRARY = {"mancala.vector": "numpy", "mancala.env.kalah": "gymnasium",
                 "mancala.env.pettingzoo": "pettingzoo", "mancala.env.openspiel": "pyspiel",
                 "mancala.env": "gymnasium"}    # last: its KalahEnv is env.kalah's (CI's plain run)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*.py"))]


def shown_imports(text: str) -> List[Tuple[str, List[str]]]:
    """The imports of mancala a page shows (a code line, ``>>>`` too) and the modules its
    reference generates pages from (``::: mancala.x.Name``: the module, and the name)."""
    found = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(>>>|\.\.\.)?\s*", "", line)
        match = re.match(r"from (mancala[\w.]*) import ([\w, ()]+?)(\s*#.*)?$", line)
        if match:
            found.append((match[1], [name.split(" as ")[0].strip()
                                     for name in match[2].strip("() ").split(",") if name.strip()]))
        match = re.match(r"import (mancala[\w.]*)", line)
        if match:
            found.append((match[1], []))
        match = re.match(r"::: (mancala[\w.]*)", line)
        if match:
            found.append((match[1], []))
    return found


def resolve(dotted: str, names: List[str]) -> None:
    """Import the module (or the longest module a dotted name starts with) and get
    each name; ImportError or AttributeError when something is not there."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name != ".".join(parts[:cut]) or cut == 1:
                raise
            continue
        value = module
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        for name in names:         # as ``from module import name`` does: a name, or a submodule
            if not hasattr(value, name):
                importlib.import_module(f"{value.__name__}.{name}")
        return


def needs_missing_extra(dotted: str) -> bool:
    library = next((EXTRA_LIBRARY[module] for module in EXTRA_LIBRARY
                    if dotted == module or dotted.startswith(module + ".")), None)
    if library is None:
        return False
    try:
        importlib.import_module(library)
    except ImportError:
        return True
    return False


def listed(dotted: str, names: List[str]) -> bool:
    """Whether DOCUMENTED holds what a page shows: a module and its names, or a
    reference's ``mancala.module.Name`` (the longest listed module, then the name)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if module in DOCUMENTED:
            rest = parts[cut:]
            return len(rest) <= 1 and set(rest + names) <= set(DOCUMENTED[module])
    return False


def test_the_documented_list_holds_every_import_the_pages_show():
    shown = [(page.name, module, names) for page in PAGES
             for module, names in shown_imports(page.read_text(encoding="utf-8"))]
    assert len(shown) > 40
    unlisted = [f"{page}: {module} {names}" for page, module, names in shown if not listed(module, names)]
    assert not unlisted, "list these in DOCUMENTED: " + "; ".join(unlisted)
    assert not listed("mancala.arena", ["NoSuchName"]) and not listed("mancala.nothing", [])


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_import_a_page_shows_works(page):
    for module, names in shown_imports(page.read_text(encoding="utf-8")):
        if needs_missing_extra(module):
            continue
        resolve(module, names)


@pytest.mark.parametrize("module", sorted(DOCUMENTED))
def test_every_documented_module_and_old_home_hands_on_its_names(module):
    if needs_missing_extra(module):
        pytest.skip(f"{module} needs an extra that is not installed")
    resolve(module, DOCUMENTED[module])


def test_the_import_reader_sees_code_doctest_and_reference_lines_and_refuses_what_is_not_there():
    text = ("    >>> from mancala.arena import ArenaConfig, run_arena\n"
            "from mancala.protocol import (Session,\n"
            "import mancala.env  # registers\n::: mancala.arena.tournament.ArenaConfig\n"
            "The words from mancala are prose.\n")
    assert shown_imports(text) == [("mancala.arena", ["ArenaConfig", "run_arena"]),
                                   ("mancala.protocol", ["Session"]), ("mancala.env", []),
                                   ("mancala.arena.tournament.ArenaConfig", [])]
    resolve("mancala.arena.tournament.ArenaConfig", [])
    with pytest.raises(ImportError):
        resolve("mancala.arena", ["NoSuchName"])
    with pytest.raises((ImportError, AttributeError)):
        resolve("mancala.arena_results", [])     # the old sibling is gone: its home is mancala.arena
