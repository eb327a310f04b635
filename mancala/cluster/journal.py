"""A cluster solve's journal: every finished job, one fsync'd JSON line.

The first line names the solve (format, position, rule, and a random id
drawn when the journal was begun); a driver started again with the same
journal replays it and does no finished job twice. Every line is written in
one canonical form (sorted keys, no spaces) and carries ``check``, a BLAKE2b
hash of the line before it (its ``check``) and its own content: so a line
damaged on the disk, edited, moved, or copied from another journal (whose
chain starts from another header) is refused with its number, and the file is
left as it is. A torn last line (a kill mid-write) is cut off, once the rest
is known to be this solve's journal; a file that is not is never written.

Checksums catch accidents, not intent (anyone can compute them), so what the
lines say is checked too (:mod:`mancala.cluster.proof`): a bound outside what
the seeds allow, a bound of the wrong kind, or results that contradict each
other are refused with the line. A forged line that passes all that is caught
by recomputing the jobs (:mod:`mancala.cluster.verify`,
``solve --verify-journal``).

Lines are jobs (``key``, ``beta``, ``bound``...: see :func:`parse_job`; the
move that reached a bound and what an exhausted search settled below,
``move`` and ``facts``, are statements of their own, checked the same way:
:func:`mancala.cluster.proof.derived`; other fields ride along unchecked) or,
at the end of a solve, its claim (``claim``: the value and the optimal moves,
or a bound question's answer) that the verification checks the jobs prove.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Tuple

from mancala._system import FileTooLarge, NotARegularFile, open_regular, read_regular_file, reason
from mancala.board import Board
from mancala.cluster.proof import (Ledger, check_claim, claim_holds, contradiction, derived, parse_job,
                                   proves, statements)
from mancala.errors import JournalError, quote

FORMAT = 2
FORMATS_READ = (1, 2)                # format 1 (no checks) only by the verification
KIND = "mancala cluster solve journal"
READ_LIMIT = 1 << 30                 # a journal read whole: a million jobs is about 300 MB
_PERSON = b"mancala journal"         # BLAKE2b's personalisation: these hashes are no other's


def canonical(record: dict) -> bytes:
    """The one way a record is written: sorted keys, no spaces, ASCII."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def line_check(previous: str, record: dict) -> str:
    """The ``check`` of a line: BLAKE2b over the previous line's check and the
    record's canonical form (``check`` itself left out)."""
    digest = hashlib.blake2b(digest_size=16, person=_PERSON)
    digest.update(previous.encode() + b"\n")
    digest.update(canonical({k: v for k, v in record.items() if k != "check"}))
    return digest.hexdigest()


def journal_header(board: Board, id: Optional[str] = None) -> dict:
    """The first line of a new journal of board's solve (a fresh id unless given)."""
    head = {"kind": KIND, "format": FORMAT, "pits": list(board.pits), "to_move": board.to_move,
            "capture": board.capture, "id": id or secrets.token_hex(8)}
    head["check"] = line_check("", head)
    return head


def sealed(record: dict, previous: str) -> dict:
    """record with its ``check`` after the line whose check is previous."""
    out = {k: v for k, v in record.items() if k != "check"}
    out["check"] = line_check(previous, out)
    return out


@dataclass
class Records:
    """What a journal holds: its header, its jobs (parsed: :func:`parse_job`) with
    their line numbers, its claims with theirs."""
    header: dict
    board: Board                         # the solve's position (the header's)
    jobs: List[dict] = field(default_factory=list)
    job_lines: List[int] = field(default_factory=list)
    claims: List[Tuple[int, dict]] = field(default_factory=list)
    whole: int = 0                       # bytes up to the end of the last whole line
    last_check: str = ""                 # the last line's check (the next line chains on it)
    torn: bool = False                   # a torn last line follows ``whole``
    ledger: Optional[Ledger] = None      # each position's bounds, by the jobs

    @property
    def format(self) -> int:
        return self.header["format"]


