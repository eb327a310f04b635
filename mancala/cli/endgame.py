"""``python -m mancala endgame build|list|verify|export|remove``: the endgame databases' level files."""
from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Optional

from mancala import endgame
from mancala._system import reason
from mancala.board import CAPTURE_RULES
from mancala.cli import options
from mancala.cli.format import duration
from mancala.cli.signals import stop_signals
from mancala.cluster import joined, parse_address
from mancala.cluster.build import ClusterLevels
from mancala.endgame import export, files
from mancala.endgame.building import BuildLock, BuildProgress, build_levels, gigabytes
from mancala.endgame.verifying import deep_verify
from mancala.errors import CommandError, EndgameFileError, EndgameMissingError
from mancala.limits import MAX_ENDGAME_SEEDS

BAR = 24    # characters of the progress bar


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "endgame", help="build, list, verify or remove endgame databases",
        description="Endgame databases hold the perfect-play value of every position with at "
                    "most N seeds in the pits, as level files (level n: exactly n seeds) in the "
                    "cache folder; solve and the computer players use the largest one cached. "
                    "A build adds the missing levels and resumes where a stopped one ended.")
    sub_commands = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--cache", type=Path, default=None, metavar="DIR",
                       help=f"the cache folder (default: $MANCALA_CACHE, else {files.cache_dir()})")

    b = sub_commands.add_parser("build", help="build levels 0..N (those missing)",
                                description="Build levels 0..N of a rule's database: the ones "
                                            "missing or refused, from the lowest up. Disk and "
                                            "memory are checked first.")
    b.add_argument("--seeds", type=options.endgame_seeds, required=True, metavar="N",
                   help=f"the database covers positions with at most N seeds in the pits "
                        f"(0..{MAX_ENDGAME_SEEDS})")
    b.add_argument("--capture", choices=CAPTURE_RULES, default="standard")
    b.add_argument("--threads", type=options.threads, default=os.cpu_count() or 1, metavar="N",
                   help="threads building each level (default: the machine's cores)")
    b.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="build each level as tasks on a Ray cluster: local[:N] (a runtime on this "
                        "machine, N CPUs), auto (the cluster `ray start` made here) or "
                        "ray://HOST:PORT; --cache must be storage every node sees (extra: cluster)")
    common(b)
    b.set_defaults(run=run_build)

    ls = sub_commands.add_parser("list", help="the levels cached, by rule",
                                 description="The level files of each rule: which levels, their "
                                             "size, where (not checked: see verify).")
    ls.add_argument("--json", action="store_true", help="print one JSON document")
    common(ls)
    ls.set_defaults(run=run_list)

    v = sub_commands.add_parser("verify", help="check every level file",
                                description="Read every level file whole and check it (header, "
                                            "size, each value's range, checksum, this "
                                            "installation's seal); a file that fails is set aside "
                                            "as *.refused, one without the seal is reported as not "
                                            "trusted. With --deep, also build each level again "
                                            "from the levels below it and compare byte for byte: "
                                            "a level found right is sealed (then used), one found "
                                            "wrong is set aside.")
    v.add_argument("--capture", choices=CAPTURE_RULES, default=None,
                   help="only this rule (default: all)")
    v.add_argument("--deep", action="store_true",
                   help="rebuild each level from the levels below and compare: catches a level "
                        "forged with its checksums recomputed, and seals levels brought from "
                        "elsewhere that it finds right (seconds for 22 seeds, minutes for 30)")
    v.add_argument("--seeds", type=options.endgame_seeds, default=None, metavar="N",
                   help="with --deep: levels 0..N (default: every level of the database cached)")
    v.add_argument("--threads", type=options.threads, default=os.cpu_count() or 1, metavar="N",
                   help="with --deep: threads rebuilding each level (default: the machine's cores)")
    v.add_argument("--json", action="store_true", help="print one JSON document")
    common(v)
    v.set_defaults(run=run_verify)

    x = sub_commands.add_parser(
        "export", help="write every position with its value and best moves (Parquet)",
        description="Write every position of the cached database with at most N seeds in the "
                    "pits, with its perfect-play value and best moves, to FILE as Apache Parquet "
                    "(a dataset for learning; docs/environments.md has its columns). Only levels "
                    "sealed by this installation are read. Needs the export extra (pyarrow): "
                    "pip install 'kalah[export]'.")
    x.add_argument("--seeds", type=options.endgame_seeds, required=True, metavar="N",
                   help="the positions with at most N seeds in the pits (levels 0..N, cached)")
    x.add_argument("--capture", choices=CAPTURE_RULES, default="standard")
    x.add_argument("file", type=Path, metavar="FILE", help="the Parquet file to write (replaced)")
    common(x)
    x.set_defaults(run=run_export)

    r = sub_commands.add_parser("remove", help="remove a rule's level files",
                                description="Remove the level files of a rule (all, or those "
                                            "above --keep N). Processes using them go on.")
    r.add_argument("--capture", choices=CAPTURE_RULES, required=True)
    r.add_argument("--keep", type=options.endgame_seeds, default=None, metavar="N",
                   help="keep levels 0..N (default: remove them all)")
    common(r)
    r.set_defaults(run=run_remove)


