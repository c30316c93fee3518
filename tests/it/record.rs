//! `ftl record` and `ftl watch` against the fake adb (`tests/fake_adb/adb`): each release's behaviour, Ctrl-C,
//! every error of the issue, each run bounded in time.

use super::common::shared;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

const APP: &str = "com.example.game";
const ACTIVITY: &str = "com.example.game/com.example.game.MainActivity";

/// A fake device: a scenario file and the fake adb's state next to it.
struct Device {
    dir: tempfile::TempDir,
}

impl Device {
    fn new(scenario: Value) -> Device {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).unwrap();
        Device { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, args: &[&str]) -> Command {
        let adb = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_adb/adb");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ftl"));
        cmd.args(&args[..1])
            .arg("--adb")
            .arg(adb)
            .args(&args[1..])
            .current_dir(self.dir.path())
            .env("FTL_FAKE_ADB_SCENARIO", self.path("scenario.json"))
            .env("FTL_FAKE_ADB_STATE", self.path("state"))
            .env_remove("ANDROID_SERIAL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args).spawn().expect("run ftl")
    }

    /// Runs ftl (first arg: the subcommand) against this device, killed after 60 s.
    fn ftl(&self, args: &[&str]) -> Output {
        finish(self.spawn(args), args)
    }

    /// The adb calls made, one per line.
    fn calls(&self) -> String {
        std::fs::read_to_string(self.path("state/calls.log")).unwrap_or_default()
    }
}

