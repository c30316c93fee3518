//! Text captures through the commands: the real captures in `../shared/text` give the numbers their owners
//! printed or asserted, hand-made captures give hand-derived pacing numbers, almost-captures fail cleanly, and a
//! batch mixes them with traces.

use crate::common::{ftl, ftl_ok, parse_csv, random_bytes, shared, REAL_TRACES};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn text(name: &str) -> PathBuf {
    shared().join("text").join(name)
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn analyze_json(path: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", path_str(path), "--format", "json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&ftl_ok(&args)).expect("json")
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// A `--latency` dump: the period line, then `desired actual ready` rows for the given presents (ns).
fn latency_dump(period_ns: i64, presents: &[i64]) -> String {
    let mut s = format!("{period_ns}\n");
    for p in presents {
        s.push_str(&format!("{}\t{p}\t{}\n", p - period_ns, p - period_ns / 2));
    }
    s
}

#[test]
fn catapult_latency_captures_parse_as_chromium_asserts() {
    // Catapult's ParseFrameData tests: refresh 16.954612 ms, presents 7657482.691352, 7657499.645964,
    // 7657516.600576 ms; the "unresponsive" warning line is skipped.
    for (file, warnings) in [
        ("catapult_sf_latency_3frames.txt", 0),
        ("catapult_sf_latency_3frames_with_warning.txt", 1),
    ] {
        let path = text(file);
        let report = analyze_json(&path, &[]);
        assert_eq!(report["source"], "sf_latency");
        let layer = &report["layers"][0];
        assert_eq!(layer["refresh_period_ms"].as_f64(), Some(16.954612));
        assert_eq!(layer["presented_frames"], 3);
        assert_eq!(
            layer["layer_name"],
            file.trim_end_matches(".txt"),
            "named after the file"
        );
        let warned = &report["diagnostics"]["SurfaceFlinger 'unresponsive' warnings skipped"];
        assert_eq!(warned["count"].as_u64().unwrap_or(0), warnings);
        let csv = ftl_ok(&["frames", path_str(&path), "--layer-name", "SurfaceView"]);
        let (header, rows) = parse_csv(&csv);
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let presents: Vec<&str> = rows.iter().map(|r| r[col("present_ns")].as_str()).collect();
        assert_eq!(
            presents,
            ["7657482691352", "7657499645964", "7657516600576"]
        );
        assert!(rows.iter().all(|r| r[col("layer_name")] == "SurfaceView"));
        assert_eq!(rows[0][col("desired_present_ns")], "7657467895508");
        assert_eq!(rows[0][col("ready_ns")], "7657493499756");
    }
}

#[test]
fn chromium_unit_cases_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let base = 5_000_000_000i64;
    // Refresh 0.1 s, presents every 0.1 s for 1 s: avg_surface_fps 10, jank_count 0, max_frame_delay 1, and
    // 9 frame lengths.
    let uniform: Vec<i64> = (0..10).map(|i| base + i * 100_000_000).collect();
    let p = write(dir.path(), "uniform", &latency_dump(100_000_000, &uniform));
    let layer = analyze_json(&p, &[])["layers"][0].clone();
    assert_eq!(layer["avg_surface_fps"], 10);
    assert_eq!(layer["jank_count"], 0);
    assert_eq!(layer["max_frame_delay"], 1);
    assert_eq!(layer["frame_lengths"].as_array().unwrap().len(), 9);
    // 10 presents 1 ms apart: no valid frame lengths, a diagnostic instead of numbers.
    let dense: Vec<i64> = (0..10).map(|i| base + i * 1_000_000).collect();
    let p = write(dir.path(), "dense", &latency_dump(100_000_000, &dense));
    let layer = analyze_json(&p, &[])["layers"][0].clone();
    assert_eq!(layer["avg_surface_fps"], Value::Null);
    let notes = layer["pacing_diagnostics"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("No valid frames lengths found.")),
        "{notes:?}"
    );
}

