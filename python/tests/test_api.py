"""ftl's Python API against the `ftl` command line on the real traces and captures: the same rows, columns and
dtypes as the CLI's Parquet output, the same object as `ftl analyze --format json`, and the documented
exceptions on bad inputs."""

from __future__ import annotations

import gzip
import json
import os
import random
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import ftl
from conftest import SYNTHETIC, TEXT, TRACES, ids

INPUTS = TRACES + TEXT + SYNTHETIC


def cli_parquet(run_cli, tmp_path: Path, *args: object) -> pl.DataFrame:
    out = tmp_path / "cli.parquet"
    run_cli(*args, "--format", "parquet", "-o", out)
    return pl.read_parquet(out)


@pytest.mark.parametrize("path", INPUTS, ids=ids(INPUTS))
def test_frames_equal_cli_parquet(path, run_cli, tmp_path):
    want = cli_parquet(run_cli, tmp_path, "frames", path)
    got = ftl.frames(path)
    assert got.height > 0
    assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("path", TRACES, ids=ids(TRACES))
def test_display_frames_equal_cli_parquet(path, run_cli, tmp_path):
    want = cli_parquet(run_cli, tmp_path, "frames", path, "--display-frames")
    assert_frame_equal(ftl.frames(path, display_frames=True), want, check_exact=True)


@pytest.mark.parametrize("timeline", ["expected", "actual"])
@pytest.mark.parametrize("path", TRACES + SYNTHETIC, ids=ids(TRACES + SYNTHETIC))
def test_slices_equal_cli_parquet(path, timeline, run_cli, tmp_path):
    want = cli_parquet(run_cli, tmp_path, "slices", path, "--timeline", timeline)
    got = ftl.slices(path, timeline)
    assert got.height > 0
    assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("path", INPUTS, ids=ids(INPUTS))
def test_analyze_equals_cli_json(path, run_cli):
    want = json.loads(run_cli("analyze", path, "--format", "json").stdout)
    assert ftl.analyze(path) == want


def test_analyze_options_reach_the_analysis(run_cli):
    trace = TRACES[0]
    args = ["--refresh-rate", "60", "--present-threshold", "4", "--sf-rules", "a13", "--layer", "*"]
    want = json.loads(run_cli("analyze", trace, "--format", "json", *args).stdout)
    got = ftl.analyze(trace, refresh_rate=60, present_threshold=4.0, sf_rules="a13", layer="*")
    assert got == want
    assert got != ftl.analyze(trace)


def test_frames_with_window_equal_cli(run_cli, tmp_path):
    trace = next(p for p in TRACES if p.name.startswith("pixel7pro"))
    want = cli_parquet(run_cli, tmp_path, "frames", trace, "--window", "1s..4s")
    got = ftl.frames(trace, window="1s..4s")
    assert 0 < got.height < ftl.frames(trace).height
    assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("name", ftl.TABLES)
def test_stdlib_tables_equal_cli_parquet(name, run_cli, tmp_path):
    trace = next(p for p in TRACES if p.name.startswith("pixel6a"))  # has the app's atrace sections
    want = cli_parquet(run_cli, tmp_path, "table", trace, name)
    assert_frame_equal(ftl.table(trace, name), want, check_exact=True)


@pytest.mark.parametrize("path", TRACES + TEXT, ids=ids(TRACES + TEXT))
def test_report_tables_equal_cli_parquet(path, run_cli, tmp_path):
    run_cli("analyze", path, "--format", "parquet", "-o", tmp_path / "report")
    got = ftl.report_tables(path)
    files = sorted(p.stem for p in (tmp_path / "report").glob("*.parquet"))
    assert sorted(got) == files
    for name, table in got.items():
        assert_frame_equal(table, pl.read_parquet(tmp_path / "report" / f"{name}.parquet"), check_exact=True)


def test_triage_equals_cli_batch(run_cli, tmp_path):
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    for p in TRACES + TEXT:
        (fleet / p.name).symlink_to(p)
    (fleet / "empty.pftrace").write_bytes(b"")
    run_cli("batch", fleet, "-o", tmp_path / "cli", "--format", "parquet", "--quiet", check=False)
    got = ftl.triage([fleet], jobs=2, out_dir=tmp_path / "py")
    assert_frame_equal(got, pl.read_parquet(tmp_path / "cli" / "triage.parquet"), check_exact=True)
    assert got["status"].to_list().count("ok") == len(TRACES + TEXT)
    assert_same_tree(tmp_path / "cli", tmp_path / "py")
    by_layer = ftl.triage(fleet, by="layer", sort="frames")
    want = run_cli("batch", fleet, "--by", "layer", "--sort", "frames", "--format", "json", "-q", check=False)
    assert by_layer.height == len(json.loads(want.stdout))


def assert_same_tree(a: Path, b: Path) -> None:
    files = lambda d: sorted(p.relative_to(d) for p in d.rglob("*.parquet"))  # noqa: E731
    assert files(a) == files(b)
    assert files(a), "no Parquet written"
    for rel in files(a):
        assert_frame_equal(pl.read_parquet(b / rel), pl.read_parquet(a / rel), check_exact=True)


def test_pandas_users_convert():
    assert len(ftl.frames(TRACES[0]).to_pandas()) > 0


# --- bad inputs ----------------------------------------------------------------------------------------------


def test_missing_file_is_a_read_error(tmp_path):
    missing = tmp_path / "nope.pftrace"
    with pytest.raises(ftl.ReadError) as e:
        ftl.frames(missing)
    assert isinstance(e.value, OSError) and isinstance(e.value, ftl.TraceError)
    assert e.value.path == str(missing) and str(missing) in str(e.value)
    assert e.value.errno == 2


