//! Real traces: `ftl slices` equals trace processor's tables row for row, `ftl analyze --format json` equals its
//! `android_frame_timeline_metric`, and gzip / `compressed_packets` variants give identical results.

use crate::common::{ftl_ok, parse_csv, shared, REAL_TRACES};
use crate::textproto;
use serde_json::Value;
use std::path::Path;

fn sorted(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.sort();
    rows
}

/// Compares `ftl slices` on `trace` with a trace-processor CSV as sorted row sets, header included.
pub fn assert_slices_match(trace: &Path, timeline: &str, golden_csv: &Path) {
    let ours = ftl_ok(&["slices", trace.to_str().unwrap(), "--timeline", timeline]);
    let (our_header, our_rows) = parse_csv(&ours);
    let golden = std::fs::read_to_string(golden_csv).unwrap();
    let (header, rows) = parse_csv(&golden);
    assert_eq!(
        our_header,
        header,
        "{timeline} header of {}",
        trace.display()
    );
    assert_eq!(
        our_rows.len(),
        rows.len(),
        "{timeline} row count of {}",
        trace.display()
    );
    let (ours, theirs) = (sorted(our_rows), sorted(rows));
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "{timeline} row of {}", trace.display());
    }
}

#[test]
fn slices_equal_trace_processor_on_real_traces() {
    let shared = shared();
    for (golden, file) in REAL_TRACES {
        let trace = shared.join("traces").join(file);
        for timeline in ["expected", "actual"] {
            let csv = shared
                .join("golden")
                .join(format!("{golden}.{timeline}_frame_timeline_slice.csv"));
            assert_slices_match(&trace, timeline, &csv);
        }
    }
}

fn json_field_matches(ours: &Value, golden: &str) -> bool {
    match ours {
        Value::Number(n) if n.is_i64() => n.to_string() == golden,
        Value::Number(n) => format!("{:.6}", n.as_f64().unwrap()) == golden,
        Value::String(s) => s == golden,
        Value::Bool(b) => b.to_string() == golden,
        _ => false,
    }
}

fn assert_jank_types(ours: &Value, golden: &textproto::JankTypes, what: &str) {
    let ours = ours.as_array().unwrap();
    assert_eq!(ours.len(), golden.len(), "{what}: jank type count");
    for entry in ours {
        let name = entry["type"].as_str().unwrap();
        let expected = golden
            .get(name)
            .unwrap_or_else(|| panic!("{what}: unexpected jank type {name}"));
        for (k, v) in expected {
            assert!(
                json_field_matches(&entry[k], v),
                "{what} {name}.{k}: ours {} vs {v}",
                entry[k]
            );
        }
    }
}

