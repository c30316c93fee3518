//! Shared helpers: where the real traces live, running the ftl binary, reading CSV.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `../shared` next to the project. Real-data tests fail loudly (never skip) when it is missing.
pub fn shared() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    assert!(
        dir.join("traces").is_dir(),
        "real-trace tests need {} (traces/, golden/, peer-tests/); it is missing",
        dir.display()
    );
    dir
}

/// The three real traces, by golden name.
pub const REAL_TRACES: [(&str, &str); 3] = [
    (
        "emulator_a12_cpu_sampling_60hz",
        "emulator_a12_cpu_sampling_60hz.pftrace",
    ),
    (
        "pixel6a_a13_startup_warm_60hz",
        "pixel6a_a13_startup_warm_60hz.perfetto-trace",
    ),
    (
        "pixel7pro_a13_nowinandroid_launch_120hz",
        "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
    ),
];

/// Runs the ftl binary.
pub fn ftl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftl"))
        .args(args)
        .output()
        .expect("run ftl")
}

/// Runs ftl and returns stdout, asserting success.
pub fn ftl_ok(args: &[&str]) -> String {
    let out = ftl(args);
    assert!(
        out.status.success(),
        "ftl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

/// Parses CSV text into (header, rows); trace processor's `"[NULL]"` becomes an empty field.
pub fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| {
            r.expect("csv row")
                .iter()
                .map(|f| {
                    if f == "[NULL]" {
                        String::new()
                    } else {
                        f.to_string()
                    }
                })
                .collect()
        })
        .collect();
    (header, rows)
}

/// `n` bytes of a fixed xorshift stream from `seed`: deterministic "random" file contents.
pub fn random_bytes(mut x: u64, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Loads and analyses a Perfetto trace (the library path of `ftl analyze` on a trace).
pub fn trace_report(
    path: &std::path::Path,
    config: &ftl::analysis::Config,
) -> ftl::analysis::Report {
    let trace = ftl::load_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    ftl::analysis::analyze(trace, &path.display().to_string(), config)
}

/// A 60-slot synthetic pipeline with the app's doFrame/DrawFrame and one injected cause each at slots 10 (UI
/// thread), 20 (RenderThread), 30 (GPU) and 40 (SurfaceFlinger).
pub fn injected_causes() -> ftl::synth::Pipeline {
    use ftl::synth::{Cause, Pipeline};
    Pipeline {
        frames: 60,
        late: vec![],
        app_sections: true,
        causes: vec![
            (10, Cause::UiThread),
            (20, Cause::RenderThread),
            (30, Cause::Gpu),
            (40, Cause::SurfaceFlinger),
        ],
        ..Default::default()
    }
}

/// Writes `p`'s trace to a temporary file (removed with the returned directory).
pub fn write_pipeline(p: &ftl::synth::Pipeline) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipeline.pftrace");
    std::fs::write(&path, p.build().bytes()).unwrap();
    (dir, path)
}

/// (ours, trace processor's) rows of `table` on a real trace, sorted, `[NULL]` read as empty.
pub fn golden_rows(
    golden: &str,
    file: &str,
    table: &str,
) -> (Vec<String>, Vec<Vec<String>>, Vec<Vec<String>>) {
    let shared = shared();
    let trace = shared.join("traces").join(file);
    let ours = parse_csv(&ftl_ok(&["table", trace.to_str().unwrap(), table]));
    let csv = shared.join("golden").join(format!("{golden}.{table}.csv"));
    let theirs = parse_csv(&std::fs::read_to_string(&csv).unwrap());
    assert_eq!(ours.0, theirs.0, "{table} of {golden}: columns");
    let (mut a, mut b) = (ours.1, theirs.1);
    a.sort();
    b.sort();
    (ours.0, a, b)
}
