"""The package as users meet it: the version it reports, what its sdist and wheel hold.

The expected version is read from the text of ``mancala/_version.py`` (the one
place it is set; ``pyproject.toml`` names it), not from the code that prints it.
"""
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import mancala
from mancala.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def project():
    """The ``[project]`` table of pyproject.toml."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)
    table = dict(project["project"])
    assert "version" not in table and "version" in table["dynamic"]      # one literal, not two
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mancala._version.__version__"}
    text = (ROOT / "mancala" / "_version.py").read_text(encoding="utf-8")
    (table["version"],) = re.findall(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    return table


def test_distribution_is_not_called_mancala(project):
    # "mancala" on PyPI is an unrelated project; the import name stays mancala
    assert project["name"] == "kalah"
    assert project["scripts"]["mancala"] == "mancala.cli:main"


def test_version_option_prints_the_pyproject_version(project, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"mancala {project['version']}\n"


def test_version_option_in_a_real_process(project):
    done = subprocess.run([sys.executable, "-m", "mancala", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"mancala {project['version']}\n", "")


def test_installed_metadata_matches_pyproject(project):
    # fails when pyproject.toml's version moved and the package was not reinstalled
    assert importlib.metadata.version("kalah") == project["version"]


def test_every_face_says_the_one_version(project):
    assert mancala.__version__ == project["version"]
    done = subprocess.run([sys.executable, "-m", "mancala", "engine"], input="ugi\nquit\n",
                          capture_output=True, text=True, timeout=60)
    assert f"id name mancala {project['version']}\n" in done.stdout, done.stdout + done.stderr


def test_the_build_reads_the_version_without_importing_the_package(project):
    # what setuptools does for pyproject.toml's dynamic version, in a process where
    # importing mancala (and so its compiled core) fails
    code = ("import sys\nsys.modules['mancala'] = None\n"
            "from setuptools.config.expand import read_attr\n"
            f"print(read_attr('mancala._version.__version__', root_dir={str(ROOT)!r}))\n"
            "assert sys.modules['mancala'] is None and 'mancala._version' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, project["version"] + "\n"), done.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``python -m build``: the sdist, then the wheel built from that sdist."""
    pytest.importorskip("build", reason="needs the build front end: pip install build")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=900, start_new_session=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel


def _sources_to_build():
    """What building the extension reads, from the source tree itself."""
    files = {"setup.py", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"}
    for pattern in ("csrc/**/*", "mancala/**/*.pyx", "mancala/**/*.pxd", "mancala/**/*.pxi",
                    "mancala/data/*", "tests/data/*"):
        files |= {p.relative_to(ROOT).as_posix() for p in ROOT.glob(pattern) if p.is_file()}
    return files


@pytest.mark.slow
def test_sdist_holds_the_build_inputs_and_no_generated_c(built):
    sdist, _ = built
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert _sources_to_build() <= names, sorted(_sources_to_build() - names)
    assert not [n for n in names if n.endswith((".c", ".so", ".pyc"))]
    # Cython's annotated pages are not shipped; the web app's pages are
    assert not [n for n in names if n.endswith(".html") and not n.startswith("mancala/web/static/")]


@pytest.mark.slow
def test_wheel_holds_the_extension_and_data_but_no_build_inputs(built):
    _, wheel = built
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
    assert [n for n in names if n.startswith("mancala/_core.") and n.endswith((".so", ".pyd"))]
    assert {"mancala/data/openings.json", "mancala/data/bench_positions.txt"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if n.endswith((".c", ".pyx", ".pxd", ".pxi", ".h"))]


@pytest.mark.slow
def test_a_second_editable_install_compiles_nothing(tmp_path):
    # the README's set-up twice, as pip runs it (a fresh build environment each time), on a
    # copy of what the build reads; the second must leave the C and the modules as they were
    tree = tmp_path / "kalah"
    tree.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        shutil.copy2(ROOT / name, tree)
    shutil.copytree(ROOT / "csrc", tree / "csrc")
    shutil.copytree(ROOT / "mancala", tree / "mancala",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.html", "__pycache__"))
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=300)
    python = tmp_path / "venv" / "bin" / "python"

    def install():
        # a session of its own: no terminal, so the build's progress lines come in the output
        done = subprocess.run([str(python), "-m", "pip", "install", "-v", "-e", str(tree)],
                              capture_output=True, text=True, timeout=900, start_new_session=True)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        built = sorted(tree.glob("mancala/_*.c")) + sorted(tree.glob("mancala/_*.so"))
        return done.stdout + done.stderr, {path.name: path.stat().st_mtime_ns for path in built}

    _, first = install()
    assert len(first) == 4, first                   # _core and _vector, each a .c and a module
    out, second = install()
    assert second == first, out[-3000:]
    assert "mancala._core is up to date" in out
    imported = subprocess.run([str(python), "-c", "import mancala._core, mancala._vector"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr


TINY_SUITE = '''
import pytest

pytest.importorskip("no_such_module_of_kalah", reason="the cluster tests need the extra: pip install -e '.[cluster]'")
'''

TINY_TESTS = '''
import pytest


def test_web_one():
    pytest.skip("the web extra is not installed: pip install -e '.[web]'")


def test_web_two():
    pytest.skip("needs starlette: the web extra (pip install -e '.[web]')")


def test_rl():
    pytest.skip("needs the rl extra: pip install -e '.[rl]'")


def test_not_an_extra():
    pytest.skip("no headless Chromium on this machine")


def test_an_extra_the_package_lacks():
    pytest.skip("pip install -e '.[nosuch]'")


def test_passes():
    pass
'''


def test_a_run_ends_naming_each_extra_missing_and_its_skips(tmp_path):
    # a real pytest run with this suite's conftest as its plugin, on tests whose skip reasons are known
    (tmp_path / "test_tiny.py").write_text(TINY_TESTS, encoding="utf-8")
    (tmp_path / "test_tiny_cluster.py").write_text(TINY_SUITE, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
                           "test_tiny.py", "test_tiny_cluster.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    (start,) = [i for i, line in enumerate(lines) if "skipped for want of an extra" in line]
    assert lines[start + 1:start + 4] == [
        "web: 2 skipped, not installed (pip install -e '.[web]')",
        "cluster: 1 skipped, not installed (pip install -e '.[cluster]')",      # the whole module
        "rl: 1 skipped, not installed (pip install -e '.[rl]')",
    ], done.stdout
    assert "nosuch" not in done.stdout and "1 passed, 6 skipped" in lines[-1], done.stdout
