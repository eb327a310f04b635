"""The examples people read run as tests: every ``>>>`` in the package's
docstrings (doctest); every Python code block of the README and of the pages
in docs/ (a block of ``>>>`` lines as a doctest, any other as a script); every
command they show (``python -m mancala ...`` parsed by the real parser, the
cheap ones run; the scripts and extras they name exist); and the site, built
with warnings as errors when MkDocs is installed."""
import ast
import contextlib
import doctest
import importlib
import importlib.util
import io
import json
import pathlib
import pkgutil
import re
import shlex
import subprocess
import sys

import pytest

import mancala
from mancala.cli import COMMANDS, build_parser, main

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README] + sorted(DOCS.glob("*.md"))
# modules that need an optional extra: the library they import first
NEEDS_EXTRA = {"mancala.env.kalah": "gymnasium", "mancala.env.pettingzoo": "pettingzoo",
               "mancala.env.openspiel": "pyspiel", "mancala.env.frames": "numpy"}
# what an example needs, by what it imports: a third-party library and its extra,
# or a part of mancala and the library that part needs
EXTRA_OF = {"gymnasium": "rl", "pettingzoo": "rl", "numpy": "vector", "pyspiel": "openspiel",
            "starlette": "web", "uvicorn": "web", "ray": "cluster", "mkdocs": "docs",
            "pyarrow": "export"}
# libraries an example shows that no extra installs (the reader's own: pandas, Hugging Face datasets)
NO_EXTRA = {"pandas", "datasets"}
LIBRARY_OF = {"mancala.vector": "numpy", "mancala.env": "gymnasium",
              "mancala.env.pettingzoo": "pettingzoo", "mancala.env.openspiel": "pyspiel"}


def extra_missing(name):
    """True when module ``name`` needs an extra that is not installed."""
    if name not in NEEDS_EXTRA:
        return False
    try:
        importlib.import_module(NEEDS_EXTRA[name])
    except ImportError:
        return True
    return False


def package_modules():
    """Every module of the installed package, compiled ones included (not __main__,
    which would run the command line)."""
    names = ["mancala"]
    for info in pkgutil.walk_packages(mancala.__path__, "mancala."):
        if not info.name.endswith(".__main__"):
            names.append(info.name)
    return sorted(names)


@pytest.fixture
def quiet_home(tmp_path, monkeypatch):
    """Examples write nothing outside a temporary directory, and find no cached
    endgame database (so what they say does not depend on one)."""
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MANCALA_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


# -- the docstrings ------------------------------------------------------------------

@pytest.mark.parametrize("name", package_modules())
def test_docstring_examples(name, quiet_home):
    if extra_missing(name):
        pytest.skip(f"{name} needs {NEEDS_EXTRA[name]} (an optional extra)")
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"


def test_the_package_has_docstring_examples_and_they_are_found():
    """A finder that saw nothing would pass every module above."""
    found = {}
    for name in package_modules():
        if extra_missing(name):
            continue
        module = importlib.import_module(name)
        count = sum(len(t.examples) for t in doctest.DocTestFinder().find(module, name))
        if count:
            found[name] = count
    assert found.get("mancala", 0) >= 3 and found.get("mancala.game", 0) >= 3, found


# -- the code blocks of the README and docs/ -----------------------------------------

def code_blocks(path, languages):
    """(line number, language, text) of each fenced block of a page in ``languages``."""
    text = path.read_text(encoding="utf-8")
    for found in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
        if found[1] in languages:
            yield text.count("\n", 0, found.start()) + 1, found[1], found[2]


def python_blocks():
    return [pytest.param(path, line, text, id=f"{path.relative_to(ROOT)}:{line}")
            for path in PAGES for line, _, text in code_blocks(path, {"python"})]


PYTHON_BLOCKS = python_blocks()


def is_doctest(text):
    return text.lstrip().startswith(">>>")


def source_of(text):
    if is_doctest(text):
        return "\n".join(example.source for example in doctest.DocTestParser().get_examples(text))
    return text


