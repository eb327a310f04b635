"""``python -m mancala``: see mancala.cli."""
import sys

if __name__ == "__main__":
    try:
        from mancala.cli import main   # Ctrl-C may come while the commands are imported
        status = main()
    except KeyboardInterrupt:
        print("mancala: interrupted", file=sys.stderr)
        status = 130
    sys.exit(status)