#[test]
fn repeated_dumps_are_merged_and_paced_as_derived_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let period = 16_666_667i64;
    // 3 s at 60 Hz with two stalls: after present 100 one of 6 vsyncs (100 ms, PerfDog Jank), after present 140
    // one of 9 vsyncs (150 ms, BigJank). Polled as three overlapping dumps of ≤ 127 rows, as a collector does.
    let mut presents = Vec::new();
    let mut t = 10_000_000_000i64;
    for i in 0..180 {
        t += match i {
            101 => 6 * period,
            141 => 9 * period,
            _ => period,
        };
        presents.push(t);
    }
    let dumps = [&presents[0..127], &presents[60..150], &presents[120..180]];
    let body: String = dumps.iter().map(|d| latency_dump(period, d)).collect();
    let p = write(dir.path(), "polled.txt", &body);
    let report = analyze_json(&p, &[]);
    assert_eq!(report["capture"]["dumps"], 3);
    let layer = &report["layers"][0];
    assert_eq!(layer["presented_frames"], 180, "each frame once");
    let seen = &report["diagnostics"]["frames already seen in an earlier dump (counted once)"];
    assert_eq!(seen["count"], (127 - 60) + (150 - 120));
    // Intervals 1,…,1,6,1,…,1,9,1,… vsyncs: the rises of 5 and 8 are janks; the longest frame is 9 vsyncs.
    assert_eq!(layer["jank_count"], 2);
    assert_eq!(layer["max_frame_delay"], 9);
    // PerfDog: 100 ms > 2 × 16.7 and > 83.3 ms (Jank); 150 ms > 125 ms (Jank and BigJank).
    assert_eq!(layer["perfdog_jank"], 2);
    assert_eq!(layer["perfdog_big_jank"], 1);
    let span = (presents[179] - presents[0]) as f64;
    let stutter = (15 * period) as f64 * 100.0 / span;
    assert!((layer["perfdog_stutter_pct"].as_f64().unwrap() - stutter).abs() < 1e-9);
    // avg_surface_fps: 179 intervals over the span, Python-rounded.
    let fps = (179.0 / (span / 1e9)).round_ties_even();
    assert_eq!(layer["avg_surface_fps"].as_f64(), Some(fps));
    // sm: desired = actual − 1 period on every row → each frame 1 vsync late: 60 − 60 = 0 in a full second.
    let sm = layer["sm_per_second"].as_array().unwrap();
    assert!(!sm.is_empty());
    assert_eq!(sm[0], 60 - 60);
}

