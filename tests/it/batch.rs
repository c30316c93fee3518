//! `ftl batch`: a directory of real traces, their compression variants and bad files is triaged with the numbers
//! of `ftl analyze`, bad files are listed with their reason, Parquet output loads in polars, `--fail-on` gates.

use crate::common::{ftl, ftl_ok, random_bytes, shared, REAL_TRACES};
use ftl::analysis::percentile::percentile;
use ftl::analysis::{Config, Report};
use polars::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A directory with the real traces (plain, gzip, `compressed_packets`), a truncated copy, an empty file, a text
/// file, random bytes and a subdirectory holding one more trace.
struct Fleet {
    dir: tempfile::TempDir,
    /// (file name, golden name) of the good traces.
    good: Vec<(String, &'static str)>,
}

fn fleet() -> Fleet {
    let dir = tempfile::tempdir().unwrap();
    let mut good = Vec::new();
    let write = |name: String, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();
    for (golden, file) in REAL_TRACES {
        let bytes = std::fs::read(shared().join("traces").join(file)).unwrap();
        let compressed = ftl::synth::compress_packets(&bytes, 64 * 1024).unwrap();
        for (suffix, variant) in [
            ("pftrace", bytes.clone()),
            ("gz", ftl::synth::gzip(&bytes).unwrap()),
            ("cp.pb", compressed),
        ] {
            let name = format!("{golden}.{suffix}");
            write(name.clone(), &variant);
            good.push((name, golden));
        }
        if golden.starts_with("pixel7pro") {
            write(
                "truncated.pftrace".into(),
                &bytes[..bytes.len() * 2 / 3 + 7],
            );
            std::fs::create_dir(dir.path().join("sub")).unwrap();
            write("sub/nested.pftrace".into(), &bytes);
        }
    }
    write("empty.pftrace".into(), &[]);
    write("notes.txt".into(), b"trace notes\n");
    write(
        "random.bin".into(),
        &random_bytes(0x2545_f491_4f6c_dd1d, 4096),
    );
    Fleet { dir, good }
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `ftl batch --format json -q ARGS`; (exit code, rows, stderr).
fn batch_json(args: &[&str]) -> (i32, Vec<Value>, String) {
    let mut all = vec!["batch", "--format", "json", "-q"];
    all.extend(args);
    let out = ftl(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let rows: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)));
    (
        out.status.code().unwrap(),
        rows.as_array().unwrap().clone(),
        stderr,
    )
}

fn f(row: &Value, column: &str) -> Option<f64> {
    row[column].as_f64()
}

fn close(a: Option<f64>, b: Option<f64>, what: &str) {
    match (a, b) {
        (Some(a), Some(b)) => assert!((a - b).abs() < 1e-9, "{what}: {a} != {b}"),
        (a, b) => assert_eq!(a, b, "{what}"),
    }
}

