"""A cluster solve's journal: every finished job, one fsync'd JSON line, sealed.

The first line names the solve (format, position, rule, a random id drawn
when the journal was begun, and ``sealer``: the fingerprint of the key of the
installation that began it); a driver started again with the same journal
replays it and does no finished job twice. Every line is written in one
canonical form (sorted keys, no spaces) and carries ``check``: this
installation's seal (:mod:`mancala.seal`, a keyed BLAKE2b) over the line
before it (its ``check``) and its own content. Nobody without the key can make
a line this installation takes for its own, so a line damaged, edited, moved,
copied from another journal or forged whole is refused with its number, and
the file is left as it is. A torn last line (a kill mid-write) is cut off,
once the rest is known to be this solve's journal; a file that is not is
never written.

**The trust model** (docs/cluster.md, "What a result rests on"). A line is
*sealed* (this installation wrote it), *verified* (recomputed here in full by
``solve --verify-journal``), *on trust* (brought from elsewhere and taken on
trust by the person's explicit choice, ``--trust-journal``), or *foreign*
(another installation's, or format 2's unkeyed lines). A foreign line is
never resumed from: the journal is refused in one line naming the two ways
on. Those choices are themselves lines the installation seals, *attestations*:

- ``{"attest": "trust", "lines": N, "digest": D}``: the N lines before, whose
  bytes hash (BLAKE2b) to D, were taken on trust here;
- ``{"attest": "verified", "lines": N, "digest": D}``: they were recomputed
  here, every statement, and held;
- ``{"attest": "recomputed", "statements": [[key, "at least"/"at most", b], ...]}``:
  these statements were recomputed here (a sampled verification) and held.

Every number a solve prints says how many of the lines it rests on were taken
on trust and not recomputed. What the lines say is checked whatever their
standing (:mod:`mancala.cluster.proof`): a bound outside what the seeds allow,
a bound of the wrong kind, or statements that contradict each other, directly
or through the moves, are refused with the line.

Reading streams: memory grows with the positions the journal holds (a few
dozen bytes each), a byte a line, and not with the file; a file that is not a
journal is refused from its first bytes.

Lines are jobs (``key``, ``beta``, ``bound``...: see :func:`parse_job`; the
move that reached a bound and what an exhausted search settled below,
``move`` and ``facts``, are statements of their own, checked the same way:
:func:`mancala.cluster.proof.derived`; other fields ride along unchecked),
attestations, or, at the end of a solve, its claim (``claim``: the value and
the optimal moves, or a bound question's answer) that the verification
checks the jobs prove.
"""
from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Tuple

from mancala._system import NotARegularFile, open_regular, reason
from mancala.board import Board
from mancala.cluster.journal_lines import (FOREIGN, FORMAT, FORMATS_READ, KIND, ON_TRUST, SEALED,
                                           STANDING, VERIFIED, Records, Statement, canonical,
                                           foreign_message, job_lines, journal_header, line_check,
                                           lines_of, scan, sealed, statement, statement_lines)
from mancala.cluster.closure import Ledger, claim_holds, contradiction, proves
from mancala.cluster.proof import check_claim, derived, parse_job
from mancala.errors import JournalError, quote

RECOMPUTED_BATCH = 1000              # statements an attestation line carries

# -- the journal a solve appends to ------------------------------------------------------

