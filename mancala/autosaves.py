"""Autosaves: every game in its own file, owned by the process that plays it.

Each game autosaves to ``<data dir>/autosaves/<UTC time>-<pid>-<random>.json``
(see :func:`mancala.storage.data_dir`). While a game runs, its process holds
an exclusive ``flock`` on ``<same name>.lock``; that is how another process
tells a live game from an abandoned one (the kernel drops the lock when the
process dies, however it dies). So two games at once never touch each other's
file, a game that ends removes only its own, and a game is never resumed twice.

:func:`scan` is what a new ``play`` does first. It

- moves the single ``autosave.json``/``previous.json`` of older versions into
  the folder, so nobody's game is lost on upgrade;
- removes temporary files of killed writes (``.*.tmp`` whose writer is dead or
  older than :data:`STALE_TMP_SECONDS`) and lock files nobody holds;
- keeps aside an autosave that fails its checks (bad JSON, a newer version):
  renamed ``<name>.unreadable-<time>.json``, never overwritten or deleted, and
  reported once, in :attr:`Scan.notices`;
- lists the saved games, newest first, each with the pid of the running game
  that owns it, if any.
"""
from __future__ import annotations

import errno
import os
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from mancala import storage
from mancala.errors import AutosaveError, InUseError
from mancala.players import canonical_spec
from mancala.untrusted import printable
from mancala._system import open_regular, process_alive

try:
    import fcntl
except ImportError:                  # not POSIX: no locks, every game looks abandoned
    fcntl = None

FOLDER_NAME = "autosaves"
LEGACY_NAMES = ("autosave.json", "previous.json")      # one slot each, before version 0.2
STALE_TMP_SECONDS = 3600
UNREADABLE = ".unreadable-"
_TMP = re.compile(r"^\..+\.(\d+)\.[^.]+\.tmp$")         # .<name>.<pid>.<random>.tmp (storage.save)


def folder() -> Path:
    """Where the autosaves live."""
    return storage.data_dir() / FOLDER_NAME


def cannot_write(exc: OSError, path: Path) -> str:
    """'cannot write to X (read-only file system)', naming the file in the way if there is one."""
    reason = (exc.strerror or str(exc)).lower()
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        for parent in [path, *path.parents]:
            if parent.exists():
                if not parent.is_dir():
                    reason = f"{parent} is a file, not a folder"
                break
    return f"cannot write to {path} ({reason})"


# -- one game's file and lock -----------------------------------------------------------

class Slot:
    """One game's autosave file, and the lock that says this process plays it."""

    def __init__(self, path: Path, lock_fd: Optional[int]) -> None:
        self.path = path
        self._lock_fd = lock_fd

    @classmethod
    def create(cls) -> "Slot":
        """A new, empty slot (AutosaveError, one line, if the folder cannot be written)."""
        where = folder()
        try:
            where.mkdir(parents=True, exist_ok=True)
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            path = where / f"{stamp}-{os.getpid()}-{secrets.token_hex(3)}.json"
            return cls(path, _lock(_lock_path(path)))
        except OSError as exc:
            raise AutosaveError(cannot_write(exc, where)) from None

    @classmethod
    def claim(cls, path: Path) -> "tuple[Slot, storage.SavedGame]":
        """Take over a saved game: its slot and what it holds.

        InUseError if a running game owns it; SaveFileError if it is gone or unreadable.
        """
        try:
            lock_fd = _lock(_lock_path(path))
        except BlockingIOError:
            raise InUseError(f"{path.name} is in use by another running game"
                             f"{_pid_note(_owner(_lock_path(path)))}") from None
        except OSError:
            lock_fd = None                 # a folder we cannot write: resume without a lock
        slot = cls(path, lock_fd)
        try:
            return slot, storage.load(path, players=canonical_spec)
        except storage.SaveFileError:
            slot.release()
            raise

    def finish(self) -> None:
        """The game is over (or was never played): remove its file and lock."""
        _unlink(self.path)
        self.release()

    def release(self) -> None:
        """Let go of the game (it stays saved for a later --resume)."""
        if self._lock_fd is not None:
            _unlink(_lock_path(self.path))     # while still holding it: see _lock
            os.close(self._lock_fd)
            self._lock_fd = None


def _lock_path(path: Path) -> Path:
    return path.with_suffix(".lock")


def _lock(path: Path) -> Optional[int]:
    """Hold an exclusive flock on ``path`` (BlockingIOError if another process holds it)."""
    if fcntl is None:
        return None
    while True:
        fd = open_regular(path, os.O_RDWR | os.O_CREAT)     # NotARegularFile for a FIFO put there
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # the owner removes the lock file before letting go: if it did between our
            # open and our flock, we hold a lock on a file nobody else will ever open
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)


def _owner(lock: Path) -> Optional[int]:
    """The pid of the running game holding ``lock``, 0 if unknown, None if nobody holds it."""
    if fcntl is None:
        return None
    try:
        fd = open_regular(lock)         # a FIFO would hold the scan for ever
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            return int(text) if text.isdigit() else 0
        return None
    finally:
        os.close(fd)


