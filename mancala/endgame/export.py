"""A database's positions as an Apache Parquet file: every position with at
most N seeds in the pits, its perfect-play value and its best moves
(``python -m mancala endgame export``), for training on exact labels.

Written through pyarrow, the ``export`` extra (imported only here, when a file
is written). The rows are :func:`mancala.endgame.iter_positions`'s, in
its order (level by level, by rank), a row group a batch, each written as the
next is computed on another thread: memory stays bounded (tens of MB) however
large the database. The file is written beside its name and renamed into
place when whole, so a stopped export leaves nothing behind.

Its schema (each field's ``description`` in its metadata too):

    seeds        uint8   seeds in the pits (the level)
    slot_0..5    uint8   the side to move's pits 0..5, from its left
    slot_7..12   uint8   the opponent's pits 0..5, from its left
    value        int8    the final margin for the side to move, under perfect play
    best_moves   uint8   bit p set: pit index p keeps that value (0: the game is over)

The slots are a board's as the project numbers them with South to move, the
stores (slots 6 and 13) left out: they are empty in the database, and a value
for the same pits with seeds stored is this one plus the store difference.
The schema's metadata, key ``mancala``, is a JSON document: the capture rule,
N, the rows, the columns' descriptions, and the database read: each level's
positions and header checksum, and whose seal vouched for them.
"""
from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, Optional

from mancala import _core, endgame, seal
from mancala._system import refuse_special, write_atomically
from mancala._version import __version__
from mancala.board import capture_code
from mancala.endgame.building import BuildProgress
from mancala.endgame.files import HEADER
from mancala.endgame.rows import DEFAULT_BATCH, ROW_SLOTS, PositionBatch

FORMAT = "mancala endgame positions"
FORMAT_VERSION = 1
INSTALL_HINT = ("the export writes Parquet through pyarrow, its extra: pip install 'kalah[export]' "
                "(or -e '.[export]')")
COLUMNS: Dict[str, str] = {
    "seeds": "seeds in the pits (the database's level); the stores are empty",
    **{f"slot_{s}": (f"the side to move's pit {s} (from its left); South is to move" if s < 6 else
                     f"the opponent's pit {s - 7} (from its left), slot {s} of the board")
       for s in ROW_SLOTS},
    "value": "the final margin for the side to move under perfect play (seeds, stores empty)",
    "best_moves": "the best moves as bits: bit p set when pit index p (0..5 from the mover's left) "
                  "keeps the value; 0 when the game is over (a row is empty)",
}

Progress = Callable[[BuildProgress], None]


