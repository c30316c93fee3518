//! Cost of the timeline report on top of the analysis: `analyze` alone vs `analyze` + `chart::render` (PNG, and SVG
//! for the dense trace), in process, best of three runs.
//!
//! Inputs are real traces from `../shared/traces` replicated into ≥ 100 MB traces with `ftl::synth::replicate`
//! (copies 60 s apart, ids 2³² apart), built once under `target/bench-data/`:
//! - the emulator trace: FrameTimeline-sparse (≈ 5 k SurfaceFrames in 100 MB), a 29-minute span: the default
//!   chart picks the jankiest 5 s; also as a 1 GiB replica (5 hours, 50 k SurfaceFrames), with `--all` too;
//! - the Pixel 7 Pro launch: FrameTimeline-dense (≈ 120 k SurfaceFrames in 100 MB); rendered with the default
//!   window and with `--all` (every frame drawn).
//!
//! The Pixel 7 Pro replica's HTML report (`-o report.html`, every frame in it) is written too: its size, the time
//! to write it, and — with `chromium` on PATH — the page's own first paint and median zoom step, measured inside
//! the page by its `#selftest` in headless Chromium over the DevTools pipe (`common/chromium_selftest.py`).
//!
//! Run: `cargo bench --bench chart` (targets: render < 2 s beyond the analysis on a large trace; the HTML report of
//! 120 k SurfaceFrames ≤ 7 MB, first paint ≤ 1.5 s, a zoom step ≤ 50 ms).
use ftl::output::chart::data::WindowSpec;
use ftl::output::chart::{self, ChartOptions};
use std::time::{Duration, Instant};

mod common;

const MB: f64 = 1e6;
const RUNS: usize = 3;
const MIN_BYTES: u64 = 100_000_000;

/// Best wall time of [`RUNS`] runs of `run`, and its last result.
fn best_of<T>(mut run: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let value = run();
        best = best.min(start.elapsed());
        last = Some(value);
    }
    (best, last.expect("RUNS > 0"))
}

/// A chart to render: label, window, extension.
type ChartCase = (&'static str, WindowSpec, &'static str);

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    println!(
        "{:<58} {:>7} {:>9} {:>9} {:>8} {:>11} {:>9}",
        "input", "MB", "frames", "analyze", "MB/s", "chart", "render"
    );
    let cases: [(&str, u64, &[ChartCase]); 3] = [
        (
            "emulator_a12_cpu_sampling_60hz.pftrace",
            MIN_BYTES,
            &[("default", ChartOptions::default().window, "png")],
        ),
        (
            "emulator_a12_cpu_sampling_60hz.pftrace",
            1 << 30,
            &[
                ("default", ChartOptions::default().window, "png"),
                ("--all", WindowSpec::All, "png"),
            ],
        ),
        (
            "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
            MIN_BYTES,
            &[
                ("default", ChartOptions::default().window, "png"),
                ("--all", WindowSpec::All, "png"),
                ("--all", WindowSpec::All, "svg"),
            ],
        ),
    ];
    for (source, min_bytes, charts) in cases {
        let path = common::replica(
            &common::real_trace(source),
            min_bytes,
            false,
            ftl::synth::Copies::Whole,
        );
        let bytes = std::fs::metadata(&path).expect("stat").len() as f64;
        let name = path.display().to_string();
        let (analyze, report) = best_of(|| {
            let trace = ftl::load_path(&path).expect("load bench trace");
            ftl::analysis::analyze(trace, &name, &Default::default())
        });
        let frames = report.frames.len();
        let analysis = ftl::analysis::Analysis::Trace(Box::new(report));
        for (label, window, ext) in charts {
            let out = data.join(format!("chart.{ext}"));
            let options = ChartOptions {
                window: *window,
                ..ChartOptions::default()
            };
            let (render, ()) =
                best_of(|| chart::render(&analysis, &out, &options).expect("render chart"));
            println!(
                "{:<58} {:>7.1} {:>9} {:>7.0}ms {:>8.0} {:>11} {:>7.0}ms",
                path.file_name().unwrap_or_default().to_string_lossy(),
                bytes / MB,
                frames,
                ms(analyze),
                bytes / MB / analyze.as_secs_f64(),
                format!("{label} {ext}"),
                ms(render),
            );
        }
        if source.starts_with("pixel7pro") {
            html(&analysis, &data.join("report.html"));
        }
    }
}

/// Writes the HTML report of `analysis` to `out` and prints its size, the time to write it and, when Chromium is
/// installed, the page's first paint and zoom step from its self-test.
fn html(analysis: &ftl::analysis::Analysis, out: &std::path::Path) {
    let options = ftl::output::html::HtmlOptions::default();
    let (write, ()) =
        best_of(|| ftl::output::html::write(analysis, out, &options).expect("write HTML"));
    let bytes = std::fs::metadata(out).expect("stat report").len() as f64;
    print!(
        "HTML report: {:.2} MB written in {:.0} ms",
        bytes / MB,
        ms(write)
    );
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/common/chromium_selftest.py");
    let url = format!("file://{}#selftest", out.display());
    match std::process::Command::new("python3")
        .arg(&script)
        .arg(&url)
        .output()
    {
        Ok(o) if o.status.success() => {
            let got: serde_json::Value = serde_json::from_slice(&o.stdout).expect("self-test JSON");
            let drawn: u64 = got["layers"]
                .as_array()
                .map_or(0, |l| l.iter().filter_map(|l| l["frames"].as_u64()).sum());
            println!(
                "; in Chromium: {drawn} frames, first paint {} ms, zoom step {} ms (median of 10), errors {}",
                got["first_paint_ms"], got["zoom_ms"], got["errors"]
            );
        }
        Ok(o) => println!(
            "; no Chromium self-test: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => println!("; no Chromium self-test: python3: {e}"),
    }
}