def say(text: str, end: str = "\n") -> None:
    print(text, file=sys.stderr, end=end, flush=True)


class Bar:
    """Build progress on stderr: a bar redrawn in place on a terminal, a line a level elsewhere."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.shown = -1.0
        self.level = -1

    def __call__(self, p: BuildProgress) -> None:
        now = time.monotonic()
        finished = p.done >= p.total
        if finished and p.level == self.level:
            return                  # said already
        if not finished and (not self.tty or now - self.shown < 0.2):
            return
        self.shown = now
        if finished:
            self.level = p.level
        share = p.all_done / p.all_total if p.all_total else 1.0
        filled = int(BAR * share)
        left = p.left
        text = (f"level {p.level:2d} of 0..{p.top} [{'#' * filled}{'-' * (BAR - filled)}] "
                f"{share:4.0%}  {p.rate / 1e6:6.1f} M positions/s  "
                f"{duration(left) + ' left' if left is not None and not finished else duration(p.seconds)}")
        if self.tty:
            say("\r" + text, end="\n" if finished and p.level == p.top else "")
        else:
            say(text)


def run_build(args: argparse.Namespace) -> int:
    directory = files.rule_dir(args.capture, args.cache)
    start = time.perf_counter()
    settings = dict(threads=args.threads, root=args.cache, progress=Bar(),
                    waiting=lambda pid: say(f"waiting for the build in process {pid} "
                                            f"(it holds {directory / '.build.lock'})"))
    whole = f"levels 0..{args.seeds} were built"
    with stop_signals() as stops:       # a stop once the levels are built only waits (see signals)
        try:
            if args.cluster is None:
                built = build_levels(args.capture, args.seeds, **settings)
            else:
                address = parse_address(args.cluster)       # '' too: one line, before any work
                with joined(address, "building", say) as cpus:
                    settings["progress"] = stops.watching(settings["progress"])
                    built = build_levels(args.capture, args.seeds,
                                         maker=ClusterLevels(cpus, top=args.seeds), **settings)
                    stops.settle(whole)                     # before the runtime's shutdown
        except OSError as exc:
            raise CommandError(f"cannot build the {args.capture} database: "
                               f"{_trouble(exc, directory)}") from None
        stops.settle(whole)
        seconds = time.perf_counter() - start
        size = sum(os.path.getsize(files.level_path(args.capture, n, args.cache))
                   for n in range(args.seeds + 1))
        if built:
            made = sum(endgame._core.egdb_level_size(n) for n in built)
            say(f"built level{'s' if len(built) > 1 else ''} "
                f"{built[0] if len(built) == 1 else f'{built[0]}..{built[-1]}'} in "
                f"{duration(seconds)} ({made / seconds / 1e6:.1f} M positions/s)")
        print(f"{args.capture} database: levels 0..{args.seeds}, {gigabytes(size)}, in {directory}")
    return 0


def _trouble(exc: OSError, directory: Path) -> str:
    """What an OSError of a build means, with the path it concerns (a write that
    found the disk full names none: the rule's folder)."""
    path = exc.filename or directory
    if exc.errno == errno.EISDIR:
        return f"{path} is a folder, not a file"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) and os.path.lexists(path) and not os.path.isdir(path):
        return f"{path} is a file, not a folder"
    return f"{reason(exc)}: {path}"


