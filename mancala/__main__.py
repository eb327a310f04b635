"""``python -m mancala``: see mancala.cli."""
import sys

if __name__ == "__main__":
    from mancala import _command_start as start     # held stops while the package was imported
    start.hold()
    try:
        from mancala.cli import main   # Ctrl-C may come while the commands are imported
        from mancala.cli.signals import Terminated, on_sigterm
        start.release(on_sigterm, Terminated)
        status = main()
    except KeyboardInterrupt as exc:
        terminated = type(exc).__name__ == "Terminated"
        print(f"mancala: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        status = 143 if terminated else 130
    except SystemExit as exc:                        # a user mistake's line was printed, --help, ...
        status = exc.code
    start.leave(status)
