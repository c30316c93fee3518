//! The command line: help, output formats and schemas.

use crate::common::{ftl, ftl_ok, parse_csv, shared, REAL_TRACES};

fn synthetic() -> String {
    format!(
        "{}/testdata/synthetic_60hz.pftrace",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn help_teaches_the_commands() {
    let help = ftl_ok(&["--help"]);
    for cmd in ["analyze", "slices", "frames", "explain", "report", "batch"] {
        assert!(help.contains(cmd), "{cmd} in --help");
    }
    assert!(ftl_ok(&["analyze", "--help"]).contains("--present-threshold"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(ftl(&["analyze"]).status.code(), Some(2));
    assert_eq!(
        ftl(&["analyze", &synthetic(), "--format", "csv"])
            .status
            .code(),
        Some(2),
        "csv needs -o DIR"
    );
    assert_eq!(
        ftl(&["analyze", &synthetic(), "--layer", "[bad"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn analyze_json_has_the_documented_sections() {
    let report: serde_json::Value =
        serde_json::from_str(&ftl_ok(&["analyze", &synthetic(), "--format", "json"])).unwrap();
    for key in [
        "trace",
        "processes",
        "layers",
        "diagnostics",
        "vsync",
        "totals",
    ] {
        assert!(report.get(key).is_some(), "{key}");
    }
    let layer = &report["layers"][0];
    assert_eq!(layer["layer_name"], ftl::synth::APP_LAYER);
    assert_eq!(layer["process_name"], "com.example.app");
}

#[test]
fn analyze_writes_one_file_per_table() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["csv", "parquet"] {
        let out = dir.path().join(format);
        ftl_ok(&[
            "analyze",
            &synthetic(),
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ]);
        for table in ["trace", "processes", "jank_types", "layers", "diagnostics"] {
            let f = out.join(format!("{table}.{format}"));
            assert!(
                std::fs::metadata(&f).map(|m| m.len() > 0).unwrap_or(false),
                "{}",
                f.display()
            );
        }
    }
}

#[test]
fn frames_rows_link_app_frames_to_their_present() {
    let csv = ftl_ok(&["frames", &synthetic()]);
    let (header, rows) = parse_csv(&csv);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("column {name}"))
    };
    let (present, dft, jank) = (
        col("present_ns"),
        col("display_frame_token"),
        col("jank_type"),
    );
    assert!(!rows.is_empty());
    for r in &rows {
        // Pipeline: DisplayFrame token 10000 + 2·slot presents at vsync(slot) + 1 ms.
        let slot = (r[dft].parse::<i64>().unwrap() - 10_000) / 2;
        let want = 1_000_000_000 + (slot + 2) * 16_666_667 + 1_000_000;
        assert_eq!(r[present].parse::<i64>().unwrap(), want);
    }
    assert_eq!(
        rows.iter()
            .filter(|r| r[jank] == "App Deadline Missed")
            .count(),
        3
    );
}

#[test]
fn display_frame_rows_are_built_for_the_commands_that_show_them() {
    // The synthetic pipeline composes one DisplayFrame per vsync slot: 120.
    let (_, rows) = parse_csv(&ftl_ok(&["frames", &synthetic(), "--display-frames"]));
    assert_eq!(rows.len(), 120);
    // Analysed without them, a report has none to give, and says so rather than giving an empty table.
    let path = std::path::PathBuf::from(synthetic());
    let config = ftl::analysis::Config {
        display_frame_rows: false,
        ..Default::default()
    };
    let analysis = ftl::analyze_path(&path, &config).unwrap();
    let err = ftl::output::frames_table(&analysis, true).unwrap_err();
    assert!(err.to_string().contains("display_frame_rows"), "{err}");
    assert!(ftl::output::frames_table(&analysis, false).is_ok());
}

#[test]
fn layers_are_summarised_the_same_whether_the_rows_are_kept_or_not() {
    // Rows only summarised are summarised in two halves on two threads, kept rows one by one. The Pixel 6a trace
    // has app sections (late stages per layer) and layers of several processes; every real trace is read whole.
    let pixel6a = "com.google.android.apps.nexuslauncher".to_string();
    let cases = REAL_TRACES.iter().map(|(_, file)| (*file, None)).chain([(
        "pixel6a_a13_startup_warm_60hz.perfetto-trace",
        Some(pixel6a),
    )]);
    for (file, process) in cases {
        let path = shared().join("traces").join(file);
        let analyse = |frame_rows| {
            let config = ftl::analysis::Config {
                process: process.clone(),
                frame_rows,
                ..Default::default()
            };
            match ftl::analyze_path(&path, &config).unwrap() {
                ftl::analysis::Analysis::Trace(report) => report,
                other => panic!("not a trace: {other:?}"),
            }
        };
        let (kept, summarised) = (analyse(true), analyse(false));
        assert!(summarised.frames.is_empty());
        assert!(!kept.frames.is_empty());
        assert_eq!(summarised.layers, kept.layers);
        assert_eq!(
            kept.layers,
            ftl::analysis::metrics::layer_summaries(&kept.frames, kept.vsync.period_ns)
        );
        assert_eq!(summarised.diagnostics, kept.diagnostics);
        let processes: std::collections::BTreeSet<&str> = kept
            .layers
            .iter()
            .map(|l| l.process_name.as_str())
            .collect();
        if file.starts_with("pixel6a") {
            assert_eq!(processes.len() > 1, process.is_none(), "{processes:?}");
        }
    }
}

#[test]
fn slices_json_and_parquet() {
    let json = ftl_ok(&[
        "slices",
        &synthetic(),
        "--timeline",
        "expected",
        "--format",
        "json",
    ]);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(rows.as_array().unwrap().len() > 100);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.parquet");
    ftl_ok(&[
        "slices",
        &synthetic(),
        "--timeline",
        "actual",
        "--format",
        "parquet",
        "-o",
        p.to_str().unwrap(),
    ]);
    assert!(std::fs::read(&p).unwrap().starts_with(b"PAR1"));
    assert_eq!(
        ftl(&[
            "slices",
            &synthetic(),
            "--timeline",
            "actual",
            "--format",
            "parquet"
        ])
        .status
        .code(),
        Some(2)
    );
}

#[test]
fn text_report_answers_did_it_jank() {
    let trace = shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace");
    let trace = trace.to_str().unwrap();
    let text = ftl_ok(&["analyze", trace]);
    assert!(text.contains("Verdict"), "{text}");
    assert!(
        text.contains("com.google.samples.apps.nowinandroid.demo"),
        "app named from layer names: {text}"
    );
    // A layer's verdict line says how many of its frames were stuffed (late behind earlier ones, not janky), as
    // the JSON counts them, so that its Buffer Stuffing count is not read as janky frames.
    let json: serde_json::Value =
        serde_json::from_str(&ftl_ok(&["analyze", trace, "--format", "json"])).unwrap();
    let main = json["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["janky_frames"].as_u64() > Some(0))
        .max_by_key(|l| l["janky_frames"].as_u64())
        .unwrap();
    let stuffed = main["stuffed_frames"].as_u64().unwrap();
    assert!(stuffed > 0, "{main}");
    let line = format!("{} janky in ", main["janky_frames"].as_u64().unwrap());
    let verdict = text
        .lines()
        .find(|l| l.contains(&line))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        verdict.contains(&format!(
            ", {stuffed} more late behind earlier frames (stuffing, not janky);"
        )),
        "{verdict}"
    );
}

/// Every table keeps its column types when a column holds no value (a small trace, a failed batch row): the
/// all-null fallback (`Kind::of_unit`) must give the types real data gives.
#[test]
fn table_schemas_do_not_depend_on_the_trace() {
    use ftl::output::table::to_dataframe;
    use polars::prelude::DataFrame;
    fn same_types<T: serde::Serialize + Default>(what: &str, rows: &[T]) {
        let real: DataFrame = to_dataframe(rows).expect("table");
        let empty = to_dataframe(&[T::default()]).expect("table of a default row");
        let mut checked = 0;
        for column in real.columns() {
            if column.null_count() == column.len() {
                continue;
            }
            let fallback = empty.column(column.name()).expect("same columns").dtype();
            assert_eq!(
                column.dtype(),
                fallback,
                "{what}.{}: real vs all-null type",
                column.name()
            );
            checked += 1;
        }
        assert!(checked > 3, "{what}: {checked} columns with values");
    }
    let traces = shared().join("traces");
    for (_, file) in crate::common::REAL_TRACES {
        let path = traces.join(file);
        let report = crate::common::trace_report(&path, &Default::default());
        same_types("frames", &report.frames);
        same_types(
            "display_frames",
            report.display_frames.as_deref().expect("built by default"),
        );
        same_types("processes", &report.processes);
        same_types("layers", &report.layers);
        same_types("trace", std::slice::from_ref(&report.trace));
        let timeline = ftl::load_path(&path).expect("load").timeline;
        same_types(
            "expected slices",
            &ftl::analysis::slices::expected_rows(&timeline).collect::<Vec<_>>(),
        );
        same_types(
            "actual slices",
            &ftl::analysis::slices::actual_rows(&timeline).collect::<Vec<_>>(),
        );
    }
}

/// Flattened structs (a layer and its pacing numbers) must not repeat a field name: JSON with a key twice is
/// read differently by different parsers, and a table keeps only one of the columns.
#[test]
fn layer_objects_have_each_field_once() {
    fn once<T: serde::Serialize + Default>(what: &str) {
        let text = serde_json::to_string(&T::default()).unwrap();
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
        // Defaults hold no nested keys and no strings with `":`, so every `":` ends a top-level key.
        assert_eq!(text.matches("\":").count(), map.len(), "{what}: {text}");
    }
    once::<ftl::analysis::metrics::LayerSummary>("trace layer");
    once::<ftl::analysis::capture::CaptureLayer>("capture layer");
    once::<ftl::batch::TriageRow>("triage row");
}

#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    // `ftl … | head`: the reader closes the pipe while ftl still writes (both reports exceed a pipe's 64 KiB).
    let trace = shared()
        .join("traces")
        .join("pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace");
    let trace = trace.to_str().unwrap();
    for args in [
        vec!["analyze", trace, "--format", "json"],
        vec!["diff", trace, trace, "--format", "json"],
    ] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ftl"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 1];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}