def libraries_needed(source):
    """The optional libraries a block needs, from what it imports."""
    needed = set()
    for node in ast.walk(ast.parse(source)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        for name in names:
            if name.split(".")[0] in EXTRA_OF or name.split(".")[0] in NO_EXTRA:
                needed.add(name.split(".")[0])
            needed.update(library for part, library in LIBRARY_OF.items()
                          if name == part or name.startswith(part + "."))
    return needed


def skip_without_extras(source):
    for library in sorted(libraries_needed(source)):
        if importlib.util.find_spec(library) is None:
            if library in NO_EXTRA:
                pytest.skip(f"needs {library}, which no extra of kalah installs")
            extra = EXTRA_OF[library]
            pytest.skip(f"needs {library}: the {extra} extra (pip install -e '.[{extra}]')")


def test_the_pages_have_python_examples_and_they_are_found():
    """A finder that saw nothing would pass every example below."""
    pages = {param.values[0].name for param in PYTHON_BLOCKS}
    assert {"README.md", "library.md", "perfect-play.md", "environments.md", "vector.md"} <= pages
    assert any(is_doctest(param.values[2]) for param in PYTHON_BLOCKS)


@pytest.mark.parametrize("path, line, text", PYTHON_BLOCKS)
def test_python_example_runs(path, line, text, quiet_home):
    skip_without_extras(source_of(text))
    name = f"{path.relative_to(ROOT)}:{line}"
    if is_doctest(text):
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(doctest.DocTestParser().get_doctest(text, {}, name, str(path), line))
        result = runner.summarize(verbose=False)
        assert result.attempted and result.failed == 0, f"{name}: {result.failed} failed"
    else:
        exec(compile(text, name, "exec"), {"__name__": "__doc_example__"})


def library_tour():
    """The first python block under docs/library.md's '## A tour' heading."""
    text = (DOCS / "library.md").read_text(encoding="utf-8")
    section = text.split("\n## A tour", 1)
    assert len(section) == 2, "docs/library.md has no '## A tour' section"
    block = re.search(r"```python\n(.*?)```", section[1], re.S)
    assert block, "docs/library.md's tour has no python code block"
    return block.group(1)


def run_collecting_values(source):
    """Run source statement by statement; {source line: value} of every bare
    expression, as the comments beside them describe."""
    namespace, values = {}, {}
    tree = ast.parse(source, "library.md")
    lines = source.splitlines()
    for node in tree.body:
        line = lines[node.lineno - 1].split("#")[0].strip()
        if isinstance(node, ast.Expr):
            code = compile(ast.Expression(node.value), "library.md", "eval")
            values[line] = eval(code, namespace)
        else:
            exec(compile(ast.Module([node], []), "library.md", "exec"), namespace)
    return namespace, values


def test_the_library_tour_runs_and_says_true(quiet_home):
    namespace, values = run_collecting_values(library_tour())
    # the example's last board, drawn from its 14 slots, North to move:
    #        12 11 10  9  8  7
    #   [17]  0  0  4  0  0  1  [20]
    #         0  3  0  0  1  2
    # North's non-empty pits are 0 (slot 7) and 3 (slot 10)
    assert values["board.legal_moves"] == [0, 3]
    # pit 3 sows 4: slots 11, 12, North's store, then South's pit 0
    record = namespace["record"]
    assert (record.player, record.pit, record.extra_turn, record.captured, record.game_over) == \
        (1, 3, False, 0, False)
    assert values["board.is_game_over(), board.outcome()"] == (False, None)
    # published: Kalah(6,3) is a first-player win by 2 (docs/rules.md, Known values)
    assert values["engine.solve(mancala.Board(seeds=3)).score"] == 2
    assert set(values["engine.analyse(board, depth=10)"]) == {0, 3}
    optimal = values["engine.optimal_moves(mancala.Board(seeds=3))"]
    assert optimal and set(optimal) <= {0, 1, 2, 3, 4, 5}


# -- the commands they show --------------------------------------------------------------

SEPARATORS = {"&&", "||", "|", ";", "&"}
REDIRECTS = {"<", ">", ">>", "<<", "2>"}


def command_lines():
    """(where, line) of every command shown: the lines of sh blocks (continuations
    joined), the '$ ' lines of plain blocks, and inline code spans that start
    with a command."""
    found = []
    for path in PAGES:
        where = str(path.relative_to(ROOT))
        for line, language, text in code_blocks(path, {"sh", ""}):
            text = text.replace("\\\n", " ")
            for offset, row in enumerate(text.splitlines()):
                if language == "":
                    if not row.startswith("$ "):
                        continue
                    row = row[2:]
                found.append((f"{where}:{line + 1 + offset}", row))
        prose = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
        for span in re.findall(r"`((?:python -m mancala|python bench/|python examples/|pip install)"
                               r"[^`]*)`", prose):
            found.append((f"{where} (inline)", span))
    return found


def commands(row):
    """The simple commands of a shell line, as word lists (redirections dropped)."""
    lexer = shlex.shlex(row, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:          # not a shell line (a heredoc's data): nothing to check
        return []
    found, current, skip = [], [], False
    for word in words:
        if skip:
            skip = False
        elif word in SEPARATORS:
            found.append(current)
            current = []
        elif word in REDIRECTS:
            skip = True
        else:
            current.append(word)
    found.append(current)
    return [words for words in found if words]


def has_placeholder(words):
    """Words a reader replaces (A B, FILE, OLD/bin/python, $a, [--opt], ...)."""
    return any("$" in w or "..." in w or w.startswith("[") or re.search(r"(^|[/:])[A-Z][A-Z_]*\b", w)
               for w in words)


def mancala_argv(words):
    for prefix in (["python", "-m", "mancala"], ["python3", "-m", "mancala"], ["mancala"]):
        if words[:len(prefix)] == prefix:
            return words[len(prefix):]
    return None


def shown_commands():
    found = []
    for where, row in command_lines():
        for words in commands(row):
            found.append(pytest.param(words, id=f"{where}: {shlex.join(words)}"[:150]))
    return found


SHOWN = shown_commands()
EXTRAS = set(re.findall(r"^([\w-]+) = \[", (ROOT / "pyproject.toml").read_text(encoding="utf-8")
                        .split("[project.optional-dependencies]")[1].split("\n[")[0], re.M))


def test_the_pages_show_commands_and_they_are_found():
    argvs = [mancala_argv(param.values[0]) for param in SHOWN]
    assert sum(argv is not None for argv in argvs) >= 60
    assert {argv[0] for argv in argvs if argv} >= {"play", "analyze", "solve", "endgame", "bench",
                                                   "arena", "engine", "serve"}


@pytest.mark.parametrize("words", SHOWN)
def test_shown_command_is_real(words):
    """`python -m mancala` commands parse; scripts exist; extras are the package's.
    A command with words to fill in (placeholders) names a real command or script."""
    argv = mancala_argv(words)
    if has_placeholder(words):
        if argv and re.fullmatch(r"[a-z]+", argv[0]):
            assert argv[0] in COMMANDS, f"{shlex.join(words)}: no command {argv[0]!r}"
        if words[0] in ("python", "python3") and len(words) > 1 and words[1].endswith(".py"):
            assert (ROOT / words[1]).is_file(), f"{words[1]} is not in the repository"
        return
    if argv is not None:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                build_parser().parse_args(argv)
        except SystemExit as exc:
            assert exc.code == 0, f"{shlex.join(words)}: {err.getvalue().strip()}"
    elif words[0] in ("python", "python3") and len(words) > 1 and words[1].endswith(".py"):
        assert (ROOT / words[1]).is_file(), f"{words[1]} is not in the repository"
    elif words[:2] == ["pip", "install"]:
        for word in words[2:]:
            extras = re.fullmatch(r"(?:\.|kalah)\[([\w,-]+)\]", word)
            if extras:
                unknown = set(extras[1].split(",")) - EXTRAS
                assert not unknown, f"{shlex.join(words)}: no extra {sorted(unknown)} in pyproject.toml"


def documented(command):
    """The word list of a command the pages show, or a failure naming it."""
    words = shlex.split(command)
    assert any(param.values[0] == words for param in SHOWN), f"the pages no longer show {command!r}"
    return mancala_argv(words)


# cheap commands the pages show, run as written (in process)
CHEAP = [
    "python -m mancala --version",
    "python -m mancala solve --seeds 3",
    'python -m mancala analyze --moves "3 6" --depth 14',
    "python -m mancala endgame list",
    "python -m mancala bench",
]


@pytest.mark.parametrize("command", CHEAP)
def test_cheap_shown_command_runs(command, quiet_home, capsys):
    argv = documented(command)
    try:
        code = main(argv)
    except SystemExit as exc:           # --version
        code = exc.code
    assert code == 0, capsys.readouterr().err


def test_the_shown_endgame_solve_says_what_the_pages_say(quiet_home, capsys):
    # South: pit index 5 ends in the store, then pit 4 captures 2 + 1: +4,
    # and pit 4 first would capture nothing (worked by hand, docs/perfect-play.md)
    argv = documented("python -m mancala solve --board 0,0,0,0,1,1,0,2,0,0,0,0,0,0 --all --json")
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["value"], report["optimal_move_indices"]) == (4, [5])


# -- the README as a front door, and the site -------------------------------------------

PLAY = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && python -m mancala play"
TESTS = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test,web]' && python -m pytest"
BUILD_SITE = ". .venv/bin/activate && pip install -e '.[docs]' && mkdocs build --strict"


