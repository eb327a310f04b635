"""The package's imports run one way: no circle, so no import climbs back up (issue 35).

Every module of ``mancala`` is read with :mod:`ast`; each ``import`` of another
module of the package is an arrow, whether it stands at the top of the file or
inside a function (an import inside a function is still an arrow: it only runs
later). Imports under ``if TYPE_CHECKING:`` are not run and draw none. The
arrows must not close a circle. A module of the package imports the package's
modules at its top, where a reader sees them: an import inside a function is
kept only for an optional extra (web, rl, cluster) or a named exception, each
listed in :data:`EXTRAS` with its reason. The checker itself is tried on a
small package written here with a circle planted in it, so the test can fail.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: the only imports of the package's modules inside a function: (importer, imported) ->
#: why it waits for the call (the optional extra the imported module needs)
EXTRAS: Dict[Tuple[str, str], str] = {
    ("mancala.cli.serve", "mancala.web.app"):
        "the optional extra web's (Starlette): only python -m mancala serve loads it",
    ("mancala.env", "mancala.env.kalah"):
        "the optional extra rl's (Gymnasium): mancala.env.KalahEnv, loaded when asked for by name",
}

#: the optional extras' top-level packages: ``import mancala`` loads none of them
EXTRA_PACKAGES = ("starlette", "uvicorn", "websockets", "ray", "gymnasium", "pettingzoo",
                  "pyspiel", "numpy", "selenium")

Arrow = Tuple[str, str, int, bool]      # (importer, imported, line, inside a function)


def module_names(root: Path, package: str) -> Dict[str, Path]:
    """Each Python module under root/package by its dotted name."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def named(node: ast.AST, current: str, modules: Dict[str, Path], root: Path) -> List[str]:
    """The modules an import statement names, relative ones made whole: ``from a import b``
    names ``a.b`` when b is a module (a compiled one too), else ``a``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    module = node.module or ""
    if node.level:
        base = current.split(".")
        if modules[current].name != "__init__.py":
            base.pop()
        base = base[:len(base) - node.level + 1]
        module = ".".join(base + ([module] if module else []))
    folder = root.joinpath(*module.split("."))
    return [f"{module}.{alias.name}"
            if f"{module}.{alias.name}" in modules or any(folder.glob(f"{alias.name}.*")) else module
            for alias in node.names]


def _imported(node: ast.AST, current: str, modules: Dict[str, Path], root: Path,
              package: str) -> List[str]:
    """The package's Python modules an import statement names (a compiled module is none)."""
    return [name for name in named(node, current, modules, root)
            if name.split(".")[0] == package and name in modules and name != current]


def arrows(root: Path, package: str) -> List[Arrow]:
    """Every import of one module of the package by another (a compiled one is none)."""
    modules = module_names(root, package)
    found: List[Arrow] = []

    def visit(node: ast.AST, current: str, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for statement in child.orelse:
                    visit(ast.Module(body=[statement], type_ignores=[]), current, inside)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend((current, name, child.lineno, inside)
                             for name in _imported(child, current, modules, root, package))
            visit(child, current, inside or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    for name, path in modules.items():
        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), name, False)
    return found


def inner_imports(root: Path, package: str) -> List[Tuple[str, str, int]]:
    """Every import of the package inside a function of one of its modules, a compiled
    module's too: (importer, the module it names, line)."""
    modules = module_names(root, package)
    found = []
    for current, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                found.extend((current, name, child.lineno) for child in ast.walk(node)
                             for name in named(child, current, modules, root)
                             if name.split(".")[0] == package)
    return sorted(set(found))


def circles(found: List[Arrow]) -> List[List[str]]:
    """The circles (strongly connected sets of two or more modules) the arrows close."""
    graph: Dict[str, Set[str]] = {}
    for importer, imported, _, _ in found:
        graph.setdefault(importer, set()).add(imported)
        graph.setdefault(imported, set())
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    result = []

    def strong(v: str) -> None:         # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            circle = []
            while True:
                w = stack.pop()
                circle.append(w)
                if w == v:
                    break
            if len(circle) > 1:
                result.append(sorted(circle))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return result


