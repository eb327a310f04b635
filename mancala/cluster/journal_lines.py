"""A cluster solve's journal lines: their one written form, their seals, and
reading them in one pass (:mod:`mancala.cluster.journal` says what they mean
and writes them).

Reading streams a block at a time: what it keeps grows with the positions the
lines hold (:class:`mancala.cluster.closure.Ledger`, a few dozen bytes each) and
a byte a line (its standing), not with the file; a first line over 4 kB, or any
line over 1 MB, is no journal's.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, Optional, Set, Tuple

from mancala import seal
from mancala.board import Board
from mancala.cluster.closure import Ledger, contradiction
from mancala.cluster.proof import check_claim, claimed, derived, parse_job, statements
from mancala.cluster.tree import Key
from mancala.errors import JournalError, quote

FORMAT = 3
FORMATS_READ = (1, 2, 3)             # 1 (no checks) only by the verification; 2 (unkeyed) as foreign
KIND = "mancala cluster solve journal"
PURPOSE = b"mancala journal"         # this installation's seal of a line
HEAD_LIMIT = 4096                    # a journal's first line is shorter: anything else is no journal
LINE_LIMIT = 1 << 20                 # and every line (a job with its facts is a few kB)
BLOCK = 1 << 20                      # read a block at a time

# a line's standing: what a result resting on it may say
SEALED, VERIFIED, ON_TRUST, FOREIGN = 1, 2, 3, 4
STANDING = {SEALED: "sealed here", VERIFIED: "verified here", ON_TRUST: "taken on trust",
            FOREIGN: "foreign"}

Statement = Tuple[Key, str, int]     # (position, "at least" or "at most", bound)


def canonical(record: dict) -> bytes:
    """The one way a record is written: sorted keys, no spaces, ASCII."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def _body(record: dict) -> bytes:
    return canonical({k: v for k, v in record.items() if k != "check"})


def line_check(previous: str, record: dict) -> str:
    """The ``check`` of a line: this installation's seal over the previous line's
    check and the record's canonical form (``check`` itself left out)."""
    return seal.seal(PURPOSE, previous.encode(), _body(record))


def unkeyed_check(previous: str, record: dict) -> str:
    """Format 2's check: an unkeyed BLAKE2b, which anyone can compute (accidents only)."""
    digest = hashlib.blake2b(digest_size=16, person=b"mancala journal")
    digest.update(previous.encode() + b"\n")
    digest.update(_body(record))
    return digest.hexdigest()


def journal_header(board: Board, id: Optional[str] = None) -> dict:
    """The first line of a new journal of board's solve (a fresh id unless given)."""
    head = {"kind": KIND, "format": FORMAT, "pits": list(board.pits), "to_move": board.to_move,
            "capture": board.capture, "id": id or secrets.token_hex(8), "sealer": seal.key_id()}
    head["check"] = line_check("", head)
    return head


def sealed(record: dict, previous: str) -> dict:
    """record with its ``check`` after the line whose check is previous."""
    out = {k: v for k, v in record.items() if k != "check"}
    out["check"] = line_check(previous, out)
    return out


def statement(job: dict) -> Statement:
    """What a job (or a statement derived from one) with a result says."""
    kind, bound = claimed(job)
    return job["key"], kind, bound


# -- reading -----------------------------------------------------------------------------

def lines_of(fd: int) -> Iterator[Tuple[int, bytes, bool]]:
    """(offset, line, whole) for each line of fd from its start, the newline kept;
    a torn last line (no newline) comes last with whole False. JournalError-free:
    a line over the limit ends the stream with that line cut (the reader refuses it)."""
    offset, buffer, read_at = 0, b"", 0
    while True:
        block = os.pread(fd, BLOCK, read_at)
        if not block:
            if buffer:
                yield offset, buffer, False
            return
        read_at += len(block)
        buffer += block
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            yield offset, buffer[start:end + 1], True
            offset += end + 1 - start
            start = end + 1
        buffer = buffer[start:]
        if len(buffer) > (HEAD_LIMIT if offset == 0 else LINE_LIMIT):
            yield offset, buffer, False             # too long for a line: refused as one
            return