/// Asserts that a trace-level row carries `ftl analyze`'s numbers for `report`.
fn assert_row_matches(row: &Value, report: &Report) {
    let what = row["path"].as_str().unwrap();
    let sum = |f: fn(&ftl::analysis::metrics::LayerSummary) -> u64| -> u64 {
        report.layers.iter().map(f).sum()
    };
    assert_eq!(row["status"], "ok", "{what}");
    assert_eq!(row["frames"].as_u64(), Some(sum(|l| l.frames)), "{what}");
    assert_eq!(
        row["janky_frames"].as_u64(),
        Some(sum(|l| l.janky_frames)),
        "{what}"
    );
    assert_eq!(
        row["app_janky_frames"].as_u64(),
        Some(sum(|l| l.app_janky_frames)),
        "{what}"
    );
    assert_eq!(
        row["sf_janky_frames"].as_u64(),
        Some(sum(|l| l.sf_janky_frames)),
        "{what}"
    );
    assert_eq!(
        row["dropped_frames"].as_u64(),
        Some(sum(|l| l.dropped_frames)),
        "{what}"
    );
    let pct = sum(|l| l.janky_frames) as f64 * 100.0 / sum(|l| l.frames) as f64;
    close(f(row, "janky_pct"), Some(pct), what);
    close(
        f(row, "refresh_rate_hz"),
        report.vsync.refresh_rate_hz(),
        what,
    );
    close(f(row, "span_ms"), Some(report.trace.span_ms), what);
    assert_eq!(
        row["device"].as_str(),
        report.trace.device_fingerprint.as_deref(),
        "{what}"
    );
    close(
        f(row, "agreement_pct"),
        report
            .agreement
            .surface_frames
            .jank_type_rate
            .map(|r| r * 100.0),
        what,
    );
    let worst = report
        .layers
        .iter()
        .filter(|l| l.janky_frames > 0)
        .min_by(|a, b| (b.janky_frames.cmp(&a.janky_frames)).then(a.layer_name.cmp(&b.layer_name)))
        .map(|l| l.layer_name.as_str());
    assert_eq!(row["worst_layer"].as_str(), worst, "{what}");
    let max_delay = report
        .layers
        .iter()
        .filter_map(|l| l.pacing.max_frame_delay)
        .max();
    assert_eq!(row["max_frame_delay"].as_i64(), max_delay, "{what}");
    // Whole-trace percentiles over every app frame, computed here from the frames with Perfetto's rule.
    let ms = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        percentile(&v, 99.0)
    };
    let frames = &report.frames;
    let durs = frames
        .iter()
        .filter(|r| !r.dropped && r.dur_ns >= 0)
        .map(|r| r.dur_ns as f64 / 1e6);
    let overruns = frames
        .iter()
        .filter_map(|r| r.overrun_ns)
        .map(|ns| ns as f64 / 1e6);
    close(f(row, "frame_dur_ms_p99"), ms(durs.collect()), what);
    close(f(row, "overrun_ms_p99"), ms(overruns.collect()), what);
    assert!(f(row, "frame_dur_ms_p99").is_some(), "{what}");
    let findings: u64 = report.diagnostics.counts().iter().map(|(_, n)| n).sum();
    let truncated = u64::from(report.diagnostics.truncated_at_byte.is_some());
    assert_eq!(
        row["diagnostics_count"].as_u64(),
        Some(findings + truncated),
        "{what}"
    );
    assert_eq!(
        row["file_bytes"].as_u64(),
        Some(report.trace.file_bytes),
        "{what}"
    );
}

#[test]
fn triage_of_a_mixed_directory_matches_analyze_and_lists_bad_files() {
    let fleet = fleet();
    let dir = fleet.dir.path();
    let (code, rows, stderr) = batch_json(&[path_str(dir), "--jobs", "3"]);
    assert_eq!(code, 1, "the empty file fails the batch\n{stderr}");
    // 9 good + truncated analysed, the empty file failed; notes.txt, random.bin and sub/ skipped with a reason.
    assert_eq!(rows.len(), 11, "{rows:#?}");
    let by_name = |name: &str| {
        rows.iter()
            .find(|r| r["trace"] == name)
            .unwrap_or_else(|| panic!("no row for {name}"))
    };
    let config = Config::default();
    for (name, golden) in &fleet.good {
        let path = dir.join(name);
        let report = crate::common::trace_report(&path, &config);
        let row = by_name(name);
        assert_eq!(row["path"], path_str(&path));
        assert_row_matches(row, &report);
        // The compression variants give the plain file's numbers.
        let plain = by_name(&format!("{golden}.pftrace"));
        for column in [
            "frames",
            "janky_pct",
            "frame_dur_ms_p99",
            "overrun_ms_p99",
            "agreement_pct",
        ] {
            assert_eq!(row[column], plain[column], "{name} {column}");
        }
    }
    let truncated = by_name("truncated.pftrace");
    assert_eq!(truncated["status"], "ok");
    assert!(truncated["truncated_at_byte"].as_u64().is_some());
    assert_row_matches(
        truncated,
        &crate::common::trace_report(&dir.join("truncated.pftrace"), &config),
    );
    let empty = rows.last().unwrap();
    assert_eq!(empty["trace"], "empty.pftrace", "failed rows come last");
    assert!(empty["status"]
        .as_str()
        .unwrap()
        .ends_with("empty file, not a Perfetto trace"));
    assert!(empty["frames"].is_null());
    // Ranked by janky_pct descending, ties by path.
    let ok = &rows[..rows.len() - 1];
    for pair in ok.windows(2) {
        let (a, b) = (
            f(&pair[0], "janky_pct").unwrap(),
            f(&pair[1], "janky_pct").unwrap(),
        );
        assert!(
            a > b || (a == b && pair[0]["path"].as_str() < pair[1]["path"].as_str()),
            "{pair:#?}"
        );
    }
    for (file, reason) in [
        (
            "notes.txt",
            "unknown content: expected a Perfetto trace, `dumpsys SurfaceFlinger --latency` output",
        ),
        ("random.bin", "unknown content: expected a Perfetto trace"),
        ("sub", "directory (use --recursive to descend)"),
    ] {
        let line = format!("{}: {reason}", path_str(&dir.join(file)));
        assert!(stderr.contains(&line), "missing '{line}' in\n{stderr}");
    }
    assert!(stderr.contains("Failed (1):"), "{stderr}");
    assert!(stderr.contains("empty.pftrace: empty file"), "{stderr}");
    assert!(
        stderr.contains("truncated.pftrace: the file ends inside the packet at byte"),
        "{stderr}"
    );
    assert!(
        stderr.contains("10 inputs ok, 1 failed, 3 skipped"),
        "{stderr}"
    );
}