def test_directory_is_a_read_error(tmp_path):
    with pytest.raises(ftl.ReadError, match="is a directory"):
        ftl.slices(tmp_path, "actual")


def test_empty_file_is_not_a_trace(tmp_path):
    empty = tmp_path / "empty.pftrace"
    empty.write_bytes(b"")
    with pytest.raises(ftl.NotATraceError, match="empty file"):
        ftl.analyze(empty)


def test_random_bytes_are_not_a_trace(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(random.Random(1).randbytes(10_000))
    for call in (ftl.analyze, ftl.frames, lambda p: ftl.slices(p, "actual")):
        with pytest.raises(ftl.NotATraceError) as e:
            call(junk)
        assert e.value.path == str(junk)


def test_broken_framing_is_not_a_trace(tmp_path):
    # One TracePacket (field 1 = 1), then a varint field where the next TracePacket should be.
    broken = tmp_path / "broken.pftrace"
    broken.write_bytes(b"\x0a\x02\x08\x01" + b"\x08\x01")
    with pytest.raises(ftl.NotATraceError, match="broken packet framing") as e:
        ftl.frames(broken)
    assert (e.value.offset, e.value.packet) == (4, 1)


def test_trace_without_frame_timeline(tmp_path):
    bare = tmp_path / "bare.pftrace"
    bare.write_bytes(b"\x0a\x02\x08\x01" * 3)  # three TracePackets without FrameTimeline
    with pytest.raises(ftl.NoFrameTimelineError, match="no FrameTimeline") as e:
        ftl.frames(bare)
    assert not isinstance(e.value, ftl.TruncatedTraceError)
    assert e.value.packets == 3 and e.value.truncated_at is None


def test_truncated_trace(tmp_path):
    cut = tmp_path / "cut.pftrace"
    cut.write_bytes(TRACES[0].read_bytes()[:700])
    with pytest.raises(ftl.TruncatedTraceError, match="truncated") as e:
        ftl.analyze(cut)
    assert isinstance(e.value, ftl.NoFrameTimelineError)
    assert e.value.truncated_at is not None and e.value.truncated_at < 700


def test_truncated_trace_with_frames_is_analysed(tmp_path):
    dense = next(p for p in TRACES if p.name.startswith("pixel7pro"))
    whole = dense.read_bytes()
    cut = tmp_path / "cut.pftrace"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    assert 0 < ftl.frames(cut).height < ftl.frames(dense).height
    assert ftl.analyze(cut)["diagnostics"]["truncated_at_byte"] is not None


def test_text_capture_has_no_frame_timeline():
    with pytest.raises(ftl.NoFrameTimelineError, match="no FrameTimeline"):
        ftl.slices(TEXT[0], "actual")


def test_bad_capture_line(tmp_path):
    bad = tmp_path / "latency.txt"
    bad.write_text("16666666\n1 2 3\nnot numbers at all\n")
    try:
        ftl.analyze(bad)
    except ftl.CaptureError as e:
        assert e.line and e.line > 0
    except ftl.NotATraceError:
        pass  # not recognised as a capture at all: also documented


def test_bad_options_are_value_errors():
    with pytest.raises(ValueError, match="present-threshold"):
        ftl.analyze(TRACES[0], present_threshold=-1)
    with pytest.raises(ValueError, match="SurfaceFlinger rules"):
        ftl.frames(TRACES[0], sf_rules="a99")
    with pytest.raises(ValueError, match="timeline"):
        ftl.slices(TRACES[0], "both")
    with pytest.raises(ValueError, match="unknown table"):
        ftl.table(TRACES[0], "android_nope")
    with pytest.raises(ValueError, match="--display-frames"):
        ftl.frames(TEXT[0], display_frames=True)
    with pytest.raises(TypeError):
        ftl.frames(TRACES[0], no_such_option=1)


def test_mutated_bytes_never_crash(tmp_path):
    """Corrupted traces (bytes flipped, cut, gzip of a cut) give a table or a TraceError, nothing else."""
    rng = random.Random(7)
    whole = bytearray(TRACES[0].read_bytes())
    for i in range(40):
        data = bytearray(whole)
        for _ in range(rng.randint(1, 50)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = data[: rng.randint(1, len(data))]
        path = tmp_path / f"m{i}.pftrace"
        path.write_bytes(gzip.compress(bytes(data)) if i % 5 == 0 else bytes(data))
        try:
            ftl.frames(path)
        except ftl.TraceError as e:
            assert str(path) in str(e)


def test_gil_released_while_reading():
    """Another Python thread keeps running while ftl reads a trace. With a 5 s switch interval a thread holding
    the GIL is not preempted: the main thread ticks during the reads only if ftl releases the GIL. The reads go
    on for half a second whatever the machine's speed, so that a fast read cannot leave too few ticks."""
    trace = max(TRACES, key=lambda p: p.stat().st_size)
    done = threading.Event()
    ticks = 0

    def work():
        start = time.perf_counter()
        reads = 0
        while reads < 3 or time.perf_counter() - start < 0.5:
            ftl.frames(trace)
            reads += 1
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        while not done.is_set():
            ticks += 1
            time.sleep(0)  # gives the GIL back, so that the worker can run its Python code
        t.join()
    finally:
        sys.setswitchinterval(interval)
    assert ticks > 100  # 0 when the GIL is held (a pure-Python loop in `work` gives 0)


def test_help_teaches():
    assert "ns" in ftl.frames.__doc__ and "present_threshold" in ftl.frames.__doc__
    assert "TruncatedTraceError" in ftl.analyze.__doc__
    assert "expected_frame_timeline_slice" in ftl.slices.__doc__
    assert ftl.__version__
    stub = Path(ftl.__file__).with_name("__init__.pyi")
    assert stub.exists() and Path(ftl.__file__).with_name("py.typed").exists()