@dataclass
class Records:
    """What a journal holds, read in one pass: its header, each position's bounds
    (``ledger``), each line's standing, its claims, what it counts."""
    header: dict
    board: Board                         # the solve's position (the header's)
    ledger: Ledger
    standing: bytearray = field(default_factory=bytearray)   # by line number: SEALED... (0: no job)
    claims: List[Tuple[int, dict]] = field(default_factory=list)
    jobs: int = 0                        # job lines
    nodes: int = 0                       # their nodes, as the lines say (not measured here)
    with_result: int = 0                 # statements with a bound: the jobs' and what they say beside
    lines: int = 1
    whole: int = 0                       # bytes up to the end of the last whole line
    last_check: str = ""                 # the last line's check (the next line chains on it)
    torn: bool = False                   # a torn last line follows ``whole``
    digest: str = ""                     # BLAKE2b of the bytes up to ``whole``
    foreign: Optional[Tuple[int, str]] = None   # the first line not covered, and whose it is
    recomputed: Set[Statement] = field(default_factory=set)

    @property
    def format(self) -> int:
        return self.header["format"]

    def count(self, standing: int) -> int:
        """Job lines of that standing (the header, line 1, is none)."""
        return self.standing.count(standing, 2)

    def on_trust(self, line: int, job: dict) -> bool:
        """Whether a result resting on this job line rests on trust: the line was
        taken on trust and not every statement it makes was recomputed here."""
        if self.standing[line] not in (ON_TRUST, FOREIGN):
            return False
        said = [s for s, _ in statements([(job, line)], self.board.capture) if s["bound"] is not None]
        return not said or any(statement(s) not in self.recomputed for s in said)


