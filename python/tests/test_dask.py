"""ftl.dask.triage on a real Dask LocalCluster (2 worker processes, one thread each) against `ftl batch -o DIR
--format parquet` on the same inputs: the same triage table, the same Hive partitions, broken files as rows."""

from __future__ import annotations

import gzip
import random
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import ftl
from conftest import TEXT, TRACES
from test_api import assert_same_tree

distributed = pytest.importorskip("distributed")
import ftl.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def fleet(tmp_path) -> Path:
    """Real traces and captures, replicas of them under other names (one gzip-compressed, one in a
    subdirectory), and broken files: empty, random bytes behind a trace-like header, truncated before any
    FrameTimeline event, and a non-trace file that ftl batch skips."""
    d = tmp_path / "fleet"
    (d / "more").mkdir(parents=True)
    for p in TRACES + TEXT:
        shutil.copy(p, d / p.name)
    first = TRACES[0].read_bytes()
    (d / "replica_a.pftrace").write_bytes(first)
    (d / "replica_b.pftrace.gz").write_bytes(gzip.compress(TRACES[-1].read_bytes()))
    (d / "more" / TRACES[1].name).write_bytes(TRACES[1].read_bytes())
    (d / "empty.pftrace").write_bytes(b"")
    (d / "garbage.pftrace").write_bytes(b"\x0a\x10" + random.Random(3).randbytes(5000))
    (d / "truncated.pftrace").write_bytes(first[:700])
    (d / "notes.md").write_text("not a trace\n")
    return d


@pytest.mark.parametrize("by", ["trace", "layer"])
def test_dask_triage_equals_ftl_batch(client, fleet, tmp_path, run_cli, by):
    run_cli(
        "batch", fleet, "-r", "--by", by, "-o", tmp_path / "cli", "--format", "parquet", "-q", check=False
    )
    want = pl.read_parquet(tmp_path / "cli" / "triage.parquet")
    got = ftl.dask.triage([fleet], tmp_path / "dask", client=client, recursive=True, by=by)
    assert_frame_equal(got, want, check_exact=True)
    assert_frame_equal(pl.read_parquet(tmp_path / "dask" / "triage.parquet"), want, check_exact=True)
    assert_same_tree(tmp_path / "cli", tmp_path / "dask")
    failed = got.filter(pl.col("status") != "ok")
    assert sorted(Path(p).name for p in failed["path"]) == ["empty.pftrace", "garbage.pftrace", "truncated.pftrace"]
    assert all(Path(p).name in s for p, s in zip(failed["path"], failed["status"]))
    assert "notes.md" not in " ".join(got["path"])
    # Every input analysed on a worker, both workers used.
    assert len(client.scheduler_info()["workers"]) == 2


def test_dask_triage_of_named_files_and_file_urls(client, fleet, tmp_path, run_cli):
    junk = fleet / "junk.bin"
    junk.write_bytes(random.Random(5).randbytes(3000))  # named directly: analysed, fails as a row
    paths = [fleet / TRACES[0].name, junk, fleet / "empty.pftrace"]
    run_cli("batch", *paths, "-o", tmp_path / "cli", "--format", "parquet", "-q", check=False)
    got = ftl.dask.triage(
        [f"file://{p}" for p in paths], f"file://{tmp_path / 'dask'}", client=client
    )
    assert_frame_equal(got, pl.read_parquet(tmp_path / "cli" / "triage.parquet"), check_exact=True)
    assert_same_tree(tmp_path / "cli", tmp_path / "dask")
    assert got["status"].to_list().count("ok") == 1


def test_dask_triage_of_an_object_store_listing(fleet, tmp_path, run_cli):
    """fsspec URLs (here the in-memory file system, so an in-process cluster): listed, fetched by the workers,
    partitions put back; the rows equal those of ftl batch on the local copy, with the URLs as paths."""
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    for p in sorted(fleet.iterdir()):
        if p.is_file():
            fs.pipe(f"/bucket/fleet/{p.name}", p.read_bytes())
    run_cli("batch", fleet, "-o", tmp_path / "cli", "--format", "parquet", "-q", check=False)
    want = pl.read_parquet(tmp_path / "cli" / "triage.parquet")
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as c:
        got = ftl.dask.triage("memory://bucket/fleet", "memory://bucket/out", client=c)
    assert all(p.startswith("memory://") and "/bucket/fleet/" in p for p in got["path"])
    ok = pl.col("status") == "ok"
    assert_frame_equal(got.filter(ok).drop("path"), want.filter(ok).drop("path"), check_exact=True)
    assert got.filter(~ok)["trace"].to_list() == want.filter(~ok)["trace"].to_list()
    assert fs.exists("/bucket/out/triage.parquet")
    parts = sorted(p for p in fs.find("/bucket/out") if p.endswith("part-0.parquet"))
    local = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("part-0.parquet"))
    assert [p.split("/bucket/out/")[1] for p in parts] == [str(p) for p in local]


def test_bad_options_fail_on_the_driver(client, fleet, tmp_path):
    with pytest.raises(ValueError, match="present-threshold"):
        ftl.dask.triage([fleet], None, client=client, present_threshold=-1)
    with pytest.raises(ValueError, match="unknown column"):
        ftl.dask.triage([fleet], None, client=client, sort="nope")
    with pytest.raises(ValueError, match="by must be"):
        ftl.dask.triage([fleet], None, client=client, by="device")
    with pytest.raises(TypeError):
        ftl.dask.triage([fleet], None, client=client, no_such_option=1)
