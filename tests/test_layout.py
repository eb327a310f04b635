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
- Below Engine's public methods one request travels whole to the core (issue 42):
  no function on the way from them to ``Searcher.search``, nor that entry,
  takes more than :data:`MAX_ARGUMENTS` arguments (traced, not listed by hand).

Each checker is also tried on a case made here that it must refuse.
"""
from __future__ import annotations

import importlib
import inspect
import re
import shutil
import subprocess
import sys
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
    "mancala.records": ["Record", "Setup", "dumps", "dumps_all", "loads", "loads_all"],
    "mancala.search_values": ["SearchRequest", "SearchRole", "Found"], "mancala._core": ["Searcher"],
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


# -- one search request, carried whole (issue 42) -----------------------------------------

#: the most arguments (self not counted) a function between Engine's public methods and the
#: core's search entry may take: below the keywords one request travels whole (SearchRequest)
MAX_ARGUMENTS = 5
#: Engine's public methods: they keep their keyword arguments; the path starts below them
PUBLIC = ("search", "solve", "null_window", "analyse", "optimal_moves")


def arguments(code) -> int:
    """The named parameters of a function's code, self not counted (``*args`` and
    ``**kwargs`` hand on what the caller gave; they are not counted either)."""
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return len(names) - (names[:1] == ("self",))


def path_to(frame, public, within) -> List:
    """The code of the functions on the stack from ``frame`` up to the outermost one
    in ``public`` (it and the rest of ``public`` left out; none: the thread's whole
    stack), those whose file ``within`` accepts, innermost first."""
    codes = []
    while frame is not None:
        codes.append(frame.f_code)
        frame = frame.f_back
    tops = [i for i, code in enumerate(codes) if code in public]
    if tops:
        codes = codes[:tops[-1]]
    return [code for code in codes if code not in public and within(code.co_filename)]


def too_wide(codes, limit: int = MAX_ARGUMENTS) -> List[str]:
    """The functions among ``codes`` with more than ``limit`` arguments, each named."""
    return sorted({f"{getattr(code, 'co_qualname', code.co_name)} ({Path(code.co_filename).name}:"
                   f"{code.co_firstlineno}): {arguments(code)} arguments"
                   for code in codes if arguments(code) > limit})


def in_package(filename: str) -> bool:
    """Whether a function's file is one of the package's (the installed one's)."""
    import mancala
    return Path(filename).resolve().is_relative_to(Path(mancala.__file__).resolve().parent)


def test_one_request_travels_from_the_engine_to_the_core_through_functions_of_five_arguments(
        monkeypatch):
    """Every way Engine asks the core (search on one thread and on two, a timed search,
    solve on one and on two, null_window, the three analyses, optimal_moves), traced:
    each call of the core's search entry names the functions between the public
    method and it, and none takes more than MAX_ARGUMENTS; nor does the entry."""
    from mancala import Board, Engine, _core, engine as engine_module
    paths: List[List] = []
    public = {getattr(Engine, name).__wrapped__.__code__ for name in PUBLIC}

    class Traced(_core.Searcher):
        """The core's searcher, noting the path of every call to its search entry."""

        def search(self, *args, **kwargs):
            paths.append(path_to(sys._getframe(1), public, in_package))
            return super().search(*args, **kwargs)

    monkeypatch.setattr(engine_module, "Searcher", Traced)
    one = Engine(hash_mb=1, endgame=None)
    two = Engine(hash_mb=1, endgame=None, threads=2)
    board, small = Board(seeds=3), Board(seeds=2)
    for engine in (one, two):
        engine.search(board, depth=12)
        engine.solve(small)
        engine.null_window(small, 1)
        engine.optimal_moves(small)
    one.search(board, time=0.05)
    one.analyse(board, depth=4)
    one.analyse(small, exact=True)
    one.analyse(board, depth=3, deepen=True)
    wide = too_wide([code for path in paths for code in path])
    assert not wide, "one request object, not a row of arguments: " + "; ".join(wide)
    entry = [name for name in inspect.signature(_core.Searcher.search).parameters if name != "self"]
    assert len(entry) <= MAX_ARGUMENTS, f"Searcher.search takes {len(entry)}: {entry}"
    # the trace saw every way there (the solve's bound questions too: one entry, no other)
    names = {code.co_name for path in paths for code in path}
    assert {"_deepen", "work", "mtdf", "probe", "_one_pass", "_deepening", "analyse"} <= names, names


def test_the_argument_checker_refuses_a_sixth_argument_on_the_path():
    """A toy path: a public method, a function of five arguments below it, one of six
    below that, the entry: only the six is refused; above the public one nothing counts."""
    seen: List[List] = []

    def entry():
        seen.append(path_to(sys._getframe(1), public, lambda name: name == __file__))

    def six(a, b, c, d, e, f):
        entry()

    def five(a, b, c, d, e):
        six(a, b, c, d, e, 6)

    def face(a, b, c, d, e, f, g):              # public: its keywords are the edge
        five(a, b, c, d, e)

    def outside(a, b, c, d, e, f, g, h):        # above the public method: not on the path
        face(a, b, c, d, e, f, g)

    public = {face.__code__}
    outside(*range(8))
    assert [code.co_name for code in seen[0]] == ["six", "five"]
    assert [line.split(" ")[0].split(".")[-1] for line in too_wide(seen[0])] == ["six"]
    assert arguments((lambda self, a, b, c, d, e: 0).__code__) == 5
    assert arguments((lambda a, *, b, c, d, e, f: 0).__code__) == 6
    assert arguments((lambda *args, **kwargs: 0).__code__) == 0


# -- the web room: one pattern (issue 40) ------------------------------------------------------

MAX_WEB_FUNCTION_LINES = 60     #: a handler or helper of mancala/web/ fits a screen
WEB = "mancala/web/"
#: what only the server may touch: the count of searches waiting, the room check, the slots
#: and the threads (a page asks Server.search for engine work and Server.disk for files)
SERVER_ONLY = {"waiting", "check_room", "limiter", "to_thread", "run_sync", "_run"}
#: the modules of the web package that are pages (mancala.web.app.PAGES)
WEB_PAGES = ("play", "games", "records", "reviews", "learn")


def long_functions(root: Path, files: Iterable[str], folder: str = WEB,
                   limit: int = MAX_WEB_FUNCTION_LINES) -> List[Tuple[str, str, int]]:
    """The functions (and methods, nested ones too) of ``folder``'s Python files over
    ``limit`` lines, with their lines."""
    import ast
    found = []
    for name in files:
        if name.startswith(folder) and name.endswith(".py"):
            tree = ast.parse((root / name).read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > limit:
                        found.append((name, node.name, lines))
    return found


def long_scripts(root: Path, files: Iterable[str], limit: int = MAX_LINES) -> List[Tuple[str, int]]:
    """The package's JavaScript files over ``limit`` lines, with their lines."""
    found = []
    for name in files:
        if name.startswith("mancala/") and name.endswith(".js"):
            lines = len((root / name).read_text(encoding="utf-8").splitlines())
            if lines > limit:
                found.append((name, lines))
    return found


def server_work_outside_the_server(text: str) -> List[str]:
    """The names of :data:`SERVER_ONLY` a module's source uses (as an attribute or a name)."""
    import ast
    used = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Attribute) and node.attr in SERVER_ONLY:
            used.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in SERVER_ONLY:
            used.add(node.id)
    return sorted(used)


def pages_imported(text: str) -> List[str]:
    """The pages (:data:`WEB_PAGES`) a module's source imports."""
    import ast
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module == "mancala.web":
            found |= {alias.name for alias in node.names if alias.name in WEB_PAGES}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mancala.web."):
            found |= {node.module.rsplit(".", 1)[1]} & set(WEB_PAGES)
        elif isinstance(node, ast.Import):
            found |= {alias.name.rsplit(".", 1)[1] for alias in node.names
                      if alias.name.startswith("mancala.web.")} & set(WEB_PAGES)
    return sorted(found)


def test_no_function_of_the_web_package_is_over_its_limit():
    over = long_functions(ROOT, tracked(ROOT) + [str(p.relative_to(ROOT)) for p in (ROOT / WEB).glob("*.py")])
    assert not over, ", ".join(f"{name} {function}(): {lines} lines" for name, function, lines in
                               sorted(set(over))) + f" (the limit is {MAX_WEB_FUNCTION_LINES})"


def test_no_script_of_the_pages_is_over_the_line_limit():
    files = set(tracked(ROOT)) | {str(p.relative_to(ROOT)) for p in (ROOT / WEB / "static").glob("*.js")}
    assert any(name.endswith("app.js") for name in files)
    over = long_scripts(ROOT, sorted(files))
    assert not over, ", ".join(f"{name}: {lines} lines" for name, lines in over) + \
        f" (the limit is {MAX_LINES}: move a cohesive part out)"


def test_every_page_asks_the_server_for_work_and_imports_no_other_page():
    """Engine work goes through Server.search (the room check, the waiting count, the tab's
    older job, the disconnect watch, the 409), files through Server.disk: no page counts
    ``waiting`` or takes a slot by hand (hint and explorer did), and no page imports another."""
    for path in sorted((ROOT / WEB).glob("*.py")):
        if path.name == "server.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not server_work_outside_the_server(text), \
            f"{path.name} does the server's work by hand: {server_work_outside_the_server(text)}"
        if path.stem in WEB_PAGES:
            assert not pages_imported(text), f"{path.name} imports the pages {pages_imported(text)}"


def test_the_web_checkers_refuse_what_they_must(tmp_path):
    (tmp_path / "mancala" / "web" / "static").mkdir(parents=True)
    body = "\n".join(["    x = 1"] * 59)
    (tmp_path / "mancala" / "web" / "a.py").write_text(
        f"def right():\n{body}\n\n\nasync def long():\n{body}\n    y = 2\n", encoding="utf-8")
    (tmp_path / "mancala" / "web" / "static" / "a.js").write_text("x;\n" * 451, encoding="utf-8")
    (tmp_path / "mancala" / "web" / "static" / "b.js").write_text("x;\n" * 450, encoding="utf-8")
    names = ["mancala/web/a.py", "mancala/web/static/a.js", "mancala/web/static/b.js"]
    assert long_functions(tmp_path, names) == [("mancala/web/a.py", "long", 61)]
    assert long_scripts(tmp_path, names) == [("mancala/web/static/a.js", 451)]
    counted = ("async def hint(request, server):\n    server.waiting += 1\n"
               "    return await anyio.to_thread.run_sync(work)\n")
    assert server_work_outside_the_server(counted) == ["run_sync", "to_thread", "waiting"]
    assert server_work_outside_the_server("await server.search(request, '', work)\n") == []
    assert pages_imported("from mancala.web.records import kept_answer\n"
                          "from mancala.web import api, learn\nimport mancala.web.play\n") == \
        ["learn", "play", "records"]
