"""The vectorized environment's NumPy stays optional: ``import mancala`` and
``import mancala.vector`` never load it, and a VectorEnv without it says how to
install it in one line. Runs whether NumPy is installed or not (a subprocess
hides it)."""
import subprocess
import sys

HIDE_NUMPY = "import sys; sys.modules['numpy'] = None\n"   # `import numpy` now raises ImportError


def run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_import_mancala_and_mancala_vector_do_not_load_numpy():
    done = run("import sys, mancala, mancala.vector, mancala._vector\n"
               "print('numpy' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_vector_env_without_numpy_names_the_extra():
    done = run(HIDE_NUMPY + "from mancala.vector import VectorEnv\n"
               "try:\n    VectorEnv(4)\n"
               "except ImportError as e:\n    print(e)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "mancala.vector needs NumPy: pip install 'kalah[vector]'\n"