#[test]
fn real_gfxinfo_capture_gives_the_numbers_the_device_printed() {
    let report = analyze_json(&text("linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt"), &[]);
    assert_eq!(report["source"], "gfxinfo");
    let process = &report["processes"][0];
    assert_eq!(process["pid"], 13893);
    assert_eq!(process["process_name"], "com.tencent.mobileqq");
    let dumped = &process["jank_tracker"];
    assert_eq!(dumped["numbers"], "as_dumped");
    assert_eq!(dumped["total_frames"], 188);
    assert_eq!(dumped["janky_frames"], 25);
    assert_eq!(dumped["janky_pct"], 13.3);
    assert_eq!(dumped["janky_frames_legacy"], 35);
    let p: Vec<u64> = ["p50", "p90", "p95", "p99"]
        .iter()
        .map(|q| dumped[format!("frame_time_ms_{q}")].as_u64().unwrap())
        .collect();
    assert_eq!(p, [8, 42, 73, 550]);
    let layers = report["layers"].as_array().unwrap();
    let splash = layers
        .iter()
        .find(|l| {
            l["layer_name"]
                .as_str()
                .unwrap()
                .ends_with("Alias5SplashActivity")
        })
        .expect("the splash window");
    // The 120-row PROFILEDATA block holds one frame HWUI had not finished (line 172): left out.
    assert_eq!(splash["frames"], 119, "the 120-row block's finished frames");
    assert_eq!(
        splash["recomputed_equals_printed"],
        Value::Null,
        "printed 188 > 119 rows"
    );
    assert_eq!(splash["presents_from"], "DisplayPresentTime");
    assert_eq!(splash["period_from"], "FrameInterval");
    let period = splash["refresh_period_ms"].as_f64().unwrap();
    assert!(
        (16.0..17.0).contains(&period),
        "swapped labels read by value: {period}"
    );
    let jt = splash["jank_tracker"].as_array().unwrap();
    assert_eq!(jt[0]["numbers"], "recomputed");
    assert_eq!(jt[1]["numbers"], "as_dumped");
    // Recomputed over the ≤ 120 rows it has: never more than the device counted since its reset, bucket by
    // bucket.
    let (re, du) = (&jt[0], &jt[1]);
    assert!(re["total_frames"].as_u64() <= du["total_frames"].as_u64());
    assert!(re["janky_frames"].as_u64() <= du["janky_frames"].as_u64());
    let hist = |v: &Value| -> Vec<(u64, u64)> {
        v["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap()))
            .collect()
    };
    let (rh, dh) = (hist(re), hist(du));
    assert_eq!(rh.len(), dh.len(), "gfxinfo's own buckets");
    for (r, d) in rh.iter().zip(&dh) {
        assert_eq!(r.0, d.0);
        assert!(r.1 <= d.1, "bucket {} ms: {} > {}", r.0, r.1, d.1);
    }
    assert_eq!(re["frame_time_ms_p50"], du["frame_time_ms_p50"]);
    assert_eq!(
        re["high_input_latency_count"],
        Value::Null,
        "not recomputable"
    );
    // The text report answers first, with the same numbers.
    let shown = ftl_ok(&[
        "analyze",
        path_str(&text("linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt")),
    ]);
    let verdict = shown
        .lines()
        .find(|l| l.starts_with("Verdict"))
        .expect("a verdict line");
    // The app drew in bursts: the verdict leaves the idle gaps out (`ftl explain idle`).
    assert!(splash["idle_gaps"].as_u64().is_some_and(|g| g > 0));
    let expected = format!(
        "{:.1} fps while drawing ({:.1} of {:.1} s; {} idle gap(s) left out); PerfDog {} jank, {} big",
        splash["active_fps"].as_f64().unwrap(),
        splash["active_s"].as_f64().unwrap(),
        (splash["last_present_ns"].as_i64().unwrap() - splash["first_present_ns"].as_i64().unwrap()) as f64
            / 1e9,
        splash["idle_gaps"],
        splash["perfdog_jank_active"],
        splash["perfdog_big_jank_active"]
    );
    assert!(verdict.contains(&expected), "{verdict} / {expected}");
    assert!(verdict.contains(&format!(
        "JankTracker {} of {} frames janky",
        re["janky_frames"], re["total_frames"]
    )));
    // The empty Toast window: 0 frames, percentiles printed as 4950 ms.
    let toast = layers
        .iter()
        .find(|l| l["layer_name"] == "Toast")
        .expect("Toast");
    assert_eq!(toast["jank_tracker"][0]["total_frames"], 0);
    assert_eq!(toast["jank_tracker"][0]["frame_time_ms_p50"], 4950);
}

/// Choreographer lines in the three logcat formats, with other tags around them.
fn logcat(format: &str) -> String {
    let line = |t: &str, pid: u32, tag: &str, msg: &str| match format {
        "brief" => format!("I/{tag}( {pid}): {msg}\n"),
        "time" => format!("11-23 {t} I/{tag}( {pid}): {msg}\n"),
        _ => format!("11-23 {t}  {pid}  {} I {tag}: {msg}\n", pid + 7),
    };
    let skipped = |n: u32| {
        format!(
            "Skipped {n} frames!  The application may be doing too much work on its main thread."
        )
    };
    [
        "--------- beginning of main\n".to_string(),
        line("10:00:00.000", 42, "ActivityManager", "Start proc"),
        line("10:00:00.500", 4242, "Choreographer", &skipped(31)),
        line("10:00:02.200", 4242, "Choreographer", &skipped(130)),
        line("10:00:03.100", 777, "Choreographer", &skipped(45)),
        line("10:00:04.900", 42, "ActivityManager", "Displayed"),
    ]
    .concat()
}

#[test]
fn gt_sm_from_choreographer_lines_in_every_logcat_format() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["time", "threadtime"] {
        let p = write(dir.path(), &format!("{format}.log"), &logcat(format));
        let report = analyze_json(&p, &[]);
        assert_eq!(report["source"], "logcat");
        assert_eq!(report["capture"]["log_format"], format);
        let pids = report["layers"].as_array().unwrap();
        assert_eq!(pids.len(), 2);
        let app = pids.iter().find(|l| l["pid"] == 4242).unwrap();
        // Ticks from 10:00:00.000 to 10:00:04.900: 31 skipped → 29; nothing → 60; 130 → GT sets the two previous
        // ticks to 0 and records 130 % 60 = 10; then 60, 60 (the last, partial tick included).
        assert_eq!(
            app["gt_sm_per_second"],
            serde_json::json!([0, 0, 10, 60, 60])
        );
        assert_eq!(app["gt_sm"].as_f64(), Some(26.0));
        assert_eq!(app["skipped_frames"], 161);
        assert_eq!(app["min_skipped_frames"], 31);
        let other = pids.iter().find(|l| l["pid"] == 777).unwrap();
        assert_eq!(
            other["gt_sm_per_second"],
            serde_json::json!([60, 60, 60, 15, 60])
        );
        let shown = ftl_ok(&["analyze", path_str(&p)]);
        assert!(shown.contains("GT SM"), "{shown}");
        assert!(shown.contains("debug.choreographer.skipwarning"), "{shown}");
    }
    // brief has no timestamps: totals, no per-second values.
    let p = write(dir.path(), "brief.log", &logcat("brief"));
    let report = analyze_json(&p, &[]);
    let app = report["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["pid"] == 4242)
        .unwrap()
        .clone();
    assert_eq!(app["skipped_frames"], 161);
    assert_eq!(app["gt_sm"], Value::Null);
}

/// Runs `ftl analyze` on `path`, asserting a clean one-line failure naming the file and containing `cause`.
fn assert_fails(path: &Path, cause: &str) {
    let out = ftl(&["analyze", path_str(path)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(path_str(path)), "names the file: {stderr}");
    assert!(stderr.contains(cause), "says '{cause}': {stderr}");
}

#[test]
fn almost_captures_fail_cleanly_or_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_fails(
        &write(d, "zero", "0\n1 2 3\n4 5 6\n"),
        "line 1: refresh period 0 ns is not a plausible vsync period",
    );
    assert_fails(
        &write(d, "absurd", "16666666000\n1 2 3\n4 5 6\n"),
        "line 1: refresh period 16666666000 ns",
    );
    assert_fails(&write(d, "layerless", "16666666\n\n"), "matched no layer");
    assert_fails(
        &write(
            d,
            "headless",
            "** Graphics info for pid 7 [com.x] **\n\nProfile data in ms:\n\n\tcom.x/com.x.A/android.view.ViewRootImpl@1 (visibility=0)\n---PROFILEDATA---\nFlags,Vsync,SyncStart,FrameCompleted,\n0,1,2,3,\n---PROFILEDATA---\n",
        ),
        "IntendedVsync",
    );
    assert_fails(&write(d, "empty", ""), "empty file");
    let binary = d.join("binary");
    std::fs::write(&binary, random_bytes(7, 4096)).unwrap();
    let out = ftl(&["analyze", path_str(&binary)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    // Recoverable: non-numeric rows, backwards rows, pending fences are counted with their lines.
    let p = write(
        d,
        "odd",
        "16666666\n1 100000000 1\nnot a row\n1 50000000 1\n1 9223372036854775807 1\n1 200000000 1\n1 300000000 1\n",
    );
    let report = analyze_json(&p, &[]);
    let diag = &report["diagnostics"];
    assert_eq!(
        diag["lines that are not three integers skipped"]["lines"],
        serde_json::json!([3])
    );
    assert_eq!(
        diag["rows going backwards in time inside one dump skipped"]["lines"],
        serde_json::json!([4])
    );
    assert_eq!(
        diag["rows with a pending present fence (INT64_MAX) skipped"]["lines"],
        serde_json::json!([5])
    );
    assert_eq!(report["layers"][0]["presented_frames"], 3);
    let shown = ftl_ok(&["analyze", path_str(&p)]);
    assert!(shown.contains("(line 4)"), "{shown}");
    // A capture has no FrameTimeline slices: said in one line.
    let out = ftl(&["slices", path_str(&p), "--timeline", "actual"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no FrameTimeline slices"));
}

#[test]
fn extreme_times_are_analysed_without_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, body) in [
        // Presents ~292 years apart: no per-second series (a clock fault), no 73 GB allocation.
        ("far", "16666666\n1 1000 1\n2 9223372036854775806 2\n"),
        // Negative and positive extremes: differences overflow i64.
        (
            "wide",
            "16666666\n1 -9000000000000000000 1\n2 9000000000000000000 2\n3 9000000000000000001 3\n",
        ),
        // A desired present far before its present: missed vsyncs overflow.
        ("late", "16666666\n1 1000000000 1\n-9223372036854775807 9223372036854775806 1\n"),
    ] {
        let p = write(d, name, body);
        let out = ftl(&["analyze", path_str(&p), "--format", "json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(report["layers"][0]["presented_frames"].as_u64().unwrap() >= 1, "{name}");
    }
    let far = analyze_json(&d.join("far"), &[]);
    let notes = far["layers"][0]["pacing_diagnostics"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("more than 31 days")),
        "{notes:?}"
    );
    let wide = analyze_json(&d.join("wide"), &[]);
    let skipped =
        &wide["diagnostics"]["rows without a valid actual present time (0 or negative) skipped"];
    assert_eq!(skipped["lines"], serde_json::json!([2]));
}

#[test]
fn readers_never_panic_on_garbage() {
    use ftl::sources::{gfxinfo, logcat, sf_latency};
    let path = Path::new("garbage");
    for seed in 1..40u64 {
        let raw = random_bytes(seed, 2000);
        // Text-like garbage: the characters the formats are made of.
        let alphabet = b"0123456789 ,\t\n-:.()/IEW*[]Skipped frames!PROFILEDATA";
        let texty: Vec<u8> = raw
            .iter()
            .map(|b| alphabet[*b as usize % alphabet.len()])
            .collect();
        for bytes in [&raw, &texty] {
            let _ = sf_latency::read(bytes.as_slice(), path, Some("g"));
            let _ = gfxinfo::read(bytes.as_slice(), path, &gfxinfo::Options::default());
            let _ = logcat::read(bytes.as_slice(), path);
            let head = String::from_utf8_lossy(bytes);
            let _ = (
                sf_latency::looks_like(&head),
                gfxinfo::looks_like(&head),
                logcat::looks_like(&head),
            );
        }
    }
}

#[test]
fn batch_mixes_traces_and_captures_and_gates_on_pacing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (_, file) in REAL_TRACES {
        std::fs::copy(shared().join("traces").join(file), d.join(file)).unwrap();
    }
    for file in [
        "catapult_sf_latency_3frames.txt",
        "linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt",
    ] {
        std::fs::copy(text(file), d.join(file)).unwrap();
    }
    write(d, "app.log", &logcat("threadtime"));
    write(d, "broken_latency.txt", "0\n1 2 3\n4 5 6\n");
    std::fs::write(d.join("noise.bin"), random_bytes(3, 1000)).unwrap();
    let out = ftl(&["batch", path_str(d), "--format", "json", "-q"]);
    assert_eq!(out.status.code(), Some(1), "a bad input: exit 1");
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let source = |name: &str| -> Value {
        rows.iter()
            .find(|r| r["trace"] == name)
            .unwrap_or_else(|| panic!("{name} in {rows:#?}"))["source"]
            .clone()
    };
    for (_, file) in REAL_TRACES {
        assert_eq!(source(file), "perfetto");
    }
    assert_eq!(source("catapult_sf_latency_3frames.txt"), "sf_latency");
    assert_eq!(
        source("linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt"),
        "gfxinfo"
    );
    assert_eq!(source("app.log"), "logcat");
    let broken = rows
        .iter()
        .find(|r| r["trace"] == "broken_latency.txt")
        .unwrap();
    assert!(broken["status"]
        .as_str()
        .unwrap()
        .contains("line 1: refresh period 0 ns"));
    assert_eq!(rows.len(), 7, "one row per input, the broken one included");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("noise.bin: unknown content"), "{stderr}");
    // The gfxinfo row's pacing numbers are those `ftl analyze` gives its window.
    let gfx = rows.iter().find(|r| r["source"] == "gfxinfo").unwrap();
    let analyzed = analyze_json(
        &d.join("linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt"),
        &[],
    );
    let window = &analyzed["layers"][0];
    for column in [
        "perfdog_big_jank",
        "perfdog_jank",
        "avg_surface_fps",
        "max_frame_delay",
    ] {
        assert_eq!(gfx[column], window[column], "{column}");
    }
    assert_eq!(
        rows.iter().find(|r| r["source"] == "logcat").unwrap()["gt_sm"],
        26.0
    );
    // A CI gate on a PerfDog number: the QQ splash has BigJanks.
    let good: Vec<String> = [
        "linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt",
        "catapult_sf_latency_3frames.txt",
    ]
    .iter()
    .map(|f| d.join(f).display().to_string())
    .collect();
    let out = ftl(&[
        "batch",
        &good[0],
        &good[1],
        "--fail-on",
        "perfdog_big_jank>0",
        "-q",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("perfdog_big_jank>0"), "{stderr}");
    assert!(stderr.contains("linkadb_qq"), "{stderr}");
}

/// The Android 12–14 PROFILEDATA header (labels `FrameInterval`/`FrameStartTime` swapped relative to the values).
const GFX_HEADER12: &str = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,\
    AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,\
    SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,\
    GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,";

/// One 12–14 row from its stamps, ms after 1000 s: intended vsync, vsync, sync queued, sync start, issue draw
/// commands, frame completed, frame deadline (as printed, triple-buffer extension included), GPU completed;
/// `raw` overrides FrameCompleted and GpuCompleted with raw ns (a slot HWUI had not finished).
fn gfx_row(flags: i64, ms: [i64; 8], raw: Option<i64>) -> String {
    let t = |ms: i64| 1_000_000_000_000 + ms * 1_000_000;
    let [iv, vsync, sq, ss, idcs, fc, deadline, gpu] = ms;
    let (fc, gpu) = raw.map_or((t(fc), t(gpu)), |v| (v, v));
    let v = [
        flags,
        7,
        t(iv),
        t(vsync),
        0,
        t(vsync),
        t(vsync),
        t(vsync),
        t(vsync),
        t(deadline),
        t(vsync),
        16_000_000,
        t(sq),
        t(ss),
        t(idcs),
        t(idcs + 1),
        fc,
        0,
        0,
        gpu,
        t(idcs + 1),
        0,
        t(idcs + 1),
    ];
    let v: Vec<String> = v.iter().map(i64::to_string).collect();
    format!("{},", v.join(","))
}

/// A whole-app dump of one window whose summary prints `summary` (lines after `Stats since`) over `rows`.
fn gfx_dump(summary: &str, rows: &[String]) -> String {
    gfx_dump_since(999_000_000_000, summary, rows)
}

/// [`gfx_dump`] with the summaries' `Stats since` (ns).
fn gfx_dump_since(since_ns: i64, summary: &str, rows: &[String]) -> String {
    format!(
        "Applications Graphics Acceleration Info:\n** Graphics info for pid 42 [com.example] **\n\n\
         Stats since: {since_ns}ns\n{summary}\nProfile data in ms:\n\n\
         \tcom.example/com.example.Main/android.view.ViewRootImpl@1 (visibility=0)\n\
         Window: com.example/com.example.Main\nStats since: {since_ns}ns\n{summary}\n\n\
         ---PROFILEDATA---\n{GFX_HEADER12}\n{}\n---PROFILEDATA---\n\nView hierarchy:\n",
        rows.join("\n")
    )
}

/// What the device prints for the frames of [`oracle_rows`], derived by hand from AOSP `JankTracker.cpp`
/// (`finishFrame`: a frame counts when duration(IntendedVsync, FrameCompleted) > 0; SurfaceCanvas frames are
/// exempt from jank; janky = GpuCompleted ≥ FrameDeadline as printed; causes from `COMPARISONS` with the frame
/// interval, 16 ms) and `ProfileData.cpp` (buckets, `findPercentile`):
/// - A iv 0: 10 ms, on time.               - B iv 16: 24 − 1 ms stall = 23 ms; GPU 40 ≥ 32: janky; vsync 2 ms
///   late (missed vsync); UI Vsync→SyncStart 13 − 1 = 12 ms ≥ 8 (slow UI); sync 1 < 3.2; draw 8 < 12.
/// - C iv 16 (RT re-draw, Flags 2, same IntendedVsync as B): 11 ms, GPU 27 < 32.
/// - D iv 48 SurfaceCanvas: 52 ms (bucket labelled 53), exempt.
/// - E iv 64: 36 ms; printed deadline 96 (80 + the triple-buffer interval HWUI already added), GPU 100 ≥ 96:
///   janky; draw 33 ≥ 12 (slow draw). Adding the extension again (112) would wrongly make it on time.
/// - F iv 80: not finished when dumped (FrameCompleted a stale value 1 s earlier): not counted.
/// - G iv 96: garbage 2^58 in FrameCompleted/GpuCompleted: not counted.
/// - H iv 112 (Flags 1): 18 − 7 ms stall = 11 ms; GPU 129 ≥ 128: janky, no cause over its threshold.
///
/// Total 6; janky 3 (50.00 %); missed vsync 1, slow UI 1, slow bitmap 0, slow draw 1, deadline missed 3;
/// histogram 10, 11 ×2, 23, 36, 53 ms → p50 (pos 3, 3 left: 53, 36, 23) 23 ms, p90/p95/p99 (pos 5) 53 ms.
/// With F finished in a later dump (15 ms, GPU 95 < 96): total 7, janky 3 (42.86 %), p50 (pos 3, 4 left) 15 ms.
fn oracle_rows(f_finished: bool) -> Vec<String> {
    let f = if f_finished {
        gfx_row(0, [80, 80, 82, 82, 83, 95, 96, 95], None)
    } else {
        gfx_row(0, [80, 80, 82, 82, 83, 0, 96, 0], Some(999_000_000_000))
    };
    vec![
        gfx_row(0, [0, 0, 2, 2, 3, 10, 16, 10], None),
        gfx_row(0, [16, 18, 30, 31, 32, 40, 32, 40], None),
        gfx_row(2, [16, 16, 20, 20, 21, 27, 32, 27], None),
        gfx_row(4, [48, 48, 49, 49, 50, 100, 64, 100], None),
        gfx_row(0, [64, 64, 66, 66, 67, 100, 96, 100], None),
        f,
        gfx_row(0, [96, 96, 98, 98, 99, 0, 112, 0], Some(1 << 58)),
        gfx_row(1, [112, 112, 113, 120, 121, 130, 128, 129], None),
    ]
}

fn oracle_summary(total: u64, pct: &str, p50: u64) -> String {
    format!(
        "Total frames rendered: {total}\nJanky frames: 3 ({pct}%)\nJanky frames (legacy): 2 (33.33%)\n\
         50th percentile: {p50}ms\n90th percentile: 53ms\n95th percentile: 53ms\n99th percentile: 53ms\n\
         Number Missed Vsync: 1\nNumber High input latency: 0\nNumber Slow UI thread: 1\n\
         Number Slow bitmap uploads: 0\nNumber Slow issue draw commands: 1\nNumber Frame deadline missed: 3\n\
         Number Frame deadline missed (legacy): 2\nHISTOGRAM: 10ms=1 11ms=2 23ms=1 36ms=1 53ms=1"
    )
}

#[test]
fn janktracker_recomputed_from_the_rows_equals_what_the_device_printed() {
    let dir = tempfile::tempdir().unwrap();
    let first = gfx_dump(&oracle_summary(6, "50.00", 23), &oracle_rows(false));
    let second = gfx_dump(&oracle_summary(7, "42.86", 15), &oracle_rows(true));
    for (name, body, total, unfinished) in [
        ("one.txt", first.clone(), 6, 2),
        ("two.txt", format!("{first}{second}"), 7, 1),
    ] {
        let report = analyze_json(&write(dir.path(), name, &body), &[]);
        let layer = &report["layers"][0];
        assert_eq!(layer["frames"], total, "{name}");
        assert_eq!(layer["recomputed_equals_printed"], true, "{name}: {layer}");
        let re = &layer["jank_tracker"][0];
        assert_eq!(re["numbers"], "recomputed");
        assert_eq!(
            (re["total_frames"].as_u64(), re["janky_frames"].as_u64()),
            (Some(total), Some(3))
        );
        let diag = report["diagnostics"].as_object().unwrap();
        let left_out: u64 = diag
            .iter()
            .filter(|(k, _)| k.contains("left out"))
            .map(|(_, v)| v["count"].as_u64().unwrap())
            .sum();
        assert_eq!(left_out, unfinished, "{name}: {diag:?}");
    }
    let shown = ftl_ok(&["analyze", path_str(&write(dir.path(), "t.txt", &first))]);
    assert!(
        shown
            .lines()
            .any(|l| l.contains("recomputed") && l.contains(" yes ")),
        "{shown}"
    );
}

#[test]
fn a_summary_line_the_release_does_not_print_is_null_not_zero() {
    // Android 7 prints no `Number Frame deadline missed` (nor the legacy lines).
    let summary = "Total frames rendered: 6\nJanky frames: 3 (50.00%)\n50th percentile: 23ms\n\
                   90th percentile: 53ms\n95th percentile: 53ms\n99th percentile: 53ms\nNumber Missed Vsync: 1\n\
                   Number High input latency: 0\nNumber Slow UI thread: 1\nNumber Slow bitmap uploads: 0\n\
                   Number Slow issue draw commands: 1";
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "n7.txt",
        &gfx_dump(summary, &oracle_rows(false)),
    );
    let report = analyze_json(&path, &[]);
    let dumped = &report["processes"][0]["jank_tracker"];
    assert_eq!(dumped["numbers"], "as_dumped");
    assert_eq!(dumped["missed_deadline_count"], Value::Null);
    assert_eq!(dumped["missed_vsync_count"], 1);
    // The lines it does print still equal the recomputation.
    assert_eq!(report["layers"][0]["recomputed_equals_printed"], true);
    let shown = ftl_ok(&["analyze", path_str(&path)]);
    let row = shown
        .lines()
        .find(|l| l.contains("as_dumped") && l.contains("process"))
        .expect("the process row");
    assert!(row.contains('–'), "{row}");
}

#[test]
fn an_empty_profiledata_block_says_nothing_was_drawn() {
    // `framestats reset` prints, then clears: the next dump's block is empty until the app draws again.
    let dir = tempfile::tempdir().unwrap();
    let summary = "Total frames rendered: 0\nJanky frames: 0 (0.00%)\n50th percentile: 4950ms";
    let path = write(dir.path(), "empty.txt", &gfx_dump(summary, &[]));
    let shown = ftl_ok(&["analyze", path_str(&path)]);
    assert!(
        shown.contains("Nothing drawn: 1 PROFILEDATA block"),
        "{shown}"
    );
    let verdict = shown.lines().find(|l| l.starts_with("Verdict")).unwrap();
    assert!(verdict.contains("nothing drawn"), "{verdict}");
    let report = analyze_json(&path, &[]);
    let diag = report["diagnostics"].as_object().unwrap();
    assert!(
        diag.keys().any(|k| k.contains("nothing was drawn")),
        "{diag:?}"
    );
}

#[test]
fn rows_of_a_dump_before_a_reset_are_not_compared_with_the_later_summary() {
    // `framestats reset` between two dumps: JankTracker::reset clears the counts and the ring buffer, so the
    // second summary (Stats since 1000.2 s) counts one frame K: iv 208 ms, 12 ms, GPU 220 < deadline 224.
    let dir = tempfile::tempdir().unwrap();
    let first = gfx_dump(&oracle_summary(6, "50.00", 23), &oracle_rows(false));
    let k = gfx_row(0, [208, 208, 210, 210, 211, 220, 224, 220], None);
    let summary = "Total frames rendered: 1\nJanky frames: 0 (0.00%)\n50th percentile: 12ms\n\
                   90th percentile: 12ms\n95th percentile: 12ms\n99th percentile: 12ms\nNumber Missed Vsync: 0\n\
                   Number Slow UI thread: 0\nNumber Slow bitmap uploads: 0\n\
                   Number Slow issue draw commands: 0\nNumber Frame deadline missed: 0";
    let second = gfx_dump_since(1_000_200_000_000, summary, &[k]);
    let path = write(dir.path(), "reset.txt", &format!("{first}{second}"));
    let layer = &analyze_json(&path, &[])["layers"][0];
    assert_eq!(layer["frames"], 7, "every finished frame of both dumps");
    assert_eq!(layer["jank_tracker"][0]["total_frames"], 7);
    assert_eq!(layer["recomputed_equals_printed"], true, "{layer}");
}

#[test]
fn real_android_studio_logcat_names_the_process_that_skipped_57_frames() {
    let p = text("ralaunch_logcat_android_studio.txt");
    let report = analyze_json(&p, &[]);
    assert_eq!(report["source"], "logcat");
    assert_eq!(report["capture"]["log_format"], "studio");
    let pids = report["layers"].as_array().unwrap();
    assert_eq!(pids.len(), 1, "{pids:#?}");
    assert_eq!(pids[0]["pid"], 18439);
    assert_eq!(pids[0]["process_name"], "com.app.ralaunch");
    assert_eq!(pids[0]["skipped_frames"], 57);
    assert_eq!(pids[0]["davey_frames"], 0);
    // --process matches the name as well as the pid.
    let by_name = analyze_json(&p, &["--process", "ralaunch"]);
    assert_eq!(by_name["layers"][0]["pid"], 18439);
    let other = analyze_json(&p, &["--process", "com.nothing"]);
    assert_eq!(other["layers"].as_array().unwrap().len(), 0);
}

/// An Android 13 `Davey!` message (JankTracker.cpp; FrameInfoNames with the swapped FrameInterval label).
const DAVEY_A13: &str = "Davey! duration=812ms; Flags=0, FrameTimelineVsyncId=4242, IntendedVsync=1000000000, \
    Vsync=1000000000, InputEventId=0, HandleInputStart=1000500000, AnimationStart=1000600000, \
    PerformTraversalsStart=1000700000, DrawStart=1700000000, FrameDeadline=1016666666, FrameInterval=1000100000, \
    FrameStartTime=16666666, SyncQueued=1790000000, SyncStart=1790100000, IssueDrawCommandsStart=1790200000, \
    SwapBuffers=1800000000, FrameCompleted=1812000000, DequeueBufferDuration=100000, QueueBufferDuration=200000, \
    GpuCompleted=1811000000, SwapBuffersCompleted=1811500000, DisplayPresentTime=0, \
    CommandSubmissionCompleted=1800100000, ";

#[test]
fn davey_lines_are_frames_in_analyze_and_frames() {
    let dir = tempfile::tempdir().unwrap();
    let body = format!(
        "11-23 10:00:00.000   500   510 I ActivityManager: Start proc 4242:com.example.app/u0a61 for activity \
         {{com.example.app/.Main}}\n\
         11-23 10:00:01.000  4242  4260 I OpenGLRenderer: {DAVEY_A13}\n\
         11-23 10:00:02.000  4242  4242 I Choreographer: Skipped 45 frames!  The application may be doing too \
         much work on its main thread.\n\
         11-23 10:00:03.000  4242  4260 I OpenGLRenderer: {}\n",
        DAVEY_A13.replace("duration=812ms", "duration=1503ms")
    );
    let p = write(dir.path(), "davey.log", &body);
    let report = analyze_json(&p, &[]);
    let app = &report["layers"][0];
    assert_eq!(app["pid"], 4242);
    assert_eq!(app["process_name"], "com.example.app");
    assert_eq!(app["davey_frames"], 2);
    assert_eq!(app["davey_max_ms"], 1503);
    let shown = ftl_ok(&["analyze", path_str(&p)]);
    assert!(shown.contains("700 ms or more"), "{shown}");
    let csv = ftl_ok(&["frames", path_str(&p), "--format", "csv"]);
    let (header, table) = parse_csv(&csv);
    let rows: Vec<std::collections::HashMap<&str, &str>> = table
        .iter()
        .map(|r| {
            header
                .iter()
                .map(String::as_str)
                .zip(r.iter().map(String::as_str))
                .collect()
        })
        .collect();
    let events: Vec<&str> = rows.iter().map(|r| r["log_event"]).collect();
    assert_eq!(events, vec!["davey", "choreographer_skip", "davey"]);
    assert_eq!(rows[0]["expected_start_ns"], "1000000000");
    assert_eq!(rows[0]["actual_end_ns"], "1812000000");
    assert_eq!(rows[0]["davey_duration_ms"], "812");
    assert_eq!(rows[0]["log_line"], "2");
    assert_eq!(rows[1]["skipped_frames"], "45");
    assert_eq!(rows[1]["process_name"], "com.example.app");
}

#[test]
fn utf16le_crlf_studio_logcat_is_read_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let body = "2026-02-03 16:04:55.322 18439-18439 Choreographer           com.app.ralaunch                     I  \
                Skipped 57 frames!  The application may be doing too much work on its main thread.\r\n\
                2026-02-03 16:04:56.000 18439-18439 SDLActivity             com.app.ralaunch                     W  x\n";
    let bytes: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(body.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let p = dir.path().join("ps.txt");
    std::fs::write(&p, bytes).unwrap();
    let report = analyze_json(&p, &[]);
    assert_eq!(report["layers"][0]["skipped_frames"], 57);
    assert_eq!(report["layers"][0]["process_name"], "com.app.ralaunch");
    assert_eq!(report["capture"]["span_ms"].as_f64(), Some(678.0));
}

#[test]
fn a_logcat_is_detected_by_any_line_in_its_head() {
    let dir = tempfile::tempdir().unwrap();
    // A paste that starts with prose and a cut line, then one old-Studio line.
    let body = format!(
        "{}ers: cut\n01-29 11:32:58.193 1868-1868/? I/Choreographer: Skipped 151 frames!  The application may \
         be doing too much work on its main thread.\n",
        "notes from the tester, not a log\n".repeat(200)
    );
    let p = write(dir.path(), "paste.txt", &body);
    let report = analyze_json(&p, &[]);
    assert_eq!(report["source"], "logcat");
    assert_eq!(report["capture"]["log_format"], "studio_legacy");
    assert_eq!(report["layers"][0]["pid"], 1868);
    assert_eq!(report["layers"][0]["skipped_frames"], 151);
    // The other text captures still detect as before.
    let latency = write(dir.path(), "l.txt", "16666666\n1 2 3\n4 5 6\n");
    assert_eq!(analyze_json(&latency, &[])["source"], "sf_latency");
}
