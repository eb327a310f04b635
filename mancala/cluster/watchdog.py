"""The watchdog of a local Ray runtime: run as a script (standard library only),
``python -I -S watchdog.py MARK FOLDER``, by :mod:`mancala.cluster`.

It reads its stdin, a pipe whose other end only the command holds, until the
end of the file: the command closed it (its runtime shut down) or died (even
by SIGKILL, which no clean-up of its own can survive). Then it kills every
process of the runtime, until none is left, and removes FOLDER, the runtime's
files. Ray ends its own processes when the command stops them, but not all of
them, nor at once: its dashboard and runtime-environment agents ignore SIGTERM
and watch the raylet on a timer, and were seen outliving a killed command by
more than a minute.

A process is the runtime's when the runtime started it, and only then:

1. its environment carries ``MARK``: the command sets it for ``ray.init``
   alone, so the processes Ray starts (the GCS server, the raylet, ...) carry
   it, and their children inherit it;
2. or it descends from a process of the runtime: its parent was one when the
   watchdog looked. Ray's agents and workers rename themselves (setproctitle),
   which can overwrite the environment /proc shows, so the watchdog looks
   every :data:`LOOK_SECONDS` while the command runs and keeps what it found:
   when a parent dies its children pass to init, and the chain is lost.

Never a process because it has a file open in FOLDER or its working folder
there: a ``tail -f`` of a Ray log, or a shell that went to look, is the user's.
A process is known by its pid and its start time, so a pid used again by an
unrelated process is not killed. Before the kill, the runtime's processes are
stopped (SIGSTOP) and looked at again: a child forked meanwhile is seen while
its parent still holds it.

The watchdog runs in a session of its own (a terminal's Ctrl-C, or a signal
to the command's process group, does not reach it) and ignores SIGINT, SIGTERM
and SIGHUP: it ends by itself, right after its sweep.
"""
import os
import select
import shutil
import signal
import sys
import time

LOOK_SECONDS = 0.5      # how often it looks for the runtime's new processes while the command runs
SWEEP_SECONDS = 30.0    # the longest it keeps killing (processes may start while it does)


def stat(pid: int):
    """(parent pid, start time in clock ticks, state letter) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()    # the name may hold spaces and ')'
        return int(fields[1]), int(fields[19]), fields[0]
    except (OSError, IndexError, ValueError):
        return None


def carries(pid: int, mark: bytes) -> bool:
    """Whether the environment /proc shows for the process holds the mark."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return mark in f.read().split(b"\0")
    except OSError:             # gone, or not ours to read
        return False


class Runtime:
    """The runtime's processes as found so far: pid -> start time."""

    def __init__(self, mark: bytes, spared: set) -> None:
        self.mark = mark
        self.spared = spared
        self.known: dict = {}
        self.unmarked: set = set()      # (pid, start) looked at once: an environment never changes

    def look(self) -> list:
        """Find the runtime's new processes (see the module docstring); its live
        ones, zombies aside, as pids."""
        table = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                facts = stat(int(name))
                if facts is not None:
                    table[int(name)] = facts
        self.known = {pid: start for pid, start in self.known.items()
                      if pid in table and table[pid][1] == start}
        self.unmarked &= {(pid, facts[1]) for pid, facts in table.items()}
        found = True
        while found:                    # a child is listed before its parent as often as after
            found = False
            for pid, (parent, start, _) in table.items():
                if pid in self.known or pid in self.spared:
                    continue
                if parent in self.known or self._marked(pid, start):
                    self.known[pid] = start
                    found = True
        return [pid for pid in self.known if table[pid][2] != b"Z"]

    def _marked(self, pid: int, start: int) -> bool:
        if (pid, start) in self.unmarked:
            return False
        if carries(pid, self.mark):
            return True
        self.unmarked.add((pid, start))
        return False

    def sweep(self) -> None:
        """Kill the runtime's processes till a look finds none: stopped first, then
        looked at again (a child forked before the stop is seen), then killed."""
        deadline = time.monotonic() + SWEEP_SECONDS
        while time.monotonic() < deadline:
            if not self._signal(self.look(), signal.SIGSTOP):
                return
            self._signal(self.look(), signal.SIGKILL)
            time.sleep(0.02)

    @staticmethod
    def _signal(pids: list, signum: int) -> list:
        for pid in pids:
            try:
                os.kill(pid, signum)
            except OSError:
                pass
        return pids


def main(argv: list) -> int:
    mark, folder, command = argv[1].encode(), os.path.realpath(argv[2]), os.getppid()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    runtime = Runtime(mark, {os.getpid(), command})
    while True:                     # the command's end: the end of this pipe
        try:
            ready, _, _ = select.select([0], [], [], LOOK_SECONDS)
            if ready and not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
        runtime.look()
    runtime.sweep()
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
