"""``python -m mancala``: see mancala.cli."""
import sys

from mancala.cli import main

if __name__ == "__main__":
    sys.exit(main())