#[test]
fn text_output_ranks_and_summarises() {
    let fleet = fleet();
    let dir = fleet.dir.path();
    let out = ftl(&["batch", path_str(dir), "-r", "--top", "2"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with("Triage: 11 rows ranked by janky_pct (largest first), top 2\n"),
        "{text}"
    );
    let first = text
        .find("emulator_a12_cpu_sampling_60hz.cp.pb")
        .expect("worst trace shown");
    let second = text
        .find("emulator_a12_cpu_sampling_60hz.gz")
        .expect("second worst shown");
    assert!(first < second, "{text}");
    assert!(!text.contains("pixel7pro"), "only the top 2 rows: {text}");
    assert!(
        text.contains("11 inputs ok, 1 failed, 2 skipped; "),
        "--recursive analyses sub/: {text}"
    );
    assert!(text.contains("MB/s with"), "{text}");
}

#[test]
fn named_files_are_always_analysed_and_fail_as_rows() {
    let fleet = fleet();
    let dir = fleet.dir.path();
    let missing = dir.join("missing.pftrace");
    let (code, rows, _) = batch_json(&[
        path_str(&dir.join("notes.txt")),
        path_str(&dir.join("random.bin")),
        path_str(&missing),
    ]);
    assert_eq!(code, 1);
    let status: Vec<&str> = rows.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status.len(), 3, "{status:?}");
    assert!(
        status[0].contains("missing.pftrace: No such file"),
        "{status:?}"
    );
    assert!(
        status[1].contains("notes.txt: unknown content")
            && status[1].contains("starts with bytes 74 72 61 63"),
        "{status:?}"
    );
    assert!(
        status[2].contains("random.bin: unknown content"),
        "{status:?}"
    );
    // The same text file found by a (quoted) glob is skipped, not failed; so is a pattern matching nothing.
    let glob = format!("{}/*.txt", path_str(dir));
    let nothing = format!("{}/*.nothing", path_str(dir));
    let (code, rows, stderr) = batch_json(&[&glob, &nothing]);
    assert_eq!((code, rows.len()), (0, 0), "{stderr}");
    assert!(stderr.contains("Skipped (2):"), "{stderr}");
    assert!(stderr.contains("notes.txt: unknown content"), "{stderr}");
    assert!(
        stderr.contains("*.nothing: the pattern matches no file"),
        "{stderr}"
    );
}

