"""The watchdog of a local Ray runtime: run as a script (standard library only),
``python -I -S watchdog.py MARK FOLDER``, by :mod:`mancala.cluster`.

It reads its stdin, a pipe whose other end only the command holds, until the
end of the file: the command closed it (its runtime shut down) or died (even
by SIGKILL, which no clean-up of its own can survive). Then it kills every
process of the runtime, until none is left, and removes FOLDER, the runtime's
files. A process is the runtime's when its environment carries ``MARK`` (the
runtime's processes inherit it from the command's, and their workers from
them) or it has a file open in FOLDER (Ray sends every process's output to
its logs there): Ray's agents rename themselves (setproctitle), which can
overwrite the environment that /proc shows. Ray ends its own processes when
the command stops them, but not all of them, nor at once: its dashboard and
runtime-environment agents ignore SIGTERM and watch the raylet on a timer,
and were seen outliving a killed command by more than a minute.

The watchdog runs in a session of its own (a terminal's Ctrl-C, or a signal
to the command's process group, does not reach it) and ignores SIGINT, SIGTERM
and SIGHUP: it ends by itself, right after its sweep.
"""
import os
import shutil
import signal
import sys
import time

SWEEP_SECONDS = 30.0      # the longest it keeps killing (processes may start while it does)


def of_runtime(pid: str, mark: bytes, folder: str) -> bool:
    """Whether process pid carries the mark or has a file (or its folder) in folder."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            if mark in f.read().split(b"\0"):
                return True
        inside = folder + os.sep
        if (os.readlink(f"/proc/{pid}/cwd") + os.sep).startswith(inside):
            return True
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(inside):
                    return True
            except OSError:
                pass
    except OSError:             # gone, a zombie, or not ours
        pass
    return False


def marked(mark: bytes, folder: str, spared: set) -> list:
    """The live processes of the runtime (see :func:`of_runtime`), but those spared."""
    return [int(name) for name in os.listdir("/proc")
            if name.isdigit() and int(name) not in spared and of_runtime(name, mark, folder)]


def sweep(mark: bytes, folder: str, command: int) -> None:
    """Kill the runtime's processes, never this one nor the command (alive, it
    has Ray's log of its own open in the folder), till a look finds none."""
    spared = {os.getpid(), command}
    deadline = time.monotonic() + SWEEP_SECONDS
    while time.monotonic() < deadline:
        pids = marked(mark, folder, spared)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)


def main(argv: list) -> int:
    mark, folder, command = argv[1].encode(), os.path.realpath(argv[2]), os.getppid()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    while True:                     # the command's end: the end of this pipe
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    sweep(mark, folder, command)
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