def pyarrow_missing() -> Optional[str]:
    """None when pyarrow can be imported, else the line that says which extra to install."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:
        return f"{INSTALL_HINT} ({exc})"
    return None


def check_target(path: Path) -> None:
    """OSError (one line) if ``path`` cannot take the file: its folder missing,
    or something not a regular file there (a FIFO would block, a folder be
    replaced); asked before any work."""
    refuse_special(path)                        # NotARegularFile: "PATH: not a regular file"
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(None, f"no folder {folder} to write it in", str(path))


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""
    path: Path
    rows: int
    bytes: int
    seconds: float
    metadata: dict      #: the schema's ``mancala`` document

    @property
    def rate(self) -> float:
        """Rows a second."""
        return self.rows / self.seconds if self.seconds > 0 else 0.0


def database_metadata(database, seeds: int) -> dict:
    """The ``mancala`` document of an export of levels 0..seeds of ``database``."""
    levels = []
    for n in range(seeds + 1):
        if database.files:
            checksum = HEADER.unpack_from(database.files[n].head)[6]
        else:                           # built in memory: its checksum as a file would hold it
            hashes, _ = _core.egdb_check_level(database.levels[n], n)
            checksum = _core.egdb_fold(n, hashes)
        levels.append({"level": n, "positions": _core.egdb_level_size(n),
                       "checksum": f"{checksum:016x}"})
    sealed = (f"levels 0..{seeds} under this installation's seal (key {seal.key_id()})"
              if database.files else "built in memory by the exporting process, never written")
    return {"format": FORMAT, "version": FORMAT_VERSION, "mancala": __version__,
            "capture": database.capture, "max_seeds": seeds, "rows": _core.egdb_size(seeds),
            "order": "level by level (seeds 0..max_seeds), each by rank (csrc/egdb.h)",
            "columns": COLUMNS, "levels": levels, "trust": sealed}


def schema(pa, document: dict):
    """The Arrow schema of the file, the ``mancala`` document in its metadata."""
    kinds = {"value": pa.int8()}
    fields = [pa.field(name, kinds.get(name, pa.uint8()), nullable=False,
                       metadata={"description": text}) for name, text in COLUMNS.items()]
    return pa.schema(fields, metadata={"mancala": json.dumps(document)})


def record_batch(pa, made: PositionBatch, shape):
    """A batch's rows as an Arrow record batch, its arrays over the batch's own buffers."""
    rows = len(made)

    def column(kind, data):
        return pa.Array.from_buffers(kind, rows, [None, pa.py_buffer(data)])

    arrays = [pa.repeat(pa.scalar(made.seeds, pa.uint8()), rows)]
    arrays += [column(pa.uint8(), made.pit(k)) for k in range(len(ROW_SLOTS))]
    arrays += [column(pa.int8(), made.values), column(pa.uint8(), made.best)]
    return pa.RecordBatch.from_arrays(arrays, schema=shape)


def ahead(batches: Iterable[PositionBatch]) -> Iterator[PositionBatch]:
    """The batches, the next one made on another thread while the caller
    writes this one (the core lets go of the GIL; so does pyarrow)."""
    batches = iter(batches)
    with ThreadPoolExecutor(1, thread_name_prefix="mancala export") as pool:
        pending = pool.submit(next, batches, None)
        while True:
            made = pending.result()
            if made is None:
                return
            pending = pool.submit(next, batches, None)
            yield made


def export(path: "os.PathLike[str] | str", seeds: int, capture: str = "standard", *,
           root: Optional[Path] = None, database=None, batch: int = DEFAULT_BATCH,
           compression: str = "zstd", progress: Optional[Progress] = None) -> ExportReport:
    """Write every position of levels 0..seeds of the cached database of a
    rule (only levels under this installation's seal: :func:`mancala.endgame.load`
    and its errors), or of ``database``, to the Parquet file ``path``.

    ``progress(p)`` gets a :class:`~mancala.endgame.building.BuildProgress`
    after each batch (the level, and the positions written of it and of all).
    Raises ImportError (naming the extra) without pyarrow; OSError before any
    work if ``path`` cannot take the file (:func:`check_target`).
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ImportError(f"{INSTALL_HINT} ({exc})") from None
    path = Path(path)
    capture_code(capture)
    check_target(path)
    if database is None:
        database = endgame.load(capture, seeds, root)
    document = database_metadata(database, seeds)
    shape = schema(pa, document)
    total = document["rows"]
    start = time.perf_counter()

    def write(handle) -> int:
        mask = os.umask(0o022)
        os.umask(mask)
        os.fchmod(handle.fileno(), 0o666 & ~mask)   # a dataset to share: what open() would make
        done = 0
        with pq.ParquetWriter(handle, shape, compression=compression) as writer:
            for made in ahead(endgame.iter_positions(seeds, capture, batch, database=database)):
                writer.write_batch(record_batch(pa, made, shape))
                done += len(made)
                if progress is not None:
                    size = _core.egdb_level_size(made.seeds)
                    progress(BuildProgress(made.seeds, seeds, made.first + len(made), size, done,
                                           total, time.perf_counter() - start))
        return done

    rows = write_atomically(path, write, binary=True)
    return ExportReport(path, rows, os.path.getsize(path), time.perf_counter() - start, document)


__all__ = ["export", "ExportReport", "pyarrow_missing", "check_target", "database_metadata", "schema",
           "record_batch", "COLUMNS", "FORMAT", "FORMAT_VERSION", "INSTALL_HINT"]