def test_the_readme_is_a_front_door_with_the_set_up_commands():
    readme = README.read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    for page in (readme, (DOCS / "index.md").read_text(encoding="utf-8")):
        for command in (PLAY, TESTS, BUILD_SITE):
            assert f"```sh\n{command}\n```" in page, command
    ci = ROOT / ".ci" / "run"           # (not in the sdist)
    if ci.is_file():
        assert TESTS in ci.read_text(encoding="utf-8")      # CI runs it as written
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).is_file(), link


def test_the_readme_names_every_extra():
    set_up = README.read_text(encoding="utf-8").split("## Set up")[1].split("\n## ")[0]
    named = set(re.findall(r"`([\w-]+)`", set_up))
    assert EXTRAS <= named, f"the README's set-up does not name the extras {sorted(EXTRAS - named)}"
    assert {"test", "web"} <= set(re.search(r"\.\[([\w,-]+)\]", TESTS)[1].split(","))   # the web app's tests run


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    for library in ("mkdocs", "mkdocstrings", "mkdocstrings_handlers"):
        if importlib.util.find_spec(library) is None:
            pytest.skip(f"needs {library}: the docs extra (pip install -e '.[docs]')")
    site = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    reference = (site / "reference.html").read_text(encoding="utf-8")
    for name in ("mancala.Board.push", "mancala.Board.legal_moves", "mancala.Engine.search",
                 "mancala.SearchResult", "mancala.errors.MancalaError", "mancala.endgame.find"):
        assert f'id="{name}"' in reference, f"the reference does not document {name}"
    for page in DOCS.glob("*.md"):             # name.html: the site works from a file too
        assert (site / f"{page.stem}.html").is_file(), f"{page.name} is not in the site"
    links = re.findall(r'href="([^"#:]+)"', (site / "index.html").read_text(encoding="utf-8"))
    for link in links:                          # every page link names a file that is there
        if not link.endswith("/"):
            assert (site / link).exists(), f"index.html links to {link}, not in the site"
    assert "how-to-play.html" in links
    for html in site.rglob("*.html"):           # the site loads nothing from another host
        loads = re.findall(r'<(?:script|img)[^>]*src="(https?:[^"]*)"|<link[^>]*href="(https?:[^"]*)"',
                           html.read_text(encoding="utf-8"))
        assert not loads, f"{html.relative_to(site)} loads {loads[0]}"