/// Waits for `child` at most 60 s (a hang fails the test), returning its output.
fn finish(mut child: Child, args: &[&str]) -> Output {
    match child.wait_timeout(Duration::from_secs(60)).unwrap() {
        Some(_) => child.wait_with_output().unwrap(),
        None => {
            let _ = child.kill();
            panic!("ftl {args:?} hung");
        }
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A device of release `sdk` running APP, whose layer presents at 60 Hz with a 3-vsync frame every 40.
fn scenario(sdk: u32, surfaceview: bool) -> Value {
    json!({
        "devices": [["emulator-5554", "device"]],
        "sdk": sdk,
        "props": {
            "ro.build.version.release": release(sdk),
            "ro.product.model": "Pixel Fake",
            "ro.build.id": "FAKE.1",
        },
        "packages": [APP],
        "running": {APP: 4321},
        "refresh_period_ns": 16_666_666,
        "layers": [{
            "name": ACTIVITY,
            "package": APP,
            "surfaceview": surfaceview,
            "frames": {"period_ns": 16_666_666, "jank_every": 40, "jank_vsyncs": 3},
        }],
        "gfxinfo": {
            "package": APP,
            "window": ACTIVITY,
            "frames": {"period_ns": 16_666_666, "jank_every": 40, "jank_vsyncs": 3},
        },
        "logcat": {"package": APP, "skipped_every_s": 0.5, "skipped_frames": 5},
        "perfetto": {"trace": shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace")},
    })
}

fn release(sdk: u32) -> &'static str {
    match sdk {
        ..=27 => "8.1",
        28 => "9",
        29 => "10",
        30 => "11",
        31 => "12",
        32 => "12L",
        33 => "13",
        34 => "14",
        35 => "15",
        _ => "16",
    }
}

/// The releases whose behaviours differ (`shared/docs/recording.md`): 9 (binary config, traced property,
/// exec-out), 11 (no FrameTimeline), 12 (BLAST names), 14 (no anim tracker), 16 (RequestedLayerState list,
/// FrameTimeline-backed --latency).
const RELEASES: [u32; 5] = [28, 30, 31, 34, 36];

fn with(mut scenario: Value, key: &str, value: Value) -> Value {
    scenario[key] = value;
    scenario
}

/// `ftl analyze FILE --format json` on a recorded file.
fn analyze_json(dir: &Device, file: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ftl"))
        .args(["analyze", file, "--format", "json"])
        .current_dir(dir.dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "analyze {file}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_trace_is_recorded_the_way_each_release_needs() {
    let source = shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace");
    for sdk in RELEASES {
        let device = Device::new(scenario(sdk, false));
        let out = device.ftl(&[
            "record",
            "--app",
            APP,
            "--duration",
            "1s",
            "-o",
            "t.pftrace",
        ]);
        let calls = device.calls();
        let err = stderr(&out);
        // The config went in binary on stdin (Android 9 has no --txt), for the app.
        assert!(
            calls.contains("-c - -o /data/misc/perfetto-traces/ftl-"),
            "{sdk}: {calls}"
        );
        assert!(!calls.contains("--txt"), "{sdk}: {calls}");
        let config = std::fs::read(device.path("state/perfetto-config.bin")).unwrap();
        for needed in [
            "android.surfaceflinger.frametimeline",
            "sched/sched_waking",
            APP,
        ] {
            assert!(
                config.windows(needed.len()).any(|w| w == needed.as_bytes()),
                "{sdk}: config lacks {needed}"
            );
        }
        // Before Android 10 the tracing service is switched on and the file read with cat; from 10, pulled.
        assert_eq!(
            calls.contains("setprop persist.traced.enable 1"),
            sdk < 30,
            "{sdk}: {calls}"
        );
        assert_eq!(calls.contains("exec-out cat"), sdk < 29, "{sdk}: {calls}");
        assert_eq!(
            calls.contains("\npull ") || calls.starts_with("pull "),
            sdk >= 29,
            "{sdk}: {calls}"
        );
        assert!(
            calls.contains("rm -f /data/misc/perfetto-traces/ftl-"),
            "{sdk}: {calls}"
        );
        let recorded = std::fs::read(device.path("t.pftrace")).unwrap();
        if sdk >= 31 {
            assert!(out.status.success(), "{sdk}: {err}");
            // The trace is the device's, byte for byte, so its analysis is the replayed trace's.
            assert_eq!(recorded, std::fs::read(&source).unwrap(), "{sdk}");
            assert!(
                stdout(&out).contains("SurfaceFrames"),
                "{sdk}: {}",
                stdout(&out)
            );
        } else {
            // Before Android 12: recorded, kept, and the missing FrameTimeline named with what to do instead.
            assert!(!recorded.is_empty());
            assert_eq!(out.status.code(), Some(2), "{sdk}: {err}");
            assert!(err.contains("no FrameTimeline"), "{sdk}: {err}");
            assert!(err.contains("--source latency"), "{sdk}: {err}");
        }
    }
}

/// `ftl record --app APP --source SOURCE --duration DURATION -o FILE`.
fn record_source(device: &Device, source: &str, duration: &str, file: &str) -> Output {
    let args = [
        "record",
        "--app",
        APP,
        "--source",
        source,
        "--duration",
        duration,
        "-o",
        file,
    ];
    device.ftl(&args)
}

/// Present times of a recorded capture's frames (ftl frames).
fn presents(device: &Device, file: &str) -> Vec<i64> {
    let out = Command::new(env!("CARGO_BIN_EXE_ftl"))
        .args(["frames", file])
        .current_dir(device.dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let (header, rows) = super::common::parse_csv(&String::from_utf8(out.stdout).unwrap());
    let col = header.iter().position(|h| h == "present_ns").unwrap();
    rows.iter().filter_map(|r| r[col].parse().ok()).collect()
}

/// True if consecutive presents are 1 or 3 vsyncs apart (the model's frames), i.e. no frame was lost.
fn contiguous(presents: &[i64]) -> bool {
    presents.windows(2).all(|w| {
        let vsyncs = ((w[1] - w[0]) as f64 / 16_666_666.0).round();
        (vsyncs == 1.0 || vsyncs == 3.0) && w[1] > w[0]
    })
}

#[test]
fn a_latency_capture_loses_no_frame_on_any_release() {
    for sdk in RELEASES {
        for surfaceview in [false, true] {
            let mut s = scenario(sdk, surfaceview);
            if sdk >= 35 {
                s["deprecate_frame_tracker"] = json!(true);
            }
            let device = Device::new(s);
            let out = record_source(&device, "latency", "2s", "l.txt");
            assert!(out.status.success(), "{sdk}: {}", stderr(&out));
            let text = std::fs::read_to_string(device.path("l.txt")).unwrap();
            assert!(text.starts_with("# ftl record: dumpsys SurfaceFlinger --latency '"));
            assert!(text.contains(&format!(
                "# device: Pixel Fake | build FAKE.1 | Android {}",
                release(sdk)
            )));
            // The layer with the frames: a game's BLAST child from Android 12, the window's buffer layer.
            let calls = device.calls();
            let polled = calls
                .lines()
                .find(|l| l.contains("--latency '"))
                .unwrap_or_default()
                .to_string();
            match (surfaceview, sdk >= 31) {
                (true, true) => assert!(polled.contains("(BLAST)#"), "{sdk}: {polled}"),
                (true, false) => assert!(polled.contains("SurfaceView - "), "{sdk}: {polled}"),
                (false, _) => assert!(polled.contains(&format!("'{ACTIVITY}#")), "{sdk}: {polled}"),
            }
            let p = presents(&device, "l.txt");
            // Two seconds at 60 Hz and more (the last poll ends it), less the 3-vsync frames; none lost between
            // polls.
            assert!(p.len() >= 100, "{sdk} {surfaceview}: {} frames", p.len());
            assert!(contiguous(&p), "{sdk} {surfaceview}: a frame went missing");
            let json = analyze_json(&device, "l.txt");
            let layer = &json["layers"][0];
            assert_eq!(layer["presented_frames"], json!(p.len()), "{sdk}");
            // A recorded file is never taken for a FrameTimeline-backed dump: it holds only new rows.
            assert!(!json.to_string().contains("FrameTimeline-backed"), "{sdk}");
        }
    }
}

#[test]
fn gfxinfo_and_logcat_captures_are_recorded() {
    let device = Device::new(scenario(34, false));
    let out = record_source(&device, "gfxinfo", "1.5s", "g.txt");
    assert!(out.status.success(), "{}", stderr(&out));
    let calls = device.calls();
    assert!(
        calls.contains(&format!("dumpsys gfxinfo {APP} reset")),
        "{calls}"
    );
    assert!(
        calls.contains(&format!("dumpsys gfxinfo {APP} framestats")),
        "{calls}"
    );
    let p = presents(&device, "g.txt");
    assert!(p.len() >= 60, "{} frames", p.len());
    assert!(stdout(&out).contains("JankTracker"), "{}", stdout(&out));

    let device = Device::new(scenario(34, false));
    let out = record_source(&device, "logcat", "2s", "c.txt");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(device.calls().contains("logcat -c"));
    let json = analyze_json(&device, "c.txt");
    assert!(
        json.to_string().contains("Skipped") || json.to_string().contains("skipped"),
        "{json}"
    );
}

/// Runs `ftl record … --duration 30s` and sends it `presses` SIGINTs 30 ms apart after `after_ms`.
fn interrupted(device: &Device, extra: &[&str], after_ms: u64, presses: u32) -> Output {
    let mut args = vec!["record", "--app", APP, "--duration", "30s"];
    args.extend_from_slice(extra);
    let child = device.spawn(&args);
    std::thread::sleep(Duration::from_millis(after_ms));
    for _ in 0..presses {
        // SAFETY: kill(2) on the pid of a child this test spawned.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGINT);
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    finish(child, &args)
}

#[test]
fn ctrl_c_stops_and_keeps_what_was_captured() {
    // A trace: SIGTERM to the device's perfetto, wait for it, pull.
    let device = Device::new(scenario(34, false));
    let out = interrupted(&device, &["-o", "t.pftrace"], 2000, 1);
    assert!(out.status.success(), "{}", stderr(&out));
    let calls = device.calls();
    assert!(calls.contains("kill -TERM 4242"), "{calls}");
    assert!(stderr(&out).contains("stopped by Ctrl-C"));
    assert!(stdout(&out).contains("SurfaceFrames"));

    // A text capture: every frame polled so far is in the file.
    let device = Device::new(scenario(34, false));
    let out = interrupted(&device, &["--source", "latency", "-o", "l.txt"], 2500, 1);
    assert!(out.status.success(), "{}", stderr(&out));
    let p = presents(&device, "l.txt");
    assert!(p.len() >= 30 && contiguous(&p), "{} frames", p.len());
}

#[test]
fn a_second_ctrl_c_kills_the_session_and_deletes_its_file() {
    // perfetto takes 2 s to write its file after SIGTERM: the second press comes while it does.
    let mut s = scenario(34, false);
    s["perfetto"]["flush_s"] = json!(2.0);
    let device = Device::new(s);
    let out = interrupted(&device, &["-o", "t.pftrace"], 2000, 2);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("aborted"), "{}", stderr(&out));
    let calls = device.calls();
    assert!(calls.contains("kill -KILL 4242"), "{calls}");
    assert!(
        calls.contains("rm -f /data/misc/perfetto-traces/ftl-"),
        "{calls}"
    );
}

#[test]
fn watch_plain_prints_the_fps_analyze_gives_for_the_saved_frames() {
    for source in ["latency", "gfxinfo"] {
        let device = Device::new(scenario(34, false));
        let out = device.ftl(&[
            "watch",
            "--app",
            APP,
            "--source",
            source,
            "--plain",
            "--duration",
            "4.5s",
            "-o",
            "w.txt",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
        assert!(lines.len() >= 2, "{source}: {lines:?}");
        let json = analyze_json(&device, "w.txt");
        let per_second = json["layers"][0]["fps_per_second"]
            .as_array()
            .unwrap()
            .clone();
        for (k, line) in lines.iter().enumerate() {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields[0], format!("t={}s", k + 1), "{line}");
            let fps: f64 = fields[1].strip_prefix("fps=").unwrap().parse().unwrap();
            assert!((54.0..=61.0).contains(&fps), "{source}: {line}");
            assert!(fields[2].starts_with("jank=") && fields[3].starts_with("big_jank="));
            assert!(fields[4].starts_with("layer="), "{line}");
            if let Some(analyzed) = per_second.get(k) {
                assert_eq!(
                    fps,
                    analyzed.as_f64().unwrap(),
                    "{source}: second {}",
                    k + 1
                );
            }
        }
        assert!(per_second.len() + 1 >= lines.len(), "{source}");
    }
}

/// Runs `ftl record` on `scenario` and returns the exit code and stderr.
fn record_error(scenario: Value, extra: &[&str]) -> (Option<i32>, String) {
    let device = Device::new(scenario);
    let mut args = vec!["record", "--app", APP, "--duration", "1s"];
    args.extend_from_slice(extra);
    if !extra.contains(&"-o") {
        args.extend_from_slice(&["-o", "x.out"]);
    }
    let out = device.ftl(&args);
    (out.status.code(), stderr(&out))
}

#[test]
fn every_device_error_is_one_line_that_says_what_to_do() {
    let base = || scenario(34, false);
    let cases: Vec<(Value, Vec<&str>, &str)> = vec![
        (
            with(base(), "devices", json!([])),
            vec![],
            "no device attached",
        ),
        (
            with(
                base(),
                "devices",
                json!([["A1", "device"], ["B2", "device"]]),
            ),
            vec![],
            "-s SERIAL or $ANDROID_SERIAL; `adb devices` lists the serials (attached: A1, B2)",
        ),
        (
            with(base(), "devices", json!([["A1", "unauthorized"]])),
            vec![],
            "Allow USB debugging",
        ),
        (
            with(base(), "devices", json!([["A1", "offline"]])),
            vec![],
            "offline",
        ),
        (base(), vec!["-s", "NOPE"], "device 'NOPE' not found"),
        (with(base(), "packages", json!([])), vec![], "not installed"),
        (
            with(base(), "running", json!({})),
            vec!["--source", "gfxinfo"],
            "not running",
        ),
        (with(base(), "sdk", json!(27)), vec![], "Android 9"),
        (
            with(
                base(),
                "perfetto",
                json!({"trace": "/dev/null", "disk_full": true}),
            ),
            vec![],
            "out of space",
        ),
        (
            base(),
            vec!["--source", "latency", "-o", "/dev/full"],
            "/dev/full",
        ),
        (
            with(base(), "layers", json!([])),
            vec!["--source", "latency"],
            "no SurfaceFlinger layer",
        ),
    ];
    for (scenario, extra, expected) in cases {
        let (code, err) = record_error(scenario, &extra);
        assert_eq!(code, Some(2), "{expected}: {err}");
        assert!(err.contains(expected), "expected {expected:?} in: {err}");
        assert_eq!(
            err.trim()
                .lines()
                .filter(|l| l.starts_with("ftl: ")
                    && !l.starts_with("ftl: note")
                    && !l.starts_with("ftl: recording"))
                .count(),
            1,
            "{err}"
        );
    }
    // No adb at all.
    let device = Device::new(base());
    let out = Command::new(env!("CARGO_BIN_EXE_ftl"))
        .args(["record", "--adb", "/nonexistent/adb", "--duration", "1s"])
        .current_dir(device.dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("adb not found"), "{}", stderr(&out));
}

#[test]
fn a_device_lost_mid_capture_keeps_what_was_captured_and_says_so() {
    for old_client in [false, true] {
        let mut s = scenario(34, false);
        s["disconnect_after_s"] = json!(3.0);
        s["old_client"] = json!(old_client);
        let device = Device::new(s);
        let out = record_source(&device, "latency", "20s", "l.txt");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("disconnected"), "{err}");
        assert!(err.contains("keeps what was polled"), "{err}");
        let p = presents(&device, "l.txt");
        assert!(
            p.len() >= 30 && contiguous(&p),
            "old client {old_client}: {} frames",
            p.len()
        );
    }
    // A trace: perfetto goes on on the device; ftl says where the file is.
    let mut s = scenario(34, false);
    s["disconnect_after_s"] = json!(4.0);
    let device = Device::new(s);
    let out = device.ftl(&[
        "record",
        "--app",
        APP,
        "--duration",
        "20s",
        "-o",
        "t.pftrace",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("disconnected") && err.contains("adb pull /data/misc/perfetto-traces/ftl-"),
        "{err}"
    );
}

#[test]
fn a_users_text_config_goes_with_txt_from_android_10_and_is_refused_on_9() {
    let config = "buffers { size_kb: 1024 }\ndata_sources { config { name: \"android.surfaceflinger.frametimeline\" } }\nduration_ms: 1000\n";
    let device = Device::new(scenario(34, false));
    std::fs::write(device.path("my.pbtx"), config).unwrap();
    let out = device.ftl(&[
        "record",
        "--config",
        "my.pbtx",
        "-o",
        "t.pftrace",
        "--no-analyze",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        device.calls().contains("perfetto --txt -c - -o "),
        "{}",
        device.calls()
    );
    assert_eq!(
        std::fs::read(device.path("state/perfetto-config.bin")).unwrap(),
        config.as_bytes()
    );

    let device = Device::new(scenario(28, false));
    std::fs::write(device.path("my.pbtx"), config).unwrap();
    let out = device.ftl(&["record", "--config", "my.pbtx", "-o", "t.pftrace"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("reads only binary configs"),
        "{}",
        stderr(&out)
    );
    assert!(!device.calls().contains("perfetto"), "{}", device.calls());
}

#[test]
fn a_recreated_layer_is_found_again_and_followed() {
    // From Android 13 the layer's #N changes when the surface is recreated: the old name then matches nothing.
    let mut s = scenario(34, true);
    s["layers"][0]["recreate_after_calls"] = json!(3);
    let device = Device::new(s);
    let out = record_source(&device, "latency", "2s", "l.txt");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("is gone; following SurfaceView["), "{err}");
    let polled: std::collections::BTreeSet<String> = device
        .calls()
        .lines()
        .filter(|l| l.contains("--latency '"))
        .map(str::to_string)
        .collect();
    assert_eq!(polled.len(), 2, "{polled:?}");
    let p = presents(&device, "l.txt");
    assert!(p.len() >= 90, "{} frames", p.len());
}
