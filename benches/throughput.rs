//! Throughput and peak memory of `ftl analyze` on large traces, beside a read-only baseline in the same run and,
//! optionally, another build of ftl (the previous main) on the same files.
//!
//! Inputs are real traces from `../shared/traces` replicated with rewritten cookies, tokens, vsync ids and
//! timestamps (`ftl::synth::replicate`) into one long trace, built once under `target/bench-data/` (file names carry
//! the replica format version, `common::REPLICA_VERSION`, so a replica written by an older `replicate` is rebuilt):
//! - the emulator trace (FrameTimeline-sparse, dominated by ftrace like most field traces) to ≥ 100 MB and 1 GiB,
//!   plain, and to ≥ 100 MB gzip-compressed;
//! - the Pixel 7 Pro trace (FrameTimeline-dense: 3 737 events in 0.9 MB) to ≥ 100 MB, and to ≥ 60 MB with the
//!   copies after the first holding only their FrameTimeline packets (`_ft`: every byte a frame event, the
//!   per-SurfaceFrame cost alone);
//! - the Pixel 6a trace (atrace-heavy: ~13 k `print` events and ~30 k other ftrace events in 2 MB, with the app's
//!   doFrame / DrawFrame sections) to ≥ 100 MB.
//!
//! For each input: the read baseline reads the file through a 256 KiB buffer into a sink (the page-cache
//! ceiling, or a gzip inflate for `.gz`; best of five); `ftl` runs the release binary `ftl analyze FILE --format
//! json -o /dev/null` under `/usr/bin/time` five times and takes its median wall time and its peak RSS. The row
//! also gives the input's actual SurfaceFrames and how many `analyze` handles per second.
//!
//! With `FTL_BASELINE_BIN=/path/to/ftl` (another build of ftl), each input is also run through that binary with
//! the same arguments, each run right after one of ftl's so that both see the same machine: the `base` columns
//! give its median MB/s and peak RSS and `ftl/base` the ratio of the medians (> 1: this build is faster). To
//! build the previous main as the baseline:
//!
//! ```text
//! git worktree add /tmp/prev <commit>
//! cargo build --release --manifest-path /tmp/prev/Cargo.toml
//! FTL_BASELINE_BIN=/tmp/prev/target/release/ftl cargo bench --bench throughput -- pixel6a
//! ```
//!
//! After each trace's row, the row-table commands (`slices --timeline actual` CSV, `frames` CSV and Parquet, to
//! `/dev/null`) on the same file: median time and peak RSS, each also as a multiple of `analyze`'s in this run
//! (target ≤ 1.5×), and the baseline binary's if set.
//!
//! With `FTL_TRACE_PROCESSOR_BIN=/path/to/trace_processor_shell` (a trace processor build, e.g. Perfetto's
//! release `trace_processor_shell` or one built from source), a `trace processor` row follows `analyze`'s: its
//! import of the same file and `SELECT count(*) FROM actual_frame_timeline_slice` (the FrameTimeline tables
//! `analyze` starts from), median of five, with its peak RSS and how many times faster `analyze` is.
//!
//! Then `ftl table FILE thread_state` (Perfetto's thread states as CSV), and with `FTL_TRACE_PROCESSOR_BIN` trace
//! processor's import + the same query on the same file, with the ratio.
//!
//! Then a ≥ 100 MB `dumpsys SurfaceFlinger --latency` capture (real rows repeated with shifted timestamps,
//! [`common::latency_replica`]) through `ftl analyze FILE -o /dev/null` (the text report: reading, merging the
//! dumps and every pacing metric), beside the same read baseline (and the baseline binary, if set).
//!
//! For the capture, a `parse` row also times the reader alone in this process (`input::open_text` +
//! `sources::sf_latency::read`, best of five).
//!
//! Run: `cargo bench --bench throughput [-- NAME]` (NAME keeps only the inputs whose file name contains it, e.g.
//! `latency`, `pixel6a`, `emulator`; targets: ≥ 1 GB/s on a plain trace from page cache, peak RSS < 64 MB on a
//! 1 GiB FrameTimeline-sparse trace, ≥ 300 MB/s parsing the `--latency` capture).
use ftl::synth::Copies;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

const MB: f64 = 1e6;
/// Runs of each binary per measurement (the read baseline and the in-process parse take the best of as many).
const RUNS: usize = 5;

/// One input: which real trace, how big, compressed or not, what its later copies hold.
struct Input {
    source: &'static str,
    min_bytes: u64,
    gzip: bool,
    later: Copies,
}

