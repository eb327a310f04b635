"""What the operating system tells us, asked in one place: the memory it can
still give, whether a process (the writer of a temporary file) is alive, the
bytes of a small untrusted file (a save, the opening book); a file written
whole or not at all (an export); and an OSError said in one line.

Every file somebody else may have put where this package reads or writes is
opened here (:func:`open_regular`, :func:`read_regular_file`,
:func:`read_head`, :func:`write_atomically`) or checked here first
(:func:`refuse_special`): a FIFO, a device or a folder in its place is
refused with NotARegularFile ("not a regular file"), never waited on, read
without end or written over."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Optional

try:
    import fcntl
except ImportError:             # not POSIX
    fcntl = None

MEMINFO = "/proc/meminfo"
MEMORY_VARIABLE = "MANCALA_MEMORY_MB"   #: megabytes to count on instead of what the machine says


def available_bytes() -> Optional[int]:
    """Bytes the machine can give now, or None if it does not say.

    ``$MANCALA_MEMORY_MB`` when it is a whole number of megabytes (a cap on
    what mancala takes; the tests pin it, so that no test depends on the memory
    free at the moment it runs); else MemAvailable from /proc/meminfo where it
    is readable (what can be had without swapping), else the physical memory
    (``os.sysconf``).
    """
    pinned = os.environ.get(MEMORY_VARIABLE, "").strip()
    if pinned.isascii() and pinned.isdigit():
        return int(pinned) * 2 ** 20
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


def writable(folder: "os.PathLike[str] | str") -> bool:
    """Whether this process may create files in ``folder`` (False on a read-only mount too)."""
    return os.access(folder, os.W_OK | os.X_OK)


def why_not_writable(folder: "os.PathLike[str] | str") -> str:
    """Why :func:`writable` says no: "read-only file system", or the folder named."""
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except (OSError, AttributeError):
        pass
    return f"{os.fspath(folder)} is not writable by this user"


class NotARegularFile(OSError):
    """A FIFO, device, socket or folder where a file was to be read or written.

    ``filename`` is the path when known; ``strerror`` is "not a regular file"."""

    def __init__(self, path: object = None) -> None:
        if path is None or path == "not a regular file":     # the old spelling: no path
            super().__init__(None, "not a regular file")
        else:
            super().__init__(None, "not a regular file", os.fspath(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}" if self.filename is not None else self.strerror


class FileTooLarge(OSError):
    """A file over the reader's limit; ``size`` is its length when known."""

    def __init__(self, size: Optional[int] = None) -> None:
        super().__init__("file too large")
        self.size = size


_OPEN_FLAGS = os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def refuse_special(path: "os.PathLike[str] | str") -> None:
    """NotARegularFile if ``path`` names something other than a regular file (a
    FIFO, a device, a socket, a folder, or a link to one); nothing if it is a
    regular file or nothing at all. Asked without opening it: opening a FIFO
    waits for its other end, and opening a device may do something."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    if not stat.S_ISREG(info.st_mode):
        raise NotARegularFile(path)


def open_regular(path: "os.PathLike[str] | str", flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A file descriptor of the regular file at ``path`` (``flags`` as for
    :func:`os.open`; ``O_CREAT`` creates one), or NotARegularFile. The one way
    this package opens a file somebody else may have put there: checked before
    opening (:func:`refuse_special`), opened without blocking and checked again
    (a FIFO swapped in between is refused, never waited on)."""
    refuse_special(path)
    fd = os.open(path, flags | _OPEN_FLAGS, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(path)
        if fcntl is not None:           # a regular file: reads and writes may block as usual
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, for untrusted input.

    Opened without blocking and checked before reading, so a FIFO or device
    named like the file is refused, never waited on. Raises NotARegularFile,
    FileTooLarge, or the OSError of opening or reading (FileNotFoundError...).
    """
    fd = open_regular(path)
    try:
        info = os.fstat(fd)
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


def read_head(path, count: int) -> bytes:
    """The first ``count`` bytes (fewer if the file is shorter) of a regular file,
    opened as :func:`read_regular_file` opens one; b"" if there is no file.
    Raises NotARegularFile or the OSError of opening or reading."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as handle:
        return handle.read(count)


def reason(exc: BaseException) -> str:
    """What went wrong, in words and in one line: an OSError's strerror in lower
    case ("no such file or directory"), else the exception's text."""
    text = getattr(exc, "strerror", None) if isinstance(exc, OSError) else None
    if text:
        text = text[0].lower() + text[1:]
    else:
        text = str(exc)
    return " ".join(text.split()) or type(exc).__name__


def error_line(exc: BaseException) -> str:
    """An OSError as one line naming its file(s): "PATH: reason", "PATH -> OTHER:
    reason" for a rename; the reason alone when the error names no file. Never
    the "[Errno N]" of str(exc)."""
    text = reason(exc)
    first = getattr(exc, "filename", None)
    if first is None:
        return text
    second = getattr(exc, "filename2", None)
    where = os.fsdecode(first) if second is None else f"{os.fsdecode(first)} -> {os.fsdecode(second)}"
    return f"{where}: {text}"


def write_atomically(path: Path, write: Callable[[Any], Any], *, binary: bool = False,
                     hidden: bool = True) -> Any:
    """``write(handle)`` into a temporary file beside ``path`` (text, or bytes
    with ``binary``; named ``.<name>.<pid>.<random>.tmp``, without the dot when
    not ``hidden``, so a scan can tell a killed writer's), flushed to the disk
    and renamed over ``path``: a crash leaves the old file or the new one.
    NotARegularFile if ``path`` is a FIFO, a device, a folder or a link to one
    (renaming over it would put a file where the user had something else).
    Returns what ``write`` returns; raises what it or the system raises (the
    temporary file removed; an error that names no file, a full disk's, names
    ``path``). The save files, the endgame levels and the puzzles' export are
    written so."""
    refuse_special(path)
    prefix = f"{'.' if hidden else ''}{path.name}.{os.getpid()}."
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    except OSError as exc:          # the folder's error names the temporary file: name the target
        raise _about(exc, path) from None
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as handle:
            answer = write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            raise _about(exc, path) from None       # a full disk's ENOSPC names no file
        raise
    return answer


def _about(exc: OSError, path: Path) -> OSError:
    """The same error (its class, errno and words) about ``path``."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, os.fspath(path))