def describe(circle: List[str], found: List[Arrow], root: Path) -> str:
    inside = set(circle)
    lines = [f"a circle of {len(circle)}: {', '.join(circle)}"]
    for importer, imported, line, in_function in sorted(set(found)):
        if importer in inside and imported in inside:
            where = "inside a function" if in_function else "at the top"
            lines.append(f"  {importer} (line {line}, {where}) imports {imported}")
    return "\n".join(lines)


def test_no_import_closes_a_circle():
    found = [arrow for arrow in arrows(ROOT, "mancala") if (arrow[0], arrow[1]) not in EXTRAS]
    assert len(found) > 150     # the reader sees the package's imports
    loops = circles(found)
    assert not loops, "\n".join(describe(circle, found, ROOT) for circle in loops)


def test_the_package_imports_its_modules_at_the_top_but_for_an_extra_named_with_its_reason():
    listed = {importer for importer, _ in EXTRAS}
    loose = []
    for importer, name, line in inner_imports(ROOT, "mancala"):
        if (importer, name) not in EXTRAS:
            loose.append(f"{importer} (line {line}) imports {name} inside a function")
    assert not loose, ("import it at the top, or name it in EXTRAS with the extra it waits for:\n"
                       + "\n".join(loose))
    assert listed <= {importer for importer, _, _ in inner_imports(ROOT, "mancala")}


def test_every_extra_let_through_is_an_import_inside_a_function_that_is_there():
    inside = {(importer, imported) for importer, imported, _, in_function in arrows(ROOT, "mancala")
              if in_function}
    for (importer, imported), extra in EXTRAS.items():
        assert (importer, imported) in inside, f"{importer} no longer imports {imported} in a function"
        assert extra, f"say which extra {importer}'s import of {imported} needs"


def test_import_mancala_loads_no_optional_extra():
    code = ("import sys, mancala\n"
            f"print(sorted(name for name in {EXTRA_PACKAGES!r} if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# -- the checker on a package written here -----------------------------------------------

def write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def toy(tmp_path):
    write(tmp_path, {
        "toy/__init__.py": "from toy.low import ground\n",
        "toy/low.py": "import json\n\ndef ground():\n    return 1\n",
        "toy/middle.py": ("from toy import low\nfrom typing import TYPE_CHECKING\n"
                          "if TYPE_CHECKING:\n    from toy.high import top\n"),
        "toy/high.py": "from .middle import low\n\ndef top():\n    from toy.low import ground\n    return ground()\n",
        "toy/sub/__init__.py": "",
        "toy/sub/leaf.py": "from ..low import ground\nfrom toy.sub import other\n",
        "toy/sub/other.py": "",
    })
    return tmp_path


def test_the_reader_sees_top_function_and_relative_imports_but_not_type_checking_ones(toy):
    found = {(a, b, inside) for a, b, _, inside in arrows(toy, "toy")}
    assert found == {("toy", "toy.low", False), ("toy.middle", "toy.low", False),
                     ("toy.high", "toy.middle", False), ("toy.high", "toy.low", True),
                     ("toy.sub.leaf", "toy.low", False), ("toy.sub.leaf", "toy.sub.other", False)}
    assert circles(list(arrows(toy, "toy"))) == []


def test_an_import_of_the_package_inside_a_function_is_seen_relative_and_compiled_too(toy):
    assert inner_imports(toy, "toy") == [("toy.high", "toy.low", 4)]
    write(toy, {"toy/sub/leaf.py": ("import json\n\ndef leaf():\n    import json\n"
                                    "    from .. import low\n    from toy._core import Searcher\n")})
    assert inner_imports(toy, "toy") == [("toy.high", "toy.low", 4), ("toy.sub.leaf", "toy._core", 6),
                                         ("toy.sub.leaf", "toy.low", 5)]


def test_an_import_inside_a_function_that_climbs_back_is_a_circle(toy):
    # low (the ground) asks high, two floors up, for something inside a function
    write(toy, {"toy/low.py": "def ground():\n    from toy.high import top\n    return 1\n"})
    found = arrows(toy, "toy")
    assert circles(found) == [["toy.high", "toy.low", "toy.middle"]]
    text = describe(["toy.high", "toy.low", "toy.middle"], found, toy)
    assert "toy.low (line 2, inside a function) imports toy.high" in text