class _Reader:
    """One pass over a journal's lines (see the module docstring): every check
    but the standing of lines not yet covered, which is known at the end."""

    def __init__(self, name: str, board: Optional[Board], formats: Tuple[int, ...]) -> None:
        self.name, self.board, self.formats = name, board, formats
        self.digest = hashlib.blake2b(digest_size=32)
        self.found: Optional[Records] = None
        self.foreign_from: Optional[Tuple[int, str]] = None  # lines from here on may be another's
        self.uncovered: Optional[Tuple[int, str]] = None
        self.attested = False                                # an attestation seen (after it: format 3's lines)

    def read(self, lines: Iterable[Tuple[int, bytes, bool]]) -> Records:
        for number, (offset, line, whole) in enumerate(lines, start=1):
            if not whole:
                if self.found is None or len(line) > LINE_LIMIT:
                    if self.found is None:
                        self._not_a_journal(line)
                    raise JournalError(f"the journal {self.name} line {number} is over "
                                       f"{LINE_LIMIT >> 20} MB: not a journal's line")
                self.found.torn = True
                break
            if self.found is None:
                self._header(line)
            else:
                self._line(number, line)
            self.digest.update(line)
            self.found.whole = offset + len(line)
            self.found.lines = number
        if self.found is None:
            raise JournalError(f"the journal {self.name} is empty")
        self.found.digest = self.digest.hexdigest()
        self.found.foreign = self.uncovered
        return self.found

    def _not_a_journal(self, first: bytes) -> None:
        try:
            head = json.loads(first)
        except (ValueError, UnicodeDecodeError, RecursionError):
            head = None
        if isinstance(head, dict) and head.get("kind") == KIND:
            raise JournalError(f"the journal {self.name} line 1 is torn; the file is left as it is")
        raise JournalError(f"{self.name} is not a cluster solve journal (it is left as it is)")

    def _header(self, line: bytes) -> None:
        try:
            head = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            head = None
        if not isinstance(head, dict) or head.get("kind") != KIND:
            raise JournalError(f"{self.name} is not a cluster solve journal (it is left as it is)")
        version = head.get("format")
        if version not in self.formats:
            if version in FORMATS_READ:
                raise JournalError(f"the journal {self.name} has format {version}, whose lines carry "
                                   f"no checksums: this version resumes format 2 or {FORMAT}; check it "
                                   f"with `python -m mancala solve --verify-journal`, or start a new journal")
            raise JournalError(f"the journal {self.name} has format {quote(version)}; this version reads "
                               f"format {' or '.join(map(str, self.formats))}")
        if version >= 2 and line != canonical(head) + b"\n":
            raise JournalError(f"the journal {self.name} line 1 is damaged (its checksum does not match)")
        standing = FOREIGN
        if version == 3 and head.get("sealer") == seal.key_id():
            if not seal.holds(head.get("check"), PURPOSE, b"", _body(head)):
                raise JournalError(f"the journal {self.name} line 1 is damaged (its seal does not match)")
            standing = SEALED
        elif version == 2 and head.get("check") != unkeyed_check("", head):
            raise JournalError(f"the journal {self.name} line 1 is damaged (its checksum does not match)")
        try:
            own = Board(head["pits"], head["to_move"], capture=head["capture"])
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"the journal {self.name} line 1 names no position: {exc}") from None
        if standing == FOREIGN:
            whose = _whose(head, version)
            self.foreign_from = self.uncovered = (1, whose)
        if self.board is not None:
            for key, mine in (("pits", list(self.board.pits)), ("to_move", self.board.to_move),
                              ("capture", self.board.capture)):
                if head[key] != mine:
                    raise JournalError(f"the journal {self.name} is of another solve: its {key} "
                                       f"is {quote(head[key])}, not {quote(mine)}")
        self.found = Records(head, own, Ledger(own), standing=bytearray([0, standing]),
                             last_check=head.get("check", ""))

    def _line(self, number: int, line: bytes) -> None:
        found = self.found
        try:
            record = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            record = None
        if not isinstance(record, dict):
            raise JournalError(f"the journal {self.name} line {number} is not a record: "
                               f"{quote(line[:80].decode('utf-8', 'replace'))}")
        where = f"the journal {self.name} line {number}"
        standing = self._standing(number, line, record, found.last_check)
        if found.format >= 2:
            found.last_check = record["check"]
        if "attest" in record:
            found.standing.append(0)
            if standing == SEALED:
                self._attest(number, record, where)
            return
        if "claim" in record:
            found.standing.append(0)
            found.claims.append((number, check_claim(record, found.board, where)))
            return
        job = parse_job(record, found.board, where)
        found.standing.append(standing)
        found.jobs += 1
        found.nodes += job["nodes"]
        for said in [job] + derived(job, found.board.capture, where):
            found.ledger.add(said, number, where)
            found.with_result += said["bound"] is not None

    def _standing(self, number: int, line: bytes, record: dict, previous: str) -> int:
        """A line's standing as far as it alone tells. A line this installation did
        not seal is foreign inside a foreign stretch (one that began at a foreign
        header, or at another installation's attestation: it went on with the
        journal, and its first line says so) and damaged outside one."""
        found = self.found
        if found.format == 1:
            return FOREIGN
        if line != canonical(record) + b"\n" or not isinstance(record.get("check"), str):
            raise self._damaged(number)
        try:
            if seal.holds(record["check"], PURPOSE, previous.encode(), _body(record)):
                if "attest" in record and record["attest"] in ("trust", "verified"):
                    self.foreign_from = None              # the stretch before is covered
                return SEALED
        except (ValueError, TypeError):
            raise self._damaged(number) from None
        if "attest" in record:
            self.attested = True
            if self.foreign_from is None:
                self.foreign_from = (number, _whose(record, FORMAT))   # another installation went on
        if self.foreign_from is None:
            raise self._damaged(number)
        if found.format == 2 and not self.attested and record["check"] != unkeyed_check(previous, record):
            raise self._damaged(number)             # format 2's own chain: an accident
        if self.uncovered is None:
            self.uncovered = (number, self.foreign_from[1])
        return FOREIGN

    def _damaged(self, number: int) -> JournalError:
        return JournalError(f"the journal {self.name} line {number} is damaged (its checksum does "
                            f"not match: changed, moved, or from another journal); "
                            f"the file is left as it is")

    def _attest(self, number: int, record: dict, where: str) -> None:
        """This installation's word on the lines before (the module docstring)."""
        found, kind = self.found, record["attest"]
        if kind in ("trust", "verified"):
            if record.get("lines") != number - 1 or record.get("digest") != self.digest.hexdigest():
                raise JournalError(f"{where} is damaged (an attestation of lines that are not "
                                   f"the ones before it)")
            lifted = (FOREIGN,) if kind == "trust" else (FOREIGN, ON_TRUST)
            to = ON_TRUST if kind == "trust" else VERIFIED
            for standing in lifted:
                found.standing = found.standing.replace(bytes([standing]), bytes([to]))
            self.uncovered = None
        elif kind == "recomputed" and isinstance(record.get("statements"), list):
            for said in record["statements"]:
                try:
                    (pits, side), kind_said, bound = said
                    found.recomputed.add(((tuple(pits), side), kind_said, bound))
                except (TypeError, ValueError):
                    raise JournalError(f"{where}: a statement is {quote(said)}") from None
        else:
            raise JournalError(f"{where} is not an attestation: {quote(record)}")