const INPUTS: [Input; 6] = [
    Input {
        source: "emulator_a12_cpu_sampling_60hz.pftrace",
        min_bytes: 100_000_000,
        gzip: false,
        later: Copies::Whole,
    },
    Input {
        source: "emulator_a12_cpu_sampling_60hz.pftrace",
        min_bytes: 1 << 30,
        gzip: false,
        later: Copies::Whole,
    },
    Input {
        source: "emulator_a12_cpu_sampling_60hz.pftrace",
        min_bytes: 100_000_000,
        gzip: true,
        later: Copies::Whole,
    },
    Input {
        source: "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        min_bytes: 100_000_000,
        gzip: false,
        later: Copies::Whole,
    },
    Input {
        source: "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        min_bytes: 60_000_000,
        gzip: false,
        later: Copies::FrameTimelineOnly,
    },
    Input {
        source: "pixel6a_a13_startup_warm_60hz.perfetto-trace",
        min_bytes: 100_000_000,
        gzip: false,
        later: Copies::Whole,
    },
];

fn main() {
    let ftl = env!("CARGO_BIN_EXE_ftl");
    let base = std::env::var_os("FTL_BASELINE_BIN").map(PathBuf::from);
    let tp = std::env::var_os("FTL_TRACE_PROCESSOR_BIN").map(PathBuf::from);
    if let Some(bin) = &base {
        assert!(
            bin.is_file(),
            "FTL_BASELINE_BIN={} is not a file",
            bin.display()
        );
    }
    // `cargo bench` passes `--bench`; any other argument is a name filter.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    if let Some(bin) = &base {
        println!("base = {}", bin.display());
    }
    println!(
        "{:<58} {:>8} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8} {:>13} {:>9}",
        "input",
        "MB",
        "read MB/s",
        "ftl MB/s",
        "ftl/read",
        "ftl RSS",
        "base MB/s",
        "ftl/base",
        "base RSS",
        "SurfaceFrames",
        "SF/s"
    );
    for input in INPUTS.iter().filter(|i| wanted(i.source)) {
        let path = common::replica(
            &common::real_trace(input.source),
            input.min_bytes,
            input.gzip,
            input.later,
        );
        let read = best_of(|| read_all(&path, input.gzip));
        let frames = surface_frames(ftl, &path);
        let args = ["analyze", "--format", "json", "-o", "/dev/null"];
        let analyze = report_ftl(&path, &args, read, base.as_deref(), Some(frames));
        if let Some(tp) = &tp {
            report_trace_processor(&path, analyze, tp);
        }
        report_row_tables(&path, analyze, base.as_deref());
        report_thread_state(&path, analyze, tp.as_deref());
    }
    if !wanted("sf_latency") {
        return;
    }
    let path = common::latency_replica(100_000_000);
    let bytes = std::fs::metadata(&path).expect("stat input").len() as f64;
    let parse = best_of(|| {
        let start = Instant::now();
        let reader = ftl::input::open_text(&path).expect("open capture");
        let capture =
            ftl::sources::sf_latency::read(reader, &path, Some("bench")).expect("read capture");
        assert!(capture.series.frames.len() > 1_000_000);
        start.elapsed()
    });
    let read = best_of(|| read_all(&path, false));
    report_ftl(
        &path,
        &["analyze", "-o", "/dev/null"],
        read,
        base.as_deref(),
        None,
    );
    println!(
        "{:<58} {:>8.1} {:>9.0} {:>9.0} {:>8.2} {:>8} {:>9} {:>8} {:>8} {:>13} {:>9}",
        "  parse (reader only, in process)",
        bytes / MB,
        bytes / MB / read.as_secs_f64(),
        bytes / MB / parse.as_secs_f64(),
        read.as_secs_f64() / parse.as_secs_f64(),
        "-",
        "-",
        "-",
        "-",
        "-",
        "-",
    );
}

/// The row-table commands, each against `analyze --format json` on the same file (targets: at most 1.5× its
/// time and 1.5× its peak RSS).
const ROW_TABLES: [(&str, &[&str]); 3] = [
    (
        "slices actual csv",
        &[
            "slices",
            "--timeline",
            "actual",
            "--format",
            "csv",
            "-o",
            "/dev/null",
        ],
    ),
    (
        "frames csv",
        &["frames", "--format", "csv", "-o", "/dev/null"],
    ),
    (
        "frames parquet",
        &["frames", "--format", "parquet", "-o", "/dev/null"],
    ),
];