#[test]
fn by_layer_rows_are_the_layer_summaries() {
    let trace = shared().join("traces").join(REAL_TRACES[0].1);
    let (code, rows, stderr) = batch_json(&[path_str(&trace), "--by", "layer", "--sort", "frames"]);
    assert_eq!(code, 0, "{stderr}");
    let report = crate::common::trace_report(&trace, &Config::default());
    assert!(report.layers.len() > 1);
    assert_eq!(rows.len(), report.layers.len());
    for l in &report.layers {
        let row = rows
            .iter()
            .find(|r| r["pid"] == l.pid && r["layer_name"] == l.layer_name.as_str())
            .unwrap_or_else(|| panic!("no row for {}", l.layer_name));
        assert_eq!(row["process_name"], l.process_name.as_str());
        assert_eq!(row["frames"].as_u64(), Some(l.frames));
        assert_eq!(row["janky_frames"].as_u64(), Some(l.janky_frames));
        close(f(row, "janky_pct"), Some(l.janky_pct), &l.layer_name);
        close(
            f(row, "frame_dur_ms_p99"),
            l.frame_dur_ms_p99,
            &l.layer_name,
        );
        close(f(row, "overrun_ms_p99"), l.overrun_ms_p99, &l.layer_name);
        assert_eq!(row["max_frame_delay"].as_i64(), l.pacing.max_frame_delay);
    }
    let frames: Vec<u64> = rows.iter().map(|r| r["frames"].as_u64().unwrap()).collect();
    assert!(
        frames.windows(2).all(|w| w[0] >= w[1]),
        "--sort frames: {frames:?}"
    );
    let (_, by_process, _) = batch_json(&[path_str(&trace), "--by", "process"]);
    let pids: std::collections::BTreeSet<i32> = report.layers.iter().map(|l| l.pid).collect();
    assert_eq!(by_process.len(), pids.len());
    let total: u64 = by_process
        .iter()
        .map(|r| r["frames"].as_u64().unwrap())
        .sum();
    assert_eq!(total, report.layers.iter().map(|l| l.frames).sum::<u64>());
}

/// The documented triage schema: column names in order and polars types.
const TRIAGE_SCHEMA: [(&str, DataType); 41] = [
    ("trace", DataType::String),
    ("path", DataType::String),
    ("source", DataType::String),
    ("device", DataType::String),
    ("refresh_rate_hz", DataType::Float64),
    ("span_ms", DataType::Float64),
    ("pid", DataType::Int64),
    ("process_name", DataType::String),
    ("layer_name", DataType::String),
    ("frames", DataType::Int64),
    ("janky_frames", DataType::Int64),
    ("janky_pct", DataType::Float64),
    ("app_janky_frames", DataType::Int64),
    ("sf_janky_frames", DataType::Int64),
    ("dropped_frames", DataType::Int64),
    ("worst_layer", DataType::String),
    ("top_cause", DataType::String),
    ("top_cause_frames", DataType::Int64),
    ("top_cause_pct", DataType::Float64),
    ("frame_dur_ms_p99", DataType::Float64),
    ("overrun_ms_p99", DataType::Float64),
    ("max_frame_delay", DataType::Int64),
    ("jank_count", DataType::Int64),
    ("avg_surface_fps", DataType::Int64),
    ("fps_mean", DataType::Float64),
    ("fps_1pct_low", DataType::Float64),
    ("perfdog_jank", DataType::Int64),
    ("perfdog_big_jank", DataType::Int64),
    ("perfdog_stutter_pct", DataType::Float64),
    ("idle_gaps", DataType::Int64),
    ("active_fps", DataType::Float64),
    ("perfdog_jank_active", DataType::Int64),
    ("perfdog_big_jank_active", DataType::Int64),
    ("perfdog_stutter_pct_active", DataType::Float64),
    ("sm", DataType::Float64),
    ("gt_sm", DataType::Float64),
    ("agreement_pct", DataType::Float64),
    ("diagnostics_count", DataType::Int64),
    ("truncated_at_byte", DataType::Int64),
    ("file_bytes", DataType::Int64),
    ("status", DataType::String),
];

fn read_parquet(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap())
        .finish()
        .unwrap()
}

