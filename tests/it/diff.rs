//! `ftl diff`: a trace against itself and two seeds of one synthetic pipeline are unchanged; injected
//! regressions (slow UI thread, slow SurfaceFlinger, late frames of one real layer) are flagged on the right row,
//! in both directions, with the gate's exit codes; repeated runs, batch Parquet outputs, Markdown and the PNG.

use crate::common::{ftl, shared};
use ftl::synth::{random_slots, Cause, Pipeline};
use serde_json::Value;
use std::path::{Path, PathBuf};

const SLOTS: i64 = 1200;
/// APP_LAYER without its instance suffix, as `ftl diff` matches it.
const LAYER: &str = "TX - com.example.app/com.example.app.MainActivity";

/// A 20 s pipeline whose app misses 3 % of its deadlines at slots drawn from `seed`, plus `causes`.
fn pipeline(seed: u64, causes: Vec<(i64, Cause)>) -> Pipeline {
    Pipeline {
        frames: SLOTS,
        late: random_slots(seed, SLOTS, 0.03),
        app_sections: true,
        causes,
        ..Pipeline::default()
    }
}

/// `cause` at 5 % of the slots (drawn from seed 99).
fn injected(cause: Cause) -> Vec<(i64, Cause)> {
    random_slots(99, SLOTS, 0.05)
        .into_iter()
        .map(|s| (s, cause))
        .collect()
}

/// BASE: seed 1; NEW: seed 1 with `cause` injected ([`injected`]); both in a temporary directory.
fn injected_pair(cause: Cause) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.pftrace", &pipeline(1, vec![]));
    let new = write(dir.path(), "new.pftrace", &pipeline(1, injected(cause)));
    (dir, base, new)
}

fn write(dir: &Path, name: &str, p: &Pipeline) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, p.build().bytes()).unwrap();
    path
}

/// Runs `ftl diff BASE NEW --format json ARGS`; (exit code, the JSON, stderr).
fn diff_json(base: &Path, new: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut all = vec![
        "diff",
        base.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ];
    all.extend(args);
    let out = ftl(&all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("ftl {all:?}: not JSON ({e}): {stderr}"));
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// The row of (level, name, metric): name is the layer for layer rows, the process for process rows.
fn row<'a>(json: &'a Value, level: &str, name: &str, metric: &str) -> &'a Value {
    json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["level"] == level
                && r["metric"] == metric
                && (r["layer_name"] == name || (level == "process" && r["process_name"] == name))
        })
        .unwrap_or_else(|| panic!("no {level} {name} {metric} row"))
}

fn verdict<'a>(json: &'a Value, level: &str, name: &str, metric: &str) -> &'a str {
    row(json, level, name, metric)["verdict"].as_str().unwrap()
}

