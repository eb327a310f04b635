"""What the operating system tells us, asked in one place: the memory it can
still give, whether a process (the writer of a temporary file) is alive, and
the bytes of a small untrusted file (a save, the opening book); and a file
written whole or not at all (an export)."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

MEMINFO = "/proc/meminfo"


def available_bytes() -> Optional[int]:
    """Bytes the machine can give now, or None if it does not say.

    MemAvailable from /proc/meminfo where it is readable (what can be had
    without swapping), else the physical memory (``os.sysconf``).
    """
    try:
        with open(MEMINFO, encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def process_alive(pid: int) -> bool:
    """Whether process pid may still be running: only a process known to be
    gone is False (another user's, or a number we cannot ask about, is True)."""
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


class NotARegularFile(OSError):
    """A FIFO, device or folder where a file was to be read."""


class FileTooLarge(OSError):
    """A file over the reader's limit; ``size`` is its length when known."""

    def __init__(self, size: Optional[int] = None) -> None:
        super().__init__("file too large")
        self.size = size


def read_regular_file(path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, for untrusted input.

    Opened without blocking and checked before reading, so a FIFO or device
    named like the file is refused, never waited on. Raises NotARegularFile,
    FileTooLarge, or the OSError of opening or reading (FileNotFoundError...).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile("not a regular file")
        if info.st_size > limit:
            raise FileTooLarge(info.st_size)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:            # it grew since fstat
        raise FileTooLarge()
    return raw


def write_atomically(path: Path, write: Callable[[Any], Any], *, binary: bool = False,
                     hidden: bool = True) -> Any:
    """``write(handle)`` into a temporary file beside ``path`` (text, or bytes
    with ``binary``; named ``.<name>.<pid>.<random>.tmp``, without the dot when
    not ``hidden``, so a scan can tell a killed writer's), flushed to the disk
    and renamed over ``path``: a crash leaves the old file or the new one.
    Returns what ``write`` returns; raises what it or the system raises (the
    temporary file removed). The save files, the endgame levels and the
    puzzles' export are written so."""
    prefix = f"{'.' if hidden else ''}{path.name}.{os.getpid()}."
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as handle:
            answer = write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return answer
