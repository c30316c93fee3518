//! App frames: the stage blame on synthetic pipelines with injected causes and on the real Pixel 6a trace,
//! Macrobenchmark's FrameTimingMetric on hand-derivable frames, and analysis windows.

use crate::common::{ftl_ok, injected_causes, parse_csv, shared, write_pipeline};
use ftl::synth::Pipeline;
use serde_json::Value;
use std::collections::BTreeMap;

/// `ftl frames` rows as maps by column name.
fn frames(path: &std::path::Path, extra: &[&str]) -> Vec<BTreeMap<String, String>> {
    let mut args = vec!["frames", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (header, rows) = parse_csv(&ftl_ok(&args));
    rows.into_iter()
        .map(|r| header.iter().cloned().zip(r).collect())
        .collect()
}

/// The SurfaceFrame token of a pipeline slot.
fn token(slot: i64) -> String {
    (10_001 + 2 * slot).to_string()
}

#[test]
fn each_injected_cause_is_named_on_its_frame_and_no_other() {
    let (_dir, path) = write_pipeline(&injected_causes());
    let rows = frames(&path, &[]);
    let stages: BTreeMap<String, String> = rows
        .iter()
        .filter(|r| !r["late_stage"].is_empty())
        .map(|r| (r["surface_frame_token"].clone(), r["late_stage"].clone()))
        .collect();
    let want: BTreeMap<String, String> = [
        (10, "ui_thread"),
        (20, "render_thread"),
        (30, "gpu"),
        (40, "surfaceflinger"),
    ]
    .into_iter()
    .map(|(slot, stage)| (token(slot), stage.to_string()))
    .collect();
    assert_eq!(stages, want);
    // Every app frame carries its doFrame and DrawFrame; CPU duration = DrawFrame end − doFrame start.
    for r in &rows {
        let ui: i64 = r["ui_thread_start_ns"].parse().unwrap();
        let rt_end: i64 = r["render_thread_end_ns"].parse().unwrap();
        assert_eq!(r["frame_cpu_dur_ns"], (rt_end - ui).to_string());
    }
    // The per-layer counts say the same.
    let json: Value = serde_json::from_str(&ftl_ok(&[
        "analyze",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let counts = &json["layers"][0]["late_stages"];
    for stage in ["ui_thread", "render_thread", "gpu", "surfaceflinger"] {
        assert_eq!(counts[stage], 1, "{stage} in {counts}");
    }
}

#[test]
fn the_same_pipeline_without_app_sections_blames_the_app_as_a_whole() {
    let p = Pipeline {
        app_sections: false,
        ..injected_causes()
    };
    let (_dir, path) = write_pipeline(&p);
    let stages: Vec<String> = frames(&path, &[])
        .into_iter()
        .map(|r| r["late_stage"].clone())
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(stages, ["app", "app", "app", "surfaceflinger"]);
}

#[test]
fn the_pixel6a_janky_frame_is_the_ui_threads() {
    let trace = shared().join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
    let rows = frames(&trace, &[]);
    let late: Vec<&BTreeMap<String, String>> = rows
        .iter()
        .filter(|r| !r["late_stage"].is_empty())
        .collect();
    assert_eq!(late.len(), 1);
    let f = late[0];
    assert_eq!(f["surface_frame_token"], "191058");
    assert_eq!(f["late_stage"], "ui_thread");
    // From the trace's own times: the doFrame ends after the deadline, and the UI share (vsync delay + doFrame)
    // exceeds the RenderThread's share.
    let n = |k: &str| f[k].parse::<i64>().unwrap();
    let ui_end = n("ui_thread_start_ns") + n("ui_thread_dur_ns");
    assert!(ui_end > n("expected_end_ns"));
    assert!(ui_end - n("expected_start_ns") >= n("render_thread_end_ns") - ui_end);
}

#[test]
fn macrobenchmark_numbers_are_derivable_by_hand() {
    let (_dir, path) = write_pipeline(&injected_causes());
    let out = ftl_ok(&[
        "analyze",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--macrobenchmark",
        "com.example.app",
    ]);
    let json: Value = serde_json::from_str(&out).unwrap();
    let m = &json["macrobenchmark"];
    assert!(m.get("error").is_none(), "{m}");
    // 60 slots; each of the three app-late slots makes the app skip the next one.
    assert_eq!(m["metrics"]["frameCount"]["runs"][0], 57.0);
    let cpu = m["sampledMetrics"]["frameDurationCpuMs"]["runs"][0]
        .as_array()
        .unwrap();
    let overrun = m["sampledMetrics"]["frameOverrunMs"]["runs"][0]
        .as_array()
        .unwrap();
    assert_eq!(cpu.len(), 57);
    // An on-time frame: doFrame 0.5–4.5 ms, DrawFrame to 7.5 ms after the expected start; the buffer is ready
    // 4 ms before the deadline.
    assert_eq!(cpu[0], 7.0);
    assert_eq!(overrun[0], -4.0);
    // The UI-thread frame (slot 10 is the 11th frame): doFrame 16.6 ms + DrawFrame 2 ms.
    assert_eq!(cpu[10], 18.6);
    assert_eq!(m["sampledMetrics"]["frameDurationCpuMs"]["P50"], 7.0);
}

#[test]
fn a_window_keeps_only_frames_that_start_and_present_inside() {
    let p = Pipeline {
        frames: 20,
        late: vec![],
        ..Default::default()
    };
    let (_dir, path) = write_pipeline(&p);
    let all = frames(&path, &[]);
    // The first FrameTimeline slice is slot 0's expected SurfaceFrame (before SurfaceFlinger's slices).
    let origin: i64 = all
        .iter()
        .map(|r| r["expected_start_ns"].parse::<i64>().unwrap())
        .min()
        .unwrap();
    // Bounds: 100 ms .. 200 ms after the first FrameTimeline slice.
    let (start, end) = (origin + 100_000_000, origin + 200_000_000);
    let inside: Vec<&String> = all
        .iter()
        .filter(|r| {
            let s: i64 = r["actual_start_ns"].parse().unwrap();
            let present: i64 = r["present_ns"].parse().unwrap();
            s >= start && present <= end
        })
        .map(|r| &r["surface_frame_token"])
        .collect();
    let windowed = frames(&path, &["--window", "100ms..200ms"]);
    let got: Vec<&String> = windowed.iter().map(|r| &r["surface_frame_token"]).collect();
    assert!(!got.is_empty() && got.len() < all.len());
    assert_eq!(got, inside);
}

#[test]
fn macrobenchmark_on_the_pixel6a_matches_its_frames_rows() {
    // The benchmark app's frames: doFrame on the main thread, DrawFrame on the thread the scheduler names
    // RenderThread (its name comes from compact_sched: the process tree has no thread names).
    let trace = shared().join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
    let package = "androidx.benchmark.integration.macrobenchmark.target";
    let json: Value = serde_json::from_str(&ftl_ok(&[
        "analyze",
        trace.to_str().unwrap(),
        "--format",
        "json",
        "--macrobenchmark",
        package,
    ]))
    .unwrap();
    let m = &json["macrobenchmark"];
    assert!(m.get("error").is_none(), "{m}");
    let n = |r: &BTreeMap<String, String>, k: &str| r[k].parse::<i64>().unwrap();
    let rows: Vec<BTreeMap<String, String>> = frames(&trace, &[])
        .into_iter()
        .filter(|r| r["process_name"] == package && !r["render_thread_end_ns"].is_empty())
        .collect();
    let cpu: Vec<f64> = rows
        .iter()
        .map(|r| (n(r, "render_thread_end_ns") - n(r, "ui_thread_start_ns")) as f64 / 1e6)
        .collect();
    // Macrobenchmark's overrun: max(actual end, RenderThread end) − expected end.
    let overrun: Vec<f64> = rows
        .iter()
        .map(|r| {
            let end = n(r, "actual_end_ns").max(n(r, "render_thread_end_ns"));
            (end - n(r, "expected_end_ns")) as f64 / 1e6
        })
        .collect();
    assert_eq!(m["metrics"]["frameCount"]["runs"][0], rows.len() as f64);
    assert_eq!(
        m["sampledMetrics"]["frameDurationCpuMs"]["runs"][0],
        serde_json::json!(cpu)
    );
    assert_eq!(
        m["sampledMetrics"]["frameOverrunMs"]["runs"][0],
        serde_json::json!(overrun)
    );
    assert_eq!(rows.len(), 2);
}