/// Runs each row-table command on `path` (median of five, and the baseline binary if given) and prints its
/// time and peak RSS as multiples of `analyze` (its median time and RSS on the same file in this run).
fn report_row_tables(path: &Path, analyze: (Duration, f64), base: Option<&Path>) {
    for (name, args) in ROW_TABLES {
        let (elapsed, rss) = median_of_runs(|| Ok(common::run_ftl(args, path))).expect("ftl runs");
        let vs_base = match base.map(|bin| median_of_runs(|| common::run_bin(bin, args, path))) {
            Some(Ok((b, b_rss))) => format!(
                "base {:.2} s {b_rss:.1} MB, ftl/base {:.2}",
                b.as_secs_f64(),
                b.as_secs_f64() / elapsed.as_secs_f64()
            ),
            Some(Err(e)) => format!("baseline failed: {e}"),
            None => String::new(),
        };
        println!(
            "  {name:<20} {:>7.2} s ({:.2}× analyze) {rss:>7.1} MB ({:.2}× analyze)  {vs_base}",
            elapsed.as_secs_f64(),
            elapsed.as_secs_f64() / analyze.0.as_secs_f64(),
            rss / analyze.1,
        );
    }
}

/// What trace processor is asked beside `analyze`: the import, then the FrameTimeline table `analyze` starts from.
const FRAME_TIMELINE_QUERY: &str = "SELECT count(*) FROM actual_frame_timeline_slice;";

/// Trace processor's import of `path` and [`FRAME_TIMELINE_QUERY`] (`trace_processor_shell -q QUERY_FILE PATH`,
/// median of five) against `analyze` on the same file in this run: its time, peak RSS and how many times faster
/// `analyze` is.
fn report_trace_processor(path: &Path, analyze: (Duration, f64), tp: &Path) {
    let query = std::env::temp_dir().join("ftl-bench-frame-timeline.sql");
    std::fs::write(&query, FRAME_TIMELINE_QUERY).expect("write the query");
    match median_of_runs(|| common::run_timed(tp, &["-q".as_ref(), query.as_os_str(), path.as_os_str()]))
    {
        Ok((t, rss)) => println!(
            "  {:<20} {:>7.2} s {rss:>7.1} MB: ftl analyze {:.1}× faster, trace processor {:.1}× its memory",
            "trace processor",
            t.as_secs_f64(),
            t.as_secs_f64() / analyze.0.as_secs_f64(),
            rss / analyze.1,
        ),
        Err(e) => println!("  trace processor failed: {e}"),
    }
}

/// Perfetto's `thread_state` as `ftl table` gives it and as the golden files were made (`../shared/golden/
/// README.md`): the query trace processor runs for the comparison.
const THREAD_STATE_QUERY: &str = "SELECT s.ts, s.dur, s.cpu, t.tid, t.name AS thread_name, s.state, s.io_wait, \
     s.blocked_function, w.tid AS waker_tid, s.irq_context FROM thread_state s JOIN thread t USING(utid) \
     LEFT JOIN thread w ON w.utid = s.waker_utid ORDER BY s.ts, t.tid, s.dur, s.state;";

/// `ftl table PATH thread_state` as CSV to `/dev/null` (median of five) against `analyze` on the same file, and —
/// with `FTL_TRACE_PROCESSOR_BIN=/path/to/trace_processor_shell` — trace processor's import and the same query
/// (`trace_processor_shell -q QUERY_FILE PATH`), with the ratio (target: ftl ≥ 10× faster). Inputs without
/// scheduler data give a header-only table.
fn report_thread_state(path: &Path, analyze: (Duration, f64), tp: Option<&Path>) {
    let ftl = Path::new(env!("CARGO_BIN_EXE_ftl"));
    let args = [
        path.as_os_str(),
        "thread_state".as_ref(),
        "-o".as_ref(),
        "/dev/null".as_ref(),
    ];
    let mut table_args = vec!["table".as_ref()];
    table_args.extend(args);
    let (elapsed, rss) =
        median_of_runs(|| common::run_timed(ftl, &table_args)).expect("ftl table runs");
    let vs_tp = match tp {
        None => String::new(),
        Some(bin) => {
            let query = std::env::temp_dir().join("ftl-bench-thread-state.sql");
            std::fs::write(&query, THREAD_STATE_QUERY).expect("write the query");
            match median_of_runs(|| {
                common::run_timed(bin, &["-q".as_ref(), query.as_os_str(), path.as_os_str()])
            }) {
                Ok((t, t_rss)) => format!(
                    "trace processor {:.2} s {t_rss:.1} MB, ftl {:.1}× faster",
                    t.as_secs_f64(),
                    t.as_secs_f64() / elapsed.as_secs_f64()
                ),
                Err(e) => format!("trace processor failed: {e}"),
            }
        }
    };
    println!(
        "  {:<20} {:>7.2} s ({:.2}× analyze) {rss:>7.1} MB ({:.2}× analyze)  {vs_tp}",
        "table thread_state",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() / analyze.0.as_secs_f64(),
        rss / analyze.1,
    );
}