def parse(data: bytes, name: str, board: Optional[Board] = None,
          formats: Tuple[int, ...] = (FORMAT,)) -> Records:
    """The records of a journal's bytes (board: the solve it must be; None: any).
    JournalError (one line, naming the line) for anything that is not a sound
    journal of that solve: see the module docstring."""
    cut = data.rfind(b"\n") + 1                 # after it: a torn last line (or none)
    lines = data[:cut].split(b"\n")[:-1] if cut else []
    first = lines[0] if lines else data
    try:
        head = json.loads(first)
    except (ValueError, UnicodeDecodeError, RecursionError):
        head = None
    if not isinstance(head, dict) or head.get("kind") != KIND:
        raise JournalError(f"{name} is not a cluster solve journal (it is left as it is)")
    version = head.get("format")
    if version not in formats:
        if version == 1:
            raise JournalError(f"the journal {name} has format 1, whose lines carry no checksums: "
                               f"this version resumes only format {FORMAT}; check it with "
                               f"`python -m mancala solve --verify-journal`, or start a new journal")
        raise JournalError(f"the journal {name} has format {quote(version)}; this version reads "
                           f"format {' or '.join(map(str, formats))}")
    if not lines:
        raise JournalError(f"the journal {name} line 1 is torn; the file is left as it is")
    if version >= 2 and not _sealed_as(first, head, ""):
        raise JournalError(f"the journal {name} line 1 is damaged (its checksum does not match)")
    try:
        own = Board(head["pits"], head["to_move"], capture=head["capture"])
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(f"the journal {name} line 1 names no position: {exc}") from None
    if board is not None:
        for key, mine in (("pits", list(board.pits)), ("to_move", board.to_move),
                          ("capture", board.capture)):
            if head[key] != mine:
                raise JournalError(f"the journal {name} is of another solve: its {key} "
                                   f"is {quote(head[key])}, not {quote(mine)}")
    ledger = Ledger(own)
    found = Records(head, own, whole=cut, last_check=head.get("check", ""), torn=cut < len(data),
                    ledger=ledger)
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            record = None
        if not isinstance(record, dict):
            raise JournalError(f"the journal {name} line {number} is not a record: "
                               f"{quote(line[:80].decode('utf-8', 'replace'))}")
        if version >= 2:
            if not _sealed_as(line, record, found.last_check):
                raise JournalError(f"the journal {name} line {number} is damaged (its checksum does "
                                   f"not match: changed, moved, or from another journal); "
                                   f"the file is left as it is")
            found.last_check = record["check"]
        where = f"the journal {name} line {number}"
        if "claim" in record:
            found.claims.append((number, check_claim(record, own, where)))
            continue
        job = parse_job(record, own, where)
        for said in [job] + derived(job, own.capture, where):
            ledger.add(said, number, where)
        found.jobs.append(job)
        found.job_lines.append(number)
    problem = contradiction(*statements(found.jobs, found.job_lines, own.capture), own)
    if problem is not None:
        raise JournalError(f"the journal {name} line {problem}")
    return found


def _sealed_as(line: bytes, record: dict, previous: str) -> bool:
    """Whether line is record's canonical form and carries its check after previous."""
    try:
        return line == canonical(record) and record.get("check") == line_check(previous, record)
    except (ValueError, TypeError, RecursionError):         # NaN, a nesting too deep
        return False


def read_records(path: Path, board: Optional[Board] = None,
                 formats: Tuple[int, ...] = (FORMAT,)) -> Optional[Records]:
    """A journal file's records (None when there is no file, or it is empty);
    nothing is written. JournalError for a file that is not a sound journal
    of this solve (a FIFO, a device or a folder too: never read)."""
    try:
        data = read_regular_file(path, READ_LIMIT)
    except FileNotFoundError:
        return None
    except (NotARegularFile, FileTooLarge, OSError) as exc:
        raise JournalError(_cannot(path, "read", exc)) from None
    if not data:
        return None
    return parse(data, shown(path), board, formats)


def read_journal(path: Path, board: Optional[Board] = None, repair: bool = True) -> List[dict]:
    """The finished jobs a journal holds for this solve (for board; None: any
    solve's), each a dict (:func:`parse_job`). A torn last line is cut off the
    file if repair (so the next line appended is whole), and only once the rest
    is known to be this solve's journal. JournalError for anything else."""
    if repair and path is not None and board is not None:
        with Journal(path, board, create=False) as journal:
            return journal.records.jobs if journal.records is not None else []
    found = read_records(path, board)
    return found.jobs if found is not None else []