#[test]
fn a_real_trace_against_itself_changes_nothing() {
    let t = shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace");
    let (code, json, stderr) =
        diff_json(&t, &t, &["--fail-on", "janky_pct>+0,frame_dur_ms_p90>+0%"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["verdict"], "no significant change");
    assert_eq!(json["mode"], "single trace");
    assert!(json["tested"].as_u64().unwrap() > 50, "{}", json["tested"]);
    for r in json["rows"].as_array().unwrap() {
        assert!(r["delta_value"].is_null() || r["delta_value"] == 0.0, "{r}");
        assert!(!r["verdict"].as_str().unwrap().starts_with("only"), "{r}");
    }
}

#[test]
fn two_seeds_of_one_pipeline_are_not_significantly_different() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.pftrace", &pipeline(1, vec![]));
    let new = write(dir.path(), "new.pftrace", &pipeline(2, vec![]));
    let (code, json, stderr) = diff_json(&base, &new, &["--fail-on", "janky_pct>+1"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["verdict"], "no significant change", "{json}");
    // The seeds do differ: the janky shares are not equal, the test says it is noise.
    let janky = row(&json, "layer", LAYER, "janky_pct");
    assert_ne!(janky["base_value"], janky["new_value"]);
    assert_eq!(janky["test"], "block_bootstrap");
}

#[test]
fn a_slow_ui_thread_regresses_the_app_layer_and_the_reverse_improves_it() {
    let (_dir, base, new) = injected_pair(Cause::UiThread);
    let (code, json, stderr) = diff_json(&base, &new, &["--fail-on", "janky_pct>+1"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("--fail-on janky_pct>+1 holds")
            && stderr.contains(&format!("layer {LAYER}")),
        "{stderr}"
    );
    assert_eq!(json["verdict"], "regressed");
    for metric in ["janky_pct", "app_janky_pct"] {
        assert_eq!(
            verdict(&json, "layer", LAYER, metric),
            "regressed",
            "{metric}"
        );
    }
    assert_ne!(verdict(&json, "layer", LAYER, "sf_janky_pct"), "regressed");
    let janky = row(&json, "layer", LAYER, "janky_pct");
    assert!(janky["adjusted_p_value"].as_f64().unwrap() < 0.05);
    assert!(janky["delta_value"].as_f64().unwrap() > 3.0, "{janky}");
    // NEW → BASE: the same change the other way.
    let (code, json, stderr) = diff_json(&new, &base, &["--fail-on", "janky_pct>+1"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["verdict"], "improved");
    assert_eq!(verdict(&json, "layer", LAYER, "janky_pct"), "improved");
    // The gate waived of significance holds on any rise only: a fall never triggers `>+1`.
    let (code, _, _) = diff_json(
        &new,
        &base,
        &["--fail-on", "janky_pct>+1", "--no-significance"],
    );
    assert_eq!(code, 0);
}

#[test]
fn a_slow_surfaceflinger_regresses_sf_jank_not_app_jank() {
    let (_dir, base, new) = injected_pair(Cause::SurfaceFlinger);
    let (code, json, stderr) = diff_json(&base, &new, &["--fail-on", "sf_janky_pct>+1"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(verdict(&json, "layer", LAYER, "sf_janky_pct"), "regressed");
    assert_eq!(
        verdict(&json, "process", "com.example.app", "sf_janky_pct"),
        "regressed"
    );
    assert_ne!(verdict(&json, "layer", LAYER, "app_janky_pct"), "regressed");
    let (_, json, _) = diff_json(&new, &base, &[]);
    assert_eq!(verdict(&json, "layer", LAYER, "sf_janky_pct"), "improved");
}

#[test]
fn late_frames_of_one_real_layer_are_flagged_on_that_layer_only() {
    let original = std::fs::read(
        shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace"),
    )
    .unwrap();
    let layer = "TX - com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity#50010";
    let (late, delayed) = ftl::synth::delay_frame_ends(&original, layer, 5, 30_000_000).unwrap();
    assert!(delayed > 100, "{delayed} frames delayed");
    let dir = tempfile::tempdir().unwrap();
    let (base, new) = (
        dir.path().join("base.pftrace"),
        dir.path().join("late.pftrace"),
    );
    std::fs::write(&base, &original).unwrap();
    std::fs::write(&new, &late).unwrap();
    let (code, json, stderr) = diff_json(&base, &new, &["--fail-on", "frame_dur_ms_p90>+10%"]);
    assert_eq!(code, 1, "{stderr}");
    let normalised = ftl::diff::normalize(layer);
    for metric in ["frame_dur_ms_p90", "overrun_ms_p90"] {
        assert_eq!(
            verdict(&json, "layer", &normalised, metric),
            "regressed",
            "{metric}"
        );
    }
    let flagged: Vec<&Value> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "layer" && r["layer_name"] != normalised.as_str())
        .filter(|r| r["verdict"] == "regressed" || r["verdict"] == "improved")
        .collect();
    assert!(flagged.is_empty(), "other layers flagged: {flagged:?}");
}

/// Runs per side: with Holm over ~30 tests, Welch's t on 3 runs cannot reach significance (df ≈ 2), 6 can.
const RUNS: u64 = 6;

#[test]
fn repeated_runs_and_batch_parquet_outputs_use_runs_as_the_unit() {
    let dir = tempfile::tempdir().unwrap();
    let (base, same, worse) = (
        dir.path().join("base"),
        dir.path().join("same"),
        dir.path().join("worse"),
    );
    for d in [&base, &same, &worse] {
        std::fs::create_dir(d).unwrap();
    }
    for i in 0..RUNS {
        write(&base, &format!("run{i}.pftrace"), &pipeline(10 + i, vec![]));
        write(&same, &format!("run{i}.pftrace"), &pipeline(20 + i, vec![]));
        let causes = random_slots(30 + i, SLOTS, 0.05)
            .into_iter()
            .map(|s| (s, Cause::UiThread))
            .collect();
        write(
            &worse,
            &format!("run{i}.pftrace"),
            &pipeline(20 + i, causes),
        );
    }
    let (code, json, stderr) = diff_json(&base, &same, &["--fail-on", "janky_pct>+1"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["mode"], "runs");
    assert_eq!(json["verdict"], "no significant change");
    assert_eq!(row(&json, "layer", LAYER, "janky_pct")["test"], "welch_t");
    let (code, json, stderr) = diff_json(&base, &worse, &["--fail-on", "janky_pct>+1"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(verdict(&json, "layer", LAYER, "janky_pct"), "regressed");
    assert_eq!(row(&json, "layer", LAYER, "janky_pct")["new_runs"], RUNS);

    // The same runs through `ftl batch --by layer --format parquet`: the triage rows are the per-run numbers.
    let out = |d: &Path| {
        let o = dir
            .path()
            .join(format!("{}-out", d.file_name().unwrap().to_str().unwrap()));
        let r = ftl(&[
            "batch",
            d.to_str().unwrap(),
            "--by",
            "layer",
            "--format",
            "parquet",
            "-o",
            o.to_str().unwrap(),
            "-q",
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        o
    };
    let (base_out, worse_out) = (out(&base), out(&worse));
    let (code, parquet, stderr) = diff_json(&base_out, &worse_out, &["--fail-on", "janky_pct>+1"]);
    assert_eq!(code, 1, "{stderr}");
    let (a, b) = (
        row(&json, "layer", LAYER, "janky_pct"),
        row(&parquet, "layer", LAYER, "janky_pct"),
    );
    assert_eq!(b["test"], "welch_t");
    for field in ["base_value", "new_value", "p_value"] {
        let (x, y) = (a[field].as_f64().unwrap(), b[field].as_f64().unwrap());
        assert!((x - y).abs() < 1e-9, "{field}: traces {x}, parquet {y}");
    }
    // frame_dur_ms_p90 is not a triage column: not tested from Parquet.
    assert_eq!(
        row(&parquet, "layer", LAYER, "frame_dur_ms_p90")["verdict"],
        "not tested"
    );
}

/// Splits a Markdown pipe-table line into its cells (escaped pipes kept inside cells).
fn cells(line: &str) -> Vec<String> {
    let inner = line
        .trim()
        .strip_prefix('|')
        .unwrap()
        .strip_suffix('|')
        .unwrap();
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push(chars.next().unwrap())
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

#[test]
fn markdown_is_a_table_and_the_png_is_drawn() {
    let (dir, base, new) = injected_pair(Cause::UiThread);
    let png = dir.path().join("diff.png");
    let out = ftl(&[
        "diff",
        base.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "markdown",
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("### ftl diff: regressed\n"), "{text}");
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    let header = cells(lines[0]);
    assert_eq!(header[..3], ["level", "name", "metric"]);
    assert!(
        cells(lines[1])
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-')),
        "{}",
        lines[1]
    );
    let rows: Vec<Vec<String>> = lines[2..].iter().map(|l| cells(l)).collect();
    assert!(rows.iter().all(|r| r.len() == header.len()));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let first = &rows[0];
    assert_eq!(
        first[col("verdict")],
        "regressed",
        "significant changes first"
    );
    assert!(rows.iter().any(|r| r[col("name")] == LAYER
        && r[col("metric")] == "janky_pct"
        && r[col("verdict")] == "regressed"));
    let image = image::open(&png).unwrap();
    assert_eq!((image.width(), image.height()), (1600, 800));
}

#[test]
fn bad_inputs_and_conditions_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.pftrace", &pipeline(1, vec![]));
    let missing = dir.path().join("missing.pftrace");
    let out = ftl(&["diff", base.to_str().unwrap(), missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("missing.pftrace"), "{stderr}");
    let base = base.to_str().unwrap();
    for bad in [["--fail-on", "janky>+1"], ["--alpha", "2"]] {
        let out = ftl(&["diff", base, base, bad[0], bad[1]]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn text_captures_are_compared_on_their_own_jank_measure() {
    let capture = shared().join("text/linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt");
    let dir = tempfile::tempdir().unwrap();
    for side in ["base", "new"] {
        std::fs::create_dir(dir.path().join(side)).unwrap();
        for i in 0..2 {
            std::fs::copy(&capture, dir.path().join(format!("{side}/gfxinfo{i}.txt"))).unwrap();
        }
    }
    let (code, json, stderr) = diff_json(
        &dir.path().join("base"),
        &dir.path().join("new"),
        &["--fail-on", "janky_pct>+0"],
    );
    assert_eq!(code, 0, "{stderr}");
    let janky = row(&json, "process", "com.tencent.mobileqq", "janky_pct");
    assert_eq!(janky["jank_measure"], "JankTracker");
    assert_eq!(janky["test"], "welch_t");
    assert_eq!(janky["verdict"], "no significant change");
    // The QQ capture's JankTracker summary (recomputed from its framestats rows) is not 0.
    assert!(janky["base_value"].as_f64().unwrap() > 0.0, "{janky}");
    // FrameTimeline-only metrics have nothing to compare.
    assert_eq!(
        row(&json, "process", "com.tencent.mobileqq", "frame_dur_ms_p90")["verdict"],
        "not tested"
    );
}