/// Compares `ftl analyze --format json` with a trace-processor metric text proto.
pub fn assert_metric_matches(trace: &Path, golden: &Path) {
    let report: Value = serde_json::from_str(&ftl_ok(&[
        "analyze",
        trace.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let metric = textproto::parse(&std::fs::read_to_string(golden).unwrap());
    let what = trace.display().to_string();
    for (k, v) in &metric.fields {
        assert!(
            json_field_matches(&report["totals"][k], v),
            "{what} total {k}: ours {} vs {v}",
            report["totals"][k]
        );
    }
    assert_jank_types(&report["totals"]["jank_types"], &metric.jank_types, &what);
    let processes = report["processes"].as_array().unwrap();
    assert_eq!(
        processes.len(),
        metric.processes.len(),
        "{what}: process count"
    );
    for (pid, entry) in &metric.processes {
        let ours = processes
            .iter()
            .find(|p| p["pid"] == *pid)
            .unwrap_or_else(|| panic!("{what}: no pid {pid}"));
        for (k, v) in &entry.fields {
            assert!(
                json_field_matches(&ours[k], v),
                "{what} pid {pid} {k}: ours {} vs {v}",
                ours[k]
            );
        }
        assert_jank_types(
            &ours["jank_types"],
            &entry.jank_types,
            &format!("{what} pid {pid}"),
        );
    }
}

#[test]
fn metric_equals_trace_processor_on_real_traces() {
    let shared = shared();
    for (golden, file) in REAL_TRACES {
        let metric = shared
            .join("golden")
            .join(format!("{golden}.android_frame_timeline_metric.textproto"));
        assert_metric_matches(&shared.join("traces").join(file), &metric);
    }
}

#[test]
fn gzip_and_compressed_packets_variants_give_identical_output() {
    let shared = shared();
    let dir = tempfile::tempdir().unwrap();
    for (name, file) in REAL_TRACES {
        let plain = shared.join("traces").join(file);
        let bytes = std::fs::read(&plain).unwrap();
        let compressed = ftl::synth::compress_packets(&bytes, 64 * 1024).unwrap();
        let variants = [
            (format!("{name}.gz"), ftl::synth::gzip(&bytes).unwrap()),
            (format!("{name}.zlib-packets"), compressed.clone()),
            (
                format!("{name}.zlib-packets.gz"),
                ftl::synth::gzip(&compressed).unwrap(),
            ),
        ];
        let args = |p: &Path, t: &'static str| {
            vec![
                "slices".to_string(),
                p.display().to_string(),
                "--timeline".into(),
                t.into(),
            ]
        };
        for timeline in ["expected", "actual"] {
            let want = ftl_ok(
                &args(&plain, timeline)
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            );
            for (variant, data) in &variants {
                let path = dir.path().join(variant);
                std::fs::write(&path, data).unwrap();
                let got = ftl_ok(
                    &args(&path, timeline)
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>(),
                );
                assert_eq!(got, want, "{variant} {timeline}");
            }
        }
        let trace = ftl::load_path(&dir.path().join(format!("{name}.zlib-packets"))).unwrap();
        assert!(
            trace.decode.compressed_chunks > 0,
            "{name}: the variant really uses compressed_packets"
        );
    }
}

/// Process names derived from layer names (traces without process_tree) agree with process_tree where a trace
/// has one: every animation-leash layer of the emulator trace belongs to system_server, and the Pixel 7 Pro's
/// leash-only pid gets that name instead of a layer's text.
#[test]
fn layer_derived_process_names_agree_with_process_tree() {
    use ftl::model::frame::app_from_layer_name;
    let traces = shared().join("traces");
    let emulator = crate::common::trace_report(
        &traces.join("emulator_a12_cpu_sampling_60hz.pftrace"),
        &Default::default(),
    );
    let leashes: Vec<_> = emulator
        .frames
        .iter()
        .filter(|f| app_from_layer_name(&f.layer_name).as_deref() == Some("system_server"))
        .collect();
    assert!(!leashes.is_empty());
    assert!(leashes.iter().all(|f| &*f.process_name == "system_server"));
    let pixel = crate::common::trace_report(
        &traces.join("pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace"),
        &Default::default(),
    );
    let names: Vec<(i32, &str)> = pixel
        .processes
        .iter()
        .map(|p| (p.pid, p.name.as_str()))
        .collect();
    assert!(names.contains(&(1265, "system_server")), "{names:?}");
    assert!(
        names.iter().all(|(_, n)| !n.starts_with("Surface(")),
        "{names:?}"
    );
}

/// Perfetto stdlib `android.frames` tables ftl reproduces (`ftl table TRACE NAME`), each compared with trace
/// processor's CSV in order, header-only files included.
const STDLIB_TABLES: [&str; 6] = [
    "android_frames",
    "android_frames_layers",
    "android_frames_overrun",
    "android_app_vsync_delay_per_frame",
    "android_cpu_time_per_frame",
    "android_frame_stats",
];

#[test]
fn stdlib_frame_tables_equal_trace_processor_on_real_traces() {
    let shared = shared();
    let mut rows_seen = 0;
    for (golden, file) in REAL_TRACES {
        let trace = shared.join("traces").join(file);
        for table in STDLIB_TABLES {
            let ours = ftl_ok(&["table", trace.to_str().unwrap(), table]);
            let csv = shared.join("golden").join(format!("{golden}.{table}.csv"));
            let theirs = std::fs::read_to_string(&csv).unwrap();
            let (ours, theirs) = (parse_csv(&ours), parse_csv(&theirs));
            assert_eq!(ours, theirs, "{table} of {golden}");
            rows_seen += theirs.1.len();
        }
    }
    // The Pixel 6a trace's 7 app frames and every trace's overrun rows are compared, not only headers.
    assert!(rows_seen > 100, "{rows_seen} rows compared");
}