class Journal:
    """A journal file, opened without following into anything but a regular
    file, locked (one process at a time), read and checked whole before a byte
    is written: ``records`` is what it held (None for a new one).

    ``foreign``: what to do with lines this installation did not seal or verify:
    "refuse" (JournalError, one line naming the two ways on: a solve's default),
    "trust" (an attestation that they are taken on trust is appended:
    ``--trust-journal``), "keep" (read as they are: the verification).
    ``board`` None: the header's solve. ``create``: a missing or empty file
    becomes a new journal (else ``records`` stays None). ``write`` False: opened
    to read only (a read-only file can be verified). JournalError for a file
    that is not a sound journal of this solve, left as it was."""

    def __init__(self, path: Path, board: Optional[Board], create: bool = True,
                 foreign: str = "refuse", write: bool = True) -> None:
        self.path, self.name = path, shown(path)
        self.fd = -1
        self.records: Optional[Records] = None
        self.writable = write
        flags = (os.O_RDWR | os.O_APPEND if write else os.O_RDONLY) | (os.O_CREAT if create else 0)
        try:
            self.fd = open_regular(path, flags)         # a FIFO, a device, a folder: refused unopened
        except FileNotFoundError as exc:
            if not create:
                return                                   # nothing to read
            raise JournalError(_cannot(path, "create", exc)) from None
        except OSError as exc:
            raise JournalError(_cannot(path, "open", exc)) from None
        try:
            self._open(board, create, foreign)
        except BaseException:
            self.close()
            raise

    def _open(self, board: Optional[Board], create: bool, foreign: str) -> None:
        try:
            fcntl.flock(self.fd, (fcntl.LOCK_EX if self.writable else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise JournalError(f"the journal {self.name} is in use by another solve") from None
            raise JournalError(_cannot(self.path, "lock", exc)) from None
        if os.fstat(self.fd).st_size:
            formats = FORMATS_READ if foreign == "keep" else (2, FORMAT)
            self.records = scan(self.fd, self.name, board, formats)
            if self.records.foreign is not None and foreign == "refuse":
                raise JournalError(foreign_message(self.name, self.records))
            if self.writable and self.records.torn:
                os.ftruncate(self.fd, self.records.whole)
                self.records.torn = False
            if self.records.foreign is not None and foreign == "trust":
                self._attest("trust")
        elif create and self.writable:
            head = journal_header(board)
            self._write(head)
            self.records = Records(head, board, Ledger(board), standing=bytearray([0, SEALED]),
                                   last_check=head["check"], whole=len(canonical(head)) + 1)
            self.records.digest = hashlib.blake2b(canonical(head) + b"\n", digest_size=32).hexdigest()

    @property
    def ledger(self) -> Ledger:
        return self.records.ledger

    def jobs(self) -> Iterator[dict]:
        """The journal's jobs as they were read (parsed: :func:`parse_job`), in
        order, each with ``on_trust``: a result resting on it rests on trust.
        A fresh pass over the file: nothing of it is held."""
        if self.records is None:
            return
        for job, line in job_lines(self.fd, self.records):
            job["on_trust"] = self.records.on_trust(line, job)
            yield job

    def _write(self, record: dict) -> None:
        line = canonical(record) + b"\n"
        while line:
            line = line[os.write(self.fd, line):]
        os.fsync(self.fd)

    def _append(self, record: dict) -> None:
        found = self.records
        record = sealed(record, found.last_check)
        self._write(record)
        found.last_check = record["check"]
        found.lines += 1
        found.standing.append(SEALED if "attest" not in record and "claim" not in record else 0)

    def add(self, job: dict) -> None:
        """A finished job, checked (JournalError if it contradicts the journal's
        lines: one of them is false), then appended and flushed to the disk."""
        if self.fd < 0:
            return
        record = {**job, "key": [list(job["key"][0]), job["key"][1]]}
        record.pop("on_trust", None)
        where = f"a job's result (key {quote(record['key'])})"
        checked = parse_job(record, self.ledger.board, where)
        for said in [checked] + derived(checked, self.ledger.board.capture, where):
            self.ledger.add(said, None, where)
        self._append(record)
        self.records.jobs += 1

    def _attest(self, kind: str, statements_done: Iterable[Statement] = ()) -> None:
        """This installation's word on the lines before: see the module docstring."""
        if kind == "recomputed":
            said = [[[list(key[0]), key[1]], how, bound] for key, how, bound in statements_done]
            for start in range(0, len(said), RECOMPUTED_BATCH):
                self._append({"attest": "recomputed", "statements": said[start:start + RECOMPUTED_BATCH]})
                self.records.recomputed.update(
                    ((tuple(k[0]), k[1]), how, b) for k, how, b in said[start:start + RECOMPUTED_BATCH])
            return
        found = self.records
        digest = hashlib.blake2b(digest_size=32)
        for offset, line, whole in lines_of(self.fd):
            if not whole:
                break
            digest.update(line)
        self._append({"attest": kind, "lines": found.lines, "digest": digest.hexdigest()})
        lifted = (FOREIGN,) if kind == "trust" else (FOREIGN, ON_TRUST)
        for standing in lifted:
            found.standing = found.standing.replace(bytes([standing]),
                                                    bytes([ON_TRUST if kind == "trust" else VERIFIED]))
        found.foreign = None

    def verified(self, done: Iterable[Statement], everything: bool) -> Optional[str]:
        """Re-seal what a verification recomputed and found true: every line
        (everything), or those statements; what was written, said in a few
        words (None: nothing needed it, or the file cannot be written)."""
        if self.fd < 0 or not self.writable or self.records is None or self.records.format < 2:
            return None
        found = self.records
        if everything:
            if found.count(FOREIGN) + found.count(ON_TRUST) == 0 and found.foreign is None:
                return None
            self._attest("verified")
            return "every line of the journal now counts as verified here"
        fresh = sorted({s for s in done if s not in found.recomputed}, key=repr)
        if not fresh or found.count(FOREIGN) + found.count(ON_TRUST) == 0:
            return None
        self._attest("recomputed", fresh)
        return f"{len(fresh):,} recomputed statements now count as verified here"

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
        board, found = self.ledger.board, self.records
        # the positions whose jobs the journal holds: a fresh pass, as for the statements below
        keys = {job["key"] for job, _ in job_lines(self.fd, self._whole())}
        record["expanded"] = sorted([list(key[0]), int(key[1])] for key in expanded
                                    if (tuple(key[0]), key[1]) not in keys)
        claim = check_claim(record, board, "the solve's claim")
        problem = contradiction(found.ledger.known, lambda: statement_lines(self.fd, self._whole()), board)
        if problem is not None:
            raise JournalError(f"the journal {self.name} line {problem}")
        missing = claim_holds(claim, *proves(found.ledger.known, board, claim["expanded"]))
        if missing:
            raise JournalError(f"the solve's answer does not follow from the jobs of the journal "
                               f"{self.name} ({missing[0]}): one of its lines is false; check it with "
                               f"`python -m mancala solve --verify-journal`")
        self._append(record)

    def _whole(self) -> Records:
        """The records as they stand now, for a fresh pass to the file's end."""
        found = self.records
        found.whole = os.fstat(self.fd).st_size
        digest = hashlib.blake2b(digest_size=32)
        for _, line, whole in lines_of(self.fd):
            digest.update(line)
        found.digest = digest.hexdigest()
        return found

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)                          # the lock goes with it
            self.fd = -1

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_records(path: Path, board: Optional[Board] = None,
                 formats: Tuple[int, ...] = (2, FORMAT)) -> Optional[Records]:
    """A journal file's records (None when there is no file, or it is empty);
    nothing is written, foreign lines are kept as they are (their standing says
    so). JournalError for a file that is not a sound journal of this solve (a
    FIFO, a device or a folder too: never read)."""
    journal = Journal(path, board, create=False, foreign="keep", write=False)
    try:
        found = journal.records
        if found is not None and found.format not in formats:
            raise JournalError(f"the journal {journal.name} has format {found.format}; this "
                               f"version resumes format 2 or {FORMAT}")
        return found
    finally:
        journal.close()


def read_journal(path: Path, board: Optional[Board] = None, trust: bool = False) -> List[dict]:
    """The finished jobs a journal holds for this solve (for board; None: any
    solve's), each a dict (:func:`parse_job`, with ``on_trust``). A torn last
    line is cut off the file (so the next line appended is whole), and only once
    the rest is known to be this solve's journal. JournalError for anything
    else, a foreign journal unless trust (then it is taken on trust)."""
    with Journal(path, board, create=False, foreign="trust" if trust else "refuse") as journal:
        return list(journal.jobs())


def shown(path: Path) -> str:
    """A journal's path in a message: quoted, cut only when absurdly long."""
    return quote(str(path), limit=400)


def _cannot(path: Path, what: str, exc: BaseException) -> str:
    if isinstance(exc, NotARegularFile):
        return f"the journal {shown(path)} is not a regular file (a FIFO, a device or a folder)"
    return f"cannot {what} the journal {shown(path)}: {reason(exc)}"


__all__ = ["JournalError", "Journal", "Records", "read_journal", "read_records", "journal_header",
           "line_check", "canonical", "sealed", "shown", "statement", "foreign_message", "FORMAT",
           "KIND", "SEALED", "VERIFIED", "ON_TRUST", "FOREIGN", "STANDING"]
