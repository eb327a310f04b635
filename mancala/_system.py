"""What the operating system tells us, asked in one place: the memory it can
still give, and whether a process (the writer of a temporary file) is alive."""
from __future__ import annotations

import os
from typing import Optional

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
