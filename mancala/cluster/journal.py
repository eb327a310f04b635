"""A cluster solve's journal: every finished job, one fsync'd JSON line.

The first line names the solve (format, position, rule); a driver started
again with the same journal replays it and does no finished job twice; a
journal of another solve is refused in one line; a torn last line (a kill
mid-write) is cut off.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import List, Optional

from mancala.board import Board
from mancala.errors import MancalaError, quote

FORMAT = 1
KIND = "mancala cluster solve journal"


class JournalError(MancalaError, ValueError):
    """A journal that cannot be used for this solve (one line)."""


def journal_header(board: Board) -> dict:
    return {"kind": KIND, "format": FORMAT, "pits": list(board.pits), "to_move": board.to_move,
            "capture": board.capture}


def read_journal(path: Path, board: Optional[Board] = None, repair: bool = True) -> List[dict]:
    """The finished jobs a journal holds for this solve (for board; None: any solve's);
    a torn last line is cut off the file if repair (so the next line appended is
    whole). JournalError for anyone else's journal."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise JournalError(f"cannot read the journal {quote(str(path))}: {exc.strerror}") from None
    lines = data.split(b"\n")
    whole = len(data) if data.endswith(b"\n") or not data else len(data) - len(lines[-1])
    if not data.endswith(b"\n"):
        lines = lines[:-1]                          # torn by a kill mid-write: cut off below
    lines = [line for line in lines if line]
    if not lines:
        if whole != len(data) and repair:
            os.truncate(path, whole)
        return []
    try:
        head = json.loads(lines[0])
    except (ValueError, UnicodeDecodeError):
        head = None
    if not isinstance(head, dict) or head.get("kind") != KIND:
        raise JournalError(f"{quote(str(path))} is not a cluster solve journal")
    if head.get("format") != FORMAT:
        raise JournalError(f"the journal {quote(str(path))} has format {quote(head.get('format'))}; "
                           f"this version reads format {FORMAT}")
    expected = journal_header(board) if board is not None else head
    for name in ("pits", "to_move", "capture"):
        if head.get(name) != expected[name]:
            raise JournalError(f"the journal {quote(str(path))} is of another solve: its {name} "
                               f"is {quote(head.get(name))}, not {quote(expected[name])}")
    jobs = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            job = json.loads(line)
            pits, to_move = job["key"]
            entry = {**job, "key": (tuple(int(p) for p in pits), int(to_move)), "beta": int(job["beta"]),
                     "bound": None if job["bound"] is None else int(job["bound"]),
                     "nodes": int(job["nodes"]), "seconds": float(job["seconds"]),
                     "cpu": float(job.get("cpu", job["seconds"])),
                     "test": int(job["test"]), "depth": int(job["depth"]),
                     "after": None if job.get("after") is None else int(job["after"]),
                     "split": bool(job.get("split", True)),
                     "budget": int(job.get("budget", job["nodes"]))}
        except (ValueError, TypeError, KeyError, UnicodeDecodeError):
            raise JournalError(f"the journal {quote(str(path))} line {number} is not a job: "
                               f"{quote(line[:80].decode('utf-8', 'replace'))}") from None
        if len(entry["key"][0]) != 12 or entry["key"][1] not in (0, 1):
            raise JournalError(f"the journal {quote(str(path))} line {number} has no position")
        jobs.append(entry)
    if whole != len(data) and repair:
        os.truncate(path, whole)
    return jobs


class Journal:
    def __init__(self, path: Optional[Path], board: Board) -> None:
        self.path = path
        self.file = None
        if path is not None:
            new = not path.exists() or path.stat().st_size == 0
            self.file = open(path, "ab")
            if new:
                self._write(journal_header(board))

    def _write(self, record: dict) -> None:
        self.file.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def add(self, job: dict) -> None:
        if self.file is not None:
            self._write({**job, "key": [list(job["key"][0]), job["key"][1]]})

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


__all__ = ["JournalError", "Journal", "read_journal", "journal_header", "FORMAT", "KIND"]