class Journal:
    """The journal a solve appends to (path None: none). Opened without
    following into anything but a regular file, locked (one driver at a time),
    read and checked whole before a byte is written: ``records`` is what it
    held (None for a new one). JournalError for a file that is not this solve's
    journal, left as it was."""

    def __init__(self, path: Optional[Path], board: Board, create: bool = True) -> None:
        self.path = path
        self.fd = -1
        self.records: Optional[Records] = None
        self.ledger = Ledger(board)
        self.jobs: List[dict] = []                      # its jobs (read and added) and their lines
        self.lines: List[int] = []
        self.count = 1                                  # lines in the file
        self.last = ""                                  # the last line's check
        if path is None:
            return
        name = shown(path)
        flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)
        try:
            self.fd = open_regular(path, flags)         # a FIFO, a device, a folder: refused unopened
        except FileNotFoundError as exc:
            if not create:
                return                                   # nothing to read
            raise JournalError(_cannot(path, "create", exc)) from None
        except OSError as exc:
            raise JournalError(_cannot(path, "open", exc)) from None
        try:
            self._open(path, board, name, create)
        except BaseException:
            self.close()
            raise

    def _open(self, path: Path, board: Board, name: str, create: bool) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise JournalError(f"the journal {name} is in use by another solve") from None
            raise JournalError(_cannot(path, "lock", exc)) from None
        data = self._read(path)
        if data:
            self.records = parse(data, name, board)
            self.ledger = self.records.ledger
            self.jobs, self.lines = list(self.records.jobs), list(self.records.job_lines)
            self.count = data[:self.records.whole].count(b"\n")
            self.last = self.records.last_check
            if self.records.torn:
                os.ftruncate(self.fd, self.records.whole)
        elif create:
            head = journal_header(board)
            self._write(head)
            self.last = head["check"]
            self.count = 1

    def _read(self, path: Path) -> bytes:
        size = os.fstat(self.fd).st_size
        if size > READ_LIMIT:
            raise JournalError(_cannot(path, "read", FileTooLarge(size)))
        parts, offset = [], 0
        while offset <= READ_LIMIT:
            part = os.pread(self.fd, 1 << 20, offset)
            if not part:
                break
            parts.append(part)
            offset += len(part)
        if offset > READ_LIMIT:
            raise JournalError(_cannot(path, "read", FileTooLarge()))
        return b"".join(parts)

    def _write(self, record: dict) -> None:
        line = canonical(record) + b"\n"
        while line:
            line = line[os.write(self.fd, line):]
        os.fsync(self.fd)

    def add(self, job: dict) -> None:
        """A finished job, checked (JournalError if it contradicts the journal's
        lines: one of them is false), then appended and flushed to the disk."""
        if self.fd < 0:
            return
        record = {**job, "key": [list(job["key"][0]), job["key"][1]]}
        where = f"a job's result (key {quote(record['key'])})"
        checked = parse_job(record, self.ledger.board, where)
        for said in [checked] + derived(checked, self.ledger.board.capture, where):
            self.ledger.add(said, None, where)
        self._append(record)
        self.jobs.append(checked)
        self.lines.append(self.count)

    def claim(self, value: int, moves, all_moves: bool, expanded=()) -> None:
        """The solve's answer, last: what the verification checks the jobs prove;
        expanded: the positions the solve split (those with no job in the journal
        are kept: a position split while its own job ran, that job cut short).
        JournalError, and nothing written, unless the answer follows from the
        journal's jobs with none contradicting another: then a line is false."""
        self._claim({"claim": "value", "value": int(value), "moves": [int(m) for m in moves],
                     "all": bool(all_moves)}, expanded)

    def claim_bound(self, at_least: int, holds: bool, expanded=()) -> None:
        """A bound question's answer, last (is the value at least ``at_least``?),
        checked as :meth:`claim` checks a value."""
        self._claim({"claim": "bound", "at_least": int(at_least), "holds": bool(holds)}, expanded)

    def _claim(self, record: dict, expanded) -> None:
        if self.fd < 0:
            return
        board, name = self.ledger.board, shown(self.path)
        keys = {job["key"] for job in self.jobs}
        record["expanded"] = sorted([list(key[0]), int(key[1])] for key in expanded
                                    if (tuple(key[0]), key[1]) not in keys)
        claim = check_claim(record, board, "the solve's claim")
        every, lines = statements(self.jobs, self.lines, board.capture)
        problem = contradiction(every, lines, board)
        if problem is not None:
            raise JournalError(f"the journal {name} line {problem}")
        missing = claim_holds(claim, *proves(every, board, claim["expanded"]))
        if missing:
            raise JournalError(f"the solve's answer does not follow from the jobs of the journal "
                               f"{name} ({missing[0]}): one of its lines is false; check it with "
                               f"`python -m mancala solve --verify-journal`")
        self._append(record)

    def _append(self, record: dict) -> None:
        record = sealed(record, self.last)
        self._write(record)
        self.last = record["check"]
        self.count += 1

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)                          # the lock goes with it
            self.fd = -1

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def shown(path: Path) -> str:
    """A journal's path in a message: quoted, cut only when absurdly long."""
    return quote(str(path), limit=400)


def _cannot(path: Path, what: str, exc: BaseException) -> str:
    if isinstance(exc, FileTooLarge):
        return f"the journal {shown(path)} is over {READ_LIMIT >> 20} MB: not read"
    if isinstance(exc, NotARegularFile):
        return f"the journal {shown(path)} is not a regular file (a FIFO, a device or a folder)"
    return f"cannot {what} the journal {shown(path)}: {reason(exc)}"


__all__ = ["JournalError", "Journal", "Records", "read_journal", "read_records", "parse",
           "journal_header", "line_check", "canonical", "sealed", "shown", "FORMAT", "KIND"]