/// Runs `ftl ARGS PATH` and, if given, the baseline binary in turn, [`RUNS`] times each, and prints
/// their row beside the read baseline: each one's median time (one run on a shared machine can take twice
/// another's, so a single best run can favour either build) and largest peak RSS, with the input's actual
/// SurfaceFrames and ftl's SurfaceFrames per second when `frames` is given. RSS in MB. Returns ftl's median time
/// and peak RSS.
fn report_ftl(
    path: &Path,
    args: &[&str],
    read: Duration,
    base: Option<&Path>,
    frames: Option<u64>,
) -> (Duration, f64) {
    let bytes = std::fs::metadata(path).expect("stat input").len() as f64;
    let mb_s = |d: Duration| bytes / MB / d.as_secs_f64();
    let mut ours = Vec::new();
    let mut theirs: Option<Result<Vec<(Duration, f64)>, String>> = base.map(|_| Ok(Vec::new()));
    for _ in 0..RUNS {
        ours.push(common::run_ftl(args, path));
        if let (Some(bin), Some(Ok(runs))) = (base, &mut theirs) {
            match common::run_bin(bin, args, path) {
                Ok(run) => runs.push(run),
                Err(e) => theirs = Some(Err(e)),
            }
        }
    }
    let (analyze, rss) = median_run(ours);
    let (base_mb_s, ratio, base_rss) = match theirs.map(|runs| runs.map(median_run)) {
        None => ("-".into(), "-".into(), "-".into()),
        Some(Err(e)) => {
            eprintln!("baseline failed: {e}");
            ("failed".into(), "-".into(), "-".into())
        }
        Some(Ok((elapsed, rss))) => (
            format!("{:.0}", mb_s(elapsed)),
            format!("{:.2}", elapsed.as_secs_f64() / analyze.as_secs_f64()),
            format!("{rss:.1}"),
        ),
    };
    let (frames, frames_per_s) = match frames {
        Some(n) => (
            n.to_string(),
            format!("{:.0}", n as f64 / analyze.as_secs_f64()),
        ),
        None => ("-".into(), "-".into()),
    };
    println!(
        "{:<58} {:>8.1} {:>9.0} {:>9.0} {:>8.2} {:>8.1} {:>9} {:>8} {:>8} {:>13} {:>9}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        bytes / MB,
        mb_s(read),
        mb_s(analyze),
        read.as_secs_f64() / analyze.as_secs_f64(),
        rss,
        base_mb_s,
        ratio,
        base_rss,
        frames,
        frames_per_s,
    );
    (analyze, rss)
}

/// The median wall time and the largest peak RSS (MB) of some runs.
fn median_run(mut runs: Vec<(Duration, f64)>) -> (Duration, f64) {
    let rss = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    runs.sort_by_key(|r| r.0);
    (
        runs.get(runs.len() / 2).map_or(Duration::ZERO, |r| r.0),
        rss,
    )
}

/// [`RUNS`] runs of a binary: their median wall time and the largest peak RSS (MB) seen.
fn median_of_runs(
    mut run: impl FnMut() -> Result<(Duration, f64), String>,
) -> Result<(Duration, f64), String> {
    let runs = (0..RUNS).map(|_| run()).collect::<Result<Vec<_>, _>>()?;
    Ok(median_run(runs))
}

fn best_of(mut run: impl FnMut() -> Duration) -> Duration {
    (0..RUNS).map(|_| run()).min().unwrap_or_default()
}

/// Baseline: the bytes read (and inflated, for gzip) into a sink.
fn read_all(path: &Path, gzip: bool) -> Duration {
    let start = Instant::now();
    let file = BufReader::with_capacity(256 << 10, File::open(path).expect("open input"));
    let mut reader: Box<dyn Read> = if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    std::io::copy(&mut reader, &mut std::io::sink()).expect("read input");
    start.elapsed()
}

/// Actual SurfaceFrames in the report (to show how much FrameTimeline data the input carries).
fn surface_frames(ftl: &str, path: &Path) -> u64 {
    let out = Command::new(ftl)
        .args(["analyze", "--format", "json"])
        .arg(path)
        .output()
        .expect("run ftl");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("ftl analyze json");
    report["trace"]["surface_frames"].as_u64().unwrap_or(0)
}