def describe(capture: str, root: Optional[Path]) -> dict:
    """What the cache holds for a rule (unchecked): levels, the database they make, bytes."""
    present = files.levels_on_disk(capture, root)
    top = -1
    while top + 1 in present:
        top += 1
    sizes = {}
    for n in present:
        try:
            sizes[n] = os.path.getsize(files.level_path(capture, n, root))
        except OSError:
            pass
    legacy = [path.name for _, path in files.legacy_files(capture, root)]
    return {"capture": capture, "path": str(files.rule_dir(capture, root)), "levels": present,
            "max_seeds": top if top >= 0 else None, "bytes": sum(sizes.values()),
            "legacy_files": legacy}


def run_list(args: argparse.Namespace) -> int:
    rules = [describe(capture, args.cache) for capture in CAPTURE_RULES]
    if args.json:
        print(json.dumps(rules, indent=2))
        return 0
    for rule in rules:
        levels = rule["levels"]
        if not levels and not rule["legacy_files"]:
            print(f"{rule['capture']:8}  none")
            continue
        shown = _ranges(levels) if levels else "no levels"
        whole = (f"a database of {rule['max_seeds']} seeds" if rule["max_seeds"] is not None
                 else "no database (level 0 missing)")
        print(f"{rule['capture']:8}  levels {shown}: {whole}, {gigabytes(rule['bytes'])}, "
              f"in {rule['path']}"
              + (f"; format-1 files to convert: {', '.join(rule['legacy_files'])}"
                 if rule["legacy_files"] else ""))
    return 0


_ranges = files.ranges


def run_verify(args: argparse.Namespace) -> int:
    if args.deep:
        return run_deep_verify(args)
    if args.seeds is not None:
        raise CommandError("--seeds goes with --deep")
    report, bad = [], 0
    for capture in ([args.capture] if args.capture else CAPTURE_RULES):
        endgame.convert_legacy(capture, args.cache)
        on_disk = files.levels_on_disk(capture, args.cache)
        for n in on_disk:
            entry = {"capture": capture, "level": n, "ok": False, "trusted": False, "error": None}
            try:
                level = files.open_level(capture, n, args.cache, require_seal=False)
            except EndgameMissingError:
                continue
            except EndgameFileError as exc:
                entry["error"] = str(exc)
            else:
                level.close()
                entry["ok"], entry["trusted"] = True, level.trust is None
                if level.trust is not None:
                    entry["error"] = (f"not sealed by this installation ({level.trust}): "
                                      f"{files.advice(capture, on_disk[-1], args.cache)}")
            bad += not entry["trusted"]
            report.append(entry)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for entry in report:
            print(f"{entry['capture']:8}  level {entry['level']:2d}  "
                  + ("ok" if entry["trusted"] else
                     f"NOT TRUSTED: {entry['error']}" if entry["ok"] else f"REFUSED: {entry['error']}"))
        if not report:
            print("no level files")
    return 1 if bad else 0


