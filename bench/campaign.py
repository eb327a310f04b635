"""The Kalah(6,6) campaign: a proof that outlives any one run.

    python bench/campaign.py run [--hash-mb MB] [--endgame N]    # resume it, at nice 19, till stopped
    python bench/campaign.py save                                 # its journal into the repository (xz)
    python bench/campaign.py status [--json]                      # how far it got

The first question is the published pit-6 one (Rawlings, 2015: South's pit 6
first is worth at most -2 for South): after pit 6, is North's value (North to
move) at least +2? It is asked as a cluster solve on this machine
(``--cluster local:2``) with the largest endgame database cached, journaled.
The journal lives in the data folder while it runs
(``<data>/campaign/k66-pit6.jsonl``) and is kept in the repository compressed
(``campaign/k66-pit6.jsonl.xz``): ``run`` starts from the repository's copy
when it holds more than the working one (another machine's run, committed), and
``save`` writes the working one back (atomically). A journal from another
installation is foreign here (its seals are another key's): ``run`` takes it
on trust (``--trust-journal``: every answer then says how many of the lines it
rests on were taken on trust) and ``status`` says how many lines are which;
``python -m mancala solve --verify-journal`` on the working copy recomputes a
share of them (``--sample``) and re-seals what held.

``run`` is meant to run at ``nice 19`` while nothing is being measured, and
to be stopped (Ctrl-C, SIGTERM) whenever something is: the journal keeps
every finished job, and the next ``run`` asks none of them again.
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KEPT = REPO / "campaign" / "k66-pit6.jsonl.xz"
QUESTION = ["--seeds", "6", "--moves", "6", "--at-least", "2"]


def working() -> Path:
    from mancala.storage import data_dir
    return data_dir() / "campaign" / "k66-pit6.jsonl"


def _lines(data: bytes) -> int:
    return data.count(b"\n")


def run(args) -> int:
    path = working()
    path.parent.mkdir(parents=True, exist_ok=True)
    here = path.read_bytes() if path.exists() else b""
    kept = lzma.decompress(KEPT.read_bytes()) if KEPT.exists() else b""
    if _lines(kept) > _lines(here):
        if here and not kept.startswith(here[:here.rfind(b"\n") + 1]):
            print(f"campaign: the repository's journal and {path} differ; keeping {path}", file=sys.stderr)
        else:
            path.write_bytes(kept)
            print(f"campaign: resumed from the repository's journal ({_lines(kept):,} lines)", file=sys.stderr)
    command = ["nice", "-n", "19", sys.executable, "-m", "mancala", "solve", *QUESTION,
               "--cluster", "local:2", "--journal", str(path), "--trust-journal", "--json",
               "--hash-mb", str(args.hash_mb), "--job-nodes", str(args.job_nodes)]
    if args.endgame is not None:
        command += ["--endgame", str(args.endgame)]
    print("campaign: " + " ".join(command), file=sys.stderr, flush=True)
    return subprocess.call(command)


def save(args) -> int:
    path = working()
    if not path.exists():
        print(f"campaign: no journal at {path}", file=sys.stderr)
        return 2
    data = path.read_bytes()
    data = data[:data.rfind(b"\n") + 1]                 # whole lines only
    KEPT.parent.mkdir(parents=True, exist_ok=True)
    temporary = KEPT.with_name(KEPT.name + ".tmp")
    temporary.write_bytes(lzma.compress(data, preset=9))
    os.replace(temporary, KEPT)
    print(f"campaign: {KEPT.relative_to(REPO)}: {_lines(data):,} lines, {len(data):,} bytes "
          f"({KEPT.stat().st_size:,} compressed)")
    return 0


def status(args) -> int:
    """What the journal holds: jobs, nodes, what they settled, which lines are whose."""
    from mancala.cluster.closure import bounds_of
    from mancala.cluster.journal import Journal
    from mancala.cluster.journal_lines import STANDING
    from mancala.cluster.tree import unpack
    path = working()
    source = path
    if not path.exists() and KEPT.exists():
        path = Path(os.environ.get("TMPDIR", "/tmp")) / "k66-pit6-status.jsonl"
        path.write_bytes(lzma.decompress(KEPT.read_bytes()))
        source = KEPT
    with Journal(path, None, create=False, foreign="keep", write=False) as journal:
        found = journal.records
        jobs = list(journal.jobs())
    settled = sum(job["bound"] is not None for job in jobs)
    root = min((job for job in jobs), key=lambda j: j["depth"], default=None)
    bounds = {}
    for packed, entry in found.ledger.known.items():
        lo, hi = bounds_of(entry)
        seeds = sum(packed[:12])
        if lo > -seeds or hi < seeds:
            bounds[packed] = (lo, hi)
    depth_of = {}
    for job in jobs:
        depth_of.setdefault(job["key"], job["depth"])
    shallow = sorted(((depth_of.get(unpack(p), 99), p, b) for p, b in bounds.items()))[:8]
    report = {"journal": str(source), "lines": found.lines, "jobs": found.jobs,
              "jobs_settled": settled, "nodes": found.nodes,
              "standing": {STANDING[c]: found.count(c) for c in STANDING},
              "claims": [claim for _, claim in found.claims],
              "positions": len(found.ledger.known), "positions_bounded": len(bounds),
              "shallowest_bounds": [{"depth": d, "pits": list(unpack(p)[0]), "to_move": unpack(p)[1],
                                     "lower": b[0], "upper": b[1]} for d, p, b in shallow],
              "root_depth_job": root is not None}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{source}: {report['lines']:,} lines, {report['jobs']:,} jobs ({settled:,} settled a bound), "
          f"{report['nodes']:,} nodes; {report['positions']:,} positions, {len(bounds):,} with a bound")
    print("standing: " + ", ".join(f"{n:,} {name}" for name, n in report["standing"].items() if n))
    for row in report["shallowest_bounds"]:
        print(f"  depth {row['depth']}: pits {','.join(map(str, row['pits']))} "
              f"({'South' if row['to_move'] == 0 else 'North'} to move): "
              f"{row['lower']:+d}..{row['upper']:+d}")
    for claim in report["claims"]:
        print(f"claim: {claim}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="resume the campaign at nice 19 till stopped")
    r.add_argument("--hash-mb", type=int, default=1024, help="each worker's table")
    r.add_argument("--job-nodes", type=int, default=20_000_000, help="a job's node budget")
    r.add_argument("--endgame", type=int, default=None, help="the database's seeds (default: the largest cached)")
    sub.add_parser("save", help="the working journal into the repository, compressed")
    s = sub.add_parser("status", help="how far the campaign got")
    s.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    return {"run": run, "save": save, "status": status}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
