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
//! Run: `cargo bench --bench chart` (target: render < 2 s beyond the analysis on a large trace).
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
        let path = common::replica(&common::real_trace(source), min_bytes, false);
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
    }
}
