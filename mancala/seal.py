"""This installation's seal: what it wrote, or checked in full, it can tell from anything else.

The trust model (docs/cluster.md, "What a result rests on"): a proof's inputs
(a cluster solve's journal, an endgame database's levels) are trusted when
this installation wrote them or recomputed them in full; anything else is
checked before a result rests on it, or taken on trust by the person's
explicit choice and said so beside every number it decides.

The seal is a keyed BLAKE2b: a secret key of 32 random bytes, created once in
the data folder (``seal.key``, mode 0600, never overwritten) and a keyed hash
over what is sealed, personalised by purpose, so a journal line's seal is no
level's. Without the key nobody can make a seal that :func:`holds`; a file
from another machine carries another key's seals (its ``key_id``, a public
fingerprint, says whose) and is treated as foreign.

What the seal does not do: keep out someone who can read this user's files
(they can read the key too). It tells what this installation made from what
was brought to it.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path
from typing import Dict, Tuple

from mancala.errors import SealError
from mancala.storage import data_dir, shown_path

KEY_NAME = "seal.key"
KEY_BYTES = 32
DIGEST_BYTES = 16
_ID_PERSON = b"mancala key id"

_keys: Dict[Path, Tuple[bytes, str]] = {}     # a key file's key and id, read once a process


def key_path() -> Path:
    """Where this installation's key is kept: ``seal.key`` in the data folder."""
    return data_dir() / KEY_NAME


def _load(path: Path) -> bytes:
    """The key in path, created first if there is none (by whichever process
    gets there first: it is written whole under another name, then linked into
    place, which fails if another process linked first). SealError, one line,
    for a key file that is not one."""
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{KEY_NAME}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)            # never over a key already there
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
    except OSError as exc:
        raise SealError(f"cannot create this installation's key {shown_path(path)}: "
                        f"{exc.strerror or exc}") from None
    return _read(path)


def _read(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise SealError(f"cannot read this installation's key {shown_path(path)}: "
                        f"{exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SealError(f"this installation's key {shown_path(path)} is not a regular file")
        if info.st_mode & 0o077:
            raise SealError(f"this installation's key {shown_path(path)} may be read by others "
                            f"(mode {stat.S_IMODE(info.st_mode):04o}); make it 0600 or remove it")
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(key) != KEY_BYTES:
        raise SealError(f"this installation's key {shown_path(path)} is not a key "
                        f"({len(key)} bytes, not {KEY_BYTES}); remove it to make a new one "
                        f"(what the old one sealed is then foreign)")
    return key


def _key() -> Tuple[bytes, str]:
    path = key_path()
    if path not in _keys:
        key = _load(path)
        _keys[path] = key, hashlib.blake2b(key, digest_size=8, person=_ID_PERSON).hexdigest()
    return _keys[path]


def key_id() -> str:
    """This installation's key's public fingerprint (16 hex digits): what a
    sealed file names as its sealer, so a foreign one is told apart."""
    return _key()[1]


def seal(purpose: bytes, *parts: bytes) -> str:
    """The seal (32 hex digits) of parts, for purpose (at most 16 bytes)."""
    digest = hashlib.blake2b(digest_size=DIGEST_BYTES, key=_key()[0], person=purpose)
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def holds(tag: object, purpose: bytes, *parts: bytes) -> bool:
    """Whether tag is this installation's seal of parts for purpose."""
    return isinstance(tag, str) and hmac.compare_digest(tag, seal(purpose, *parts))


__all__ = ["seal", "holds", "key_id", "key_path", "SealError", "KEY_NAME"]