def _pid_note(pid: Optional[int]) -> str:
    return f" (pid {pid})" if pid else ""


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


# -- what is saved ----------------------------------------------------------------------

@dataclass
class Entry:
    """A saved game in the folder."""

    path: Path
    saved: storage.SavedGame
    modified: float                  #: when it was last saved (seconds since the epoch)
    owner: Optional[int] = None      #: pid of the running game that owns it (0: unknown)

    @property
    def in_use(self) -> bool:
        return self.owner is not None

    def describe(self) -> str:
        """'South human vs North ai:medium, 4 seeds, capture standard, 12 moves played, ...'."""
        saved = self.saved
        moves = len(saved.moves)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))
        text = (f"South {printable(saved.south)} vs North {printable(saved.north)}, {saved.seeds} seeds, "
                f"capture {saved.capture}{', rated' if saved.rated else ''}, {moves} "
                f"move{'' if moves == 1 else 's'} played, saved {when}")
        if self.in_use:
            text += f" (in use by another running game{_pid_note(self.owner)})"
        return text


@dataclass
class Scan:
    """The saved games, newest first, and what the player should be told once."""

    entries: List[Entry] = field(default_factory=list)
    notices: List[str] = field(default_factory=list)

    @property
    def free(self) -> List[Entry]:
        """The games no running game owns."""
        return [entry for entry in self.entries if not entry.in_use]


def scan() -> Scan:
    """Migrate, clean up, keep aside what is unreadable, and list the saved games."""
    result = Scan()
    where = folder()
    _migrate(where, result)
    if not where.is_dir():
        return result
    _remove_stale_temporary_files(where, ".*.tmp")
    for name in LEGACY_NAMES:                             # the old autosave.json's
        _remove_stale_temporary_files(where.parent, f".{name}.*.tmp")
    for path in sorted(where.glob("*.json")):
        if UNREADABLE in path.name or path.name.startswith("."):
            continue
        entry = _entry(path, result)
        if entry is not None:
            result.entries.append(entry)
    for lock in where.glob("*.lock"):
        if not lock.with_suffix(".json").exists() and _owner(lock) is None:
            _unlink(lock)
    result.entries.sort(key=lambda entry: (entry.modified, entry.path.name), reverse=True)
    return result


def _entry(path: Path, result: Scan) -> Optional[Entry]:
    owner = _owner(_lock_path(path))
    try:
        saved = storage.load(path, players=canonical_spec)
        modified = os.stat(path).st_mtime
    except storage.SaveFileError as exc:
        # a running game's file is its own business, and one we may not read is not damaged
        if owner is None and os.access(path, os.R_OK):
            _keep_aside(path, str(exc), result)
        return None
    except OSError:
        return None                  # finished and removed while we looked
    if owner is None and (not saved.moves or saved.board().is_game_over()):
        _unlink(path)                # nothing to resume: never played, or killed as it ended
        return None
    return Entry(path, saved, modified, owner)


def _keep_aside(path: Path, reason: str, result: Scan) -> None:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.stem}{UNREADABLE}{stamp}.json")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.stem}{UNREADABLE}{stamp}-{number}.json")
    try:
        os.rename(path, target)
    except OSError as exc:
        result.notices.append(f"An autosaved game cannot be resumed: {reason} "
                              f"(and it cannot be renamed: {cannot_write(exc, path.parent)}).")
        return
    result.notices.append(f"An autosaved game is kept aside as {target}; "
                          f"it cannot be resumed: {reason}")


def _migrate(where: Path, result: Scan) -> None:
    """Bring the single autosave.json/previous.json of older versions into the folder."""
    for name in LEGACY_NAMES:
        old = where.parent / name
        if not old.is_file():
            continue
        try:
            saved = storage.load(old, players=canonical_spec)
        except storage.SaveFileError as exc:
            _keep_aside(old, str(exc), result)
            continue
        if not saved.moves or saved.board().is_game_over():
            _unlink(old)
            continue
        try:
            where.mkdir(exist_ok=True)
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(os.stat(old).st_mtime))
            os.rename(old, where / f"{stamp}-0-{secrets.token_hex(3)}.json")
        except FileNotFoundError:
            pass                     # another new game moved it first
        except OSError as exc:
            result.notices.append(f"The game autosaved in {old} cannot be moved to the "
                                  f"autosave folder ({cannot_write(exc, where)}); "
                                  f"load it with --load {old}.")


def _remove_stale_temporary_files(where: Path, pattern: str) -> None:
    """The temp files of writes that were killed: their writer is dead, or it is an hour old."""
    now = time.time()
    for path in where.glob(pattern):
        match = _TMP.match(path.name)
        try:
            old = now - os.stat(path).st_mtime > STALE_TMP_SECONDS
        except OSError:
            continue
        if old or (match and not process_alive(int(match.group(1)))):
            _unlink(path)


__all__ = ["Slot", "Entry", "Scan", "scan", "folder", "cannot_write", "AutosaveError",
           "InUseError"]