def _whose(record: dict, version: int) -> str:
    if version == 2:
        return "format 2, before journals were sealed"
    if version == 1:
        return "format 1, with no checks"
    sealer = record.get("sealer")
    shown = sealer if isinstance(sealer, str) and re.fullmatch(r"[0-9a-f]{16}", sealer) else \
        quote(sealer, limit=40)
    return f"another installation's (key {shown})"


def scan(fd: int, name: str, board: Optional[Board], formats: Tuple[int, ...]) -> Records:
    """One pass over fd's journal; then the statements' closure (a contradiction
    through the moves names its line: located by further passes)."""
    found = _Reader(name, board, formats).read(lines_of(fd))
    problem = contradiction(found.ledger.known, lambda: statement_lines(fd, found), found.board)
    if problem is not None:
        raise JournalError(f"the journal {name} line {problem}")
    return found


def job_lines(fd: int, found: Records) -> Iterator[Tuple[dict, int]]:
    """A fresh pass over the job lines already read and checked: (job, its line).
    JournalError if the file changed under the lock."""
    digest = hashlib.blake2b(digest_size=32)
    for number, (offset, line, whole) in enumerate(lines_of(fd), start=1):
        if offset >= found.whole:
            break
        digest.update(line)
        if number == 1:
            continue
        record = json.loads(line)
        if "attest" in record or "claim" in record:
            continue
        yield parse_job(record, found.board, f"line {number}"), number
    if digest.hexdigest() != found.digest:
        raise JournalError("the journal changed while it was read (another program wrote it)")


def statement_lines(fd: int, found: Records) -> Iterator[Tuple[dict, int]]:
    return statements(job_lines(fd, found), found.board.capture)


def foreign_message(name: str, found: Records) -> str:
    line, whose = found.foreign
    where = "" if line == 1 else f" from line {line} on"
    return (f"the journal {name} is {whose}{where}: check it here with `python -m mancala solve "
            f"--verify-journal {name}` (which re-seals what it recomputes), or take it on trust with "
            f"--trust-journal; the file is left as it is")


__all__ = ["FORMAT", "FORMATS_READ", "KIND", "SEALED", "VERIFIED", "ON_TRUST", "FOREIGN", "STANDING",
           "Statement", "Records", "canonical", "line_check", "unkeyed_check", "journal_header", "sealed",
           "statement", "lines_of", "scan", "job_lines", "statement_lines", "foreign_message"]
