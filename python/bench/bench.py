"""Benchmarks of the Python package (issue 11's targets), run from the repository root:

    python python/bench/bench.py [--replica FILE] [--fleet-copies N] [--runs N]

1. ``ftl.frames`` on the 92 MB FrameTimeline-dense replica of the Pixel 7 Pro trace against the release CLI's
   ``ftl frames FILE --format parquet -o OUT`` on the same file (best of ``--runs``, page cache warm). Target:
   Python ≤ 1.2 × CLI. The replica is the throughput bench's (``cargo bench --bench throughput -- pixel7pro``
   builds it under target/bench-data/ with ``ftl::synth::replicate``).
2. ``ftl.dask.triage`` of a fleet (``--fleet-copies`` copies of the real traces, Parquet output) on a
   ``LocalCluster`` of 2 worker processes against 1 (one thread each, ``POLARS_MAX_THREADS=1``). Target: 2 workers ≥ 1.6 × faster.

The CLI is ``$FTL_BIN`` or ``target/release/ftl`` (``cargo build --release``). Machines shared with other work
give noisy figures: every run is printed, the best is compared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ftl

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
# One thread per worker: polars' pool (the Parquet writer) would otherwise take the other core too.
ONE_THREAD = {"POLARS_MAX_THREADS": "1"}
REPLICA_GLOB = "pixel7pro_a13_nowinandroid_launch_120hz_x112*.pftrace"


def best(label: str, runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    print(f"  {label}: " + ", ".join(f"{t:.3f}" for t in times) + f" s (best {min(times):.3f})", flush=True)
    return min(times)


def frames_bench(replica: Path, cli: Path, runs: int) -> None:
    size = replica.stat().st_size / 1e6
    print(f"ftl.frames vs `ftl frames --format parquet` on {replica.name} ({size:.0f} MB)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "frames.parquet"
        rows = ftl.frames(replica).height  # warm the page cache
        cli_s = best("cli   ", runs, lambda: subprocess.run(
            [cli, "frames", replica, "--format", "parquet", "-o", out], check=True))
        py_s = best("python", runs, lambda: ftl.frames(replica))
    print(f"  {rows} rows; python / cli = {py_s / cli_s:.2f} (target ≤ 1.2); "
          f"python {size / py_s:.0f} MB/s, cli {size / cli_s:.0f} MB/s")


def dask_bench(copies: int, runs: int) -> None:
    import distributed
    import ftl.dask

    with tempfile.TemporaryDirectory() as tmp:
        fleet = Path(tmp) / "fleet"
        fleet.mkdir()
        traces = sorted((SHARED / "traces").glob("*trace"))
        for i in range(copies):
            for t in traces:
                shutil.copy(t, fleet / f"{i:03}_{t.name}")
        total = sum(p.stat().st_size for p in fleet.iterdir()) / 1e6
        print(f"ftl.dask.triage of {copies * len(traces)} traces ({total:.0f} MB), Parquet output")
        result = {}
        for workers in (1, 2):
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                          dashboard_address=None, env=ONE_THREAD) as cluster, \
                    distributed.Client(cluster) as c:
                ftl.dask.triage([fleet], Path(tmp) / "out", client=c)  # workers import ftl once
                result[workers] = best(f"{workers} worker(s)", runs,
                                       lambda: ftl.dask.triage([fleet], Path(tmp) / "out", client=c))
        print(f"  speed-up 2 workers / 1 = {result[1] / result[2]:.2f} (target ≥ 1.6)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replica", type=Path, help="the FrameTimeline-dense replica (default: target/bench-data)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--fleet-copies", type=int, default=20)
    parser.add_argument("--only", choices=["frames", "dask"])
    args = parser.parse_args()
    cli = Path(os.environ.get("FTL_BIN", ROOT / "target" / "release" / "ftl"))
    if args.only != "dask":
        replica = args.replica or next(iter(sorted((ROOT / "target" / "bench-data").glob(REPLICA_GLOB))), None)
        if replica is None or not cli.exists():
            sys.exit("needs target/release/ftl (cargo build --release) and the replica "
                     "(cargo bench --bench throughput -- pixel7pro), or --replica FILE and FTL_BIN")
        frames_bench(replica, cli, args.runs)
    if args.only != "frames":
        dask_bench(args.fleet_copies, args.runs)


if __name__ == "__main__":
    main()
