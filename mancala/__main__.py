"""``python -m mancala``: see mancala.cli."""
import signal
import sys

if __name__ == "__main__":
    # a SIGTERM while the commands are imported (a second or so) waits for them,
    # then ends the command as Ctrl-C does; one after the command has ended, nothing
    held = []
    signal.signal(signal.SIGTERM, lambda signum, frame: held.append(signum))
    try:
        from mancala.cli import main   # Ctrl-C may come while the commands are imported
        from mancala.cli.signals import Terminated, on_sigterm
        signal.signal(signal.SIGTERM, on_sigterm)
        if held:
            raise Terminated
        status = main()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)
    except KeyboardInterrupt as exc:
        terminated = type(exc).__name__ == "Terminated"
        print(f"mancala: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        status = 143 if terminated else 130
    sys.exit(status)