#[test]
fn parquet_output_is_a_hive_partitioned_fleet() {
    let fleet = fleet();
    let out = tempfile::tempdir().unwrap();
    let traces: Vec<PathBuf> = [
        "truncated.pftrace",
        "pixel6a_a13_startup_warm_60hz.gz",
        "empty.pftrace",
    ]
    .iter()
    .map(|n| fleet.dir.path().join(n))
    .collect();
    let mut args = vec![
        "batch", "-q", "--format", "parquet", "--by", "process", "-o",
    ];
    args.push(path_str(out.path()));
    args.extend(traces.iter().map(|p| path_str(p)));
    let result = ftl(&args);
    assert_eq!(
        result.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let triage = read_parquet(&out.path().join("triage.parquet"));
    let schema: Vec<(String, DataType)> = triage
        .schema()
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let expected: Vec<(String, DataType)> = TRIAGE_SCHEMA
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    assert_eq!(schema, expected);
    let status = triage.column("status").unwrap().str().unwrap();
    assert_eq!(
        status
            .get(triage.height() - 1)
            .map(|s| s.contains("empty file")),
        Some(true)
    );
    for (name, trace) in ["truncated.pftrace", "pixel6a_a13_startup_warm_60hz.gz"]
        .iter()
        .zip(&traces)
    {
        let report = crate::common::trace_report(trace, &Config::default());
        let frames = read_parquet(
            &out.path()
                .join(format!("frames/trace={name}/part-0.parquet")),
        );
        let reference = ftl::output::table::to_dataframe(&report.frames).unwrap();
        assert_eq!(frames.height(), report.frames.len(), "{name}");
        assert_eq!(
            frames.get_column_names(),
            reference.get_column_names(),
            "{name}"
        );
        assert!(
            frames.equals_missing(&reference),
            "{name}: frames differ from `ftl frames`"
        );
        let names = triage.column("trace").unwrap().str().unwrap();
        let rows = (0..names.len())
            .filter(|i| names.get(*i) == Some(*name))
            .count();
        let pids: std::collections::BTreeSet<i32> = report.layers.iter().map(|l| l.pid).collect();
        assert_eq!(rows, pids.len(), "{name}: one row per process");
    }
    let partitions = std::fs::read_dir(out.path().join("frames"))
        .unwrap()
        .count();
    assert_eq!(partitions, 2, "no partition for the failed trace");
}

#[test]
fn fail_on_gates_regressions() {
    let traces: Vec<PathBuf> = REAL_TRACES
        .iter()
        .map(|(_, f)| shared().join("traces").join(f))
        .collect();
    let run = |conditions: &[&str]| {
        let mut args = vec!["batch", "-q", "--format", "csv"];
        args.extend(traces.iter().map(|p| path_str(p)));
        for c in conditions {
            args.extend(["--fail-on", *c]);
        }
        let out = ftl(&args);
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // janky_pct is 91.9 (emulator), 16.7 (pixel6a), 1.6 (pixel7pro).
    let (code, stderr) = run(&["janky_pct>95", "dropped_frames>0"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("--fail-on"), "{stderr}");
    let (code, stderr) = run(&["janky_pct>50"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("--fail-on janky_pct>50 holds for 1 rows: "),
        "{stderr}"
    );
    let emulator = shared().join("traces/emulator_a12_cpu_sampling_60hz.pftrace");
    let layers = crate::common::trace_report(&emulator, &Config::default()).layers;
    let janky: u64 = layers.iter().map(|l| l.janky_frames).sum();
    let frames: u64 = layers.iter().map(|l| l.frames).sum();
    let pct = janky as f64 * 100.0 / frames as f64;
    assert!(
        stderr.contains(&format!(
            "emulator_a12_cpu_sampling_60hz.pftrace (janky_pct = {pct:.2})"
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("pixel6a_a13_startup_warm_60hz.perfetto-trace ("),
        "{stderr}"
    );
    // Comma-separated: any condition triggers.
    let (code, stderr) = run(&["frames<0,refresh_rate_hz>=120"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("--fail-on refresh_rate_hz>=120 holds for 1 rows: "),
        "{stderr}"
    );
    assert!(stderr.contains(
        "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace (refresh_rate_hz = 120.00)"
    ));
    assert!(!stderr.contains("frames<0"), "{stderr}");
    for bad in ["janky_pct>>5", "jank>5", "janky_pct>five", "janky_pct"] {
        let (code, stderr) = run(&[bad]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(
            stderr.contains("--fail-on") && stderr.contains("expected COLUMN OP NUMBER"),
            "{bad}: {stderr}"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let trace = shared().join("traces").join(REAL_TRACES[1].1);
    for args in [
        vec!["batch", path_str(&trace), "--format", "parquet"],
        vec!["batch", path_str(&trace), "--sort", "nope"],
        vec!["batch", path_str(&trace), "--jobs", "0"],
        vec!["batch", "[", "-q"],
    ] {
        let out = ftl(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The help lists every triage column and every column --sort / --fail-on accept, as the code names them.
#[test]
fn help_names_every_triage_column() {
    let help = ftl_ok(&["batch", "--help"]);
    let table = ftl::output::table::to_dataframe(&[ftl::batch::TriageRow::default()]).unwrap();
    for name in table.get_column_names() {
        assert!(
            help.contains(name.as_str()),
            "--help lists the column {name}"
        );
    }
    for column in ftl::batch::Column::ALL {
        let numeric = help.split("Numeric columns").nth(1).unwrap();
        assert!(
            numeric.contains(column.name()),
            "--help lists {}",
            column.name()
        );
    }
}

/// A trace whose frames all fall outside --process still gets its row (0 frames), so gates see it.
#[test]
fn traces_without_matching_frames_keep_their_row() {
    let trace = shared().join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
    for by in ["trace", "process", "layer"] {
        let (code, rows, stderr) =
            batch_json(&["--by", by, "--process", "no.such.app", path_str(&trace)]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(rows.len(), 1, "--by {by}: {rows:#?}");
        assert_eq!(rows[0]["frames"].as_u64(), Some(0), "--by {by}");
        assert_eq!(rows[0]["status"], "ok");
    }
}

/// -r does not follow symbolic links into directories: a link loop neither hangs nor repeats traces.
#[test]
fn recursion_does_not_follow_directory_links() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let trace = shared().join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
    std::fs::copy(&trace, sub.join("t.perfetto-trace")).unwrap();
    std::os::unix::fs::symlink(".", dir.path().join("self")).unwrap();
    std::os::unix::fs::symlink("..", sub.join("up")).unwrap();
    let (code, rows, stderr) = batch_json(&["-r", path_str(dir.path())]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert!(
        stderr.contains("self: symbolic link to a directory (not followed)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("up: symbolic link to a directory (not followed)"),
        "{stderr}"
    );
}

/// A second Parquet run into the same directory replaces the first run's frames: no stale partitions.
#[test]
fn parquet_rerun_replaces_earlier_partitions() {
    let out = tempfile::tempdir().unwrap();
    let traces = shared().join("traces");
    let run = |files: &[&str]| {
        let mut args = vec![
            "batch",
            "-q",
            "--format",
            "parquet",
            "-o",
            path_str(out.path()),
        ];
        let paths: Vec<PathBuf> = files.iter().map(|f| traces.join(f)).collect();
        args.extend(paths.iter().map(|p| path_str(p)));
        assert_eq!(ftl(&args).status.code(), Some(0));
        let mut partitions: Vec<String> = std::fs::read_dir(out.path().join("frames"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        partitions.sort();
        partitions
    };
    let both = run(&[REAL_TRACES[1].1, REAL_TRACES[2].1]);
    assert_eq!(both.len(), 2, "{both:?}");
    let one = run(&[REAL_TRACES[1].1]);
    assert_eq!(one, [format!("trace={}", REAL_TRACES[1].1)]);
}

/// A logcat holds no frame series: its triage row's `frames` is absent (null), not 0, and its GT SM is there.
#[test]
fn a_logcat_row_has_no_frame_count() {
    let log = shared().join("text/ralaunch_logcat_android_studio.txt");
    let (code, rows, stderr) = batch_json(&[path_str(&log)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["source"], "logcat");
    assert!(rows[0]["frames"].is_null(), "{:#?}", rows[0]);
    assert!(rows[0]["gt_sm"].as_f64().is_some(), "{:#?}", rows[0]);
}
