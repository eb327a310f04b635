"""What ``endgame export`` costs: peak memory, rows a second and the file's size
(issue 41, section 4: a 24-seed export in well under 1 GB).

    python bench/export_memory.py --seeds 24 [--capture standard] [--cache DIR] [--json]

Runs ``python -m mancala endgame export`` on the cached database (build it
first: ``python -m mancala endgame build --seeds 24``, 1.25 GB) into a
temporary folder, removed after, as a separate process, and reads its memory
from the kernel: the peak resident size (``ru_maxrss`` of the child) and,
sampled every 50 ms from ``/proc/PID/status``, the largest anonymous part
(the export's own: batches, pyarrow's buffers) and file-mapped part (the
levels' pages, shared with the page cache and let go after each batch). One
heavy process: run it on a quiet machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

LIMIT = 1 << 30     # the bound on the peak


def status_kb(pid: int) -> dict:
    """The memory lines of /proc/PID/status, in kB (empty once the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            return {key: int(rest.split()[0]) for key, _, rest in (line.partition(":") for line in status)
                    if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem")}
    except (OSError, ValueError, IndexError):
        return {}


def measure(seeds: int, capture: str, cache: str = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="export-memory-") as folder:
        target = Path(folder) / "positions.parquet"
        command = [sys.executable, "-m", "mancala", "endgame", "export", "--seeds", str(seeds),
                   "--capture", capture, str(target)] + (["--cache", cache] if cache else [])
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        peaks = {"RssAnon": 0, "RssFile": 0}
        finished = threading.Event()

        def sample() -> None:
            while not finished.wait(0.05):
                for key, value in status_kb(process.pid).items():
                    if key in peaks:
                        peaks[key] = max(peaks[key], value)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        errors = []
        reader = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
        reader.start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        finished.set()
        sampler.join()
        reader.join()
        process.returncode = os.waitstatus_to_exitcode(status)
        out = process.stdout.read()
        if process.returncode != 0:
            last = errors[0].strip().splitlines()[-1] if errors and errors[0].strip() else "no message"
            raise SystemExit(f"export_memory: the export failed ({process.returncode}): {last}")
        size = target.stat().st_size
    from math import comb
    rows = comb(seeds + 12, 12)
    return {"seeds": seeds, "capture": capture, "rows": rows, "seconds": round(seconds, 1),
            "rows_per_second": round(rows / seconds), "file_bytes": size,
            "peak_rss_bytes": usage.ru_maxrss * 1024, "peak_anonymous_bytes": peaks["RssAnon"] * 1024,
            "peak_file_mapped_bytes": peaks["RssFile"] * 1024, "said": out.strip()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=24)
    parser.add_argument("--capture", default="standard")
    parser.add_argument("--cache", default=None, help="the cache folder (default: the usual one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.seeds, args.capture, args.cache)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    mb = lambda key: f"{result[key] / 1e6:,.0f} MB"
    print(f"endgame export --seeds {args.seeds} --capture {args.capture}: {result['rows']:,} rows in "
          f"{result['seconds']} s ({result['rows_per_second'] / 1e6:.2f} M rows/s), file "
          f"{result['file_bytes'] / 1e9:.2f} GB")
    print(f"peak RSS {mb('peak_rss_bytes')} (sampled peaks: anonymous {mb('peak_anonymous_bytes')}, "
          f"file-mapped {mb('peak_file_mapped_bytes')}); "
          + ("under" if result["peak_rss_bytes"] < LIMIT else "OVER") + " 1 GiB")
    return 0 if result["peak_rss_bytes"] < LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
