"""The examples people read run as tests: every ``>>>`` in the package's
docstrings (doctest) and the README's library example."""
import ast
import doctest
import importlib
import pathlib
import pkgutil
import re

import pytest

import mancala

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"
# modules that need an optional extra: the library they import first
NEEDS_EXTRA = {"mancala.env.kalah": "gymnasium", "mancala.env.pettingzoo": "pettingzoo",
               "mancala.env.openspiel": "pyspiel"}


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
    """Examples that play a game write nothing outside a temporary directory."""
    monkeypatch.setenv("MANCALA_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


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


def readme_library_example():
    """The first python code block under the README's '## The library' heading."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## The library", 1)
    assert len(section) == 2, "README.md has no '## The library' section"
    block = re.search(r"```python\n(.*?)```", section[1], re.S)
    assert block, "README.md's library section has no python code block"
    return block.group(1)


def run_collecting_values(source):
    """Run source statement by statement; {source line: value} of every bare
    expression, as the comments beside them describe."""
    namespace, values = {}, {}
    tree = ast.parse(source, str(README))
    lines = source.splitlines()
    for node in tree.body:
        line = lines[node.lineno - 1].split("#")[0].strip()
        if isinstance(node, ast.Expr):
            code = compile(ast.Expression(node.value), str(README), "eval")
            values[line] = eval(code, namespace)
        else:
            exec(compile(ast.Module([node], []), str(README), "exec"), namespace)
    return namespace, values


def test_readme_library_example_runs_and_says_true(quiet_home):
    namespace, values = run_collecting_values(readme_library_example())
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
