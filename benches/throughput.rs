//! Throughput and peak memory of `ftl analyze` on large traces, beside a read-only baseline in the same run.
//!
//! Inputs are real traces from `../shared/traces` replicated with rewritten cookies, tokens and timestamps
//! (`ftl::synth::replicate`) into one long trace, built once under `target/bench-data/`:
//! - the emulator trace (FrameTimeline-sparse, dominated by ftrace like most field traces) to ≥ 100 MB and 1 GiB,
//!   plain, and to ≥ 100 MB gzip-compressed;
//! - the Pixel 7 Pro trace (FrameTimeline-dense: 3 737 events in 0.9 MB) to ≥ 100 MB.
//!
//! For each input: the baseline reads the file through a 256 KiB buffer into a sink (the page-cache ceiling, or a
//! gzip inflate for `.gz`); `ftl` runs the release binary `ftl analyze FILE --format json -o /dev/null` under
//! `/usr/bin/time` and takes its wall time and peak RSS. Best of three runs each.
//!
//! Then a ≥ 100 MB `dumpsys SurfaceFlinger --latency` capture (real rows repeated with shifted timestamps,
//! [`common::latency_replica`]) through `ftl analyze FILE -o /dev/null` (the text report: reading, merging the
//! dumps and every pacing metric), beside the same read baseline.
//!
//! For the capture, a `parse` row also times the reader alone in this process (`input::open_text` +
//! `sources::sf_latency::read`, best of three).
//!
//! Run: `cargo bench --bench throughput [-- NAME]` (NAME keeps only the inputs whose file name contains it, e.g.
//! `latency`; targets: ≥ 1 GB/s on a plain trace from page cache, peak RSS < 64 MB on a 1 GiB
//! FrameTimeline-sparse trace, ≥ 300 MB/s parsing the `--latency` capture).
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

const MB: f64 = 1e6;
const RUNS: usize = 3;

/// One input: which real trace, how big, compressed or not.
struct Input {
    source: &'static str,
    min_bytes: u64,
    gzip: bool,
}

const INPUTS: [Input; 4] = [
    Input {
        source: "emulator_a12_cpu_sampling_60hz.pftrace",
        min_bytes: 100_000_000,
        gzip: false,
    },
    Input {
        source: "emulator_a12_cpu_sampling_60hz.pftrace",
        min_bytes: 1 << 30,
        gzip: false,
    },
    Input {
        source: "emulator_a12_cpu_sampling_60hz.pftrace",
        min_bytes: 100_000_000,
        gzip: true,
    },
    Input {
        source: "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        min_bytes: 100_000_000,
        gzip: false,
    },
];

fn main() {
    let ftl = env!("CARGO_BIN_EXE_ftl");
    // `cargo bench` passes `--bench`; any other argument is a name filter.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    println!(
        "{:<58} {:>8} {:>14} {:>12} {:>7} {:>13} {:>9}",
        "input", "MB", "baseline MB/s", "ftl MB/s", "ratio", "peak RSS MB", "frames"
    );
    for input in INPUTS.iter().filter(|i| wanted(i.source)) {
        let path = common::replica(
            &common::real_trace(input.source),
            input.min_bytes,
            input.gzip,
        );
        let baseline = best_of(|| read_all(&path, input.gzip));
        let frames = surface_frames(ftl, &path).to_string();
        let args = ["analyze", "--format", "json", "-o", "/dev/null"];
        report_ftl(&path, &args, baseline, &frames);
    }
    if !wanted("sf_latency") {
        return;
    }
    let path = common::latency_replica(100_000_000);
    let bytes = std::fs::metadata(&path).expect("stat input").len() as f64;
    let parse = best_of(|| {
        let start = Instant::now();
        let reader = ftl::input::open_text(&path).expect("open capture");
        let capture = ftl::sources::sf_latency::read(reader, &path, "bench").expect("read capture");
        assert!(capture.series.frames.len() > 1_000_000);
        start.elapsed()
    });
    let baseline = best_of(|| read_all(&path, false));
    report_ftl(&path, &["analyze", "-o", "/dev/null"], baseline, "-");
    println!(
        "{:<58} {:>8.1} {:>14.0} {:>12.0} {:>7.2} {:>13} {:>9}",
        "  parse (reader only, in process)",
        bytes / MB,
        bytes / MB / baseline.as_secs_f64(),
        bytes / MB / parse.as_secs_f64(),
        baseline.as_secs_f64() / parse.as_secs_f64(),
        "-",
        "-",
    );
}

/// Runs `ftl ARGS PATH` (best of three) and prints its row beside the read baseline.
fn report_ftl(path: &Path, args: &[&str], baseline: Duration, frames: &str) {
    let bytes = std::fs::metadata(path).expect("stat input").len() as f64;
    let mut peak_rss_mb: f64 = 0.0;
    let analyze = best_of(|| {
        let (elapsed, rss_mb) = common::run_ftl(args, path);
        peak_rss_mb = peak_rss_mb.max(rss_mb);
        elapsed
    });
    println!(
        "{:<58} {:>8.1} {:>14.0} {:>12.0} {:>7.2} {:>13.1} {:>9}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        bytes / MB,
        bytes / MB / baseline.as_secs_f64(),
        bytes / MB / analyze.as_secs_f64(),
        baseline.as_secs_f64() / analyze.as_secs_f64(),
        peak_rss_mb,
        frames,
    );
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