def run_deep_verify(args: argparse.Namespace) -> int:
    rules = [args.capture] if args.capture else list(CAPTURE_RULES)
    report = []

    def show(verdict) -> None:
        report.append(verdict)
        if args.json:
            return
        where = f"{verdict.capture:8}  level {verdict.level:2d}  "
        if verdict.error is not None and verdict.error.startswith("not checked"):
            if verdict.level == top:        # the levels above a bad one: one line for them all
                first = next(v.level for v in report if v.capture == verdict.capture
                             and v.error == verdict.error)
                print(f"{verdict.capture:8}  level{'s' if first < top else ''} "
                      f"{first if first == top else f'{first}..{top}'}  {verdict.error}", flush=True)
        elif verdict.ok:
            print(f"{where}ok, rebuilt and identical ({duration(verdict.seconds)})"
                  + ("; sealed" if verdict.sealed else
                     f"; NOT SEALED (it cannot be used): {verdict.unsealed}"), flush=True)
        elif verdict.error is not None:
            print(f"{where}{verdict.error}", flush=True)
        else:
            print(f"{where}DIFFERS: position {verdict.index:,} (pits "
                  f"{','.join(map(str, verdict.position))}, the mover's first) holds "
                  f"{verdict.file_value:+d}, rebuilt {verdict.value:+d}; set aside "
                  f"({verdict.set_aside}), never to be used: build it again with "
                  f"`{files.commands(verdict.capture, top, args.cache)[1]}`", flush=True)

    def progress(level: int, done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            say(f"\rlevel {level:2d}: {done / total:4.0%}", end="")

    for capture in rules:
        endgame.convert_legacy(capture, args.cache)
        top = args.seeds if args.seeds is not None else (
            endgame.cached_seeds(capture, args.cache)
            if 0 in files.levels_on_disk(capture, args.cache) else None)
        if top is None or (args.capture is None and 0 not in files.levels_on_disk(capture, args.cache)):
            if args.capture:
                raise CommandError(f"no {capture} levels in {files.rule_dir(capture, args.cache)}")
            continue
        deep_verify(capture, top, args.cache, args.threads, progress=progress, done=show)
    if args.json:
        print(json.dumps([v.as_json() for v in report], indent=2))
    elif not report:
        print("no level files")
    return 0 if all(v.ok and v.sealed for v in report) else 1


def run_export(args: argparse.Namespace) -> int:
    hint = export.pyarrow_missing()
    if hint is not None:
        raise CommandError(hint)
    export.check_target(args.file)
    directory = files.rule_dir(args.capture, args.cache)
    endgame.convert_legacy(args.capture, args.cache)
    if 0 not in files.levels_on_disk(args.capture, args.cache):
        raise CommandError(f"no {args.capture} database is cached in {directory}: "
                           f"`{files.commands(args.capture, args.seeds, args.cache)[1]}` builds one")
    cached = endgame.cached_seeds(args.capture, args.cache)
    if args.seeds > cached:
        raise CommandError(f"the {args.capture} database cached in {directory} has levels 0..{cached}, "
                           f"not 0..{args.seeds}: "
                           f"`{files.commands(args.capture, args.seeds, args.cache)[1]}` builds the rest")
    database = endgame.load(args.capture, args.seeds, args.cache)
    report = export.export(args.file, args.seeds, args.capture, database=database, progress=Bar())
    print(f"{report.rows:,} {args.capture} positions (levels 0..{args.seeds}) in {args.file}, "
          f"{gigabytes(report.bytes)}, in {duration(report.seconds)} "
          f"({report.rate / 1e6:.1f} M positions/s)")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    directory = files.rule_dir(args.capture, args.cache)
    if not directory.is_dir():
        print(f"{args.capture}: no level files in {directory}")
        return 0
    with BuildLock(directory, waiting=lambda pid: say(f"waiting for the build in process {pid}")):
        doomed = [n for n in files.levels_on_disk(args.capture, args.cache)
                  if args.keep is None or n > args.keep]
        for n in doomed:
            path = files.level_path(args.capture, n, args.cache)
            os.unlink(path)
            try:
                os.unlink(files.seal_path(path))
            except FileNotFoundError:
                pass
    if args.keep is None:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{args.capture}: removed "
          + (f"levels {_ranges(doomed)}" if doomed else "nothing") + f" from {directory}")
    return 0
